package oauth

import (
	"fmt"
	"path/filepath"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// Watch follows one token folder through the kernel's file events (inotify, via fsnotify), so
// that token files are statted and reread once per sign-in change, not once per call. A login
// run by another process (`gmail auth login`) writes the folder, which moves the generation.
// It is safe for concurrent use.
type Watch struct {
	dir  string
	w    *fsnotify.Watcher
	gen  atomic.Uint64 // 0 once the watch is lost
	done chan struct{}
}

// WatchDir starts watching the folder dir. A folder that cannot be watched (missing, or no
// inotify instances left) returns the error; callers then look at the files on every call,
// which a nil *Watch means.
func WatchDir(dir string) (*Watch, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch the token folder %s: %w", dir, err)
	}
	if err := fw.Add(dir); err != nil {
		_ = fw.Close()
		return nil, fmt.Errorf("watch the token folder %s: %w", dir, err)
	}
	w := &Watch{dir: filepath.Clean(dir), w: fw, done: make(chan struct{})}
	w.gen.Store(1)
	go w.run()
	return w, nil
}

// run moves the generation on every event. A lost event queue (overflow) moves it too; a
// folder removed or renamed, or a closed watcher, ends the watch: Gen is then 0 for good.
// It receives until fsnotify closes its channels, whatever happened: fsnotify can send while
// holding the lock its Close takes, so a watch nobody drains could never be closed.
func (w *Watch) run() {
	defer close(w.done)
	defer w.gen.Store(0)
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if filepath.Clean(ev.Name) == w.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				w.gen.Store(0)
			}
			w.bump()
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
			w.bump()
		}
	}
}

// bump moves a live generation on, skipping 0 (which means "no watch").
func (w *Watch) bump() {
	for {
		g := w.gen.Load()
		if g == 0 || w.gen.CompareAndSwap(g, max(g+1, 1)) {
			return
		}
	}
}

// Gen is the folder's generation: it changes after anything in the folder changes. 0 means the
// folder is not watched (a nil Watch, or the watch was lost): look at the files every time.
func (w *Watch) Gen() uint64 {
	if w == nil {
		return 0
	}
	return w.gen.Load()
}

// Close ends the watch; Gen is 0 afterwards.
func (w *Watch) Close() error {
	if w == nil {
		return nil
	}
	err := w.w.Close()
	<-w.done
	if err != nil {
		return fmt.Errorf("stop watching the token folder %s: %w", w.dir, err)
	}
	return nil
}
