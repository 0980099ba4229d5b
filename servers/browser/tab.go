package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/netguard"
)

// Ring sizes for what a tab remembers.
const (
	maxConsole  = 200
	maxRequests = 500
)

// tab is one page of a session, with what its events told us.
type tab struct {
	id       string
	ctx      context.Context // chromedp context of the tab
	cancel   context.CancelFunc
	targetID target.ID

	mu           sync.Mutex
	console      []consoleEntry
	consoleSeen  int // entries already returned by browser_console_messages
	requests     []*netRequest
	nextRequest  int
	byRequest    map[network.RequestID]*netRequest
	inflight     int
	loading      bool
	lastActivity time.Time // the last network or navigation event
	lastDOM      time.Time // the last DOM change the server world's observer reported
	navAsked     time.Time // when the page asked for a main-frame navigation not yet started
	commits      uint64    // main-frame navigations that committed
	seq          uint64    // events that say the page is busy
	woke         chan struct{}
	dialog       *page.EventJavascriptDialogOpening
	frames       map[cdp.FrameID]bool
	secretDocs   map[cdp.FrameID]secretMark // documents a secret was typed into
	secretAt     time.Time                  // when a secret was last typed in the tab

	// Touched only under the session lock.
	refs     *refTable
	lastSnap []string
	lastURL  string
	oopifs   map[target.ID]*frameSession // sessions on out-of-process iframes
}

type consoleEntry struct{ level, text string }

type netRequest struct {
	n            int // the tab's number for it, shown in the list
	id           network.RequestID
	method, url  string
	kind         string
	status       int64
	statusText   string
	failed       string
	done         bool
	blockedGuard string
	reqHeaders   network.Headers
	respHeaders  network.Headers
	mime         string
	hasPostData  bool
	afterSecret  bool // sent after a secret was typed in the tab: its body and credentials are withheld
}

func newTab(id string) *tab {
	return &tab{id: id, byRequest: map[network.RequestID]*netRequest{}, frames: map[cdp.FrameID]bool{}, oopifs: map[target.ID]*frameSession{},
		refs: newRefTable(), lastActivity: time.Now(), woke: make(chan struct{})}
}

// target is the chromedp session of the tab.
func (t *tab) target() *chromedp.Target { return chromedp.FromContext(t.ctx).Target }

// gone reports whether the page was closed (by the page itself or the browser).
func (t *tab) gone() bool { return t.ctx.Err() != nil || detached(t.ctx) }

// onEvent records the tab's events. It runs on chromedp's read loop: quick, no commands.
func (t *tab) onEvent(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		t.addConsole(string(ev.Type), strings.Join(parts, " "))
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = d.Exception.Description
		}
		t.addConsole("error", text)
	case *cdplog.EventEntryAdded:
		text := ev.Entry.Text
		if ev.Entry.URL != "" {
			text += " (" + ev.Entry.URL + ")"
		}
		t.addConsole(string(ev.Entry.Level), text)
	case *network.EventRequestWillBeSent:
		t.stir()
		if r := t.byRequest[ev.RequestID]; r != nil && ev.RedirectResponse != nil {
			r.status = ev.RedirectResponse.Status
			r.statusText = ev.RedirectResponse.StatusText
			r.respHeaders = ev.RedirectResponse.Headers
			r.mime = ev.RedirectResponse.MimeType
			r.done = true
			t.inflight--
		}
		t.nextRequest++
		r := &netRequest{n: t.nextRequest, id: ev.RequestID, method: ev.Request.Method, url: ev.Request.URL, kind: string(ev.Type),
			reqHeaders: ev.Request.Headers, hasPostData: ev.Request.HasPostData, afterSecret: !t.secretAt.IsZero()}
		t.byRequest[ev.RequestID] = r
		t.requests = append(t.requests, r)
		t.inflight++
		if len(t.requests) > maxRequests {
			old := t.requests[0]
			if t.byRequest[old.id] == old {
				delete(t.byRequest, old.id)
			}
			t.requests = t.requests[1:]
		}
	case *network.EventResponseReceived:
		if r := t.byRequest[ev.RequestID]; r != nil && ev.Response != nil {
			r.status = ev.Response.Status
			r.statusText = ev.Response.StatusText
			r.respHeaders = ev.Response.Headers
			r.mime = ev.Response.MimeType
			r.noteBlocked(ev.Response.Headers)
		}
	case *network.EventRequestWillBeSentExtraInfo:
		// The headers as sent, cookies included.
		if r := t.byRequest[ev.RequestID]; r != nil && len(ev.Headers) > 0 {
			r.reqHeaders = ev.Headers
		}
	case *network.EventResponseReceivedExtraInfo:
		// The raw response: the only report of one that CORS then refused to the page.
		if r := t.byRequest[ev.RequestID]; r != nil {
			if r.status == 0 {
				r.status = ev.StatusCode
			}
			if len(r.respHeaders) == 0 {
				r.respHeaders = ev.Headers
			}
			r.noteBlocked(ev.Headers)
		}
	case *network.EventLoadingFinished:
		t.finishRequest(ev.RequestID, "")
	case *network.EventLoadingFailed:
		t.finishRequest(ev.RequestID, ev.ErrorText)
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID == cdp.FrameID(t.targetID) && ev.Disposition == page.ClientNavigationDispositionCurrentTab {
			t.navAsked = time.Now()
		}
		t.stir()
	case *page.EventFrameStartedLoading:
		if ev.FrameID == cdp.FrameID(t.targetID) {
			t.loading = true
			t.navAsked = time.Time{}
		}
		t.stir()
	case *page.EventFrameStoppedLoading:
		if ev.FrameID == cdp.FrameID(t.targetID) {
			t.loading = false
			t.navAsked = time.Time{}
		}
		t.stir()
	case *page.EventFrameNavigated:
		t.frames[ev.Frame.ID] = true
		if ev.Frame.ParentID == "" && ev.Frame.ID == cdp.FrameID(t.targetID) {
			t.commits++
		}
		t.stir()
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == cdp.FrameID(t.targetID) {
			t.commits++
		}
		t.stir()
	case *runtime.EventBindingCalled:
		if ev.Name == domBinding {
			ms, _ := strconv.Atoi(ev.Payload) // not a number: a change now
			t.stirDOM(time.Duration(ms) * time.Millisecond)
		}
	case *page.EventJavascriptDialogOpening:
		t.dialog = ev
		t.stir()
	case *page.EventJavascriptDialogClosed:
		t.dialog = nil
	}
}

// noteBlocked records the guard's reason when the response is the guard's refusal.
func (r *netRequest) noteBlocked(h network.Headers) {
	for k, v := range h {
		if strings.EqualFold(k, netguard.BlockedHeader) {
			r.blockedGuard = fmt.Sprint(v)
		}
	}
}

func (t *tab) finishRequest(id network.RequestID, failed string) {
	t.stir()
	if r := t.byRequest[id]; r != nil && !r.done {
		r.done = true
		r.failed = failed
		t.inflight--
	}
}

func (t *tab) addConsole(level, text string) {
	t.console = append(t.console, consoleEntry{level: level, text: text})
	if len(t.console) > maxConsole {
		drop := len(t.console) - maxConsole
		t.console = t.console[drop:]
		t.consoleSeen = max(0, t.consoleSeen-drop)
	}
}

func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// openDialog returns the dialog the page is showing, if any.
func (t *tab) openDialog() *page.EventJavascriptDialogOpening {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialog
}

// ownsFrame reports whether a frame belongs to this tab.
func (t *tab) ownsFrame(id cdp.FrameID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return id == cdp.FrameID(t.targetID) || t.frames[id]
}

// input runs fn, which sends input that may open a JavaScript dialog. It returns when fn
// returns, a dialog opens (a dialog blocks the page, and the input command with it, until
// browser_handle_dialog answers it) or ctx ends, which stops fn and the tab's loading.
func (t *tab) input(ctx context.Context, fn func(ctx context.Context, tg *chromedp.Target) error) error {
	done := make(chan error, 1)
	ictx, cancel := context.WithTimeout(t.ctx, time.Minute)
	tg := t.target()
	go func() {
		defer cancel()
		done <- fn(ictx, tg)
	}()
	tick := time.NewTicker(40 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if t.openDialog() != nil {
				return nil
			}
		case <-ctx.Done():
			// The call was cancelled or timed out: stop what the input started too, a
			// navigation above all, rather than let the page go on loading unwatched.
			cancel()
			t.stopLoading()
			return ctx.Err()
		}
	}
}

// stopLoading stops the tab's navigations and pending loads, as the browser's stop button does.
func (t *tab) stopLoading() {
	ctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
	defer cancel()
	_, _ = cdp.Call(ctx, t.target(), page.StopLoading, cdp.Empty{}) // a tab already gone has nothing to stop
}

// pageState is what the browser (not the page's JavaScript, which a dialog may block) says
// about the tab.
type pageState struct{ url, title string }

func (t *tab) state(ctx context.Context) pageState {
	h, err := cdp.Call(ctx, t.target(), page.GetNavigationHistory, cdp.Empty{})
	if err != nil || h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return pageState{}
	}
	e := h.Entries[h.CurrentIndex]
	return pageState{url: e.URL, title: e.Title}
}
