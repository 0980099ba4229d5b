package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
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
	c.settle(ctx)
	if d := c.t.openDialog(); d != nil {
		fmt.Fprintf(&b, "A %s dialog is open: %q. Answer it with browser_handle_dialog.", d.Type, d.Message)
		return b.String(), nil
	}
	snap, err := c.snapshot(ctx, "", 0, false)
	if err != nil {
		return "", err
	}
	b.WriteString("\n")
	b.WriteString(pagedSnapshot(snap.text(), 0, maxChars))
	return b.String(), nil
}

// history goes back, forward or reloads, and returns the new page.
func (c *call) history(ctx context.Context, action string, withSnapshot bool, maxChars int) (string, error) {
	var act chromedp.Action[chromedp.Void]
	switch action {
	case "back":
		act = chromedp.NavigateBack()
	case "forward":
		act = chromedp.NavigateForward()
	default:
		act = chromedp.Reload()
	}
	before := c.t.state(ctx)
	err := c.t.input(ctx, func(ictx context.Context, tg *chromedp.Target) error {
		nctx, cancel := context.WithTimeout(ictx, 30*time.Second)
		defer cancel()
		_, err := act(nctx, tg)
		return err
	})
	if err != nil && strings.Contains(err.Error(), "invalid navigation entry") {
		return "", kit.Errorf(kit.CodeInvalidInput, "there is no page to go %s to", action)
	}
	if err != nil {
		return "", err
	}
	if !withSnapshot {
		st := c.t.state(ctx)
		return fmt.Sprintf("Page: %s\nTitle: %s", st.url, st.title), nil
	}
	return c.changes(ctx, before, true, maxChars), nil
}
