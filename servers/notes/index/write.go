package index

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// writeStmts are the writer's statements, prepared once on its one connection.
type writeStmts struct {
	noteID, delNote, delTags, delLinks, delFTS *sql.Stmt
	delDeletion, addDeletion                   *sql.Stmt
	addNote, addFTS, addTag, addLink, addTerm  *sql.Stmt
	delFields, addField                        *sql.Stmt
}

func (w *writeStmts) prepare(ctx context.Context, db *sql.DB) error {
	for _, s := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&w.noteID, `SELECT id FROM notes WHERE path = ?`},
		{&w.delNote, `DELETE FROM notes WHERE id = ?`},
		{&w.delTags, `DELETE FROM tags WHERE note = ?`},
		{&w.delLinks, `DELETE FROM links WHERE src = ?`},
		{&w.delFTS, `DELETE FROM fts WHERE rowid = ?`},
		{&w.delFields, `DELETE FROM fields WHERE note = ?`},
		{&w.delDeletion, `DELETE FROM deletions WHERE path = ?`},
		{&w.addDeletion, `INSERT OR REPLACE INTO deletions(path, at) VALUES (?, ?)`},
		{&w.addNote, `INSERT INTO notes(path, folder, stem, pkey, title, tkey, created, updated, mtime, size, hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)`},
		{&w.addFTS, `INSERT INTO fts(rowid, title, body, tags) VALUES (?,?,?,?)`},
		{&w.addTag, `INSERT OR IGNORE INTO tags(note, tag) VALUES (?,?)`},
		{&w.addLink, `INSERT OR IGNORE INTO links(src, target, key, rel) VALUES (?,?,?,?)`},
		{&w.addTerm, `INSERT OR IGNORE INTO terms(term) VALUES (?)`},
		{&w.addField, `INSERT OR IGNORE INTO fields(note, key, value, at) VALUES (?,?,?,?)`},
	} {
		st, err := db.PrepareContext(ctx, s.q)
		if err != nil {
			return err
		}
		*s.st = st
	}
	return nil
}

func (w *writeStmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.noteID, w.delNote, w.delTags, w.delLinks, w.delFTS, w.delDeletion, w.addDeletion, w.addNote, w.addFTS, w.addTag, w.addLink, w.addTerm, w.delFields, w.addField} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// writer is one transaction's use of the statements.
type writer struct {
	ctx context.Context // without cancellation: Apply checks ctx between notes instead
	tx  *sql.Tx
	w   *writeStmts
	// bound are the statements bound to tx, made once per transaction rather than per row.
	bound map[*sql.Stmt]*sql.Stmt
}

// stmt is st bound to the transaction.
func (t writer) stmt(st *sql.Stmt) *sql.Stmt {
	b, ok := t.bound[st]
	if !ok {
		b = t.tx.StmtContext(t.ctx, st)
		t.bound[st] = b
	}
	return b
}

func (t writer) exec(st *sql.Stmt, args ...any) (sql.Result, error) {
	return t.stmt(st).ExecContext(t.ctx, args...)
}

// Apply puts docs into the index and removes the paths in remove, in one transaction. The
// statements run without watching ctx (the driver would start a goroutine for each of them);
// ctx is checked between notes instead.
func (ix *Index) Apply(ctx context.Context, docs []Doc, remove []string) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	t := writer{ctx: context.WithoutCancel(ctx), tx: tx, w: &ix.w, bound: map[*sql.Stmt]*sql.Stmt{}}
	now := ix.now().UnixNano()
	for _, p := range remove {
		existed, err := t.deleteDoc(p)
		if err != nil {
			return err
		}
		if existed {
			if _, err := t.exec(t.w.addDeletion, p, now); err != nil {
				return err
			}
		}
	}
	unknown := map[string]struct{}{}
	var scratch map[string]struct{}
	for i := range docs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.putDoc(&docs[i]); err != nil {
			return err
		}
		if ix.building.Load() {
			continue // Finish reads the build's words from the full-text index
		}
		if len(scratch) > 1<<12 || scratch == nil {
			scratch = map[string]struct{}{} // a long note grew it: emptying it would cost as much every time
		}
		ix.vocab.unknown(unknown, scratch, docs[i].Title, docs[i].Body, strings.Join(docs[i].Tags, " "))
	}
	newTerms := slices.Collect(maps.Keys(unknown))
	for _, term := range newTerms {
		if _, err := t.exec(t.w.addTerm, term); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.vocab.add(newTerms)
	return nil
}

// deleteDoc removes the note at path from the index and reports whether it was there.
func (t writer) deleteDoc(path string) (bool, error) {
	var id int64
	err := t.stmt(t.w.noteID).QueryRowContext(t.ctx, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, st := range []*sql.Stmt{t.w.delNote, t.w.delTags, t.w.delLinks, t.w.delFTS, t.w.delFields} {
		if _, err := t.exec(st, id); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (t writer) putDoc(d *Doc) error {
	if _, err := t.deleteDoc(d.Path); err != nil {
		return err
	}
	if _, err := t.exec(t.w.delDeletion, d.Path); err != nil {
		return err
	}
	res, err := t.exec(t.w.addNote, d.Path, d.Folder, vault.LinkKey(d.Stem), vault.LinkKey(d.Path), d.Title, vault.LinkKey(d.Title), unix(d.Created), unix(d.Updated), d.MTime, d.Size, d.Hash)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if _, err := t.exec(t.w.addFTS, id, d.Title, d.Body, strings.Join(d.Tags, " ")); err != nil {
		return err
	}
	for _, tag := range d.Tags {
		if _, err := t.exec(t.w.addTag, id, tag); err != nil {
			return err
		}
	}
	for _, f := range d.Fields {
		var at any // NULL unless a date
		if !f.At.IsZero() {
			at = f.At.UnixNano()
		}
		if _, err := t.exec(t.w.addField, id, f.Key, f.Value, at); err != nil {
			return err
		}
	}
	typed := map[string]bool{}
	for _, r := range d.Relations {
		typed[vault.LinkKey(r.Target)] = true
		if _, err := t.exec(t.w.addLink, id, r.Target, vault.LinkKey(r.Target), r.Type); err != nil {
			return err
		}
	}
	for _, l := range d.Links {
		if typed[vault.LinkKey(l)] {
			continue // the relation stands for it
		}
		if _, err := t.exec(t.w.addLink, id, l, vault.LinkKey(l), ""); err != nil {
			return err
		}
	}
	return nil
}
