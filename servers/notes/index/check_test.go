package index

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFindsDamage: Check passes a sound index and finds damage to the full-text index's
// pages, which it checks through their shadow tables.
func TestCheckFindsDamage(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "ix.sqlite")
	ix, _, err := Open(t.Context(), file, "/notes")
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 300)
	for i := range docs {
		docs[i] = Doc{Path: fmt.Sprintf("n%03d.md", i), Title: fmt.Sprintf("note %d", i), Body: strings.Repeat(fmt.Sprintf("word%d garden plan%d ", i, i%7), 40)}
	}
	if err := ix.Apply(t.Context(), docs, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Check(t.Context()); err != nil {
		t.Fatalf("a sound index: %v", err)
	}
	if err := errors.Join(ix.Checkpoint(t.Context()), ix.Close()); err != nil {
		t.Fatal(err)
	}
	pages := ftsPages(t, file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages[1:] {
		copy(data[(p-1)*4096:p*4096], strings.Repeat("\xa5", 4096))
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ix, _, err = Open(t.Context(), file, "/notes")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Check(t.Context()); !Corrupt(err) {
		t.Errorf("Check of damaged full-text pages = %v, want damage found", err)
	}
}

// ftsPages are the page numbers of the full-text index's data.
func ftsPages(t *testing.T, file string) []int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = 'fts_data' ORDER BY pageno`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if len(out) < 3 {
		t.Fatalf("fts_data has %d pages", len(out))
	}
	return out
}
