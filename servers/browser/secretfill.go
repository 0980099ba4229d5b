package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// secretMark is a document a secret was typed into: while it is shown, browser_evaluate is
// refused (it could read the field), and so are screenshots when the field shows what it holds.
type secretMark struct {
	loader  cdp.LoaderID
	url     string // the document's URL without its fragment: a reload or a return to it may restore the field
	visible bool   // typed into a field that is not a password field
}

// frameDoc returns the origin and document (loader) a frame shows, as the browser reports them
// (not the page's scripts, which could lie).
func frameDoc(ctx context.Context, tg *chromedp.Target, frame cdp.FrameID) (*cdp.Frame, error) {
	ft, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	var find func(t *page.FrameTree) *cdp.Frame
	find = func(t *page.FrameTree) *cdp.Frame {
		if t.Frame.ID == frame {
			return t.Frame
		}
		for _, c := range t.ChildFrames {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	f := find(ft.FrameTree)
	if f == nil {
		return nil, kit.Errorf(kit.CodeNotFound, "the frame that held the field is gone; take a browser_snapshot")
	}
	return f, nil
}

// docURL is a frame's URL without its fragment.
func docURL(f *cdp.Frame) string {
	u, _, _ := strings.Cut(f.URL, "#")
	return u
}

// fillSecret types the owner's secret name into a text field, only in a page of one of the
// secret's origins, and checks that it took. Nothing it says holds the value.
func (c *call) fillSecret(ctx context.Context, f fieldTarget, name string) error {
	sec, err := c.m.opts.secrets.get(name)
	if err != nil {
		return kit.Errorf(kit.CodeInvalidInput, "%s: %v", f.label, err)
	}
	f.hidden = true
	doc, err := frameDoc(ctx, f.tg, f.n.frame)
	if err != nil {
		return err
	}
	origin := doc.SecurityOrigin
	if !sec.allows(origin) {
		c.m.log.Warn("secret refused for an origin", "secret", name, "origin", origin)
		return kit.Errorf(kit.CodeInvalidInput, "%s: the secret %s may be typed only into pages of %s; this field is in a page of %s, so nothing was typed",
			f.label, name, joinOrigins(sec.origins), origin)
	}
	fd, err := describeField(ctx, f)
	if err != nil {
		return err
	}
	if fd.Kind != "text" && fd.Kind != "editable" {
		return kit.Errorf(kit.CodeInvalidInput, "%s: a secret is typed into a text field; this is a %s field", f.label, kindName(fd))
	}
	c.t.markSecret(f.n.frame, secretMark{loader: doc.LoaderID, url: docURL(doc), visible: !fd.Password})
	if err := typeText(ctx, f, sec.value, false); err != nil {
		return err
	}
	if after, err := frameDoc(ctx, f.tg, f.n.frame); err != nil || after.SecurityOrigin != origin || after.LoaderID != doc.LoaderID {
		return kit.Errorf(kit.CodeUnavailable, "%s: the page changed while the secret %s was typed; check where the tab is before going on", f.label, name)
	}
	got, err := readField(ctx, f)
	if err != nil {
		return err
	}
	if fd.Kind == "editable" {
		got = squash(got)
	}
	if got != sec.value && (fd.Kind != "editable" || got != squash(sec.value)) {
		return kit.Errorf(kit.CodeInvalidInput, "%s: the field does not hold the secret %s after typing (the page changed or refused it)", f.label, name)
	}
	return nil
}

func joinOrigins(origins []string) string {
	if len(origins) == 1 {
		return origins[0]
	}
	out := ""
	for i, o := range origins {
		switch {
		case i == 0:
		case i == len(origins)-1:
			out += " or "
		default:
			out += ", "
		}
		out += o
	}
	return out
}

// markSecret records that a secret was typed into the document frame shows.
func (t *tab) markSecret(frame cdp.FrameID, m secretMark) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.secretDocs == nil {
		t.secretDocs = map[cdp.FrameID]secretMark{}
	}
	if old, ok := t.secretDocs[frame]; ok && old.url == m.url {
		m.visible = m.visible || old.visible
	}
	t.secretDocs[frame] = m
	t.secretAt = time.Now()
}

// errSecretShown is what browser_evaluate and screenshots answer on a page holding a secret.
var errSecretShown = errors.New("a secret was typed into this page; browser_evaluate, and screenshots while the secret is visible in a field, are refused until the tab shows another page")

// secretShown reports whether a document a secret was typed into is still shown in the tab,
// and whether the secret is visible there (not in a password field).
func (c *call) secretShown(ctx context.Context) (shown, visible bool, err error) {
	c.t.mu.Lock()
	marks := make(map[cdp.FrameID]secretMark, len(c.t.secretDocs))
	for k, v := range c.t.secretDocs {
		marks[k] = v
	}
	c.t.mu.Unlock()
	if len(marks) == 0 {
		return false, false, nil
	}
	targets := []*chromedp.Target{c.t.target()}
	for _, fs := range c.t.oopifs {
		targets = append(targets, fs.tg)
	}
	for _, tg := range targets {
		ft, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return false, false, err
		}
		var walk func(t *page.FrameTree)
		walk = func(t *page.FrameTree) {
			if m, ok := marks[t.Frame.ID]; ok && (m.loader == t.Frame.LoaderID || m.url == docURL(t.Frame)) {
				shown = true
				visible = visible || m.visible
			}
			for _, ch := range t.ChildFrames {
				walk(ch)
			}
		}
		walk(ft.FrameTree)
	}
	return shown, visible, nil
}

// clean redacts the owner's secrets from text before it is cut to a page, so no cut leaves
// part of one.
func (c *call) clean(text string) string { return c.m.opts.secrets.redact(text) }

// cleanTree redacts the owner's secrets from the names and values of a snapshot's tree.
func (c *call) cleanTree(n *axNode) {
	if c.m.opts.secrets.scrub == nil || n == nil {
		return
	}
	n.name, n.value = c.clean(n.name), c.clean(n.value)
	for _, ch := range n.children {
		c.cleanTree(ch)
	}
}
