package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
)

// store is the server's state: the notes folder, its index, and the lock that serializes every
// change to either.
type store struct {
	cfg storeConfig
	v   *vault.Vault
	ix  *index.Index
	log *slog.Logger
	now func() time.Time
	// onWrite, when set, is told after every change a tool makes (the sync uses it).
	onWrite func()
	// searchLimit, when set, replaces searchTimeout (tests shorten it).
	searchLimit time.Duration

	mu       sync.Mutex // held by writers and scans
	scanMu   sync.Mutex // guards lastScan, scanErr and scanning
	lastScan time.Time
	scanErr  error
	scanning bool           // a background scan is under way
	bg       sync.WaitGroup // the background scan, waited for on close
}

// openStore opens the folder and the index and brings the index up to date with the files.
func openStore(ctx context.Context, cfg storeConfig, log *slog.Logger) (*store, error) {
	v, err := vault.Open(cfg.notesDir)
	if err != nil {
		return nil, &kit.ConfigError{Err: fmt.Errorf("--notes-dir: %w", err)}
	}
	ix, rebuilt, err := index.Open(ctx, cfg.indexFile, cfg.notesDir)
	if err != nil {
		_ = v.Close()
		return nil, fmt.Errorf("index %s: %w", cfg.indexFile, err)
	}
	n := &store{cfg: cfg, v: v, ix: ix, log: log, now: time.Now}
	start := time.Now()
	changed, removed, err := n.scan(ctx)
	if err != nil {
		n.close()
		return nil, fmt.Errorf("index the notes: %w", err)
	}
	log.Info("index ready", "rebuilt", rebuilt, "indexed", changed, "removed", removed, "duration_ms", time.Since(start).Milliseconds())
	return n, nil
}

// errNoNote is the error under every "note not found" tool error.
var errNoNote = errors.New("no such note")

// health reports the index's state on /healthz.
func (n *store) health(ctx context.Context) health.Result {
	count, err := n.ix.Count(ctx)
	if err != nil {
		return health.Result{Status: health.Fail, Detail: "index unreadable: " + err.Error()}
	}
	if err := n.lastScanError(); err != nil {
		return health.Result{Status: health.Warn, Detail: fmt.Sprintf("%d notes; last scan failed: %v", count, err)}
	}
	return health.Result{Status: health.OK, Detail: fmt.Sprintf("%d notes", count)}
}

// searchTimeout bounds one search (list_notes with query)'s time in the index; SQLite is interrupted then.
const searchTimeout = 5 * time.Second

func (n *store) searchTimeout() time.Duration {
	if n.searchLimit > 0 {
		return n.searchLimit
	}
	return searchTimeout
}

func (n *store) close() {
	n.bg.Wait()
	_ = n.ix.Close()
	_ = n.v.Close()
}

func (n *store) lastScanError() error {
	n.scanMu.Lock()
	defer n.scanMu.Unlock()
	return n.scanErr
}

// fresh catches the index up with files changed outside the server. Readers call it first.
// A look older than the scan interval is redone: right away when the index has been idle
// for a while (ten intervals), else in the background while the read goes on, so busy readers
// never wait for a walk of the folder and the index is never more than about one interval
// behind. A zero interval looks before every read.
func (n *store) fresh(ctx context.Context) error {
	iv := n.cfg.scanInterval
	n.scanMu.Lock()
	age := time.Since(n.lastScan)
	switch {
	case iv > 0 && age < iv:
		n.scanMu.Unlock()
		return nil
	case iv > 0 && age < 10*iv:
		if !n.scanning {
			n.scanning = true
			n.bg.Add(1)
			go n.backgroundScan()
		}
		n.scanMu.Unlock()
		return nil
	}
	n.scanMu.Unlock()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.scanMu.Lock()
	stale := iv == 0 || time.Since(n.lastScan) >= iv
	n.scanMu.Unlock()
	if !stale {
		return nil
	}
	if _, _, err := n.scan(ctx); err != nil {
		return kit.Errorf(kit.CodeInternal, "bring the index up to date: %w", err)
	}
	return nil
}

func (n *store) backgroundScan() {
	defer n.bg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n.mu.Lock()
	_, _, err := n.scan(ctx)
	n.mu.Unlock()
	n.scanMu.Lock()
	n.scanning = false
	n.scanMu.Unlock()
	if err != nil {
		n.log.Warn("index scan failed", "error", err.Error())
	}
}

// scan compares the files with the index and re-indexes what changed; the caller holds mu (or
// is the only user, at start).
func (n *store) scan(ctx context.Context) (changed, removed int, err error) {
	began := time.Now()
	defer func() {
		n.scanMu.Lock()
		n.scanErr = err
		if err == nil {
			n.lastScan = began
		}
		n.scanMu.Unlock()
	}()
	files, err := n.v.Walk("")
	if err != nil {
		return 0, 0, err
	}
	stamps, err := n.ix.Stamps(ctx)
	if err != nil {
		return 0, 0, err
	}
	var docs []index.Doc
	flush := func() error {
		if len(docs) == 0 {
			return nil
		}
		err := n.ix.Apply(ctx, docs, nil)
		docs = docs[:0]
		return err
	}
	for _, f := range files {
		st, ok := stamps[f.Path]
		delete(stamps, f.Path)
		if ok && st.MTime == f.MTime && st.Size == f.Size {
			continue
		}
		data, err := n.v.ReadFile(f.Path)
		if err != nil {
			continue // vanished, or a symlink leading out: not a note
		}
		docs = append(docs, makeDoc(f.Path, data, f.MTime, f.Size))
		changed++
		if len(docs) >= 500 {
			if err := flush(); err != nil {
				return changed, 0, err
			}
		}
	}
	if err := flush(); err != nil {
		return changed, 0, err
	}
	gone := make([]string, 0, len(stamps))
	for p := range stamps {
		gone = append(gone, p)
	}
	if len(gone) > 0 {
		if err := n.ix.Apply(ctx, nil, gone); err != nil {
			return changed, 0, err
		}
	}
	return changed, len(gone), nil
}

// makeDoc derives what the index holds of one file.
func makeDoc(rel string, data []byte, mtime, size int64) index.Doc {
	note := vault.Parse(string(data))
	d := index.Doc{
		Path:      rel,
		Folder:    vault.Folder(rel),
		Stem:      vault.Stem(rel),
		Title:     noteTitle(rel, note),
		Body:      note.Body,
		Tags:      allTags(note),
		Links:     vault.Links(note.Body),
		Relations: vault.Relations(note.Body),
		Created:   note.Created,
		Updated:   note.Updated,
		MTime:     mtime,
		Size:      size,
		Hash:      vault.Hash(data),
	}
	if d.Updated.IsZero() {
		d.Updated = time.Unix(0, mtime)
	}
	if d.Created.IsZero() {
		d.Created = d.Updated
	}
	return d
}

func noteTitle(rel string, n vault.Note) string {
	if n.Title != "" {
		return n.Title
	}
	if h := vault.FirstHeading(n.Body); h != "" {
		return h
	}
	return vault.Stem(rel)
}

// allTags is the union of front matter tags and inline #tags.
func allTags(n vault.Note) []string {
	return vault.NormalizeTags(append(append([]string{}, n.Tags...), vault.InlineTags(n.Body)...))
}

// reindex indexes (or, when the file is gone, drops) the given paths after a tool changed
// them, and tells the sync; the caller holds mu.
func (n *store) reindex(ctx context.Context, paths ...string) error {
	if n.onWrite != nil {
		n.onWrite()
	}
	return n.indexPaths(ctx, paths...)
}

// indexPaths indexes (or, when the file is gone, drops) the given paths; the caller holds mu.
func (n *store) indexPaths(ctx context.Context, paths ...string) error {
	var docs []index.Doc
	var gone []string
	for _, p := range paths {
		info, err := n.v.Stat(p)
		if err != nil {
			gone = append(gone, p)
			continue
		}
		data, err := n.v.ReadFile(p)
		if err != nil {
			gone = append(gone, p)
			continue
		}
		docs = append(docs, makeDoc(p, data, info.ModTime().UnixNano(), info.Size()))
	}
	if err := n.ix.Apply(ctx, docs, gone); err != nil {
		return kit.Errorf(kit.CodeInternal, "the note was written but indexing it failed (it is picked up on the next scan): %w", err)
	}
	return nil
}

// notePath cleans a caller's note path into a kit error on failure.
func notePath(p string) (string, error) {
	rel, err := vault.CleanPath(p)
	if err != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "path: %w", err)
	}
	return rel, nil
}

// maxNamed is how many notes an ambiguous name's error lists.
const maxNamed = 10

// existing returns the path of the note p names: p itself when a note is there, else a bare
// name matched as a wikilink's target is ("kubernetes migration" finds
// projects/Kubernetes Migration.md), refused with the candidates when it names several.
func (n *store) existing(ctx context.Context, p string) (string, error) {
	rel, perr := notePath(p)
	if perr == nil && n.v.Exists(rel) {
		return rel, nil
	}
	if err := n.fresh(ctx); err != nil {
		return "", err
	}
	paths, err := n.ix.Named(ctx, p, maxNamed+1)
	if err != nil {
		return "", kit.Errorf(kit.CodeInternal, "look up %q: %w", p, err)
	}
	switch {
	case len(paths) == 1:
		return paths[0], nil
	case len(paths) > maxNamed:
		return "", kit.Errorf(kit.CodeInvalidInput, "%q names more than %d notes, e.g. %s: give the path of the one you mean", p, maxNamed, strings.Join(paths[:maxNamed], ", "))
	case len(paths) > 1:
		return "", kit.Errorf(kit.CodeInvalidInput, "%q names %d notes: %s; give the path of the one you mean", p, len(paths), strings.Join(paths, ", "))
	case perr != nil:
		return "", perr
	}
	return rel, nil // not there: the caller's read reports it
}

func folderPath(p string) (string, error) {
	rel, err := vault.CleanFolder(p)
	if err != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "folder: %w", err)
	}
	return rel, nil
}

// read loads a note; a missing one is a not-found error that suggests how to find it.
func (n *store) read(rel string) (vault.Note, []byte, error) {
	data, err := n.v.ReadFile(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return vault.Note{}, nil, kit.Errorf(kit.CodeNotFound, "%w: %s; find notes with list_notes", errNoNote, rel)
		}
		return vault.Note{}, nil, kit.Errorf(kit.CodeInvalidInput, "read %s: %w", rel, err)
	}
	return vault.Parse(string(data)), data, nil
}

// change applies edit to the note at rel under the write lock: it checks expectedHash against
// the file, writes the result atomically (only if the file did not change meanwhile, checked
// again right before the rename) and re-indexes it. It returns the new content hash.
func (n *store) change(ctx context.Context, rel, expectedHash string, edit func(*vault.Note) error) (string, bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for attempt := 0; ; attempt++ {
		note, data, err := n.read(rel)
		if err != nil {
			return "", false, err
		}
		hash := vault.Hash(data)
		if expectedHash != "" && expectedHash != hash {
			return "", false, kit.Errorf(kit.CodeInvalidInput, "%s changed since you read it (hash %s, you expected %s): read it again with get_note and redo the change", rel, hash, expectedHash)
		}
		before := note.Render()
		if err := edit(&note); err != nil {
			return "", false, err
		}
		if note.Render() == before && string(data) == before {
			return hash, false, nil
		}
		note.Updated = n.now().Truncate(time.Second)
		if note.Created.IsZero() {
			note.Created = note.Updated
		}
		note.Tags = allTags(note)
		out := []byte(note.Render())
		if cur, err := n.v.ReadFile(rel); err != nil || vault.Hash(cur) != hash {
			if attempt < 3 && expectedHash == "" {
				continue // someone outside the server wrote it: redo the edit on their version
			}
			return "", false, kit.Errorf(kit.CodeUnavailable, "%s is being changed by someone else: read it again and retry", rel)
		}
		if err := n.v.Write(rel, out, false); err != nil {
			return "", false, kit.Errorf(kit.CodeInternal, "write %s: %w", rel, err)
		}
		return vault.Hash(out), true, n.reindex(ctx, rel)
	}
}

// create writes a new note (or replaces one when overwrite is set) and indexes it.
func (n *store) create(ctx context.Context, rel string, note vault.Note, overwrite bool) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now().Truncate(time.Second)
	if note.Created.IsZero() {
		note.Created = now
	}
	note.Updated = now
	note.Tags = allTags(note)
	out := []byte(note.Render())
	if err := n.v.Write(rel, out, !overwrite); err != nil {
		if errors.Is(err, vault.ErrExists) {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s already exists: change it with update_note, or pass overwrite: true to replace it", rel)
		}
		return "", kit.Errorf(kit.CodeInvalidInput, "write %s: %w", rel, err)
	}
	return vault.Hash(out), n.reindex(ctx, rel)
}

// noExt is a path without ".md", the form wikilinks use.
func noExt(rel string) string { return strings.TrimSuffix(rel, path.Ext(rel)) }
