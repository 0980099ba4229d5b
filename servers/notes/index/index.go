// Package index is the notes' full-text index: an SQLite database with FTS5 (pure Go, no cgo)
// derived from the note files. It can always be thrown away and rebuilt from them.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"modernc.org/sqlite" // also registers the "sqlite" driver
)

// schemaVersion changes whenever the tables change; a database of another version is rebuilt.
const schemaVersion = "6"

const schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE notes(
	id INTEGER PRIMARY KEY,
	path TEXT NOT NULL UNIQUE,
	folder TEXT NOT NULL,
	stem TEXT NOT NULL,
	pkey TEXT NOT NULL,
	title TEXT NOT NULL,
	tkey TEXT NOT NULL,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	mtime INTEGER NOT NULL,
	size INTEGER NOT NULL,
	hash TEXT NOT NULL
);
CREATE INDEX notes_updated ON notes(updated);
CREATE TABLE tags(note INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(note, tag)) WITHOUT ROWID;
CREATE INDEX tags_tag ON tags(tag, note);
-- rel is a typed relation's type ("- works_at [[Acme]]"), '' for a plain link
CREATE TABLE links(src INTEGER NOT NULL, target TEXT NOT NULL, key TEXT NOT NULL, rel TEXT NOT NULL, PRIMARY KEY(src, key, rel)) WITHOUT ROWID;
-- front matter fields other than the owned four: one row per value (per item of a list); at is a
-- date's or time's Unix nanoseconds, NULL for a value that is not one
CREATE TABLE fields(note INTEGER NOT NULL, key TEXT NOT NULL COLLATE NOCASE, value TEXT NOT NULL COLLATE NOCASE, at INTEGER, PRIMARY KEY(note, key, value)) WITHOUT ROWID;
CREATE TABLE terms(term TEXT PRIMARY KEY) WITHOUT ROWID; -- every word of the notes (see vocab.go)
CREATE TABLE deletions(path TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID; -- notes gone, and when
CREATE INDEX deletions_at ON deletions(at);
CREATE VIRTUAL TABLE fts USING fts5(title, body, tags, content='', contentless_delete=1, tokenize='unicode61');
INSERT INTO fts(fts, rank) VALUES ('automerge', 0); -- while the first build runs: see Finish
INSERT INTO meta(key, value) VALUES ('building', '1');
`

// lookupIndexes are the indexes whose keys come in no order as notes are indexed (names,
// titles, link targets, field values). A new index is created without them and gets them when
// its first build ends (Finish): at 100,000 notes, keeping them up to date note by note dirties
// a page of each for nearly every row, which the write-ahead log then writes twice per batch,
// while making them at the end is one sort. Open makes any that are missing (a build stopped
// half way), so an index is never used long without them.
const lookupIndexes = `
CREATE INDEX IF NOT EXISTS notes_stem ON notes(stem);
CREATE INDEX IF NOT EXISTS notes_pkey ON notes(pkey);
CREATE INDEX IF NOT EXISTS notes_tkey ON notes(tkey);
CREATE INDEX IF NOT EXISTS links_key ON links(key, src);
CREATE INDEX IF NOT EXISTS fields_key ON fields(key, value);
`

// Doc is what the index holds of one note.
type Doc struct {
	Path   string
	Folder string
	Stem   string
	Title  string
	Body   string
	Tags   []string
	Links  []string // wikilink targets as written
	// Relations are the typed links ("- works_at [[Acme]]"); their targets are in Links too.
	Relations []vault.Relation
	Fields    []Field // front matter fields other than title, tags, created and updated
	Created   time.Time
	Updated   time.Time
	MTime     int64
	Size      int64
	Hash      string
}

// Index is an open index database. Changes go through one writer connection, searches and
// listings through a pool of readers (WAL mode: readers never wait for the writer, nor it for
// them), and Count through a connection of its own, so a health check never queues behind
// slow readers.
type Index struct {
	file  string
	db    *sql.DB // the writer: one connection
	read  *sql.DB // readers
	probe *sql.DB // one connection for Count
	// searches holds a token per search running; a search that finds none free within
	// searchWait fails with ErrBusy instead of queueing.
	searches chan struct{}

	w writeStmts // the writer's statements

	vocab *vocab
	// building is set from Create until Finish: the index's first build is under way, and
	// writes leave the vocabulary to Finish, which reads it from the full-text index at once.
	building atomic.Bool
	// broad is the number of matches past which a search ranks only the most recent
	// (broadCap; tests lower it).
	broad int
	// now stamps deletions (tests may replace it).
	now func() time.Time
}

// Reader pool and search limits.
const (
	readConns   = 4
	maxSearches = 3 // fewer than readConns: listings and get_note keep a reader
	searchWait  = time.Second
)

// Open opens the index at file for the notes folder root. A database that is not one, is
// corrupt at its start, has another schema version or belongs to another folder is deleted and
// created anew; rebuilt reports that (the caller then indexes every file). A database that
// cannot be opened for another reason (a full disk, a read-only folder) is left as it is and
// the error returned: it is not thrown away for what may pass.
func Open(ctx context.Context, file, root string) (ix *Index, rebuilt bool, err error) {
	ix, err = open(ctx, file, root)
	if err == nil {
		return ix, false, nil
	}
	if !errors.Is(err, errStale) && !errors.Is(err, os.ErrNotExist) && !Corrupt(err) {
		return nil, false, err
	}
	if err := Remove(file); err != nil {
		return nil, false, fmt.Errorf("remove stale index: %w", err)
	}
	ix, err = Create(ctx, file, root)
	return ix, true, err
}

// Remove deletes the index database at file with its write-ahead log and shared memory.
func Remove(file string) error {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(file + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

var errStale = errors.New("stale index")

// Memory and log sizes. A reader needs little cache of its own: the file is mapped into memory
// (mmapSize), whose pages the kernel shares and can drop. The write-ahead log is checkpointed
// into the database every walPages pages and truncated back to walLimit bytes after that, so it
// stays small whatever is written; a build's batches are sized to keep each one's share small.
const (
	writerCacheKiB = 8 << 10
	sortCacheKiB   = 2 << 10 // while Finish makes the lookup indexes
	readerCacheKiB = 1 << 10
	mmapSize       = 1 << 31
	walPages       = 1000
	walLimit       = 4 << 20
)

// connect opens a pool of at most conns connections to file; readOnly ones refuse writes.
func connect(file string, conns int, readOnly bool) (*sql.DB, error) {
	cache := writerCacheKiB
	if readOnly {
		cache = readerCacheKiB
	}
	dsn := fmt.Sprintf("file:%s?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"+
		"&_pragma=cache_size(-%d)&_pragma=mmap_size(%d)&_pragma=journal_size_limit(%d)&_pragma=wal_autocheckpoint(%d)&_txlock=immediate",
		file, cache, mmapSize, walLimit, walPages)
	if readOnly {
		dsn += "&_pragma=query_only(1)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// newIndex opens the reader pools beside the writer db and prepares the statements.
func newIndex(ctx context.Context, file string, db *sql.DB) (*Index, error) {
	read, err := connect(file, readConns, true)
	if err != nil {
		return nil, err
	}
	probe, err := connect(file, 1, true)
	if err != nil {
		_ = read.Close()
		return nil, err
	}
	ix := &Index{file: file, db: db, read: read, probe: probe, searches: make(chan struct{}, maxSearches), vocab: newVocab(), broad: broadCap, now: time.Now}
	fail := func(what string, err error) (*Index, error) {
		_ = ix.w.close()
		_ = read.Close()
		_ = probe.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := ix.loadVocab(ctx); err != nil {
		return fail("load the vocabulary", err)
	}
	if err := ix.w.prepare(ctx, db); err != nil {
		return fail("prepare", err)
	}
	return ix, nil
}

func open(ctx context.Context, file, root string) (*Index, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, err
	}
	db, err := connect(file, 1, false)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err == nil {
		for rows.Next() {
			var k, v string
			if err = rows.Scan(&k, &v); err != nil {
				break
			}
			meta[k] = v
		}
		err = errors.Join(err, rows.Err(), rows.Close())
	}
	if err != nil && strings.Contains(err.Error(), "no such table") {
		err = errStale
	}
	if err == nil && (meta["schema"] != schemaVersion || meta["root"] != root) {
		err = errStale
	}
	if err == nil { // an index that cannot be written now is used without the missing ones
		if _, ierr := db.ExecContext(ctx, lookupIndexes); ierr != nil && !Unwritable(ierr) {
			err = ierr
		}
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	ix, err := newIndex(ctx, file, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	ix.building.Store(meta["building"] == "1")
	return ix, nil
}

// Finish makes the lookup indexes that a new index is created without; its first build calls
// it when it has indexed every note. Until then, lookups by name and backlinks read whole
// tables.
func (ix *Index) Finish(ctx context.Context) error {
	// SQLite sorts each index's keys in memory up to the cache's size before it spills to
	// temporary files; with the writer's whole cache that pushed a 100,000-note build's memory
	// up by a fifth at its very end. The sort runs from a smaller cache instead.
	if _, err := ix.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, sortCacheKiB)); err != nil {
		return err
	}
	_, err := ix.db.ExecContext(ctx, lookupIndexes)
	_, rerr := ix.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, writerCacheKiB))
	if err = errors.Join(err, rerr); err != nil || !ix.building.Load() {
		return err
	}
	return ix.endBuild(ctx)
}

// endBuild ends an index's first build. The build's writes leave out the vocabulary (finding
// each note's new words took a tenth of a 100,000-note build's CPU) and FTS5's automatic
// merging, which at automerge 2 rewrote every word's list of notes about eight times over (a
// quarter of the build's CPU, and as much again in the write-ahead log's writes): segments
// pile up to FTS5's crisis merge instead and are merged into one here, once. Then the
// vocabulary is read from the full-text index's own list of its words, and merging is
// turned back on for the edits that follow. A build stopped in here resumes here.
func (ix *Index) endBuild(ctx context.Context) error {
	if err := ix.merge(ctx); err != nil {
		return fmt.Errorf("merge the full-text index: %w", err)
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `
CREATE VIRTUAL TABLE temp.fts_words USING fts5vocab(main, fts, row);
INSERT OR IGNORE INTO terms(term) SELECT term FROM temp.fts_words;
DROP TABLE temp.fts_words;
INSERT INTO fts(fts, rank) VALUES ('automerge', 2); -- fewer segments for searches to walk
DELETE FROM meta WHERE key = 'building';`); err != nil {
		return fmt.Errorf("read the vocabulary from the full-text index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.building.Store(false)
	return ix.loadVocab(ctx)
}

// mergePages is how many pages one step of merge writes: each step is a transaction of its
// own, so the write-ahead log stays near that size (8 MiB) and edits wait for one step at most.
const mergePages = 2000

// merge merges the full-text index's segments into one, in steps of mergePages pages (FTS5's
// 'merge' command: the first, negative, puts every segment on one level and starts merging
// them all; the next ones go on with it) until a step finds nothing to do. Every search walks
// each segment: merged, searches for common words take about half the time.
func (ix *Index) merge(ctx context.Context) error {
	conn, err := ix.db.Conn(ctx) // total_changes is the connection's
	if err != nil {
		return err
	}
	defer conn.Close()
	for pages := -mergePages; ; pages = mergePages {
		merged, err := mergeStep(ctx, conn, pages)
		if err != nil || !merged {
			return err
		}
	}
}

// sqlRunner is a connection or a transaction: what a merge step runs on.
type sqlRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// mergeStep runs FTS5's 'merge' command for pages pages on db (one connection) and reports
// whether it merged anything: a step that found nothing to merge changes at most one row.
func mergeStep(ctx context.Context, db sqlRunner, pages int) (bool, error) {
	var before, after int64
	if err := db.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES ('merge', ?)`, pages); err != nil {
		return false, err
	}
	if err := db.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, err
	}
	return after-before >= 2, nil
}

// Create makes a new, empty index at file (which must not exist) for the notes folder root,
// without its lookup indexes: call Finish once it holds the notes.
func Create(ctx context.Context, file, root string) (*Index, error) {
	db, err := connect(file, 1, false)
	if err != nil {
		return nil, err
	}
	_, err = db.ExecContext(ctx, schema)
	if err == nil {
		_, err = db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema', ?), ('root', ?)`, schemaVersion, root)
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("create index %s: %w", file, err)
	}
	ix, err := newIndex(ctx, file, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	ix.building.Store(true)
	return ix, nil
}

// File is the database's path.
func (ix *Index) File() string { return ix.file }

// Check reads the whole database and returns an error that Corrupt recognizes when it is
// damaged: SQLite's quick_check of every table and index, the full-text index's own tables
// included. It checks them one table at a time, so that the full-text table's semantic check
// (which decodes every word's list of notes: at 100,000 notes three quarters of a whole
// check's four seconds of CPU, right after a start) is left out; damage to its pages is still
// found in its shadow tables.
func (ix *Index) Check(ctx context.Context) error {
	db, err := connect(ix.file, 1, true) // its own connection: this read takes a while
	if err != nil {
		return err
	}
	defer db.Close()
	tables, err := plainTables(ctx, db)
	if err != nil {
		return err
	}
	var problems []string
	for _, t := range tables {
		p, err := quickCheck(ctx, db, t)
		if err != nil {
			return err
		}
		problems = append(problems, p...)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(problems[:min(3, len(problems))], "; "))
	}
	return nil
}

// plainTables lists the database's tables other than virtual ones (the full-text table's
// shadow tables are plain ones).
func plainTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// quickCheck runs quick_check on one table and its indexes and returns the problems found.
func quickCheck(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check("`+strings.ReplaceAll(table, `"`, `""`)+`")`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	return problems, rows.Err()
}

// Checkpoint copies the write-ahead log into the database and truncates it to nothing, so the
// log gives its space back (after a failed write, or a bulk load). It waits up to a second for
// readers in the middle of a read to finish; then it gives up without truncating.
func (ix *Index) Checkpoint(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var busy, logPages, done int
	if err := ix.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done); err != nil {
		return err
	}
	if busy != 0 {
		return errors.New("checkpoint: readers busy")
	}
	return nil
}

// ErrCorrupt is a damaged database found by Check.
var ErrCorrupt = errors.New("the index database is damaged")

// SQLite's primary result codes that say what became of a write.
const (
	codeReadOnly = 8
	codeIOErr    = 10
	codeCorrupt  = 11
	codeFull     = 13
	codeCantOpen = 14
	codeNotADB   = 26
)

func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff
	}
	return 0
}

// Corrupt reports whether err says the database is damaged or is not a database.
func Corrupt(err error) bool {
	c := sqliteCode(err)
	return errors.Is(err, ErrCorrupt) || c == codeCorrupt || c == codeNotADB
}

// Unwritable reports whether err says the database cannot be written for now: a full disk, a
// read-only file or folder, an I/O error.
func Unwritable(err error) bool {
	switch sqliteCode(err) {
	case codeFull, codeReadOnly, codeIOErr, codeCantOpen:
		return true
	}
	return false
}

// loadVocab reads the terms table into memory.
func (ix *Index) loadVocab(ctx context.Context) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT term FROM terms`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return err
		}
		terms = append(terms, t)
	}
	ix.vocab.add(terms)
	return rows.Err()
}

// Close closes the database.
func (ix *Index) Close() error {
	return errors.Join(ix.w.close(), ix.read.Close(), ix.probe.Close(), ix.db.Close())
}

// Stamp is what the index knows of a file's state on disk.
type Stamp struct {
	MTime int64
	Size  int64
}

// EachStamp calls fn with every indexed file's path and stamp, in the order of the paths'
// bytes (as Go compares strings), until fn returns an error. It holds no map of them: at
// 100,000 notes one took 15 MB beside the folder's listing, at every start.
func (ix *Index) EachStamp(ctx context.Context, fn func(path string, st Stamp) error) error {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, mtime, size FROM notes ORDER BY path`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var st Stamp
		if err := rows.Scan(&p, &st.MTime, &st.Size); err != nil {
			return err
		}
		if err := fn(p, st); err != nil {
			return err
		}
	}
	return rows.Err()
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnix(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// StampOf returns what the index knows of the file at path; ok is false when it holds no
// such note.
func (ix *Index) StampOf(ctx context.Context, path string) (st Stamp, ok bool, err error) {
	err = ix.read.QueryRowContext(ctx, `SELECT mtime, size FROM notes WHERE path = ?`, path).Scan(&st.MTime, &st.Size)
	if errors.Is(err, sql.ErrNoRows) {
		return Stamp{}, false, nil
	}
	return st, err == nil, err
}

// Count is how many notes the index holds.
func (ix *Index) Count(ctx context.Context) (int, error) {
	var n int
	err := ix.probe.QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&n)
	return n, err
}
