package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
)

// manager owns the browser and the named sessions (browser contexts) in it.
type manager struct {
	opts     *options
	folders  *folders
	log      *slog.Logger
	browser  *chromium
	profiles profileStore

	mu        sync.Mutex
	sessions  map[string]*session // by caller + "/" + name
	downloads map[string]*download
	popups    []*target.Info // page targets opened by pages, not adopted yet
	idleSince time.Time      // when the last session closed
	done      chan struct{}
	closeOnce sync.Once
}

func newManager(opts *options, f *folders, log *slog.Logger) *manager {
	m := &manager{opts: opts, folders: f, log: log, profiles: profileStore{root: filepath.Join(opts.stateDir, "profiles")}, sessions: map[string]*session{}, downloads: map[string]*download{}, done: make(chan struct{})}
	m.browser = newChromium(opts, log, m.onBrowserEvent)
	go m.reap()
	return m
}

// onBrowserEvent runs on chromedp's read loop: it only records.
func (m *manager) onBrowserEvent(ev any) {
	switch ev := ev.(type) {
	case *target.EventTargetCreated:
		if ev.TargetInfo != nil && ev.TargetInfo.Type == "page" && ev.TargetInfo.OpenerID != "" {
			m.mu.Lock()
			m.popups = append(m.popups, ev.TargetInfo)
			m.mu.Unlock()
		}
	case *browser.EventDownloadWillBegin:
		m.mu.Lock()
		m.downloads[ev.GUID] = &download{guid: ev.GUID, frame: ev.FrameID, url: ev.URL, suggested: ev.SuggestedFilename, state: "inProgress"}
		m.mu.Unlock()
	case *browser.EventDownloadProgress:
		m.mu.Lock()
		if d := m.downloads[ev.GUID]; d != nil {
			d.state = string(ev.State)
			d.received = int64(ev.ReceivedBytes)
		}
		m.mu.Unlock()
	}
}

// session returns the caller's named session, creating it (and starting Chromium) when needed.
// notice is non-empty when the browser had to be restarted and the session's tabs were lost.
func (m *manager) session(ctx context.Context, name string) (*session, string, error) {
	if name == "" {
		name = "default"
	}
	if !isName(name, 64, "_.-") { // 1-64 of them: "" became "default" above
		return nil, "", kit.Errorf(kit.CodeInvalidInput, "session %q: use 1-64 letters, digits, '.', '_' or '-'", name)
	}
	key := kit.Caller(ctx) + "/" + name
	root, gen, err := m.browser.ensure(ctx)
	if err != nil {
		return nil, "", kit.Errorf(kit.CodeUnavailable, "%v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	notice := ""
	s := m.sessions[key]
	var lost *session
	if s != nil && s.gen != gen {
		delete(m.sessions, key)
		s.lost()
		notice = "Chromium had stopped and was restarted; the earlier tabs of this session are gone."
		lost, s = s, nil
	}
	if s == nil {
		if s, err = m.newSession(ctx, root, gen, key, name); err != nil {
			return nil, "", err
		}
		if lost != nil {
			// The new session emulates the same device and loads the same profile (acquire
			// does that, holding the session's lock).
			s.device, s.reload = lost.device, lost.profile
		}
		m.sessions[key] = s
	}
	s.lastUsed = time.Now()
	return s, notice, nil
}

func (m *manager) newSession(ctx context.Context, root context.Context, gen int, key, name string) (*session, error) {
	b := chromedp.FromContext(root).Browser
	res, err := cdp.Call(ctx, b, target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		return nil, kit.Errorf(kit.CodeUnavailable, "cannot create a browser context: %v", err)
	}
	downloadName := safeFileName(strings.ReplaceAll(key, "/", "-"))
	if err := m.folders.downloads.MkdirAll(downloadName, 0o750); err != nil {
		return nil, kit.Errorf(kit.CodeInternal, "downloads directory: %v", err)
	}
	dir := filepath.Join(m.folders.downloadsDir, downloadName)
	_, err = cdp.Call(ctx, b, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior:         browser.SetDownloadBehaviorBehaviorAllowAndName,
		BrowserContextID: res.BrowserContextID,
		DownloadPath:     dir,
		EventsEnabled:    ptr(true),
	})
	if err != nil {
		return nil, kit.Errorf(kit.CodeUnavailable, "cannot set up downloads: %v", err)
	}
	return &session{m: m, key: key, name: name, caller: kit.Caller(ctx), gen: gen, root: root, contextID: res.BrowserContextID, downloadDir: dir, downloadName: downloadName, lock: make(chan struct{}, 1)}, nil
}

// totalTabs counts open tabs over all sessions; m.mu must be held.
func (m *manager) totalTabsLocked() int {
	n := 0
	for _, s := range m.sessions {
		n += s.tabCount()
	}
	return n
}

// reserveTab checks the tab and memory caps before a new tab opens, closing idle sessions
// other than keep when Chromium uses too much memory.
func (m *manager) reserveTab(keep *session) error {
	m.mu.Lock()
	n := m.totalTabsLocked()
	m.mu.Unlock()
	if n >= m.opts.maxTabs {
		return kit.Errorf(kit.CodeLimit, "%d tabs are open, the most allowed (--max-tabs); close one with browser_tabs", n)
	}
	return m.checkMemory(keep)
}

// checkMemory closes the least recently used other sessions while Chromium is over its memory
// cap, and refuses when that is not enough.
func (m *manager) checkMemory(keep *session) error {
	limit := int64(m.opts.maxMemoryMB) << 20
	for {
		rss := processTreeRSS(m.browser.pid())
		if rss <= limit {
			return nil
		}
		victim := m.oldestSessionExcept(keep)
		if victim == nil {
			return kit.Errorf(kit.CodeLimit, "Chromium uses %d MB, over the %d MB cap (--max-memory-mb); close tabs with browser_tabs", rss>>20, m.opts.maxMemoryMB)
		}
		m.log.Warn("closing a session to free memory", "rss_mb", rss>>20)
		m.closeSession(victim)
	}
}

func (m *manager) oldestSessionExcept(keep *session) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	var list []*session
	for _, s := range m.sessions {
		if s != keep {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return nil
	}
	sort.Slice(list, func(i, j int) bool { return list[i].lastUsed.Before(list[j].lastUsed) })
	return list[0]
}

// closeSession closes a session's tabs and its browser context.
func (m *manager) closeSession(s *session) {
	m.mu.Lock()
	if m.sessions[s.key] == s {
		delete(m.sessions, s.key)
	}
	if len(m.sessions) == 0 {
		m.idleSince = time.Now()
	}
	m.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

// takePopups removes and returns the page targets opened by pages in browser context id.
func (m *manager) takePopups(id cdp.BrowserContextID) []*target.Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	var mine, rest []*target.Info
	for _, p := range m.popups {
		if p.BrowserContextID == id {
			mine = append(mine, p)
		} else {
			rest = append(rest, p)
		}
	}
	m.popups = rest
	return mine
}

// reap closes idle sessions and stops Chromium when no session has been used for a while.
func (m *manager) reap() {
	t := time.NewTicker(reapInterval(m.opts.idleTimeout))
	defer t.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-t.C:
		}
		var idle []*session
		m.mu.Lock()
		for _, s := range m.sessions {
			if time.Since(s.lastUsed) > m.opts.idleTimeout && s.mu.TryLock() {
				s.mu.Unlock()
				idle = append(idle, s)
			}
		}
		m.mu.Unlock()
		for _, s := range idle {
			m.log.Info("closing an idle session", "session", s.name)
			m.closeSession(s)
		}
		m.mu.Lock()
		stop := len(m.sessions) == 0 && !m.idleSince.IsZero() && time.Since(m.idleSince) > m.opts.idleTimeout
		if stop {
			m.idleSince = time.Time{}
		}
		m.mu.Unlock()
		if stop && m.browser.pid() != 0 {
			m.log.Info("stopping idle chromium")
			m.browser.stop()
		}
	}
}

func reapInterval(idle time.Duration) time.Duration {
	return min(max(idle/4, time.Second), time.Minute)
}

// close stops everything; the server is shutting down.
func (m *manager) close() {
	m.closeOnce.Do(func() {
		close(m.done)
		m.mu.Lock()
		list := make([]*session, 0, len(m.sessions))
		for _, s := range m.sessions {
			list = append(list, s)
		}
		m.mu.Unlock()
		for _, s := range list {
			m.closeSession(s)
		}
		m.browser.close()
		m.folders.close()
	})
}

// downloadsFor returns the downloads started by frames of the given tabs and not reported yet.
func (m *manager) downloadsFor(frames func(cdp.FrameID) bool) []download {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []download
	for _, d := range m.downloads {
		if !d.reported && frames(d.frame) {
			out = append(out, *d)
		}
	}
	return out
}

// finishDownloads reports the downloads of the given frames not reported yet, renaming the
// completed ones in the session's downloads folder to their suggested names.
func (m *manager) finishDownloads(frames func(cdp.FrameID) bool, s *session) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for guid, d := range m.downloads {
		if !d.reported && frames(d.frame) {
			out = append(out, d.finish(m.folders, s))
			if d.state != "inProgress" {
				delete(m.downloads, guid)
			}
		}
	}
	return out
}

// download is one file the browser saves.
type download struct {
	guid, url, suggested string
	frame                cdp.FrameID
	state                string // inProgress, completed, canceled
	received             int64
	reported             bool
}

// finish renames a completed download from its GUID to a safe form of its suggested name,
// the first free one, through the session's downloads folder held beneath the downloads
// folder, and describes it; it is called with m.mu held.
func (d *download) finish(f *folders, s *session) string {
	d.reported = true
	switch d.state {
	case "completed":
	case "canceled":
		return fmt.Sprintf("download of %s canceled", d.url)
	default:
		return fmt.Sprintf("download of %s still in progress (%d bytes so far); it continues in %s", d.url, d.received, s.downloadDir)
	}
	name := safeFileName(d.suggested)
	if name == "" {
		name = "download"
	}
	placed, size := d.guid, d.received
	if dir, err := f.downloads.OpenRoot(s.downloadName); err == nil {
		if p, err := rootdir.Place(dir, d.guid, name, rootdir.NextFree); err == nil {
			placed = p
		}
		if fi, err := dir.Lstat(placed); err == nil {
			size = fi.Size()
		}
		_ = dir.Close()
	}
	return fmt.Sprintf("downloaded %s (%d bytes) to %s", placed, size, filepath.Join(s.downloadDir, placed))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._ -]+`)

// safeFileName keeps a file name to letters, digits, dot, dash, underscore and space.
func safeFileName(s string) string {
	s = filepath.Base(strings.ReplaceAll(s, "\\", "/"))
	s = strings.Trim(unsafeName.ReplaceAllString(s, "_"), ". ")
	if len(s) > 120 {
		s = s[len(s)-120:]
	}
	return s
}
