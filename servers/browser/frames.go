package main

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// Bounds of the out-of-process iframes a snapshot reads: how deep they nest and how many.
const (
	maxFrameDepth = 4
	maxOOPIFs     = 24
)

// frameSession is a session on an out-of-process (cross-site) iframe of a tab. Chromium runs
// such an iframe in its own renderer, as a target of its own; its DOM, accessibility tree
// and input are reached only through a session attached to that target.
type frameSession struct {
	ctx    context.Context
	cancel context.CancelFunc
	tg     *chromedp.Target
	parent target.ID         // the session that holds the <iframe> element ("" is the page)
	owner  cdp.BackendNodeID // the <iframe> element in the parent session
	seen   bool              // found by the snapshot being taken
}

// nodeRef names an element: its backend node id within the session of its renderer ("" for
// the page itself). Backend node ids are only unique within one renderer process.
type nodeRef struct {
	sess  target.ID
	frame cdp.FrameID // the frame whose document holds it
	id    cdp.BackendNodeID
}

// frameOpener returns the session of frame, an out-of-process iframe shown by the <iframe>
// element owner of the session sess, or nil.
type frameOpener func(ctx context.Context, sess target.ID, owner cdp.BackendNodeID, frame cdp.FrameID) (*chromedp.Target, target.ID)

// openFrame attaches to an out-of-process iframe, or returns the session already attached.
// Sessions are kept across snapshots and dropped by dropUnseenFrames. It runs under the
// session lock.
func (t *tab) openFrame(ctx context.Context, sess target.ID, owner cdp.BackendNodeID, frame cdp.FrameID) (*chromedp.Target, target.ID) {
	id := target.ID(frame) // an out-of-process iframe's target id is its frame id
	if fs := t.oopifs[id]; fs != nil {
		if fs.ctx.Err() == nil && !detached(fs.ctx) {
			fs.parent, fs.owner, fs.seen = sess, owner, true
			return fs.tg, id
		}
		fs.cancel()
		delete(t.oopifs, id)
	}
	if len(t.oopifs) >= maxOOPIFs {
		return nil, ""
	}
	// The page's own session auto-attaches to its iframes, but chromedp routes nothing for
	// those sessions; a context of our own on the frame's target gets its commands and events.
	fctx, cancel := chromedp.NewContext(t.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(), chromedp.WithListener(t.onEvent))
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(fctx) }()
	select {
	case err := <-started:
		if err != nil {
			cancel()
			return nil, ""
		}
	case <-ctx.Done():
		cancel()
		return nil, ""
	case <-time.After(10 * time.Second):
		cancel()
		return nil, ""
	}
	fs := &frameSession{ctx: fctx, cancel: cancel, tg: chromedp.FromContext(fctx).Target, parent: sess, owner: owner, seen: true}
	t.oopifs[id] = fs
	t.mu.Lock()
	t.frames[frame] = true // its downloads are the tab's
	t.mu.Unlock()
	return fs.tg, id
}

// detached reports whether the target of a chromedp context went away.
func detached(ctx context.Context) bool {
	ch, err := chromedp.Detached(ctx)
	if err != nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// beginFrames marks every frame session unseen before a snapshot walks the page.
func (t *tab) beginFrames() {
	for _, fs := range t.oopifs {
		fs.seen = false
	}
}

// dropUnseenFrames detaches from the iframes the last snapshot no longer found.
func (t *tab) dropUnseenFrames() {
	for id, fs := range t.oopifs {
		if !fs.seen {
			fs.cancel()
			delete(t.oopifs, id)
		}
	}
}

// targetOf returns the session an element lives in. It runs under the session lock.
func (t *tab) targetOf(sess target.ID) (*chromedp.Target, error) {
	if sess == "" {
		return t.target(), nil
	}
	fs := t.oopifs[sess]
	if fs == nil || fs.ctx.Err() != nil || detached(fs.ctx) {
		return nil, kit.Errorf(kit.CodeNotFound, "the iframe that held the element is gone; take a browser_snapshot")
	}
	return fs.tg, nil
}

// reveal scrolls the <iframe> elements that hold the session's frame into view, outermost
// first, so that input sent to the frame reaches it, and returns the frame's session.
func (t *tab) reveal(ctx context.Context, sess target.ID) (*chromedp.Target, error) {
	tg, err := t.targetOf(sess)
	if err != nil || sess == "" {
		return tg, err
	}
	var chain []*frameSession
	for s := sess; s != "" && len(chain) <= maxFrameDepth; {
		fs := t.oopifs[s]
		if fs == nil {
			break
		}
		chain = append(chain, fs)
		s = fs.parent
	}
	for i := len(chain) - 1; i >= 0; i-- {
		ptg, err := t.targetOf(chain[i].parent)
		if err != nil {
			return nil, err
		}
		_, _ = cdp.Call(ctx, ptg, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: chain[i].owner})
	}
	return tg, nil
}

// frameOffset is where the session's frame content starts in the page's viewport: the sum
// of the content-box origins of the <iframe> elements that hold it.
func (t *tab) frameOffset(ctx context.Context, sess target.ID) (float64, float64, error) {
	var x, y float64
	for depth := 0; sess != "" && depth <= maxFrameDepth; depth++ {
		fs := t.oopifs[sess]
		if fs == nil {
			return 0, 0, kit.Errorf(kit.CodeNotFound, "the iframe that held the element is gone; take a browser_snapshot")
		}
		ptg, err := t.targetOf(fs.parent)
		if err != nil {
			return 0, 0, err
		}
		box, err := cdp.Call(ctx, ptg, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: fs.owner})
		if err != nil || box.Model == nil || len(box.Model.Content) < 2 {
			return 0, 0, kit.Errorf(kit.CodeNotFound, "the iframe that holds the element has no box")
		}
		x += box.Model.Content[0]
		y += box.Model.Content[1]
		sess = fs.parent
	}
	return x, y, nil
}
