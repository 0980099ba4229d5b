package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/jck411/mcp-servers/shared/netguard"
)

type navigateInput struct {
	where
	URL        string  `json:"url" jsonschema:"http(s) URL, back, forward or reload" schema:"minLength=1"`
	NoSnapshot bool    `json:"no_snapshot,omitempty" jsonschema:"skip the snapshot"`
	MaxChars   int     `json:"max_chars,omitempty" jsonschema:"snapshot cap" schema:"minimum=100,maximum=100000,default=24000"`
	Profile    string  `json:"profile,omitempty" jsonschema:"saved login to use and update"`
	Device     string  `json:"device,omitempty" jsonschema:"session's device" schema:"enum=desktop|iphone-15|pixel-7|ipad-mini|ipad-pro"`
	Viewport   []int64 `json:"viewport,omitempty" jsonschema:"[width, height] CSS px" schema:"minItems=2,maxItems=2,minimum=200,maximum=4000"`
	Scale      float64 `json:"scale,omitempty" jsonschema:"device pixel ratio" schema:"minimum=0.5,maximum=4"`
}

func addNavigate(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_navigate",
		Toolset:     toolsetBrowse,
		Description: "Open a URL (or back, forward, reload); returns status, title and a snapshot with [eN] refs.",
		Timeout:     navTimeout,
	}, func(ctx context.Context, c *call, in navigateInput) (string, error) {
		loaded := ""
		if in.Profile != "" {
			var err error
			if loaded, err = c.useProfile(ctx, in.Profile); err != nil {
				return "", err
			}
		}
		if in.Device != "" || len(in.Viewport) > 0 || in.Scale > 0 {
			said, err := c.setDevice(ctx, in.Device, in.Viewport, in.Scale)
			if err != nil {
				return "", err
			}
			loaded += said
		}
		var text string
		var err error
		switch in.URL {
		case "back", "forward", "reload":
			text, err = c.history(ctx, in.URL, !in.NoSnapshot, in.MaxChars)
		default:
			text, err = c.navigate(ctx, in.URL, !in.NoSnapshot, in.MaxChars)
		}
		return loaded + text, err
	})
}

// checkURL refuses schemes other than http and https, and hosts the guard refuses.
func (m *manager) checkURL(ctx context.Context, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" && u.Scheme == "" {
		if u2, err2 := url.Parse("https://" + raw); err2 == nil && u2.Host != "" && !strings.Contains(raw, ":") {
			u, err = u2, nil
		}
	}
	if err != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "bad URL %q: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return "", kit.Errorf(kit.CodeInvalidInput, "refused: only http and https URLs may be opened, not %q", u.Scheme+":")
	}
	if u.Hostname() == "" {
		return "", kit.Errorf(kit.CodeInvalidInput, "bad URL %q: no host", raw)
	}
	if err := m.opts.policy.CheckHost(ctx, u.Hostname()); err != nil {
		var be *netguard.BlockedError
		if errors.As(err, &be) {
			return "", kit.Errorf(kit.CodeInvalidInput, "refused: %v. Only global unicast addresses may be reached (server flags --allow-private-networks, --allow-private-hosts)", be)
		}
		return "", kit.Errorf(kit.CodeUnavailable, "%v", err)
	}
	return u.String(), nil
}

// navigate loads u in the tab and describes the result.
func (c *call) navigate(ctx context.Context, raw string, withSnapshot bool, maxChars int) (string, error) {
	u, err := c.m.checkURL(ctx, raw)
	if err != nil {
		return "", err
	}
	if err := c.m.checkMemory(c.s); err != nil {
		return "", err
	}
	if sameDocument(c.t.state(ctx).url, u) {
		// Only the fragment changes: no document loads, and no load event comes.
		commits := c.t.activity().commits
		if _, err := cdp.Call(ctx, c.t.target(), page.Navigate, page.NavigateParams{URL: u}); err != nil {
			return "", c.browserErr(err)
		}
		if err := c.committed(ctx, commits, "go to "+u); err != nil {
			return "", err
		}
		if !withSnapshot {
			st := c.t.state(ctx)
			return fmt.Sprintf("Page: %s\nTitle: %s\n", st.url, st.title), nil
		}
		return c.changes(ctx, pageState{}, true, maxChars), nil
	}
	report := progress.From(ctx)
	report.Phase(1, 3, "loading "+u)
	guard := c.m.browser.guard()
	seq := guard.Seq()
	var resp *network.Response
	err = c.t.input(ctx, func(ictx context.Context, tg *chromedp.Target) error {
		nctx, cancel := context.WithTimeout(ictx, 30*time.Second)
		defer cancel()
		r, err := chromedp.NavigateResponse(u)(nctx, tg)
		resp = r
		return err
	})
	if blocks := guard.BlocksSince(seq); len(blocks) > 0 && (err != nil || resp == nil || resp.Headers[netguard.BlockedHeader] != nil) {
		return "", kit.Errorf(kit.CodeInvalidInput, "refused: the page led to %s (%s). Only global unicast addresses may be reached (server flags --allow-private-networks, --allow-private-hosts)", blocks[0].Target, blocks[0].Reason)
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		if strings.Contains(le.ErrorText, "ERR_ABORTED") {
			// A navigation that turned into a download is aborted as a page load.
			return c.changes(ctx, pageState{}, false, maxChars), nil
		}
		return "", kit.Errorf(kit.CodeUnavailable, "%s did not load: %s", u, le.ErrorText)
	}
	if err != nil {
		return "", c.browserErr(err)
	}
	var b strings.Builder
	st := c.t.state(ctx)
	fmt.Fprintf(&b, "Page: %s\n", st.url)
	if resp != nil {
		fmt.Fprintf(&b, "Status: %d\n", resp.Status)
	}
	fmt.Fprintf(&b, "Title: %s\n", st.title)
	if !withSnapshot {
		return b.String(), nil
	}
	report.Phase(2, 3, "waiting for the page to settle")
	c.settle(ctx)
	if d := c.t.openDialog(); d != nil {
		fmt.Fprintf(&b, "A %s dialog is open: %q. Answer it with browser_handle_dialog.", d.Type, d.Message)
		return b.String(), nil
	}
	report.Phase(3, 3, "taking the snapshot")
	snap, err := c.snapshot(ctx, "", 0, false)
	if err != nil {
		return "", err
	}
	b.WriteString("\n")
	b.WriteString(pagedSnapshot(snap.text(), 0, maxChars))
	return b.String(), nil
}

// sameDocument reports whether going from cur to next changes only the fragment, which is a
// navigation within the document.
func sameDocument(cur, next string) bool {
	a, err1 := url.Parse(cur)
	b, err2 := url.Parse(next)
	if err1 != nil || err2 != nil || b.Fragment == "" && !strings.HasSuffix(next, "#") {
		return false
	}
	a.Fragment, b.Fragment = "", ""
	a.RawFragment, b.RawFragment = "", ""
	return a.String() == b.String()
}

// history goes back, forward or reloads and answers once the page has committed and settled.
// It waits for no load event: a page restored from the back/forward cache, or a history entry
// of the same document, fires none.
func (c *call) history(ctx context.Context, action string, withSnapshot bool, maxChars int) (string, error) {
	tg := c.t.target()
	before := c.t.state(ctx)
	commits := c.t.activity().commits
	if action == "reload" {
		if _, err := cdp.Call(ctx, tg, page.Reload, page.ReloadParams{}); err != nil {
			return "", c.browserErr(err)
		}
	} else {
		h, err := cdp.Call(ctx, tg, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return "", c.browserErr(err)
		}
		i := int(h.CurrentIndex) + 1
		if action == "back" {
			i = int(h.CurrentIndex) - 1
		}
		if i < 0 || i >= len(h.Entries) {
			return "", kit.Errorf(kit.CodeInvalidInput, "there is no page to go %s to", action)
		}
		if _, err := cdp.Call(ctx, tg, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return "", c.browserErr(err)
		}
	}
	if err := c.committed(ctx, commits, action); err != nil {
		return "", err
	}
	if !withSnapshot {
		st := c.t.state(ctx)
		return fmt.Sprintf("Page: %s\nTitle: %s", st.url, st.title), nil
	}
	return c.changes(ctx, before, true, maxChars), nil
}

// committed waits until a frame of the tab commits a navigation (a new document, a history
// entry, a fragment) after the count commits, or a dialog opens.
func (c *call) committed(ctx context.Context, commits uint64, what string) error {
	timer := time.NewTimer(navCommitTimeout)
	defer timer.Stop()
	for {
		a := c.t.activity()
		if a.commits > commits || a.dialogOpen {
			return nil
		}
		select {
		case <-a.woke:
		case <-timer.C:
			return kit.Errorf(kit.CodeTimeout, "the page did not %s within %s (the server may not answer); browser_snapshot shows where the tab is", what, navCommitTimeout)
		case <-ctx.Done():
			return c.browserErr(ctx.Err())
		}
	}
}

// navCommitTimeout bounds the wait for a navigation to commit: a new document's first bytes.
const navCommitTimeout = 30 * time.Second
