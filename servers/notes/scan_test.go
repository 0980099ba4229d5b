package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// TestCompare checks the walk of the files beside the index's stamps: what is stale and what
// is gone, whatever order the walk listed the files in ('/' sorts after '.' and '-').
func TestCompare(t *testing.T) {
	t.Parallel()
	ix, _, err := index.Open(t.Context(), filepath.Join(t.TempDir(), "ix.sqlite"), "/notes")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	var docs []index.Doc
	for _, p := range []string{"a.md", "a/b.md", "a-c.md", "d.md", "gone.md", "z/gone.md"} {
		docs = append(docs, index.Doc{Path: p, Title: p, Body: "x", MTime: 10, Size: 1})
	}
	if err := ix.Apply(t.Context(), docs, nil); err != nil {
		t.Fatal(err)
	}
	files := []vault.File{
		{Path: "new.md", MTime: 1, Size: 1},
		{Path: "a/b.md", MTime: 10, Size: 1},
		{Path: "d.md", MTime: 11, Size: 1}, // changed
		{Path: "a.md", MTime: 10, Size: 2}, // changed
		{Path: "a-c.md", MTime: 10, Size: 1},
		{Path: "a/a.md", MTime: 1, Size: 1}, // new, between indexed paths
		{Path: "zz.md", MTime: 1, Size: 1},  // new, after every indexed path
	}
	stale, gone, err := compare(t.Context(), ix, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range stale {
		got = append(got, f.Path)
	}
	slices.Sort(got)
	if want := []string{"a.md", "a/a.md", "d.md", "new.md", "zz.md"}; !slices.Equal(got, want) {
		t.Errorf("stale %v, want %v", got, want)
	}
	slices.Sort(gone)
	if want := []string{"gone.md", "z/gone.md"}; !slices.Equal(gone, want) {
		t.Errorf("gone %v, want %v", gone, want)
	}
	// an empty folder: everything indexed is gone
	if stale, gone, err := compare(t.Context(), ix, nil); err != nil || len(stale) != 0 || len(gone) != 6 {
		t.Errorf("no files: stale %v, gone %v, %v", stale, gone, err)
	}
}
