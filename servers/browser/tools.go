package main

import (
	"context"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultMaxChars bounds the text of a tool that does not take max_chars; browser_get_text
// declares the same default, and a maximum of 100000, in its schema. Snapshots page at
// snapshotPageSize.
const defaultMaxChars = 20000

// pageOut is every tool's structured output: where it acted. The text content carries the
// rest, so nothing is sent twice.
type pageOut struct {
	Tab string `json:"tab,omitempty"`
}

// located is an input that names a session and tab.
type located interface{ loc() where }

func (w where) loc() where { return w }

// tabbed is an input that names a tab (browser_tabs).
type tabbed interface{ tabID() string }

func tabOf(in any) string {
	if t, ok := in.(tabbed); ok {
		return t.tabID()
	}
	return ""
}

// handler is the body of a tool that acts on a tab: it returns the text for the model.
type handler[In any] func(ctx context.Context, c *call, in In) (string, error)

// addTool registers a tool whose answers and errors are cleaned of the owner's secrets: every
// spelling of every secret's value becomes [secret NAME], whatever put it there (the page's
// text, a value a script returned, a request body the page echoed).
func addTool[In, Out any](s *kit.Server, m *manager, t kit.Tool, h mcp.ToolHandlerFor[In, Out]) {
	kit.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		sec := m.opts.secrets
		if res != nil {
			for _, ct := range res.Content {
				if tc, ok := ct.(*mcp.TextContent); ok {
					tc.Text = sec.redact(tc.Text)
				}
			}
		}
		return res, out, sec.redactErr(err)
	})
}

// addTabTool registers a tool whose calls hold a session and tab.
func addTabTool[In located](s *kit.Server, m *manager, t kit.Tool, h handler[In]) {
	t.OpenWorld = true
	addTool(s, m, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, pageOut, error) {
		c, release, err := m.acquire(ctx, in.loc(), tabOf(in))
		if err != nil {
			return nil, pageOut{}, err
		}
		defer release()
		text, err := h(ctx, c, in)
		if err != nil {
			return nil, pageOut{}, c.browserErr(err)
		}
		c.s.mu.Lock()
		closed := c.s.closed
		c.s.mu.Unlock()
		if !closed { // closing saved it
			if err := c.s.saveProfile(ctx); err != nil {
				m.log.Warn("saving a profile", "profile", c.s.profile, "err", err)
				text += "\n(profile " + c.s.profile + " not saved: " + err.Error() + ")"
			}
		}
		if c.notice != "" {
			text = c.notice + "\n" + text
		}
		out := pageOut{Tab: c.t.id}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	})
}

// addTools registers every tool.
func addTools(s *kit.Server, m *manager, opts *options) {
	addNavigate(s, m)
	addSnapshot(s, m)
	addGetText(s, m)
	addClick(s, m)
	addHover(s, m)
	addType(s, m)
	addFillForm(s, m)
	addPressKey(s, m)
	addDrag(s, m)
	addUpload(s, m, opts)
	addHandleDialog(s, m)
	addWaitFor(s, m)
	addScreenshot(s, m)
	if opts.evaluate {
		addEvaluate(s, m)
	}
	addLogs(s, m)
	addTabs(s, m)
	addProfile(s, m, opts)
}

// Tool timeouts.
const (
	navTimeout    = 45 * time.Second
	actionTimeout = 40 * time.Second
	readTimeout   = 30 * time.Second
)
