package main

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// When the page has settled after an action or a navigation: nothing loads in the main frame,
// no download runs, and neither the network nor the DOM has done anything for settleQuiet.
// These are waits for events, not fixed pauses: a page that is quiet answers at once.
const (
	settleQuiet = 50 * time.Millisecond
	// A request open this long (a stream, a long poll) is no longer waited for.
	settleLongRequest = time.Second
	// A page that keeps changing its DOM (an animation, a clock) is not waited for past this.
	settleDOMChurn = time.Second
	// A navigation the page asked for that has not started after this is not waited for.
	settleNavStart = time.Second
	settleMax      = 10 * time.Second
	// The longest wait for the page to run what it has queued before the snapshot.
	settleBarrier = 500 * time.Millisecond
)

// domBinding is what the server world's mutation observer calls when the DOM changes.
const domBinding = "__mcpDOMChanged"

// domObserverJS reports DOM changes to the server, at most one report each 20 ms, from the
// server's isolated world of every document (the page cannot see the observer or call it). A
// report says how many milliseconds ago the last change it covers happened, so a report held
// back by the 20 ms does not push the end of the quiet later.
const domObserverJS = `(() => {
  if (globalThis.__mcpObserver || typeof globalThis.` + domBinding + ` !== 'function') return;
  const report = globalThis.` + domBinding + `;
  let last = 0, timer = 0, changed = 0;
  const send = () => { timer = 0; last = performance.now(); report(String(Math.floor(last - changed))); };
  globalThis.__mcpObserver = new MutationObserver(() => {
    changed = performance.now();
    if (timer) return;
    const wait = 20 - (changed - last);
    if (wait <= 0) send(); else timer = setTimeout(send, wait);
  });
  globalThis.__mcpObserver.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})()`

// watchDOM installs the DOM observer in every document the tab loads from now on, and in the
// one it shows.
func watchDOM(ctx context.Context, tg *chromedp.Target) error {
	if _, err := cdp.Call(ctx, tg, runtime.AddBinding, runtime.AddBindingParams{Name: domBinding, ExecutionContextName: serverWorld}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: domObserverJS, WorldName: serverWorld, RunImmediately: ptr(true),
	})
	return err
}

// activity is what the tab's events say about how busy the page is.
type activity struct {
	seq        uint64        // counts the events
	woke       chan struct{} // closed at the next event
	loading    bool          // the main frame is loading a document
	navAsked   time.Time     // when the page asked for a main-frame navigation not yet started
	inflight   int
	lastNet    time.Time // the last network or navigation event
	lastDOM    time.Time // the last DOM change
	commits    uint64    // main-frame navigations that committed (documents, history, fragments)
	dialogOpen bool
}

// stir records an event of the page (a network or navigation event). t.mu is held.
func (t *tab) stir() {
	t.lastActivity = time.Now()
	t.bump()
}

// stirDOM records a change of the DOM that happened age ago, as the observer's report says
// (at most its 20 ms of holding back, and never in the future). t.mu is held.
func (t *tab) stirDOM(age time.Duration) {
	t.lastDOM = time.Now().Add(-min(max(age, 0), domReportHold))
	t.bump()
}

// domReportHold is the longest the DOM observer holds a report back.
const domReportHold = 20 * time.Millisecond

// bump wakes whoever waits for the tab's next event. t.mu is held.
func (t *tab) bump() {
	t.seq++
	close(t.woke)
	t.woke = make(chan struct{})
}

// activity returns the tab's activity now.
func (t *tab) activity() activity {
	t.mu.Lock()
	defer t.mu.Unlock()
	return activity{seq: t.seq, woke: t.woke, loading: t.loading, navAsked: t.navAsked, inflight: t.inflight,
		lastNet: t.lastActivity, lastDOM: t.lastDOM, commits: t.commits, dialogOpen: t.dialog != nil}
}

// settle waits after an action until the page has settled (see settleQuiet), a dialog opened,
// or settleMax passed.
func (c *call) settle(ctx context.Context) {
	deadline := time.Now().Add(settleMax)
	if d, ok := ctx.Deadline(); ok && d.Add(-2*time.Second).Before(deadline) {
		deadline = d.Add(-2 * time.Second)
	}
	start := time.Now()
	for {
		a := c.t.activity()
		now := time.Now()
		if a.dialogOpen || !now.Before(deadline) {
			return
		}
		var wait time.Duration
		switch {
		case a.loading || !a.navAsked.IsZero() && now.Sub(a.navAsked) < settleNavStart:
			wait = settleNavStart
		case c.downloading():
			wait = 50 * time.Millisecond // downloads report through the browser, not the tab
		default:
			netQuiet := now.Sub(later(a.lastNet, start))
			wait = settleQuiet - netQuiet
			if a.inflight > 0 {
				wait = max(wait, settleLongRequest-netQuiet)
			}
			if now.Sub(start) < settleDOMChurn {
				wait = max(wait, settleQuiet-now.Sub(later(a.lastDOM, start)))
			}
			if wait <= 0 {
				// Quiet: let the page run what it has queued (a task that was running, timers
				// already due), then make sure that started nothing.
				c.barrier(ctx)
				if c.t.activity().seq == a.seq {
					return
				}
				continue
			}
		}
		timer := time.NewTimer(min(wait, time.Until(deadline)))
		select {
		case <-a.woke:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return
		}
		timer.Stop()
	}
}

// barrier returns once the page's main thread has run a zero-delay timer set now, or after
// settleBarrier.
func (c *call) barrier(ctx context.Context) {
	bctx, cancel := context.WithTimeout(ctx, settleBarrier)
	defer cancel()
	tg := c.t.target()
	world, err := isolatedWorld(bctx, tg, cdp.FrameID(c.t.targetID))
	if err != nil {
		return
	}
	_, _ = cdp.Call(bctx, tg, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "new Promise(r => setTimeout(r, 0))", ContextID: world, AwaitPromise: ptr(true),
	})
}

// downloading reports whether a download of the session's tabs is in progress.
func (c *call) downloading() bool {
	for _, d := range c.m.downloadsFor(c.ownsFrame) {
		if d.state == "inProgress" {
			return true
		}
	}
	return false
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
