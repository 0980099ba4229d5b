package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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

// watcher is the folder's watch.
type watcher struct {
	fw      *fsnotify.Watcher
	folders map[string]bool // watched folders, relative ("" for the root); run's alone
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
	n.bg.Go(func() { n.watchLoop(ctx, w) })
}

func (n *store) startWatch() (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{fw: fw, folders: map[string]bool{}}
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
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			n.log.Info("the folder watch lost events; comparing every file", "error", err.Error())
			n.wantScan()
			continue
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
			continue
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			rel, err := filepath.Rel(n.v.Dir(), ev.Name)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			rel = filepath.ToSlash(rel)
			wasEmpty := len(pending) == 0
			switch {
			case vault.IsNote(rel):
				pending[rel] = true
			case w.folders[rel] && ev.Has(fsnotify.Remove|fsnotify.Rename):
				delete(w.folders, rel) // gone with its watch; its notes with it
				n.wantScan()
			case ev.Has(fsnotify.Create):
				if info, err := n.v.Lstat(rel); err == nil && info.IsDir() && !strings.HasPrefix(filepath.Base(rel), ".") {
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

// wantScan asks the upkeep to compare every file with the index.
func (n *store) wantScan() {
	n.up.rescan.Store(true)
	n.up.nudge()
}
