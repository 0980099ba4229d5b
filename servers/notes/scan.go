package main

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
)

// A scan compares every file with the index (its modification time and size) and indexes what
// changed. Files are read and parsed in one goroutine while the batches before them are
// written in another; each batch is written under the write lock, leaving out any file changed
// since it was read (the writer that changed it indexed it, or the next scan will), so tools
// never wait for more than one batch.

// Batches: a transaction takes at most batchBytes of notes or batchNotes notes, whichever
// comes first, so that its share of the write-ahead log stays small.
const (
	batchBytes = 2 << 20
	batchNotes = 500
)

// scan brings the current index up to date with the files; progress reports the notes done
// and to do to /healthz as it goes.
func (n *store) scan(ctx context.Context, progress bool) (changed, removed int, err error) {
	n.scanMu.Lock()
	defer n.scanMu.Unlock()
	ix, release := n.readIndex()
	if ix == nil {
		return 0, 0, nil
	}
	defer release()
	began := time.Now()
	changed, removed, err = n.scanInto(ctx, ix, progress)
	if err != nil {
		n.failed(ix, err)
		return changed, removed, err
	}
	n.up.update(func(st *upkeepState) { st.lastScan = began })
	return changed, removed, nil
}

// batch is a run of parsed notes ready to be written.
type batch struct {
	docs []index.Doc
	err  error
}

// scanInto brings ix up to date with the files; the caller holds scanMu.
func (n *store) scanInto(ctx context.Context, ix *index.Index, progress bool) (changed, removed int, err error) {
	var found func(int)
	if progress {
		n.up.update(func(st *upkeepState) { st.listing, st.done, st.total = true, 0, 0 })
		found = func(c int) { n.up.update(func(st *upkeepState) { st.total = c }) }
	}
	files, err := n.v.WalkCounting("", found)
	if progress {
		n.up.update(func(st *upkeepState) { st.listing = false })
	}
	if err != nil {
		return 0, 0, err
	}
	stale, gone, err := compare(ctx, ix, files)
	if err != nil {
		return 0, 0, err
	}
	// Oldest first: a note's id then follows when it last changed, which broad searches use
	// (the index gives every note it re-indexes a new, highest id).
	slices.SortStableFunc(stale, func(a, b vault.File) int { return cmp.Compare(a.MTime, b.MTime) })
	if progress {
		n.up.update(func(st *upkeepState) { st.done, st.total = 0, len(stale) })
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan batch, 1)
	go n.readBatches(ctx, stale, batches)
	done := 0
	for b := range batches {
		if b.err != nil {
			return changed, 0, b.err
		}
		n.mu.Lock()
		docs := n.unchanged(b.docs)
		err := ix.Apply(ctx, docs, nil)
		n.mu.Unlock()
		if err != nil {
			return changed, 0, err
		}
		n.indexed(docs, nil)
		changed += len(docs)
		done += len(b.docs)
		if progress {
			n.up.update(func(st *upkeepState) { st.done = done })
		}
	}
	if err := ctx.Err(); err != nil {
		return changed, 0, err
	}
	if len(gone) == 0 {
		return changed, 0, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	gone = slices.DeleteFunc(gone, n.v.Exists) // made again since the walk
	if err := ix.Apply(ctx, nil, gone); err != nil {
		return changed, 0, err
	}
	n.indexed(nil, gone)
	return changed, len(gone), nil
}

// compare walks the folder's files (sorted here) beside the index's stamps, both in path
// order: stale are the files the index lacks or holds at another modification time or size,
// gone the indexed paths with no file.
func compare(ctx context.Context, ix *index.Index, files []vault.File) (stale []vault.File, gone []string, err error) {
	slices.SortFunc(files, func(a, b vault.File) int { return strings.Compare(a.Path, b.Path) })
	i := 0
	err = ix.EachStamp(ctx, func(p string, st index.Stamp) error {
		for ; i < len(files) && files[i].Path < p; i++ {
			stale = append(stale, files[i]) // not indexed
		}
		if i < len(files) && files[i].Path == p {
			if st.MTime != files[i].MTime || st.Size != files[i].Size {
				stale = append(stale, files[i])
			}
			i++
			return nil
		}
		gone = append(gone, p)
		return nil
	})
	return append(stale, files[i:]...), gone, err
}

// readBatches reads and parses files into batches sent to out, which it closes.
func (n *store) readBatches(ctx context.Context, files []vault.File, out chan<- batch) {
	defer close(out)
	var docs []index.Doc
	size := 0
	send := func() bool {
		select {
		case out <- batch{docs: docs}:
			docs, size = nil, 0
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, f := range files {
		data, err := n.v.ReadFile(f.Path)
		if err != nil {
			continue // vanished, or a symlink leading out: not a note
		}
		docs = append(docs, makeDoc(f.Path, data, f.MTime, f.Size))
		size += len(data)
		if (size >= batchBytes || len(docs) >= batchNotes) && !send() {
			return
		}
	}
	if len(docs) > 0 {
		send()
	}
}

// unchanged keeps the docs whose files are still as they were read; the caller holds mu.
func (n *store) unchanged(docs []index.Doc) []index.Doc {
	out := docs[:0]
	for _, d := range docs {
		if info, err := n.v.Stat(d.Path); err == nil && info.ModTime().UnixNano() == d.MTime && info.Size() == d.Size {
			out = append(out, d)
		}
	}
	return out
}

// fresh catches the index up with files changed outside the server, for readers to call
// first. A watched folder needs nothing: the watch reports changes as they happen. Else a look
// older than the scan interval is redone: right away when the index has been idle for a while
// (ten intervals), else in the background while the read goes on, so busy readers never wait
// for a walk of the folder and the index is never more than about one interval behind. A zero
// interval looks before every read. While the index is built, behind or missing, or not yet
// caught up since it opened, the upkeep is scanning or retrying already.
func (n *store) fresh(ctx context.Context) error {
	iv := n.cfg.scanInterval
	n.up.mu.Lock()
	st := n.up.st
	watched := st.watching
	age := time.Since(st.lastScan)
	switch {
	case st.phase != phaseReady, !st.caughtUp, watched && iv > 0, iv > 0 && age < iv:
		n.up.mu.Unlock()
		return nil
	case iv > 0 && age < 10*iv:
		if !n.up.scanning {
			n.up.scanning = true
			n.bg.Go(n.backgroundScan)
		}
		n.up.mu.Unlock()
		return nil
	}
	n.up.mu.Unlock()
	n.scanMu.Lock()
	stale := iv == 0 || time.Since(n.up.get().lastScan) >= iv
	n.scanMu.Unlock()
	if !stale {
		return nil
	}
	if _, _, err := n.scan(ctx, false); err != nil {
		if st := n.up.get(); st.phase == phaseBehind {
			return nil // the search answers from the index as it is and says so
		}
		return kit.Errorf(kit.CodeInternal, "bring the index up to date: %w", err)
	}
	return nil
}

func (n *store) backgroundScan() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, err := n.scan(ctx, false)
	n.up.mu.Lock()
	n.up.scanning = false
	n.up.mu.Unlock()
	if err != nil {
		n.log.Warn("index scan failed", "error", err.Error())
	}
}
