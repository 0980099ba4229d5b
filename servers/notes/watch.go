package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// The folder is watched through the kernel (inotify, through fsnotify): each folder of notes
// gets a watch, and a note created, written, moved or deleted outside the server is indexed a
// moment later, without a walk of the folder. A folder made is watched and its notes indexed as
// it appears; a folder moved or deleted, or events the kernel lost, have the upkeep compare
// every file. When the folder cannot be watched (no inotify watches left), reads look for
// changes every --scan-interval instead.

// A change is indexed settle after the last event about it, and at most settleMax after the
// first, so a burst of writes to one note is indexed once.
const (
	settle    = 50 * time.Millisecond
	settleMax = 300 * time.Millisecond
)

// maxQueued bounds the events waiting for watchLoop; past it they are dropped and every file
// is compared instead, as when the kernel's own queue overflows.
const maxQueued = 4096

// watcher is the folder's watch.
type watcher struct {
	fw      *fsnotify.Watcher
	folders map[string]bool // watched folders, relative ("" for the root); watchLoop's alone
	queue   eventQueue
}

// eventQueue holds the watch's events between pump and watchLoop. fsnotify can send an error
// while holding the lock its Add takes (a watched folder moved away), so the goroutine that
// calls Add (watchLoop, for a new folder) must never be the one fsnotify waits on: pump
// receives, always, and never calls into fsnotify.
type eventQueue struct {
	mu     sync.Mutex
	events []fsnotify.Event
	lost   error         // the first error or overflow since the last take
	closed bool          // fsnotify closed its channels
	ready  chan struct{} // signalled (capacity 1) when something is waiting
}

// pump moves the watch's events and errors into the queue until the watch closes. When ctx
// ends it closes the watch, and keeps receiving until fsnotify has let go: its Close waits on
// the same lock as a pending send.
func (w *watcher) pump(ctx context.Context) {
	stopping := ctx.Done()
	var closed chan struct{}
	for {
		select {
		case <-stopping:
			stopping = nil
			closed = make(chan struct{})
			go func() {
				_ = w.fw.Close()
				close(closed)
			}()
		case err, ok := <-w.fw.Errors:
			if !ok {
				w.queue.put(func(q *eventQueue) { q.closed = true })
				if closed != nil {
					<-closed
				}
				return
			}
			w.queue.put(func(q *eventQueue) {
				if q.lost == nil {
					q.lost = err
				}
			})
		case ev, ok := <-w.fw.Events:
			if !ok {
				w.queue.put(func(q *eventQueue) { q.closed = true })
				if closed != nil {
					<-closed
				}
				return
			}
			w.queue.put(func(q *eventQueue) {
				if len(q.events) < maxQueued {
					q.events = append(q.events, ev)
				} else if q.lost == nil {
					q.lost = fmt.Errorf("more than %d events waiting", maxQueued)
				}
			})
		}
	}
}

// put changes the queue under its lock and signals watchLoop.
func (q *eventQueue) put(change func(*eventQueue)) {
	q.mu.Lock()
	change(q)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns the waiting events, the first error since the last take, and whether the
// watch has closed.
func (q *eventQueue) take() (events []fsnotify.Event, lost error, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	events, lost, closed = q.events, q.lost, q.closed
	q.events, q.lost = nil, nil
	return events, lost, closed
}

func (w *watcher) close() {
	if w != nil {
		_ = w.fw.Close()
	}
}

// watch starts watching the notes folder, once; a failure is shown on /healthz and reads scan
// for changes instead. The caller is run.
func (n *store) watch(ctx context.Context) {
	if n.watcher != nil || n.up.get().watchErr != nil {
		return
	}
	w, err := n.startWatch()
	if err != nil {
		n.log.Warn("the notes folder is not watched; outside changes are found by scans", "error", err.Error())
		n.up.update(func(st *upkeepState) { st.watchErr = err })
		return
	}
	n.watcher = w
	n.up.update(func(st *upkeepState) { st.watching = true })
	n.bg.Go(func() { w.pump(ctx) })
	n.bg.Go(func() { n.watchLoop(ctx, w) })
}

func (n *store) startWatch() (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{fw: fw, folders: map[string]bool{}, queue: eventQueue{ready: make(chan struct{}, 1)}}
	if _, err := n.watchFolders(w, ""); err != nil {
		_ = fw.Close()
		return nil, err
	}
	return w, nil
}

// watchFolders adds a watch on folder and every folder below it, and returns the notes in
// them (a folder that appeared may hold notes already).
func (n *store) watchFolders(w *watcher, folder string) ([]string, error) {
	folders, err := n.v.Folders(folder)
	if err != nil {
		return nil, err
	}
	for _, f := range folders {
		if w.folders[f] {
			continue
		}
		if err := w.fw.Add(filepath.Join(n.v.Dir(), filepath.FromSlash(f))); err != nil {
			return nil, fmt.Errorf("watch %s (%d folders watched): %w", filepath.Join(n.v.Dir(), f), len(w.folders), err)
		}
		w.folders[f] = true
	}
	if folder == "" {
		return nil, nil
	}
	files, err := n.v.Walk(folder)
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths, err
}

// watchLoop turns the watch's events into index changes until ctx ends.
func (n *store) watchLoop(ctx context.Context, w *watcher) {
	pending := map[string]bool{}
	var first time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			paths := slices.Sorted(func(yield func(string) bool) {
				for p := range pending {
					if !yield(p) {
						return
					}
				}
			})
			clear(pending)
			n.mu.Lock()
			n.indexPaths(ctx, paths...)
			n.mu.Unlock()
		case <-w.queue.ready:
			events, lost, closed := w.queue.take()
			if lost != nil {
				n.log.Info("the folder watch lost events; comparing every file", "error", lost.Error())
				n.wantScan()
			}
			wasEmpty := len(pending) == 0
			for _, ev := range events {
				n.watched(w, ev, pending)
			}
			if closed {
				return
			}
			if len(pending) == 0 {
				continue
			}
			if wasEmpty {
				first = time.Now()
			}
			timer.Reset(max(0, min(settle, settleMax-time.Since(first))))
		}
	}
}

// watched adds the notes one event changed to pending; a new folder is watched first.
func (n *store) watched(w *watcher, ev fsnotify.Event, pending map[string]bool) {
	rel, err := filepath.Rel(n.v.Dir(), ev.Name)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	rel = filepath.ToSlash(rel)
	switch {
	case vault.IsNote(rel):
		pending[rel] = true
	case w.folders[rel] && ev.Has(fsnotify.Remove|fsnotify.Rename):
		delete(w.folders, rel) // gone with its watch; its notes with it
		n.wantScan()
	case ev.Has(fsnotify.Create):
		info, err := n.v.Lstat(rel)
		if err != nil || !info.IsDir() || strings.HasPrefix(filepath.Base(rel), ".") {
			return
		}
		notes, err := n.watchFolders(w, rel)
		if err != nil {
			n.log.Warn("a new folder is not watched; comparing every file", "error", err.Error())
			n.wantScan()
		}
		for _, p := range notes {
			pending[p] = true
		}
	}
}

// wantScan asks the upkeep to compare every file with the index.
func (n *store) wantScan() {
	n.up.rescan.Store(true)
	n.up.nudge()
}
