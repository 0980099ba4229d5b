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
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// schemaVersion changes whenever the tables change; a database of another version is rebuilt.
const schemaVersion = "4"

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
CREATE INDEX notes_stem ON notes(stem);
CREATE INDEX notes_pkey ON notes(pkey);
CREATE INDEX notes_tkey ON notes(tkey);
CREATE TABLE tags(note INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(note, tag)) WITHOUT ROWID;
CREATE INDEX tags_tag ON tags(tag, note);
-- rel is a typed relation's type ("- works_at [[Acme]]"), '' for a plain link
CREATE TABLE links(src INTEGER NOT NULL, target TEXT NOT NULL, key TEXT NOT NULL, rel TEXT NOT NULL, PRIMARY KEY(src, key, rel)) WITHOUT ROWID;
CREATE INDEX links_key ON links(key, src);
CREATE TABLE terms(term TEXT PRIMARY KEY) WITHOUT ROWID; -- every word of the notes (see vocab.go)
CREATE TABLE deletions(path TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID; -- notes gone, and when
CREATE INDEX deletions_at ON deletions(at);
CREATE VIRTUAL TABLE fts USING fts5(title, body, tags, content='', contentless_delete=1, tokenize='unicode61');
INSERT INTO fts(fts, rank) VALUES ('automerge', 2); -- fewer segments for searches to walk
CREATE VIRTUAL TABLE passages USING fts5(body, columnsize=0, tokenize='unicode61'); -- no BM25 here: no sizes
INSERT INTO passages(passages, rank) VALUES ('automerge', 2);
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
	db    *sql.DB // the writer: one connection
	read  *sql.DB // readers
	probe *sql.DB // one connection for Count
	// searches holds a token per search running; a search that finds none free within
	// searchWait fails with ErrBusy instead of queueing.
	searches chan struct{}

	passageMatch, passageFirst *sql.Stmt // on read

	vocab *vocab
	// now stamps deletions (tests may replace it).
	now func() time.Time
}

// Reader pool and search limits.
const (
	readConns   = 4
	maxSearches = 3 // fewer than readConns: listings and get_note keep a reader
	searchWait  = time.Second
)

// Open opens the index at file for the notes folder root. A database that cannot be opened, has
// another schema version or belongs to another folder is deleted and created anew; rebuilt
// reports that (the caller then indexes every file).
func Open(ctx context.Context, file, root string) (ix *Index, rebuilt bool, err error) {
	ix, err = open(ctx, file, root)
	if err == nil {
		return ix, false, nil
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if rerr := os.Remove(file + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, false, fmt.Errorf("remove stale index: %w", rerr)
		}
	}
	ix, err = create(ctx, file, root)
	return ix, true, err
}

var errStale = errors.New("stale index")

// connect opens a pool of at most conns connections to file; readOnly ones refuse writes.
func connect(file string, conns int, readOnly bool) (*sql.DB, error) {
	dsn := "file:" + file + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-32768)&_pragma=mmap_size(268435456)&_txlock=immediate"
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

// newIndex opens the reader pools beside the writer db.
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
	ix := &Index{db: db, read: read, probe: probe, searches: make(chan struct{}, maxSearches), vocab: newVocab(), now: time.Now}
	if err := ix.loadVocab(ctx); err != nil {
		_ = read.Close()
		_ = probe.Close()
		return nil, fmt.Errorf("load the vocabulary: %w", err)
	}
	if ix.passageMatch, err = read.PrepareContext(ctx, passageMatchSQL); err == nil {
		ix.passageFirst, err = read.PrepareContext(ctx, passageFirstSQL)
	}
	if err != nil {
		_ = read.Close()
		_ = probe.Close()
		return nil, fmt.Errorf("prepare: %w", err)
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
	if err == nil && (meta["schema"] != schemaVersion || meta["root"] != root) {
		err = errStale
	}
	if err == nil {
		var ok string
		if err = db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&ok); err == nil && ok != "ok" {
			err = errStale
		}
	}
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	ix, err := newIndex(ctx, file, db)
	if err != nil {
		_ = db.Close()
	}
	return ix, err
}

func create(ctx context.Context, file, root string) (*Index, error) {
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
	}
	return ix, err
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
	return errors.Join(ix.passageMatch.Close(), ix.passageFirst.Close(), ix.read.Close(), ix.probe.Close(), ix.db.Close())
}

// Stamp is what the index knows of a file's state on disk.
type Stamp struct {
	MTime int64
	Size  int64
}

// Stamps returns the indexed files' stamps by path.
func (ix *Index) Stamps(ctx context.Context) (map[string]Stamp, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT path, mtime, size FROM notes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Stamp{}
	for rows.Next() {
		var p string
		var s Stamp
		if err := rows.Scan(&p, &s.MTime, &s.Size); err != nil {
			return nil, err
		}
		out[p] = s
	}
	return out, rows.Err()
}

// Apply puts docs into the index and removes the paths in remove, in one transaction.
func (ix *Index) Apply(ctx context.Context, docs []Doc, remove []string) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	now := ix.now().UnixNano()
	for _, p := range remove {
		existed, err := deleteDoc(ctx, tx, p)
		if err != nil {
			return err
		}
		if existed {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO deletions(path, at) VALUES (?, ?)`, p, now); err != nil {
				return err
			}
		}
	}
	seen := map[string]struct{}{}
	for i := range docs {
		if err := putDoc(ctx, tx, &docs[i]); err != nil {
			return err
		}
		words(seen, docs[i].Title, docs[i].Body, strings.Join(docs[i].Tags, " "))
	}
	newTerms := ix.vocab.missing(seen)
	if len(newTerms) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO terms(term) VALUES (?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, t := range newTerms {
			if _, err := st.ExecContext(ctx, t); err != nil {
				return err
			}
		}
	}
	if len(docs) >= optimizeBatch {
		// A bulk load leaves the full-text index in many segments, and every search walks each
		// of them: merging them into one makes searches for common words about twice as fast.
		for _, q := range []string{`INSERT INTO fts(fts) VALUES ('optimize')`, `INSERT INTO passages(passages) VALUES ('optimize')`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.vocab.add(newTerms)
	return nil
}

// optimizeBatch is the size of a batch of documents after which the full-text index is merged
// into one segment.
const optimizeBatch = 200

// deleteDoc removes the note at path from the index and reports whether it was there.
func deleteDoc(ctx context.Context, tx *sql.Tx, path string) (bool, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM notes WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, q := range []string{`DELETE FROM notes WHERE id = ?`, `DELETE FROM tags WHERE note = ?`, `DELETE FROM links WHERE src = ?`, `DELETE FROM fts WHERE rowid = ?`} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return false, err
		}
	}
	lo, hi := passageRange(id)
	_, err = tx.ExecContext(ctx, `DELETE FROM passages WHERE rowid BETWEEN ? AND ?`, lo, hi)
	return true, err
}

func putDoc(ctx context.Context, tx *sql.Tx, d *Doc) error {
	if _, err := deleteDoc(ctx, tx, d.Path); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM deletions WHERE path = ?`, d.Path); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO notes(path, folder, stem, pkey, title, tkey, created, updated, mtime, size, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		d.Path, d.Folder, vault.LinkKey(d.Stem), vault.LinkKey(d.Path), d.Title, vault.LinkKey(d.Title), unix(d.Created), unix(d.Updated), d.MTime, d.Size, d.Hash)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts(rowid, title, body, tags) VALUES (?,?,?,?)`, id, d.Title, d.Body, strings.Join(d.Tags, " ")); err != nil {
		return err
	}
	if err := putPassages(ctx, tx, id, d.Body); err != nil {
		return err
	}
	for _, t := range d.Tags {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tags(note, tag) VALUES (?,?)`, id, t); err != nil {
			return err
		}
	}
	typed := map[string]bool{}
	for _, r := range d.Relations {
		typed[vault.LinkKey(r.Target)] = true
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO links(src, target, key, rel) VALUES (?,?,?,?)`, id, r.Target, vault.LinkKey(r.Target), r.Type); err != nil {
			return err
		}
	}
	for _, l := range d.Links {
		if typed[vault.LinkKey(l)] {
			continue // the relation stands for it
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO links(src, target, key, rel) VALUES (?,?,?,'')`, id, l, vault.LinkKey(l)); err != nil {
			return err
		}
	}
	return nil
}

func putPassages(ctx context.Context, tx *sql.Tx, id int64, body string) error {
	ps := Passages(body)
	if len(ps) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO passages(rowid, body) VALUES (?,?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	lo, _ := passageRange(id)
	for i, p := range ps {
		if _, err := st.ExecContext(ctx, lo+int64(i), p); err != nil {
			return err
		}
	}
	return nil
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

// Count is how many notes the index holds.
func (ix *Index) Count(ctx context.Context) (int, error) {
	var n int
	err := ix.probe.QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&n)
	return n, err
}
