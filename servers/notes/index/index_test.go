package index

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMatchQuery(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"garden":              `"garden"`,
		"garden plan":         `"garden" AND "plan"`,
		`"raised beds" soil*`: `"raised beds" AND "soil"*`,
		"a OR b c":            `("a" OR "b") AND "c"`,
		"tomato -potato":      `("tomato") NOT "potato"`,
		`NEAR( x"y`:           `"NEAR(" AND "x""y"`,
	}
	for in, want := range cases {
		if got, err := MatchQuery(in); err != nil || got != want {
			t.Errorf("MatchQuery(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, empty := range []string{"", "  ", "* ( )", "-x", "OR"} {
		if got, err := MatchQuery(empty); err == nil {
			t.Errorf("MatchQuery(%q) = %q, want an error", empty, got)
		}
	}
}

func FuzzSearchQuery(f *testing.F) {
	ix, _, err := Open(f.Context(), filepath.Join(f.TempDir(), "ix.sqlite"), "/notes")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = ix.Close() })
	if err := ix.Apply(f.Context(), []Doc{{Path: "a.md", Title: "Alpha", Body: "the quick brown fox; wolves running through gardens, café", Tags: []string{"x"}, Updated: time.Now()}}, nil); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"fox", `"quick brown"`, "a OR b", "-x y", `NEAR(a b)`, `title:fox`, `"`, "*", "^a", "x AND", "(((", "a\x00b", "wolf -run", "gardne OR cafe", "runnin wolfs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, _, err := ix.Search(t.Context(), q, Filter{}, 10, 0, nil); err != nil && !errors.Is(err, ErrEmptyQuery) {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}

func TestReopen(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "ix.sqlite")
	ix, rebuilt, err := Open(t.Context(), file, "/notes")
	if err != nil || !rebuilt {
		t.Fatalf("first open: %v %v", rebuilt, err)
	}
	if err := ix.Apply(t.Context(), []Doc{{Path: "a.md", Title: "A", Body: "body words", MTime: 5, Size: 7}}, nil); err != nil {
		t.Fatal(err)
	}
	_ = ix.Close()
	ix, rebuilt, err = Open(t.Context(), file, "/notes")
	if err != nil || rebuilt {
		t.Fatalf("reopen: %v %v", rebuilt, err)
	}
	st := map[string]Stamp{}
	if err := ix.EachStamp(t.Context(), func(p string, s Stamp) error { st[p] = s; return nil }); err != nil {
		t.Fatal(err)
	}
	if st["a.md"] != (Stamp{5, 7}) {
		t.Errorf("stamps = %v", st)
	}
	_ = ix.Close()
	ix, rebuilt, err = Open(t.Context(), file, "/elsewhere")
	if err != nil || !rebuilt {
		t.Fatalf("other root: %v %v", rebuilt, err)
	}
	if n, _ := ix.Count(t.Context()); n != 0 {
		t.Errorf("count after rebuild = %d", n)
	}
	hits, _, err := ix.Search(t.Context(), "body", Filter{}, 5, 0, nil)
	if err != nil || len(hits) != 0 {
		t.Errorf("search = %v %v", hits, err)
	}
	_ = ix.Close()
	if !strings.HasSuffix(file, ".sqlite") {
		t.Fatal(file)
	}
}
