package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
)

// The index is a cache of the files, and the server never waits for it to serve them. The
// upkeep (run, in the background from the server's start) opens the index, builds it when it
// is new, catches it up with the files, watches the folder, and when the index cannot be
// written (a full disk, a read-only file) or is damaged, says so on /healthz and keeps trying,
// doubling its wait up to retryMax. Notes are read and written by path all along; searches
// answer from what is indexed and say when that is not everything.

// phase is what the index is doing.
type phase int

const (
	phaseOpening  phase = iota // not opened yet
	phaseBuilding              // built from nothing: searches answer from the notes indexed so far
	phaseReady                 // up to date with the files (within the watch's delay)
	phaseBehind                // a write failed: the index answers as it was; retried
	phaseMissing               // no index could be opened or made; retried
)

// upkeepState is the index's state, as /healthz and the tools report it.
type upkeepState struct {
	phase       phase
	done, total int       // the build's (or rebuild's) progress, in notes
	listing     bool      // the build is listing the folder: total is the notes found so far
	err         error     // behind or missing: why
	since       time.Time // behind: when it fell behind
	retryAt     time.Time // behind or missing: the next attempt
	rebuilding  bool      // a damaged index is being rebuilt aside; searches use it meanwhile
	watching    bool      // the folder is watched: outside changes are indexed as they happen
	watchErr    error     // why the folder is not watched (outside changes are then found by scans)
	lastScan    time.Time // when the last scan that succeeded began
	caughtUp    bool      // the upkeep's first scan since the index opened has ended well
}

// upkeep holds the index's state and what wakes its loop.
type upkeep struct {
	mu       sync.Mutex
	st       upkeepState
	scanning bool // a background scan is under way (fresh)

	changed   chan struct{} // closed at the next change of st
	built     chan struct{} // closed once the first build or catch-up has ended, well or not
	builtOnce sync.Once
	wake      chan struct{} // nudges run: a write failed, damage was found, a rescan is wanted
	damaged   atomic.Bool   // the index is damaged: rebuild it aside
	rescan    atomic.Bool   // compare every file with the index (the watch lost events)
}

func (u *upkeep) init() {
	u.built = make(chan struct{})
	u.changed = make(chan struct{})
	u.wake = make(chan struct{}, 1)
}

func (u *upkeep) get() upkeepState {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.st
}

// watchState returns the state and a channel closed when it next changes.
func (u *upkeep) watchState() (upkeepState, <-chan struct{}) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.st, u.changed
}

func (u *upkeep) update(fn func(*upkeepState)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fn(&u.st)
	close(u.changed)
	u.changed = make(chan struct{})
}

func (u *upkeep) nudge() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

func (u *upkeep) markBuilt() { u.builtOnce.Do(func() { close(u.built) }) }

// Timings of the upkeep.
const (
	// buildWait is how long a search made during the first build waits for it to end before
	// answering from the notes indexed so far.
	buildWait = time.Second
	// safetyScan is how often a watched folder is compared with the index anyway, for changes
	// the kernel does not report (a network file system, a lost event).
	safetyScan = 10 * time.Minute
)

// run is the index's upkeep; it returns when ctx ends.
func (n *store) run(ctx context.Context) {
	defer n.up.markBuilt()
	retry := n.retryMin
	for {
		err := n.step(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := safetyScan
		if err != nil {
			wait = retry
			n.fellBehind(err, retry)
			retry = min(2*retry, n.retryMax)
		} else {
			retry = n.retryMin
		}
		n.up.markBuilt()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-n.up.wake:
			t.Stop()
			// A write that failed since wants the retry's wait, not an attempt right away.
			if st := n.up.get(); st.phase == phaseBehind || st.phase == phaseMissing {
				if !sleep(ctx, time.Until(st.retryAt)) {
					return
				}
			}
		}
	}
}

// sleep waits d or until ctx ends, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// step does what the index needs now: open it, rebuild it aside when damaged, build it or
// catch it up with the files, and start watching the folder.
func (n *store) step(ctx context.Context) error {
	fresh := false
	opened := n.current() != nil
	if !opened {
		var err error
		if fresh, err = n.openIndex(ctx); err != nil {
			return err
		}
	}
	if n.up.damaged.Load() {
		if err := n.rebuildAside(ctx); err != nil {
			return fmt.Errorf("rebuild the damaged index: %w", err)
		}
	}
	if fresh {
		defer limitBuildMemory()()
	}
	n.up.rescan.Store(false)
	if st := n.up.get(); st.phase == phaseBehind {
		// A failed write may have left the log long: give its space back first, if it can be.
		if ix, release := n.readIndex(); ix != nil {
			_ = ix.Checkpoint(ctx)
			release()
		}
	}
	start := time.Now()
	changed, removed, err := n.scan(ctx, true)
	if err != nil {
		return err
	}
	if err := n.finish(ctx); err != nil {
		return err
	}
	n.up.update(func(st *upkeepState) { st.phase, st.err, st.caughtUp = phaseReady, nil, true })
	n.log.Info("index ready", "rebuilt", fresh, "indexed", changed, "removed", removed, "duration_ms", time.Since(start).Milliseconds())
	if fresh || changed+removed > 0 {
		n.tidy(ctx, fresh)
	}
	n.watch(ctx)
	if !opened {
		n.checkLater(ctx)
	}
	return nil
}

// openIndex opens the index, or makes it when it is missing, stale or unreadable; fresh
// reports that it is new (empty).
func (n *store) openIndex(ctx context.Context) (fresh bool, err error) {
	ix, rebuilt, err := index.Open(ctx, n.cfg.indexFile, n.cfg.notesDir)
	if err != nil {
		return false, fmt.Errorf("open the index %s: %w", n.cfg.indexFile, err)
	}
	n.replaceIndex(ix)
	n.up.update(func(st *upkeepState) {
		st.phase = phaseReady
		if rebuilt {
			st.phase, st.done, st.total = phaseBuilding, 0, 0
		}
	})
	return rebuilt, nil
}

// finish makes the lookup indexes a new index is built without, once it holds every note
// (a no-op when they are there).
func (n *store) finish(ctx context.Context) error {
	ix, release := n.writable()
	if ix == nil {
		return nil
	}
	defer release()
	if err := ix.Finish(ctx); err != nil {
		n.failed(ix, err)
		return fmt.Errorf("make the lookup indexes: %w", err)
	}
	return nil
}

// tidy gives the write-ahead log's space back after a scan that changed the index, and after
// a build (built) the build's memory. Failing at it costs space, not correctness.
func (n *store) tidy(ctx context.Context, built bool) {
	ix, release := n.writable()
	if ix == nil {
		return
	}
	defer release()
	if built {
		// The build's batches are garbage now: hand their pages back rather than hold them
		// until the runtime's next collection, minutes away on an idle server.
		defer debug.FreeOSMemory()
	}
	if err := ix.Checkpoint(ctx); err != nil {
		n.log.Info("checkpoint after the scan", "error", err.Error())
	}
}

// checkLater reads the whole index once, in the background checkDelay after it was opened
// (not to slow the first searches), for damage that opening it does not show; damage found is
// rebuilt aside.
func (n *store) checkLater(ctx context.Context) {
	n.bg.Go(func() {
		if !sleep(ctx, checkDelay) {
			return
		}
		ix, release := n.readIndex()
		if ix == nil {
			return
		}
		defer release()
		if err := ix.Check(ctx); err != nil && index.Corrupt(err) {
			n.damage(err)
		}
	})
}

// checkDelay is how long after opening the index its check starts.
const checkDelay = 5 * time.Second

// fellBehind records that the index could not be opened or written, and when it is tried again.
func (n *store) fellBehind(err error, retry time.Duration) {
	n.log.Warn("the index is behind the notes; retrying", "error", err.Error(), "retry_in", retry.String())
	missing := n.current() == nil
	n.up.update(func(st *upkeepState) {
		switch {
		case missing:
			st.phase = phaseMissing
		case st.phase != phaseBehind:
			st.phase, st.since = phaseBehind, n.now()
		}
		st.err, st.retryAt = err, time.Now().Add(retry)
	})
}

// failed handles a write to ix that failed: a damaged index is rebuilt aside, any other
// failure leaves the index behind until the upkeep's retry catches it up.
func (n *store) failed(ix *index.Index, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if index.Corrupt(err) {
		n.damage(err)
		return
	}
	if n.current() == ix {
		n.fellBehind(err, n.retryMin)
		n.up.nudge()
	}
}

// damage records that the index is damaged; the upkeep rebuilds it aside.
func (n *store) damage(err error) {
	if n.up.damaged.CompareAndSwap(false, true) {
		n.log.Warn("the index is damaged; rebuilding it", "error", err.Error())
		n.up.nudge()
	}
}

// readError passes err on, and starts a rebuild when it says the index is damaged.
func (n *store) readError(err error) error {
	if index.Corrupt(err) {
		n.damage(err)
	}
	return err
}

// indexRef is the open index with a count of its users, so that it is closed only when the
// last one is done with it.
type indexRef struct {
	ix    *index.Index
	users sync.WaitGroup
}

// readIndex returns the index to use and its release, or nil when there is none.
func (n *store) readIndex() (*index.Index, func()) {
	n.ixMu.Lock()
	defer n.ixMu.Unlock()
	if n.ix == nil {
		return nil, nil
	}
	r := n.ix
	r.users.Add(1)
	return r.ix, r.users.Done
}

// current is the open index, or nil; for comparisons only, not for use.
func (n *store) current() *index.Index {
	n.ixMu.Lock()
	defer n.ixMu.Unlock()
	if n.ix == nil {
		return nil
	}
	return n.ix.ix
}

// replaceIndex puts ix (nil for none) in place of the open index, and closes that one once its
// last user is done with it.
func (n *store) replaceIndex(ix *index.Index) {
	var next *indexRef
	if ix != nil {
		next = &indexRef{ix: ix}
	}
	n.ixMu.Lock()
	old := n.ix
	n.ix = next
	n.ixMu.Unlock()
	if old != nil {
		old.users.Wait()
		_ = old.ix.Close()
	}
}

// writable returns the index to write and its release, or nil when there is none or it is
// behind (the upkeep's next catch-up takes the change then).
func (n *store) writable() (*index.Index, func()) {
	if st := n.up.get(); st.phase == phaseBehind || st.phase == phaseMissing {
		return nil, nil
	}
	return n.readIndex()
}

// readable returns the index for a tool to read, its release, and a note to show with the
// results when they may be incomplete or out of date. During the first build it waits up to
// buildWait for the build to end. With no index at all it returns an unavailable error.
func (n *store) readable(ctx context.Context) (*index.Index, func(), string, error) {
	t := time.NewTimer(buildWait)
	defer t.Stop()
	st, changed := n.up.watchState()
	for waiting := true; waiting && (st.phase == phaseOpening || st.phase == phaseBuilding); st, changed = n.up.watchState() {
		select {
		case <-changed:
		case <-t.C:
			waiting = false
		case <-ctx.Done():
			waiting = false
		}
	}
	ix, release := n.readIndex()
	if ix == nil {
		why := "it is being opened"
		if st.err != nil {
			why = st.err.Error()
		}
		return nil, nil, "", kit.Errorf(kit.CodeUnavailable, "the search index is not available (%s); it is retried by itself. get_note reads a note by its path meanwhile", why)
	}
	return ix, release, st.note(), nil
}

// note is what a search or listing says about the index when it is not whole and current.
func (st upkeepState) note() string {
	switch st.phase {
	case phaseOpening, phaseBuilding:
		return "the index is being built: " + st.progress() + ", so results may be incomplete"
	case phaseBehind:
		return fmt.Sprintf("the index has not taken changes since %s (%v), so results may be out of date", st.since.Format(time.RFC3339), st.err)
	}
	return ""
}

// progress is how far a build is: the notes found while it lists the folder, then the notes
// indexed of those to index.
func (st upkeepState) progress() string {
	if st.listing {
		return fmt.Sprintf("listing the notes folder, %d notes found so far", st.total)
	}
	return fmt.Sprintf("%d of %d notes indexed so far", st.done, st.total)
}

// health reports the index's state on /healthz: warn (the server is "degraded") while it is
// built, behind, missing or rebuilt, with the progress or the reason and the next attempt.
func (n *store) health(ctx context.Context) health.Result {
	st := n.up.get()
	retry := "now"
	if d := time.Until(st.retryAt); d > 0 {
		retry = "in " + d.Round(100*time.Millisecond).String()
	}
	switch st.phase {
	case phaseOpening:
		return health.Result{Status: health.Warn, Detail: "opening the index"}
	case phaseBuilding:
		return health.Result{Status: health.Warn, Detail: "building the index: " + st.progress() + "; searches answer from those indexed"}
	case phaseMissing:
		return health.Result{Status: health.Warn, Detail: fmt.Sprintf("no index: %v; retrying %s. Notes are read and written by path; search waits for the index", st.err, retry)}
	}
	count := "?"
	if ix, release := n.readIndex(); ix != nil {
		c, err := ix.Count(ctx)
		release()
		if err != nil {
			return health.Result{Status: health.Warn, Detail: "index unreadable: " + n.readError(err).Error()}
		}
		count = fmt.Sprint(c)
	}
	switch {
	case st.phase == phaseBehind:
		return health.Result{Status: health.Warn, Detail: fmt.Sprintf("%s notes indexed; the index has taken no change since %s: %v; retrying %s. Reads by path, and searches of what is indexed, go on",
			count, st.since.Format(time.RFC3339), st.err, retry)}
	case st.rebuilding:
		return health.Result{Status: health.Warn, Detail: "the index is damaged: rebuilding it aside, " + st.progress() + "; searches use the old one meanwhile"}
	case st.watchErr != nil:
		return health.Result{Status: health.OK, Detail: fmt.Sprintf("%s notes; outside changes are found by a scan every %s (the folder is not watched: %v)", count, n.cfg.scanInterval, st.watchErr)}
	}
	return health.Result{Status: health.OK, Detail: count + " notes"}
}

// rebuildAside builds a new index beside the damaged one from the files, then puts it in its
// place; searches use the old one meanwhile. Changes made during the rebuild are caught up by
// the scan that follows.
func (n *store) rebuildAside(ctx context.Context) error {
	file := n.cfg.indexFile + ".rebuild"
	if err := index.Remove(file); err != nil {
		return err
	}
	nix, err := index.Create(ctx, file, n.cfg.notesDir)
	if err != nil {
		return err
	}
	defer limitBuildMemory()()
	n.up.update(func(st *upkeepState) { st.rebuilding, st.done, st.total = true, 0, 0 })
	defer n.up.update(func(st *upkeepState) { st.rebuilding = false })
	n.scanMu.Lock()
	changed, _, err := n.scanInto(ctx, nix, true)
	n.scanMu.Unlock()
	if err == nil {
		err = nix.Finish(ctx)
	}
	if err == nil {
		err = nix.Checkpoint(ctx)
	}
	if err = errors.Join(err, nix.Close()); err != nil {
		_ = index.Remove(file)
		return err
	}
	// Searches wait (up to buildWait) while the old index is closed, the new one takes its
	// name and is opened.
	n.up.update(func(st *upkeepState) { st.phase = phaseOpening })
	defer n.up.update(func(st *upkeepState) {
		if st.phase == phaseOpening {
			st.phase = phaseReady
		}
	})
	n.replaceIndex(nil)
	if err := index.Remove(n.cfg.indexFile); err != nil {
		return err
	}
	if err := os.Rename(file, n.cfg.indexFile); err != nil {
		return err
	}
	_ = index.Remove(file) // its -wal and -shm, if any were left
	ix, _, err := index.Open(ctx, n.cfg.indexFile, n.cfg.notesDir)
	if err != nil {
		return err
	}
	n.replaceIndex(ix)
	n.up.damaged.Store(false)
	n.log.Info("the damaged index was rebuilt", "notes", changed)
	return nil
}
