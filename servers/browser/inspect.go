package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/netguard"
)

type waitInput struct {
	where
	Text     string  `json:"text,omitempty" jsonschema:"until shown"`
	TextGone string  `json:"text_gone,omitempty" jsonschema:"until gone"`
	Ref      string  `json:"ref,omitempty" jsonschema:"until visible"`
	Seconds  float64 `json:"seconds,omitempty" jsonschema:"wait this long, or timeout (10)" schema:"minimum=0,maximum=30"`
}

func addWaitFor(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_wait_for",
		Toolset:     toolsetBrowse,
		Description: "Wait for text to appear or go, a ref to show, or seconds, when a page changes after an action's report.",
		ReadOnly:    true,
		Timeout:     50 * time.Second,
	}, func(ctx context.Context, c *call, in waitInput) (string, error) {
		before := c.t.state(ctx)
		conds := 0
		for _, s := range []string{in.Text, in.TextGone, in.Ref} {
			if s != "" {
				conds++
			}
		}
		if conds == 0 {
			if in.Seconds == 0 {
				return "", kit.Errorf(kit.CodeInvalidInput, "give text, text_gone, ref or seconds")
			}
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return c.changes(ctx, before, false, snapshotPageSize), nil
		}
		timeout := 10 * time.Second
		if in.Seconds > 0 {
			timeout = time.Duration(in.Seconds * float64(time.Second))
		}
		var id nodeRef
		if in.Ref != "" {
			var err error
			if id, err = c.nodeSeen(ctx, in.Ref); err != nil {
				return "", err
			}
		}
		deadline := time.Now().Add(timeout)
		for {
			ok, err := c.condition(ctx, in, id)
			if err != nil {
				return "", err
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				return "", kit.Errorf(kit.CodeTimeout, "the condition did not hold within %s", timeout)
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return "Done.\n" + c.changes(ctx, before, false, snapshotPageSize), nil
	})
}

// condition checks one wait_for condition in the page.
// id is the element of in.Ref, which must be visible.
func (c *call) condition(ctx context.Context, in waitInput, id nodeRef) (bool, error) {
	if c.t.openDialog() != nil {
		return true, nil
	}
	if id.id != 0 {
		tg, err := c.on(ctx, id)
		if err != nil {
			return false, err
		}
		if _, _, err := center(ctx, tg, id.id); err != nil {
			return false, nil //nolint:nilerr // not visible yet
		}
	}
	for _, q := range []struct {
		text string
		want bool
	}{{in.Text, true}, {in.TextGone, false}} {
		if q.text == "" {
			continue
		}
		b, _ := json.Marshal(q.text)
		v, err := evalValue(ctx, c, "!!document.body && document.body.innerText.includes("+string(b)+")")
		if err != nil {
			return false, err
		}
		if (string(v) == "true") != q.want {
			return false, nil
		}
	}
	return true, nil
}

// evalValue evaluates an expression in the page and returns its JSON value.
func evalValue(ctx context.Context, c *call, expr string) (json.RawMessage, error) {
	res, err := cdp.Call(ctx, c.t.target(), runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expr,
		ReturnByValue: ptr(true),
		AwaitPromise:  ptr(true),
		UserGesture:   ptr(true),
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "JavaScript error: %s", exceptionMessage(res.ExceptionDetails))
	}
	if res.Result == nil {
		return json.RawMessage("null"), nil
	}
	if len(res.Result.Value) == 0 {
		if res.Result.Type == runtime.RemoteObjectTypeUndefined {
			return json.RawMessage("undefined"), nil
		}
		if res.Result.Description != "" {
			b, _ := json.Marshal(res.Result.Description)
			return b, nil
		}
		return json.RawMessage("null"), nil
	}
	return json.RawMessage(res.Result.Value), nil
}

type evaluateInput struct {
	where
	Function string `json:"function" jsonschema:"e.g. () => document.title" schema:"minLength=1"`
	Ref      string `json:"ref,omitempty" jsonschema:"element passed in"`
}

func addEvaluate(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_evaluate",
		Toolset:     toolsetEvaluate,
		Description: "Run a JavaScript function in the page; returns JSON. For what the other tools cannot read or do.",
		Destructive: true,
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in evaluateInput) (string, error) {
		if strings.TrimSpace(in.Function) == "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "function is empty")
		}
		if d := c.t.openDialog(); d != nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "a %s dialog is open; answer it with browser_handle_dialog first", d.Type)
		}
		// A script could read the secret out of its field, in whatever form it liked.
		if shown, _, err := c.secretShown(ctx); err != nil {
			return "", c.browserErr(err)
		} else if shown {
			return "", kit.Errorf(kit.CodeInvalidInput, "%v", errSecretShown)
		}
		var v json.RawMessage
		var err error
		if in.Ref != "" {
			id, tg, err := c.element(ctx, in.Ref)
			if err != nil {
				return "", err
			}
			v, err = callOn(ctx, tg, id.id, "function(){ const f = ("+in.Function+"\n); return typeof f === 'function' ? f(this) : f; }")
			if err != nil {
				return "", err
			}
		} else if v, err = evalValue(ctx, c, "(() => { const f = ("+in.Function+"\n); return typeof f === 'function' ? f() : f; })()"); err != nil {
			return "", err
		}
		return paged(c.clean(string(v)), 0, defaultMaxChars), nil
	})
}

type logsInput struct {
	where
	Kind    string `json:"kind,omitempty" schema:"enum=console|network,default=console,bare=true"`
	Filter  string `json:"filter,omitempty" jsonschema:"level, or URL substring"`
	Type    string `json:"type,omitempty" jsonschema:"e.g. XHR"`
	Failed  bool   `json:"failed,omitempty" jsonschema:"only failures"`
	All     bool   `json:"all,omitempty" jsonschema:"include older"`
	Request int    `json:"request,omitempty" jsonschema:"#n: headers and body" schema:"minimum=1"`
}

func addLogs(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_logs",
		Toolset:     toolsetBrowse,
		Description: "Console messages since the last call, or network requests.",
		ReadOnly:    true,
		Timeout:     readTimeout,
	}, func(ctx context.Context, c *call, in logsInput) (string, error) {
		if in.Request > 0 {
			return c.requestDetail(ctx, in.Request)
		}
		if in.Kind == "network" {
			return c.networkText(in.Filter, in.Type, in.Failed), nil
		}
		return c.consoleText(in.Filter, in.All), nil
	})
}

func (c *call) consoleText(level string, all bool) string {
	c.t.mu.Lock()
	from := c.t.consoleSeen
	if all {
		from = 0
	}
	entries := append([]consoleEntry(nil), c.t.console[from:]...)
	c.t.consoleSeen = len(c.t.console)
	c.t.mu.Unlock()
	var b strings.Builder
	n := 0
	level = consoleLevel(level)
	for _, e := range entries {
		if level != "" && consoleLevel(e.level) != level {
			continue
		}
		n++
		fmt.Fprintf(&b, "[%s] %s\n", e.level, e.text)
	}
	if n == 0 {
		return "No console messages."
	}
	return paged(c.clean(b.String()), 0, defaultMaxChars)
}

// consoleLevel folds the names of a level together: console.warn is "warning", the log
// domain's "warning" too, and a caller may say either.
func consoleLevel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "warn":
		return "warning"
	case "errors":
		return "error"
	}
	return s
}

func (c *call) networkText(filter, kind string, failed bool) string {
	c.t.mu.Lock()
	reqs := make([]netRequest, 0, len(c.t.requests))
	for _, r := range c.t.requests {
		reqs = append(reqs, *r)
	}
	c.t.mu.Unlock()
	var blocks []netguard.Block
	if g := c.m.browser.guard(); g != nil {
		blocks = g.BlocksSince(0)
	}
	var b strings.Builder
	n := 0
	for _, r := range reqs {
		if filter != "" && !strings.Contains(r.url, filter) || kind != "" && !strings.EqualFold(r.kind, kind) {
			continue
		}
		if failed && r.failed == "" && r.status < 400 {
			continue
		}
		n++
		status := "…"
		switch {
		case r.failed != "":
			status = r.failed
		case r.status != 0:
			status = fmt.Sprint(r.status)
		}
		if reason := r.blockedGuard; reason != "" || r.failed != "" && r.status == 0 {
			if reason == "" {
				reason = guardReason(blocks, r.url)
			}
			if reason != "" {
				status += " (blocked: " + reason + ")"
			}
		}
		u := r.url
		if len(u) > 300 {
			u = u[:300] + "…"
		}
		fmt.Fprintf(&b, "#%d %s %s %s %s\n", r.n, r.method, status, r.kind, u)
	}
	if n == 0 {
		return "No matching requests."
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return paged(c.clean(fmt.Sprintf("%d request%s:\n%s", n, plural, b.String())), 0, defaultMaxChars)
}

// guardReason returns the guard's reason for refusing a request that failed without a
// response the browser reported: a plain request by its URL, an https one by its CONNECT.
func guardReason(blocks []netguard.Block, raw string) string {
	target := raw
	if u, err := url.Parse(raw); err == nil && u.Scheme == "https" {
		port := u.Port()
		if port == "" {
			port = "443"
		}
		target = net.JoinHostPort(u.Hostname(), port)
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Target == target {
			return blocks[i].Reason
		}
	}
	return ""
}
