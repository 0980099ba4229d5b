package index

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
)

// TestNeighborhood walks a chain and a star of links: hops bound the walk, newest first, the
// limit caps the answer, and the walk visits at most maxExplore notes.
func TestNeighborhood(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []Doc
	for i := range 5 { // c0 -> c1 -> c2 -> c3 -> c4, each newer than the one before
		d := Doc{Path: fmt.Sprintf("c%d.md", i), Stem: fmt.Sprintf("c%d", i), Title: fmt.Sprintf("C%d", i), Updated: base.Add(time.Duration(i) * time.Hour)}
		if i < 4 {
			d.Body = fmt.Sprintf("- next [[c%d]]", i+1)
			d.Links = []string{fmt.Sprintf("c%d", i+1)}
			d.Relations = []vault.Relation{{Type: "next", Target: d.Links[0]}}
		}
		docs = append(docs, d)
	}
	hub := Doc{Path: "hub.md", Stem: "hub", Title: "Hub", Updated: base}
	for i := range maxExplore + 50 {
		hub.Links = append(hub.Links, fmt.Sprintf("s%d", i))
		docs = append(docs, Doc{Path: fmt.Sprintf("star/s%d.md", i), Stem: fmt.Sprintf("s%d", i), Title: "S", Updated: base})
	}
	docs = append(docs, hub)
	ix := openTest(t, docs...)
	paths := func(rs []Related) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s/%d/%s/%s/%v", r.Path, r.Hops, r.Via, r.Type, r.Out))
		}
		return out
	}
	for _, c := range []struct {
		from        string
		hops, limit int
		want        []string
		more        bool
	}{
		{"c2.md", 1, 10, []string{"c3.md/1/c2.md/next/true", "c1.md/1/c2.md/next/false"}, false},
		{"c2.md", 2, 10, []string{"c4.md/2/c3.md/next/true", "c3.md/1/c2.md/next/true", "c1.md/1/c2.md/next/false", "c0.md/2/c1.md/next/false"}, false},
		{"c0.md", 3, 2, []string{"c3.md/3/c2.md/next/true", "c2.md/2/c1.md/next/true"}, true},
		{"nowhere.md", 3, 10, nil, false},
	} {
		got, more, err := ix.Neighborhood(t.Context(), c.from, c.hops, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(paths(got), c.want) || more != c.more {
			t.Errorf("%s hops %d limit %d = %v more %v, want %v more %v", c.from, c.hops, c.limit, paths(got), more, c.want, c.more)
		}
	}
	got, more, err := ix.Neighborhood(t.Context(), "hub.md", 3, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxExplore-1 || more {
		t.Errorf("star: %d notes (more %v), want %d", len(got), more, maxExplore-1)
	}
}
