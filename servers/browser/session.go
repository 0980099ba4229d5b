package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// session is one browser context (cookies, storage, tabs) named by a handle.
type session struct {
	m            *manager
	key, name    string
	gen          int
	root         context.Context
	contextID    cdp.BrowserContextID
	downloadDir  string    // where Chromium saves downloads, by path
	downloadName string    // its name in the downloads folder
	staged       []string  // upload staging directories of its file inputs
	lastUsed     time.Time // guarded by m.mu

	lock   chan struct{} // held for a whole tool call
	mu     sync.Mutex    // guards closed against the reaper
	closed bool
	tabs   []*tab
	cur    *tab
	nextID int
	ntabs  atomic.Int32
	device device // what browser_emulate set; zero: the browser's own

	caller     string // the token label the session belongs to
	profile    string // the saved login it loads and keeps saving; "" for none
	savedState []byte // what it last wrote to the profile
	reload     string // the profile of the session Chromium lost, to load on the next call
}

func (s *session) tabCount() int { return int(s.ntabs.Load()) }

// lost marks a session whose browser died; its tabs are gone with it.
func (s *session) lost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unstageLocked()
	s.closed = true
	for _, t := range s.tabs {
		t.cancel()
	}
	s.tabs, s.cur = nil, nil
	s.ntabs.Store(0)
}

// closeLocked closes the tabs and the browser context; s.mu is held.
func (s *session) closeLocked() {
	s.unstageLocked()
	if s.closed {
		return
	}
	if err := s.saveProfile(context.Background()); err != nil {
		s.m.log.Warn("saving a profile", "profile", s.profile, "err", err)
	}
	s.closed = true
	for _, t := range s.tabs {
		t.cancel()
	}
	s.tabs, s.cur = nil, nil
	s.ntabs.Store(0)
	if s.root.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = cdp.Call(ctx, chromedp.FromContext(s.root).Browser, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: s.contextID})
	}
}

// staged records an upload staging directory to remove when the session ends.
func (s *session) addStaged(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.m.folders.unstage(dir)
		return
	}
	s.staged = append(s.staged, dir)
}

// unstageLocked removes the session's upload staging directories; s.mu is held.
func (s *session) unstageLocked() {
	for _, d := range s.staged {
		s.m.folders.unstage(d)
	}
	s.staged = nil
}

// where names the session and tab a tool acts on.
type where struct {
	Session string `json:"session,omitempty" jsonschema:"handle"`
}

// call is one tool call's hold on a session and tab.
type call struct {
	m      *manager
	s      *session
	t      *tab
	notice string
}

// acquire takes the session named by w for the call (opening its first tab when it has none)
// and returns the tab; release must be called.
func (m *manager) acquire(ctx context.Context, w where, tabID string) (*call, func(), error) {
	for range 2 {
		s, notice, err := m.session(ctx, w.Session)
		if err != nil {
			return nil, nil, err
		}
		select {
		case s.lock <- struct{}{}:
		case <-ctx.Done():
			return nil, nil, kit.Errorf(kit.CodeTimeout, "session %q is busy with another call", s.name)
		}
		release := func() { <-s.lock }
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			release()
			continue
		}
		c := &call{m: m, s: s, notice: notice}
		if p := s.reload; p != "" {
			s.reload = ""
			loaded, err := c.useProfile(ctx, p)
			if err != nil {
				release()
				return nil, nil, err
			}
			c.notice += " " + strings.TrimSpace(loaded)
		}
		t, err := s.pick(ctx, tabID)
		if err != nil {
			release()
			return nil, nil, err
		}
		c.t = t
		return c, release, nil
	}
	return nil, nil, kit.Errorf(kit.CodeUnavailable, "the session was closed while the call waited; call again")
}

// pick returns the tab with id (the current tab when id is empty), opening one if none is open.
func (s *session) pick(ctx context.Context, id string) (*tab, error) {
	s.prune()
	if id == "" {
		if s.cur != nil {
			return s.cur, nil
		}
		return s.openTab(ctx, "")
	}
	for _, t := range s.tabs {
		if t.id == id {
			return t, nil
		}
	}
	return nil, kit.Errorf(kit.CodeNotFound, "no tab %q in this session; browser_tabs lists them", id)
}

// prune drops tabs the page or browser closed.
func (s *session) prune() {
	kept := s.tabs[:0]
	for _, t := range s.tabs {
		if t.gone() {
			t.cancel()
			continue
		}
		kept = append(kept, t)
	}
	s.tabs = kept
	s.ntabs.Store(int32(len(kept)))
	if s.cur != nil && s.cur.gone() {
		s.cur = nil
	}
	if s.cur == nil && len(s.tabs) > 0 {
		s.cur = s.tabs[len(s.tabs)-1]
	}
}

// openTab opens a new tab, or adopts the page target id (a popup), and makes it current.
func (s *session) openTab(ctx context.Context, id target.ID) (*tab, error) {
	if err := s.m.reserveTab(s); err != nil {
		return nil, err
	}
	s.nextID++
	t := newTab(fmt.Sprintf("t%d", s.nextID))
	opts := []chromedp.ContextOption{chromedp.WithListener(t.onEvent)}
	if id != "" {
		opts = append(opts, chromedp.WithTargetID(id))
	} else {
		opts = append(opts, chromedp.WithExistingBrowserContext(s.contextID))
	}
	tctx, cancel := chromedp.NewContext(s.root, opts...)
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(tctx) }()
	select {
	case err := <-started:
		if err != nil {
			cancel()
			return nil, kit.Errorf(kit.CodeUnavailable, "cannot open a tab: %v", err)
		}
	case <-ctx.Done():
		cancel()
		return nil, kit.Errorf(kit.CodeTimeout, "opening a tab took too long")
	}
	t.ctx, t.cancel = tctx, cancel
	t.mu.Lock()
	t.targetID = chromedp.FromContext(tctx).Target.TargetID
	t.mu.Unlock()
	if err := s.emulate(ctx, t.target()); err != nil {
		cancel()
		return nil, kit.Errorf(kit.CodeUnavailable, "cannot emulate %s in a new tab: %v", s.device.name, err)
	}
	if err := watchDOM(ctx, t.target()); err != nil {
		cancel()
		return nil, kit.Errorf(kit.CodeUnavailable, "cannot watch a new tab's page: %v", err)
	}
	s.tabs = append(s.tabs, t)
	s.ntabs.Store(int32(len(s.tabs)))
	s.cur = t
	return t, nil
}

// closeTab closes one tab.
func (s *session) closeTab(t *tab) {
	t.cancel()
	for i, x := range s.tabs {
		if x == t {
			s.tabs = append(s.tabs[:i], s.tabs[i+1:]...)
			break
		}
	}
	s.ntabs.Store(int32(len(s.tabs)))
	if s.cur == t {
		s.cur = nil
		if len(s.tabs) > 0 {
			s.cur = s.tabs[len(s.tabs)-1]
		}
	}
}

// snapshot renders the tab (or the subtree of ref) and remembers it for diffs.
//
// Long runs of text are shortened (textRunMax) unless fullText is set.
func (c *call) snapshot(ctx context.Context, ref string, depth int, fullText bool) (*snapshot, error) {
	if d := c.t.openDialog(); d != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "a %s dialog is open (%q); answer it with browser_handle_dialog first", d.Type, d.Message)
	}
	c.t.beginFrames()
	root, err := fetchTree(ctx, c.t.target(), "", c.t.openFrame)
	if err != nil {
		return nil, c.browserErr(err)
	}
	c.t.dropUnseenFrames()
	if root == nil {
		return &snapshot{}, nil
	}
	var scope elemKey
	if ref != "" {
		id, ok := c.t.refs.targets[ref]
		if !ok {
			return nil, kit.Errorf(kit.CodeNotFound, "no element %s in the last snapshot; take a browser_snapshot", ref)
		}
		scope = id
	}
	st := c.t.state(ctx)
	textMax := textRunMax
	if fullText {
		textMax = 0
	}
	snap, ok := renderSnapshot(root, c.t.refs, st.url, scope, depth, textMax)
	if !ok {
		return nil, kit.Errorf(kit.CodeNotFound, "element %s is no longer on the page; take a browser_snapshot", ref)
	}
	if ref == "" && depth == 0 && !fullText {
		c.t.lastSnap = snap.lines
		c.t.lastURL = st.url
	}
	return snap, nil
}

// browserErr turns a chromedp failure into a tool error, restarting nothing: the next call
// does that when the browser has died.
func (c *call) browserErr(err error) error {
	var te *kit.Error
	if errors.As(err, &te) {
		return err
	}
	if c.s.root.Err() != nil || c.t.gone() {
		return kit.Errorf(kit.CodeUnavailable, "the browser or tab went away (%v); call again to get a fresh one", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return kit.Errorf(kit.CodeTimeout, "the page did not answer in time: %v", err)
	}
	return kit.Errorf(kit.CodeUnavailable, "%v", err)
}

func (c *call) ownsFrame(id cdp.FrameID) bool {
	for _, t := range c.s.tabs {
		if t.ownsFrame(id) {
			return true
		}
	}
	return false
}

// changes settles the page after an action and describes what changed since before: new
// URL, dialog, new tabs, downloads, and a diff of the snapshot (or the whole snapshot when
// full is set or the page changed to another document).
func (c *call) changes(ctx context.Context, before pageState, full bool, maxChars int) string {
	c.settle(ctx)
	var b strings.Builder
	for _, info := range c.m.takePopups(c.s.contextID) {
		if nt, err := c.s.openTab(ctx, info.TargetID); err == nil {
			fmt.Fprintf(&b, "New tab %s opened (%s) and is now current.\n", nt.id, info.URL)
			c.t = nt
			c.settle(ctx)
		}
	}
	for _, line := range c.m.finishDownloads(c.ownsFrame, c.s) {
		b.WriteString(line + "\n")
	}
	if d := c.t.openDialog(); d != nil {
		fmt.Fprintf(&b, "A %s dialog is open: %q", d.Type, d.Message)
		if d.Type == page.DialogTypePrompt && d.DefaultPrompt != "" {
			fmt.Fprintf(&b, " (default %q)", d.DefaultPrompt)
		}
		b.WriteString(". The page waits until browser_handle_dialog answers it.\n")
		return strings.TrimSpace(b.String())
	}
	after := c.t.state(ctx)
	navigated := after.url != before.url
	if navigated {
		fmt.Fprintf(&b, "Page: %s\nTitle: %s\n", after.url, after.title)
	} else if after.title != before.title {
		fmt.Fprintf(&b, "Title: %s\n", after.title)
	}
	prev := c.t.lastSnap
	snap, err := c.snapshot(ctx, "", 0, false)
	if err != nil {
		b.WriteString("(no snapshot: " + err.Error() + ")")
		return strings.TrimSpace(b.String())
	}
	if full || navigated || prev == nil {
		b.WriteString(pagedSnapshot(snap.text(), 0, maxChars))
		return strings.TrimSpace(b.String())
	}
	removed, added, more := diffLines(prev, snap.lines, 40)
	if len(removed) == 0 && len(added) == 0 {
		b.WriteString("The page did not change.")
		return strings.TrimSpace(b.String())
	}
	b.WriteString("Changes:\n")
	for _, l := range removed {
		b.WriteString("- " + l + "\n")
	}
	for _, l := range added {
		b.WriteString("+ " + l + "\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more changed lines; browser_snapshot shows the page)\n", more)
	}
	return strings.TrimSpace(paged(b.String(), 0, maxChars))
}
