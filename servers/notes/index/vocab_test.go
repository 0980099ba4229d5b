package index

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestStemKeysAndEditDistance(t *testing.T) {
	t.Parallel()
	same := [][2]string{{"wolf", "wolves"}, {"run", "running"}, {"run", "runs"}, {"knife", "knives"}, {"leaf", "leaves"},
		{"pony", "ponies"}, {"child", "children"}, {"man", "men"}, {"garden", "gardening"}, {"connect", "connection"},
		{"run", "ran"}, {"ran", "running"}, {"write", "written"}, {"wrote", "writing"}, {"bought", "buying"}}
	for _, p := range same {
		if !slices.ContainsFunc(stemKeys(p[0]), func(k string) bool { return slices.Contains(stemKeys(p[1]), k) }) {
			t.Errorf("%s and %s share no stem: %v %v", p[0], p[1], stemKeys(p[0]), stemKeys(p[1]))
		}
	}
	apart := [][2]string{{"wolf", "woolen"}, {"run", "rune"}, {"news", "new"}, {"x2", "x2s"}, {"was", "be"}, {"had", "have"}}
	for _, p := range apart {
		if slices.ContainsFunc(stemKeys(p[0]), func(k string) bool { return slices.Contains(stemKeys(p[1]), k) }) {
			t.Errorf("%s and %s share a stem: %v %v", p[0], p[1], stemKeys(p[0]), stemKeys(p[1]))
		}
	}
	for _, c := range []struct {
		a, b string
		max  int
		want int
	}{
		{"garden", "garden", 2, 0}, {"gardne", "garden", 2, 1}, {"gardn", "garden", 2, 1}, {"garxden", "garden", 2, 1},
		{"grden", "garden", 2, 1}, {"gadren", "garden", 2, 1}, {"gdrnea", "garden", 2, 3}, {"kitten", "sitting", 2, 3}, {"café", "cafe", 1, 1}, {"abc", "abcdef", 2, 3},
	} {
		if got := editDistance([]rune(c.a), c.b, c.max); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.max, got, c.want)
		}
	}
	if got := fold("Ÿoghurt CAFÉ"); got != "yoghurt cafe" {
		t.Errorf("fold = %q", got)
	}
}

// TestSearchWordFormsAndTypos checks that a word finds its other forms and, when it is in no
// note, its near spellings, ranked exact before stem before near, across pages.
func TestSearchWordFormsAndTypos(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ix := openTest(t,
		Doc{Path: "pack.md", Title: "Pack", Body: "The wolves hunted at night.", Updated: now},
		Doc{Path: "lone.md", Title: "Lone", Body: "A lone wolf crossed the ridge.", Updated: now},
		Doc{Path: "sprint.md", Title: "Sprint", Body: "She was running late; he runs daily.", Updated: now},
		Doc{Path: "race.md", Title: "Race", Body: "We run every morning.", Updated: now},
		Doc{Path: "garden.md", Title: "Allotment", Body: "Planted beans in the garden today.", Updated: now},
		Doc{Path: "cafe.md", Title: "Café visit", Body: "Coffee at the café.", Updated: now},
	)
	cases := []struct {
		query string
		want  []string // in order
		match []Match
	}{
		{"wolf", []string{"lone.md", "pack.md"}, []Match{MatchExact, MatchStem}},
		{"wolves", []string{"pack.md", "lone.md"}, []Match{MatchExact, MatchStem}},
		{"run", []string{"race.md", "sprint.md"}, []Match{MatchExact, MatchStem}},
		{"running", []string{"sprint.md", "race.md"}, []Match{MatchExact, MatchStem}},
		{"gardne", []string{"garden.md"}, []Match{MatchNear}},
		{"plnted gardne", []string{"garden.md"}, []Match{MatchNear}},
		{"cafe", []string{"cafe.md"}, []Match{MatchExact}},
		{"wolf -hunted", []string{"lone.md"}, []Match{MatchExact}},
		{"wolf -hunt", []string{"lone.md"}, []Match{MatchExact}}, // an exclusion excludes every form
		{`"lone wolves"`, nil, nil},                              // a phrase matches as typed
		{"wol*", []string{"pack.md", "lone.md"}, []Match{MatchExact, MatchExact}},
		{"gardenn OR wolf", []string{"lone.md", "pack.md", "garden.md"}, []Match{MatchExact, MatchStem, MatchNear}},
		{"zzzz", nil, nil},
		{"ran", []string{"sprint.md", "race.md"}, []Match{MatchStem, MatchStem}}, // an irregular form
		{"rann", nil, nil}, // a typo of a word in no note
	}
	for _, c := range cases {
		hits, more, err := ix.Search(t.Context(), c.query, Filter{}, 10, 0, ix.body)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		var got []string
		var kinds []Match
		for _, h := range hits {
			got = append(got, h.Path)
			kinds = append(kinds, h.Match)
		}
		if !slices.Equal(got, c.want) || !slices.Equal(kinds, c.match) || more {
			t.Errorf("%q = %v %v (more %v), want %v %v", c.query, got, kinds, more, c.want, c.match)
		}
	}
	hits, _, _ := ix.Search(t.Context(), "wolf", Filter{}, 10, 0, ix.body)
	if len(hits) != 2 || hits[1].Snippet != "The **wolves** hunted at night." {
		t.Errorf("stem snippet = %+v", hits)
	}
	// Paging across tiers: every page continues where the last stopped.
	for _, c := range []struct {
		query         string
		limit, offset int
		want          []string
		more          bool
	}{
		{"gardenn OR wolf", 1, 0, []string{"lone.md"}, true},
		{"gardenn OR wolf", 1, 1, []string{"pack.md"}, true},
		{"gardenn OR wolf", 1, 2, []string{"garden.md"}, false},
		{"gardenn OR wolf", 2, 1, []string{"pack.md", "garden.md"}, false},
		{"gardenn OR wolf", 5, 3, nil, false},
	} {
		hits, more, err := ix.Search(t.Context(), c.query, Filter{}, c.limit, c.offset, ix.body)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path)
		}
		if !slices.Equal(got, c.want) || more != c.more {
			t.Errorf("%q limit %d offset %d = %v more %v, want %v more %v", c.query, c.limit, c.offset, got, more, c.want, c.more)
		}
	}
	// A word of a new note joins the vocabulary at once; a reopened index reads it back.
	if err := ix.Apply(t.Context(), []Doc{{Path: "den.md", Title: "Den", Body: "The wolf's den, a wolfish lair.", Updated: now}}, nil); err != nil {
		t.Fatal(err)
	}
	if !ix.vocab.has("wolfish") || !ix.vocab.has("den") {
		t.Error("new words not in the vocabulary")
	}
}

func TestDateFilters(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.ParseInLocation("2006-01-02", s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ix := openTest(t,
		Doc{Path: "a.md", Title: "A", Body: "plan", Created: day("2026-01-05"), Updated: day("2026-03-01")},
		Doc{Path: "b.md", Title: "B", Body: "plan", Created: day("2026-02-10"), Updated: day("2026-02-11")},
		Doc{Path: "c.md", Title: "C", Body: "plan", Created: day("2026-03-15"), Updated: day("2026-03-15")},
	)
	for _, c := range []struct {
		f    Filter
		want []string
	}{
		{Filter{CreatedAfter: day("2026-02-10")}, []string{"b.md", "c.md"}},
		{Filter{CreatedBefore: day("2026-02-10")}, []string{"a.md"}},
		{Filter{UpdatedAfter: day("2026-02-12"), UpdatedBefore: day("2026-03-15")}, []string{"a.md"}},
		{Filter{UpdatedAfter: day("2027-01-01")}, nil},
	} {
		hits, _, err := ix.Search(t.Context(), "plan", c.f, 10, 0, ix.body)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path)
		}
		slices.Sort(got)
		entries, _, err := ix.List(t.Context(), c.f, ByPath, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for _, e := range entries {
			listed = append(listed, e.Path)
		}
		if !slices.Equal(got, c.want) || !slices.Equal(listed, c.want) {
			t.Errorf("%+v: search %v, list %v, want %v", c.f, got, listed, c.want)
		}
	}
}

// TestVocabularyMatchesTokenizer checks that the vocabulary holds exactly the words the
// full-text table holds, for text with case, diacritics, punctuation and other scripts.
func TestVocabularyMatchesTokenizer(t *testing.T) {
	t.Parallel()
	ix := openTest(t, Doc{Path: "a.md", Title: "Café Über", Body: "Straße naïve e-mail don't ÉCOLE 3.14 x_y αβγ 日本語 Zoë's ﬁne", Tags: []string{"to-do", "a/b"}, Updated: time.Now()})
	if _, err := ix.db.ExecContext(t.Context(), `CREATE VIRTUAL TABLE temp.v USING fts5vocab('main', 'fts', 'row')`); err != nil {
		t.Fatal(err)
	}
	rows, err := ix.db.QueryContext(t.Context(), `SELECT term FROM temp.v ORDER BY term`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s)
	}
	var got []string
	for term := range ix.vocab.terms {
		got = append(got, term)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("vocabulary %q, tokenizer %q", got, want)
	}
}

// TestFormsAreTheWordsSharingAStem checks forms against the rule it keeps, word by word: the
// known words with a stem key in common with the word (those that are their own stem are
// kept out of byStem, to save memory, and must be found all the same).
func TestFormsAreTheWordsSharingAStem(t *testing.T) {
	t.Parallel()
	words := []string{"wolf", "wolves", "run", "running", "runs", "ran", "rune", "knife", "knives", "leaf", "leaves",
		"pony", "ponies", "child", "children", "man", "men", "garden", "gardening", "gardens", "connect", "connection",
		"write", "written", "wrote", "writing", "news", "new", "x2", "x2s", "2024", "kalomisu", "happiness", "happy", "general", "generous"}
	v := newVocab()
	v.add(words)
	for _, w := range append(slices.Clone(words), "wolfs", "happily", "connected", "unknownword") {
		want := []string{}
		for _, t := range words {
			if t != w && slices.ContainsFunc(stemKeys(w), func(k string) bool { return slices.Contains(stemKeys(t), k) }) {
				want = append(want, t)
			}
		}
		slices.Sort(want)
		if got := v.forms(w); got[0] != w || !slices.Equal(got[1:], want) {
			t.Errorf("forms(%q) = %q, want %q then %q", w, got, w, want)
		}
	}
}

// TestFirstBuildVocabulary follows a first build: while it runs, a search matches words as
// typed (the vocabulary waits for Finish); a build stopped half way and reopened is still one;
// Finish reads every word of the build from the full-text index, and edits after it add
// theirs at once.
func TestFirstBuildVocabulary(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "ix.sqlite")
	ix, rebuilt, err := Open(t.Context(), file, "/notes")
	if err != nil || !rebuilt {
		t.Fatalf("open a new index: rebuilt %v, %v", rebuilt, err)
	}
	now := time.Now()
	if err := ix.Apply(t.Context(), []Doc{{Path: "pack.md", Title: "Pack", Body: "Wolves hunt in packs.", Updated: now}}, nil); err != nil {
		t.Fatal(err)
	}
	search := func(ix *Index, q string) []string {
		t.Helper()
		hits, _, err := ix.Search(t.Context(), q, Filter{}, 10, 0, nil)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Path+" "+string(h.Match))
		}
		return got
	}
	if got := search(ix, "wolves"); !slices.Equal(got, []string{"pack.md exact"}) {
		t.Errorf("during the build, wolves = %v", got)
	}
	if ix.vocab.has("wolves") {
		t.Error("the vocabulary grew during the build")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, rebuilt, err = Open(t.Context(), file, "/notes") // the build stopped half way
	if err != nil || rebuilt {
		t.Fatalf("reopen: rebuilt %v, %v", rebuilt, err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if !ix.building.Load() {
		t.Fatal("a reopened unfinished build is not taken as one")
	}
	for _, d := range []Doc{ // a segment each: FTS5 merges none of them during the build
		{Path: "lone.md", Title: "Lone", Body: "A lone wolf.", Updated: now},
		{Path: "three.md", Title: "Three", Body: "A third note.", Updated: now},
		{Path: "four.md", Title: "Four", Body: "A fourth note.", Updated: now},
	} {
		if err := ix.Apply(t.Context(), []Doc{d}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !mergeable(t, ix) {
		t.Error("the build's segments were merged before Finish")
	}
	if err := ix.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if mergeable(t, ix) {
		t.Error("after Finish the full-text index is in more than one segment")
	}
	for _, w := range []string{"wolves", "hunt", "packs", "pack", "lone", "wolf", "a"} {
		if !ix.vocab.has(w) {
			t.Errorf("after Finish %q is not in the vocabulary", w)
		}
	}
	if got := search(ix, "wolf"); !slices.Equal(got, []string{"lone.md exact", "pack.md stem"}) {
		t.Errorf("after Finish, wolf = %v", got)
	}
	if err := ix.Apply(t.Context(), []Doc{{Path: "den.md", Title: "Den", Body: "A wolfish lair.", Updated: now}}, nil); err != nil {
		t.Fatal(err)
	}
	if !ix.vocab.has("wolfish") || !ix.vocab.has("lair") {
		t.Error("an edit after the build did not add its words")
	}
	var automerge string
	if err := ix.db.QueryRowContext(t.Context(), `SELECT v FROM fts_config WHERE k = 'automerge'`).Scan(&automerge); err != nil || automerge != "2" {
		t.Errorf("automerge after the build = %q, %v; want 2", automerge, err)
	}
	// and once finished, reopening reads the vocabulary back and is no longer a build
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, _, err = Open(t.Context(), file, "/notes")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if ix.building.Load() || !ix.vocab.has("wolfish") || !ix.vocab.has("packs") {
		t.Errorf("reopened after the build: building %v, vocabulary has wolfish %v", ix.building.Load(), ix.vocab.has("wolfish"))
	}
}

// mergeable reports whether ix's full-text index has segments left to merge, trying a merge
// step in a transaction rolled back, so that the index is left as it was.
func mergeable(t *testing.T, ix *Index) bool {
	t.Helper()
	tx, err := ix.db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	merged, err := mergeStep(t.Context(), tx, -10)
	if err != nil {
		t.Fatal(err)
	}
	return merged
}
