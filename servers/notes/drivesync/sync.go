// Package drivesync mirrors the notes folder to a Google Drive folder both ways, with the
// narrow drive.file scope. Notes are tracked by Drive file id; each cycle reconciles the local
// files and the Drive files against what the last cycle agreed on (kept in a state file), so
// an edit, rename or deletion on either side reaches the other, and a note changed on both
// sides keeps both versions: never a silent overwrite.
package drivesync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/health"
)

// Local is the notes folder as the sync sees it; the notes server implements it over its
// vault and index.
type Local interface {
	// Walk lists the note files.
	Walk() ([]vault.File, error)
	// ReadFile reads a note file.
	ReadFile(rel string) ([]byte, error)
	// Stat stats a note file.
	Stat(rel string) (fs.FileInfo, error)
	// Apply makes the changes under the server's write lock, each only if its note is still
	// as expected, and indexes them. It fills in each change's stamp and returns one error per
	// change, nil for those done.
	Apply(ctx context.Context, changes []Change) []error
}

// ChangeKind is what a local change does.
type ChangeKind int

// The local changes.
const (
	WriteNote ChangeKind = iota // write Data to Path
	MoveNote                    // move From to Path, which must be free
	TrashNote                   // move Path to the trash
)

// Change is one change to the notes folder.
type Change struct {
	Kind   ChangeKind
	Path   string
	From   string
	Data   []byte
	Expect string // the MD5 the note at Path (From for a move) must have; "" means none may exist
	MTime  int64  // set by Apply: the note's stamp afterwards
	Size   int64
}

// ErrChanged is what Apply answers for a note that is no longer as the cycle saw it.
var ErrChanged = errors.New("the note changed during the sync; it is synced next time")

// Options configure a Syncer.
type Options struct {
	Folder    string        // the Drive folder's name
	StateFile string        // where the state is kept
	Interval  time.Duration // between cycles
	Debounce  time.Duration // after a local write, how long to wait before syncing it
	Logger    *slog.Logger
	Now       func() time.Time // time.Now by default
}

// Syncer runs sync cycles: every Interval, soon after a local write (Kick), and on demand.
type Syncer struct {
	remote *Remote
	local  Local
	opts   Options
	kick   chan struct{}

	run sync.Mutex // one cycle at a time; guards st
	st  *State

	mu     sync.Mutex // guards status
	status status
}

type status struct {
	lastSync  time.Time
	lastTry   time.Time
	lastErr   error
	notes     int
	conflicts []string // conflict copies made since start, newest last
}

// New loads the state; it does not use the network.
func New(remote *Remote, local Local, opts Options) (*Syncer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := LoadState(opts.StateFile, opts.Folder)
	if err != nil {
		return nil, err
	}
	s := &Syncer{remote: remote, local: local, opts: opts, kick: make(chan struct{}, 1), st: st}
	s.status.lastSync = st.LastSync
	s.status.notes = len(st.Files)
	return s, nil
}

// Kick asks for a cycle soon (after Debounce), because a note changed here.
func (s *Syncer) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run syncs at once, then every Interval and soon after each Kick, until ctx ends.
func (s *Syncer) Run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	next := s.opts.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
			if soon := s.opts.Now().Add(s.opts.Debounce); soon.Before(next) {
				next = soon
				timer.Reset(s.opts.Debounce)
			}
		case <-timer.C:
			cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
			_, _ = s.Sync(cctx)
			cancel()
			next = s.opts.Now().Add(s.opts.Interval)
			timer.Reset(s.opts.Interval)
		}
	}
}

// Report is what one cycle did, by note path.
type Report struct {
	Idle          bool     `json:"idle,omitempty"` // nothing changed on either side
	Uploaded      []string `json:"uploaded,omitempty"`
	Downloaded    []string `json:"downloaded,omitempty"`
	Moved         []string `json:"moved,omitempty"` // "from -> to", either side
	TrashedLocal  []string `json:"trashed_here,omitempty"`
	TrashedRemote []string `json:"trashed_on_drive,omitempty"`
	Conflicts     []string `json:"conflict_copies,omitempty"`
	Failed        []string `json:"failed,omitempty"` // "path: why"; retried next cycle
	Skipped       int      `json:"skipped_drive_files,omitempty"`
	Notes         int      `json:"notes"` // notes in sync after the cycle
}

// Sync runs one cycle now (waiting for one under way) and records its outcome for Health.
func (s *Syncer) Sync(ctx context.Context) (Report, error) {
	s.run.Lock()
	defer s.run.Unlock()
	began := s.opts.Now()
	rep, err := s.cycle(ctx, began)
	if err == nil && len(rep.Failed) > 0 {
		err = fmt.Errorf("%d of the changes failed and are retried next cycle; first: %s", len(rep.Failed), rep.Failed[0])
	}
	s.mu.Lock()
	prev := s.status.lastErr
	s.status.lastTry = began
	s.status.lastErr = err
	s.status.notes = len(s.st.Files)
	if err == nil {
		s.status.lastSync = began
	}
	s.status.conflicts = append(s.status.conflicts, rep.Conflicts...)
	s.mu.Unlock()
	log := s.opts.Logger
	switch {
	case err != nil && (prev == nil || prev.Error() != err.Error()):
		log.Warn("drive sync failed", "error", err.Error())
	case len(rep.Conflicts) > 0:
		log.Warn("drive sync kept conflicting versions", "conflict_copies", strings.Join(rep.Conflicts, ", "))
	}
	if !rep.Idle && err == nil {
		log.Info("drive sync", "uploaded", len(rep.Uploaded), "downloaded", len(rep.Downloaded), "moved", len(rep.Moved),
			"trashed_here", len(rep.TrashedLocal), "trashed_on_drive", len(rep.TrashedRemote), "conflicts", len(rep.Conflicts),
			"notes", rep.Notes, "duration_ms", s.opts.Now().Sub(began).Milliseconds())
	}
	return rep, err
}

// Health reports the sync on /healthz: ok after a good cycle, warn when the last one failed
// or none has finished yet (the notes themselves still work).
func (s *Syncer) Health(context.Context) health.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	var b strings.Builder
	fmt.Fprintf(&b, "Drive folder %q, %d notes", s.opts.Folder, st.notes)
	if !st.lastSync.IsZero() {
		fmt.Fprintf(&b, ", last synced %s", st.lastSync.UTC().Format(time.RFC3339))
	}
	if n := len(st.conflicts); n > 0 {
		fmt.Fprintf(&b, "; %d conflict copies since start, latest %s", n, st.conflicts[n-1])
	}
	switch {
	case st.lastErr != nil:
		return health.Result{Status: health.Warn, Detail: b.String() + "; last sync failed: " + st.lastErr.Error()}
	case st.lastTry.IsZero():
		return health.Result{Status: health.Warn, Detail: b.String() + "; first sync under way"}
	}
	return health.Result{Status: health.OK, Detail: b.String()}
}

// cycle reconciles both sides once; the caller holds run.
func (s *Syncer) cycle(ctx context.Context, now time.Time) (rep Report, err error) {
	local, unchanged, err := s.snapshot()
	if err != nil {
		return rep, fmt.Errorf("list the notes: %w", err)
	}
	st := s.st
	if st.RootID == "" {
		if st.RootID, err = s.remote.Root(ctx, s.opts.Folder); err != nil {
			return rep, err
		}
		st.PageToken = ""
		if err := st.Save(s.opts.StateFile); err != nil {
			return rep, err
		}
	}
	if st.PageToken != "" && unchanged {
		n, next, err := s.remote.Changed(ctx, st.PageToken, st.RootID)
		if err != nil {
			return rep, err
		}
		if n == 0 {
			st.PageToken, st.LastSync = next, now
			rep.Idle, rep.Notes = true, len(st.Files)
			return rep, st.Save(s.opts.StateFile)
		}
	}
	// The token comes first, so changes made while this cycle runs show up in the next.
	token, err := s.remote.StartToken(ctx)
	if err != nil {
		return rep, err
	}
	if err := s.remote.CheckRoot(ctx, st.RootID); err != nil {
		if errors.Is(err, ErrRootGone) {
			return rep, fmt.Errorf("%w: nothing was changed here; restore the folder %q from Drive's trash, or delete %s to start over with a new folder", err, s.opts.Folder, s.opts.StateFile)
		}
		return rep, err
	}
	tree, err := s.remote.List(ctx, st.RootID)
	if err != nil {
		return rep, err
	}
	var missing []string
	for _, id := range sortedKeys(st.Files) {
		if _, ok := tree.Files[id]; !ok {
			missing = append(missing, id)
		}
	}
	if err := s.remote.Confirm(ctx, tree, missing); err != nil {
		return rep, err
	}
	rep.Skipped = tree.Skipped
	actions := Plan(st, local, tree.Files, now)
	defer func() {
		if serr := st.Save(s.opts.StateFile); serr != nil && err == nil {
			err = serr
		}
	}()
	s.execute(ctx, tree, local, actions, &rep)
	st.PageToken, st.LastSync = token, now
	rep.Notes = len(st.Files)
	return rep, nil
}

// snapshot hashes the local notes, reusing the state's hash for a note whose stamp is as the
// last sync left it; unchanged says nothing changed since.
func (s *Syncer) snapshot() (map[string]LocalFile, bool, error) {
	files, err := s.local.Walk()
	if err != nil {
		return nil, false, err
	}
	byPath := s.st.byPath()
	out := make(map[string]LocalFile, len(files))
	unchanged := len(files) == len(s.st.Files)
	for _, f := range files {
		lf := LocalFile{Path: f.Path, MTime: f.MTime, Size: f.Size}
		if id, ok := byPath[f.Path]; ok && s.st.Files[id].MTime == f.MTime && s.st.Files[id].Size == f.Size {
			lf.MD5 = s.st.Files[id].MD5
		} else {
			data, err := s.local.ReadFile(f.Path)
			if err != nil {
				continue // gone since the walk
			}
			lf.MD5 = Sum(data)
			unchanged = false
		}
		out[f.Path] = lf
	}
	return out, unchanged, nil
}

// execute carries out a cycle's actions: Drive downloads first, then every local change under
// the server's lock at once, then the Drive changes. Each step records its outcome in the state
// as it completes, so a failure or a crash leaves a state the next cycle continues from.
func (s *Syncer) execute(ctx context.Context, tree *Tree, local map[string]LocalFile, actions []Action, rep *Report) {
	fail := func(rel string, err error) { rep.Failed = append(rep.Failed, rel+": "+err.Error()) }
	failed := map[int]bool{}
	data := map[int][]byte{}
	for i, a := range actions {
		if a.Op == OpDownload || a.Op == OpConflict {
			d, err := s.remote.Download(ctx, a.ID)
			if err != nil {
				fail(a.Path, err)
				failed[i] = true
				continue
			}
			data[i] = d
		}
	}
	var changes []Change
	changeOf := map[int]int{}
	for i, a := range actions {
		if failed[i] {
			continue
		}
		var c Change
		switch a.Op {
		case OpMoveLocal:
			c = Change{Kind: MoveNote, From: a.From, Path: a.Path, Expect: a.Expect}
		case OpDownload:
			c = Change{Kind: WriteNote, Path: a.Path, Data: data[i], Expect: a.Expect}
		case OpConflict:
			c = Change{Kind: WriteNote, Path: a.Copy, Data: data[i]}
		case OpTrashLocal:
			c = Change{Kind: TrashNote, Path: a.Path, Expect: a.Expect}
		default:
			continue
		}
		changeOf[i] = len(changes)
		changes = append(changes, c)
	}
	if len(changes) > 0 {
		errs := s.local.Apply(ctx, changes)
		for i, ci := range changeOf {
			if errs[ci] != nil {
				fail(actions[i].Path, errs[ci])
				failed[i] = true
			}
		}
	}
	skipID := map[string]bool{}
	for i := range actions {
		if failed[i] && actions[i].ID != "" {
			skipID[actions[i].ID] = true
		}
	}
	files := s.st.Files
	for i, a := range actions {
		if failed[i] || (a.ID != "" && skipID[a.ID]) {
			continue
		}
		var c Change
		if ci, ok := changeOf[i]; ok {
			c = changes[ci]
		}
		var err error
		switch a.Op {
		case OpForget:
			delete(files, a.ID)
		case OpLink:
			l := local[a.Path]
			files[a.ID] = Entry{Path: a.Path, MD5: a.MD5, MTime: l.MTime, Size: l.Size}
		case OpMoveLocal:
			e := files[a.ID]
			e.Path, e.MTime, e.Size = a.Path, c.MTime, c.Size
			files[a.ID] = e
			rep.Moved = append(rep.Moved, a.From+" -> "+a.Path)
		case OpDownload:
			files[a.ID] = Entry{Path: a.Path, MD5: Sum(data[i]), MTime: c.MTime, Size: c.Size}
			rep.Downloaded = append(rep.Downloaded, a.Path)
			if a.Copy != "" {
				if err = s.remote.Move(ctx, tree, a.ID, a.Copy); err == nil {
					rep.Moved = append(rep.Moved, "Drive duplicate -> "+a.Copy)
				}
			}
		case OpTrashLocal:
			delete(files, a.ID)
			rep.TrashedLocal = append(rep.TrashedLocal, a.Path)
		case OpTrashRemote:
			if err = s.remote.Trash(ctx, a.ID); err == nil {
				delete(files, a.ID)
				rep.TrashedRemote = append(rep.TrashedRemote, a.Path)
			}
		case OpMoveRemote:
			if err = s.remote.Move(ctx, tree, a.ID, a.Path); err == nil {
				e := files[a.ID]
				rep.Moved = append(rep.Moved, e.Path+" -> "+a.Path)
				e.Path = a.Path
				if l, ok := local[a.Path]; ok && l.MD5 == e.MD5 {
					e.MTime, e.Size = l.MTime, l.Size
				}
				files[a.ID] = e
			}
		case OpUpload:
			err = s.upload(ctx, tree, a.ID, a.Path)
			if err == nil {
				rep.Uploaded = append(rep.Uploaded, a.Path)
			}
		case OpConflict:
			// The Drive version is safe in its local copy: the local version goes to Drive
			// under the file's id, then the copy goes up as a file of its own (or, should that
			// fail, as a new note next cycle).
			rep.Conflicts = append(rep.Conflicts, a.Copy)
			if err = s.upload(ctx, tree, a.ID, a.Path); err != nil {
				break
			}
			var id string
			if id, err = s.remote.Create(ctx, tree, a.Copy, data[i]); err == nil {
				files[id] = Entry{Path: a.Copy, MD5: Sum(data[i]), MTime: c.MTime, Size: c.Size}
			}
		}
		if err != nil {
			fail(a.Path, err)
		}
	}
}

// upload sends the local note at rel to the Drive file id ("" creates one) and records it.
// The stamp is taken before reading: should the note change meanwhile, its new stamp makes
// the next cycle look again.
func (s *Syncer) upload(ctx context.Context, tree *Tree, id, rel string) error {
	info, err := s.local.Stat(rel)
	if err != nil {
		return fmt.Errorf("read the note: %w", err)
	}
	data, err := s.local.ReadFile(rel)
	if err != nil {
		return fmt.Errorf("read the note: %w", err)
	}
	if id == "" {
		if id, err = s.remote.Create(ctx, tree, rel, data); err != nil {
			return err
		}
	} else if err := s.remote.Update(ctx, id, data); err != nil {
		return err
	}
	s.st.Files[id] = Entry{Path: rel, MD5: Sum(data), MTime: info.ModTime().UnixNano(), Size: info.Size()}
	return nil
}
