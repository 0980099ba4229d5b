package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
)

// store is the server's state: the notes folder, its index, and the lock that serializes every
// change to either. The files are the truth; the index is a cache of them that the upkeep
// (upkeep.go) opens, builds, keeps up with outside changes and repairs while the server serves.
type store struct {
	cfg storeConfig
	v   *vault.Vault
	log *slog.Logger
	now func() time.Time
	// onWrite, when set, is told after every change a tool makes (the sync uses it).
	onWrite func()
	// onIndexed, when set, is told (in a goroutine of its own) of the paths the index took in
	// or dropped: notes written by a tool, by the sync or outside the server.
	onIndexed func(paths []string)
	// searchLimit, when set, replaces searchTimeout (tests shorten it).
	searchLimit time.Duration
	// retryMin and retryMax bound the wait between attempts to write an index that could not be
	// written (it doubles from the first to the second).
	retryMin, retryMax time.Duration

	mu sync.Mutex // held by writers, and by scans while they write a batch

	ixMu sync.Mutex // guards ix, held only to read or replace it
	ix   *indexRef  // nil until opened

	up      upkeep     // the index's state (upkeep.go)
	scanMu  sync.Mutex // one scan at a time
	watcher *watcher   // nil while the folder is not watched (watch.go)

	stop context.CancelFunc // ends run when the store runs it itself (openStore)
	bg   sync.WaitGroup     // run and background scans, waited for on close
}

// newStore opens the notes folder; the index is opened and built by run.
func newStore(cfg storeConfig, log *slog.Logger) (*store, error) {
	v, err := vault.Open(cfg.notesDir)
	if err != nil {
		return nil, &kit.ConfigError{Err: fmt.Errorf("--notes-dir: %w", err)}
	}
	n := &store{cfg: cfg, v: v, log: log, now: time.Now, retryMin: time.Second, retryMax: time.Minute}
	n.up.init()
	return n, nil
}

// openStore opens the folder, starts the index's upkeep and waits until the first build is
// done (tests and benchmarks; the server serves meanwhile instead).
func openStore(ctx context.Context, cfg storeConfig, log *slog.Logger) (*store, error) {
	n, err := newStore(cfg, log)
	if err != nil {
		return nil, err
	}
	rctx, stop := context.WithCancel(context.Background())
	n.stop = stop
	n.bg.Go(func() { n.run(rctx) })
	select {
	case <-n.up.built:
	case <-ctx.Done():
		n.close()
		return nil, ctx.Err()
	}
	if st := n.up.get(); st.phase != phaseReady {
		n.close()
		return nil, fmt.Errorf("index the notes: %w", st.err)
	}
	return n, nil
}

// errNoNote is the error under every "note not found" tool error.
var errNoNote = errors.New("no such note")

// searchTimeout bounds one search (list_notes with query)'s time in the index; SQLite is interrupted then.
const searchTimeout = 5 * time.Second

func (n *store) searchTimeout() time.Duration {
	if n.searchLimit > 0 {
		return n.searchLimit
	}
	return searchTimeout
}

func (n *store) close() {
	if n.stop != nil {
		n.stop()
	}
	n.bg.Wait()
	n.watcher.close()
	n.replaceIndex(nil)
	_ = n.v.Close()
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
		Fields:    indexFields(note),
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
// them, and tells the sync; the caller holds mu. The change is made in the files whatever
// becomes of the index: when it cannot take it now, the upkeep catches it up later.
func (n *store) reindex(ctx context.Context, paths ...string) {
	if n.onWrite != nil {
		n.onWrite()
	}
	n.indexPaths(ctx, paths...)
}

// indexPaths indexes (or, when the file is gone, drops) the given paths, leaving out those
// the index already holds as they are on disk; the caller holds mu. It does nothing while the
// index is missing or behind (a failed write is retried by the upkeep, which scans every file).
func (n *store) indexPaths(ctx context.Context, paths ...string) {
	ix, release := n.writable()
	if ix == nil {
		return
	}
	defer release()
	var docs []index.Doc
	var gone []string
	for _, p := range paths {
		had, indexed, err := ix.StampOf(ctx, p)
		if err != nil {
			n.failed(ix, err)
			return
		}
		info, err := n.v.Stat(p)
		if err != nil {
			if indexed {
				gone = append(gone, p)
			}
			continue
		}
		if indexed && had == (index.Stamp{MTime: info.ModTime().UnixNano(), Size: info.Size()}) {
			continue // as indexed already (the watch reports the server's own writes too)
		}
		data, err := n.v.ReadFile(p)
		if err != nil {
			gone = append(gone, p)
			continue
		}
		docs = append(docs, makeDoc(p, data, info.ModTime().UnixNano(), info.Size()))
	}
	if len(docs) == 0 && len(gone) == 0 {
		return
	}
	if err := ix.Apply(ctx, docs, gone); err != nil {
		n.failed(ix, err)
		return
	}
	n.indexed(docs, gone)
}

// indexed tells onIndexed of the paths of docs and gone.
func (n *store) indexed(docs []index.Doc, gone []string) {
	if n.onIndexed == nil || len(docs)+len(gone) == 0 {
		return
	}
	paths := slices.Clip(gone)
	for _, d := range docs {
		paths = append(paths, d.Path)
	}
	go n.onIndexed(paths)
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
	ix, release, _, err := n.readable(ctx)
	if err != nil { // no index to look the name up in: the path alone decides
		if perr != nil {
			return "", perr
		}
		return rel, nil
	}
	defer release()
	paths, err := ix.Named(ctx, p, maxNamed+1)
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
		n.reindex(ctx, rel)
		return vault.Hash(out), true, nil
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
	n.reindex(ctx, rel)
	return vault.Hash(out), nil
}

// noExt is a path without ".md", the form wikilinks use.
func noExt(rel string) string { return strings.TrimSuffix(rel, path.Ext(rel)) }
