package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchClient drives one MCP server the way a model would: it calls the tools a model needs for
// an action, reads refs from the snapshots it got, and counts what the action cost.
type benchClient struct {
	name string
	cs   *mcp.ClientSession
	d    dialect
	last string // the snapshot text refs are looked up in

	calls, bytes int // of the current action
	got          strings.Builder
}

// call calls a tool and returns its text; a tool error is an error.
func (c *benchClient) call(ctx context.Context, tool string, args map[string]any) (string, error) {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", c.name, tool, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	text := b.String()
	c.calls++
	c.bytes += len(text)
	c.got.WriteString(text + "\n")
	if res.IsError {
		return text, fmt.Errorf("%s %s(%v): %s", c.name, tool, args, text)
	}
	return text, nil
}

// ref finds the ref of the element with role and name in the last snapshot.
func (c *benchClient) ref(role, name string) (string, error) {
	if r, ok := c.d.ref(c.last, role, name); ok {
		return r, nil
	}
	return "", fmt.Errorf("%s: no %s %q in the last snapshot:\n%.1500s", c.name, role, name, c.last)
}

// benchField is a form field as a model names it from a snapshot: kind is textbox, date,
// number, checkbox or combobox, which each server shows under its own role.
type benchField struct{ kind, name, value string }

// dialect is how one server's tools do each action a model takes.
type dialect interface {
	open(ctx context.Context, c *benchClient, url string) error
	click(ctx context.Context, c *benchClient, role, name string) error
	fill(ctx context.Context, c *benchClient, fields []benchField, submit string) error
	find(ctx context.Context, c *benchClient, text string) error
	back(ctx context.Context, c *benchClient) error
	ref(snapshot, role, name string) (string, bool)
}

// ours is this server: every action is one call, and actions answer with what changed.
type ours struct{}

func (ours) open(ctx context.Context, c *benchClient, url string) error {
	text, err := c.call(ctx, "browser_navigate", map[string]any{"url": url})
	c.last = text
	return err
}

// keep adds an action's answer to the snapshot refs are read from: a whole new page replaces
// it, a diff adds its lines (refs of unchanged lines stay valid).
func (o ours) keep(c *benchClient, text string) {
	if strings.HasPrefix(text, "Page: ") || !strings.Contains(text, "Changes:") {
		c.last = text
		return
	}
	c.last += "\n" + text
}

func (o ours) click(ctx context.Context, c *benchClient, role, name string) error {
	r, err := c.ref(role, name)
	if err != nil {
		return err
	}
	text, err := c.call(ctx, "browser_click", map[string]any{"ref": r})
	o.keep(c, text)
	return err
}

func (o ours) fill(ctx context.Context, c *benchClient, fields []benchField, submit string) error {
	var fs []map[string]any
	for _, f := range fields {
		role := f.kind
		if role == "number" {
			role = "spinbutton"
		}
		r, err := c.ref(role, f.name)
		if err != nil {
			return err
		}
		fs = append(fs, map[string]any{"ref": r, "value": f.value})
	}
	s, err := c.ref("button", submit)
	if err != nil {
		return err
	}
	text, err := c.call(ctx, "browser_fill_form", map[string]any{"fields": fs, "submit": s})
	o.keep(c, text)
	return err
}

func (ours) find(ctx context.Context, c *benchClient, text string) error {
	_, err := c.call(ctx, "browser_snapshot", map[string]any{"find": text})
	return err
}

func (o ours) back(ctx context.Context, c *benchClient) error {
	text, err := c.call(ctx, "browser_navigate", map[string]any{"url": "back"})
	o.keep(c, text)
	return err
}

func (ours) ref(snapshot, role, name string) (string, bool) {
	m := regexp.MustCompile(`(?i:` + regexp.QuoteMeta(role) + `) ` + regexp.QuoteMeta(`"`+name+`"`) + ` \[(e\d+)\]`).FindStringSubmatch(snapshot)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// playwright is Playwright MCP 0.0.83: its actions save their snapshot to a file and answer with
// the file's name, so reading the page takes browser_snapshot.
type playwright struct{}

func (playwright) snapshot(ctx context.Context, c *benchClient) error {
	text, err := c.call(ctx, "browser_snapshot", map[string]any{})
	c.last = text
	return err
}

func (p playwright) open(ctx context.Context, c *benchClient, url string) error {
	if _, err := c.call(ctx, "browser_navigate", map[string]any{"url": url}); err != nil {
		return err
	}
	return p.snapshot(ctx, c)
}

func (p playwright) click(ctx context.Context, c *benchClient, role, name string) error {
	r, err := c.ref(role, name)
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, "browser_click", map[string]any{"target": r, "element": name}); err != nil {
		return err
	}
	return p.snapshot(ctx, c)
}

func (p playwright) fill(ctx context.Context, c *benchClient, fields []benchField, submit string) error {
	var fs []map[string]any
	for _, f := range fields {
		role, typ := f.kind, f.kind
		switch f.kind {
		case "date":
			role, typ = "textbox", "textbox"
		case "number":
			role, typ = "spinbutton", "textbox"
		}
		r, err := c.ref(role, f.name)
		if err != nil {
			return err
		}
		fs = append(fs, map[string]any{"target": r, "name": f.name, "type": typ, "value": f.value})
	}
	s, err := c.ref("button", submit)
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, "browser_fill_form", map[string]any{"fields": fs}); err != nil {
		return err
	}
	if _, err := c.call(ctx, "browser_click", map[string]any{"target": s, "element": submit}); err != nil {
		return err
	}
	return p.snapshot(ctx, c)
}

func (playwright) find(ctx context.Context, c *benchClient, text string) error {
	_, err := c.call(ctx, "browser_find", map[string]any{"text": text})
	return err
}

func (p playwright) back(ctx context.Context, c *benchClient) error {
	if _, err := c.call(ctx, "browser_navigate_back", map[string]any{}); err != nil {
		return err
	}
	return p.snapshot(ctx, c)
}

func (playwright) ref(snapshot, role, name string) (string, bool) {
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`"`) + `[^\n]*?\[ref=([^\]]+)\]`).FindStringSubmatch(snapshot)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// devtools is chrome-devtools-mcp 1.11.0: navigate_page answers without a snapshot;
// click and fill take includeSnapshot.
type devtools struct{}

func (devtools) snapshot(ctx context.Context, c *benchClient) error {
	text, err := c.call(ctx, "take_snapshot", map[string]any{"pageId": 1})
	c.last = text
	return err
}

func (d devtools) open(ctx context.Context, c *benchClient, url string) error {
	if _, err := c.call(ctx, "navigate_page", map[string]any{"pageId": 1, "type": "url", "url": url}); err != nil {
		return err
	}
	return d.snapshot(ctx, c)
}

func (devtools) click(ctx context.Context, c *benchClient, role, name string) error {
	r, err := c.ref(role, name)
	if err != nil {
		return err
	}
	text, err := c.call(ctx, "click", map[string]any{"pageId": 1, "uid": r, "includeSnapshot": true})
	c.last = text
	return err
}

func (devtools) fill(ctx context.Context, c *benchClient, fields []benchField, submit string) error {
	var fs []map[string]any
	for _, f := range fields {
		role := map[string]string{"date": "Date", "number": "spinbutton"}[f.kind]
		if role == "" {
			role = f.kind
		}
		r, err := c.ref(role, f.name)
		if err != nil {
			return err
		}
		fs = append(fs, map[string]any{"uid": r, "value": f.value})
	}
	s, err := c.ref("button", submit)
	if err != nil {
		return err
	}
	if _, err := c.call(ctx, "fill_form", map[string]any{"pageId": 1, "elements": fs}); err != nil {
		return err
	}
	text, err := c.call(ctx, "click", map[string]any{"pageId": 1, "uid": s, "includeSnapshot": true})
	c.last = text
	return err
}

func (d devtools) find(ctx context.Context, c *benchClient, _ string) error {
	return d.snapshot(ctx, c) // it has no search: the model reads the whole snapshot
}

func (d devtools) back(ctx context.Context, c *benchClient) error {
	if _, err := c.call(ctx, "navigate_page", map[string]any{"pageId": 1, "type": "back"}); err != nil {
		return err
	}
	return d.snapshot(ctx, c)
}

func (devtools) ref(snapshot, role, name string) (string, bool) {
	m := regexp.MustCompile(`uid=(\S+) ` + regexp.QuoteMeta(role+` "`+name+`"`)).FindStringSubmatch(snapshot)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// benchAction is one thing a user waits on: prep brings the page to where it starts (not
// timed), act does it, and want is a fact the answer must carry for the action to count.
type benchAction struct {
	name, page string
	prep       func(ctx context.Context, c *benchClient, base string) error
	act        func(ctx context.Context, c *benchClient, base string) error
	want       string // a regular expression
}

// benchResult is one run of an action.
type benchResult struct {
	took         time.Duration
	calls, bytes int
	err          error
	missed       bool // answered without the fact
}

// run does one action and measures it.
func (a benchAction) run(ctx context.Context, c *benchClient, base string) benchResult {
	if a.prep != nil {
		if err := a.prep(ctx, c, base); err != nil {
			return benchResult{err: fmt.Errorf("prepare: %w", err)}
		}
	}
	c.calls, c.bytes = 0, 0
	c.got.Reset()
	start := time.Now()
	err := a.act(ctx, c, base)
	r := benchResult{took: time.Since(start), calls: c.calls, bytes: c.bytes, err: err}
	r.missed = err == nil && !regexp.MustCompile(a.want).MatchString(c.got.String())
	return r
}
