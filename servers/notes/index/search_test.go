package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testIndex is an index of test notes with their bodies, for snippets.
type testIndex struct {
	*Index
	bodies map[string]string
}

// body is the BodyFunc of the test notes.
func (ix *testIndex) body(path string) (string, bool) { return ix.bodies[path], false }

func openTest(t *testing.T, docs ...Doc) *testIndex {
	t.Helper()
	ix, _, err := Open(t.Context(), filepath.Join(t.TempDir(), "ix.sqlite"), "/notes")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if err := ix.Apply(t.Context(), docs, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Finish(t.Context()); err != nil { // as the store does after a first build
		t.Fatal(err)
	}
	tix := &testIndex{Index: ix, bodies: map[string]string{}}
	for _, d := range docs {
		tix.bodies[d.Path] = d.Body
	}
	return tix
}

func TestSearchSnippetsFromPassages(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 2000) // 54 KB, 400 passages
	ix := openTest(t,
		Doc{Path: "far.md", Title: "Far", Body: "kettle at the start. " + filler + "the copper teapot at the end", Updated: time.Now()},
		Doc{Path: "title.md", Title: "Teapot collection", Body: "nothing about it here", Updated: time.Now()},
		Doc{Path: "huge.md", Title: "Huge", Body: strings.Repeat("alpha ", 600_000), Updated: time.Now()},
	)
	cases := []struct {
		query, path string
		snippet     []string // what the snippet holds
		first       bool     // the snippet is from the first passage
	}{
		// Both words are in the note, far apart: the note matches, the snippet shows one.
		{"kettle teapot", "far.md", []string{"**kettle** at the start.", "amet…"}, true},
		// The passage matching the whole query wins over an earlier one matching a part.
		{"copper teapot", "far.md", []string{"**copper** **teapot** at"}, false},
		{`"copper teapot"`, "far.md", []string{"**copper teapot** at"}, false},
		// Matched by title only: the body's first passage, not highlighted.
		{"collection", "title.md", []string{"nothing about it here"}, true},
		// 3.6 MB of one word: a passage, not the whole note.
		{"alpha", "huge.md", []string{strings.Repeat("**alpha** ", snippetWords-1) + "**alpha**…"}, true},
	}
	for _, c := range cases {
		hits, _, err := ix.Search(t.Context(), c.query, Filter{}, 10, 0, ix.body)
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if len(hits) == 0 || hits[0].Path != c.path {
			t.Fatalf("%q: hits %+v, want %s", c.query, hits, c.path)
		}
		sn := hits[0].Snippet
		if strings.HasPrefix(sn, "…") == c.first || len(sn) > passageBytes+20 {
			t.Errorf("%q: snippet %q", c.query, sn)
		}
		for _, want := range c.snippet {
			if !strings.Contains(sn, want) {
				t.Errorf("%q: snippet %q lacks %q", c.query, sn, want)
			}
		}
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCancelStopsSQLite checks that a reader whose context ends is interrupted inside SQLite:
// the call returns soon after, no CPU is spent afterwards, and the pool's connections work.
func TestCancelStopsSQLite(t *testing.T) {
	ix := openTest(t, Doc{Path: "a.md", Title: "A", Body: "the quick brown fox", Updated: time.Now()})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	began := time.Now()
	var n int64
	// Counting to 10^12 takes hours.
	err := ix.read.QueryRowContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000000000) SELECT count(*) FROM c`).Scan(&n)
	if err == nil || time.Since(began) > 2*time.Second {
		t.Fatalf("cancelled query: %v after %v", err, time.Since(began))
	}
	// Nothing keeps running: over the next half second the process uses a small part of one
	// core (a query still running would use all of one).
	cpu0, wall0 := cpuTime(t), time.Now()
	time.Sleep(500 * time.Millisecond)
	if used, wall := cpuTime(t)-cpu0, time.Since(wall0); used > wall/4 {
		t.Errorf("the process used %v of CPU in %v after the cancelled query returned", used, wall)
	}
	// Every reader still works.
	var wg sync.WaitGroup
	for range readConns + 2 {
		wg.Go(func() {
			if hits, _, err := ix.Search(t.Context(), "fox", Filter{}, 10, 0, ix.body); err != nil && !errors.Is(err, ErrBusy) || err == nil && len(hits) != 1 {
				t.Errorf("search after cancel: %v, %v", hits, err)
			}
		})
	}
	wg.Wait()
}

// TestSearchCancelled checks that Search itself returns the context's error when it ends.
func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	ix := openTest(t, Doc{Path: "huge.md", Title: "Huge", Body: strings.Repeat("alpha ", 600_000), Updated: time.Now()})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := ix.Search(ctx, "alpha", Filter{}, 10, 0, ix.body); !errors.Is(err, context.Canceled) {
		t.Errorf("search with an ended context = %v", err)
	}
	if hits, _, err := ix.Search(t.Context(), "alpha", Filter{}, 10, 0, ix.body); err != nil || len(hits) != 1 {
		t.Errorf("search after = %v, %v", hits, err)
	}
}

// TestSearchBusy checks that searches beyond maxSearches fail fast with ErrBusy while the
// writer and Count go on.
func TestSearchBusy(t *testing.T) {
	ix := openTest(t, Doc{Path: "a.md", Title: "A", Body: "fox", Updated: time.Now()})
	for range maxSearches {
		ix.searches <- struct{}{} // as if maxSearches slow searches were running
	}
	began := time.Now()
	if _, _, err := ix.Search(t.Context(), "fox", Filter{}, 10, 0, ix.body); !errors.Is(err, ErrBusy) || time.Since(began) > searchWait+time.Second {
		t.Errorf("search over the limit = %v after %v", err, time.Since(began))
	}
	if err := ix.Apply(t.Context(), []Doc{{Path: "b.md", Title: "B", Body: "fox", Updated: time.Now()}}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := ix.Count(t.Context()); err != nil || n != 2 {
		t.Errorf("count = %d, %v", n, err)
	}
	<-ix.searches
	if hits, _, err := ix.Search(t.Context(), "fox", Filter{}, 10, 0, ix.body); err != nil || len(hits) != 2 {
		t.Errorf("search with a free slot = %v, %v", hits, err)
	}
}

// TestBroadSearch: a search matching more notes than the broad limit ranks the most recently
// indexed of them by relevance, then the older ones newest first, and pages run across both.
func TestBroadSearch(t *testing.T) {
	t.Parallel()
	var docs []Doc
	for i := range 12 {
		body := fmt.Sprintf("note %d mentions common once", i)
		if i == 9 || i == 2 {
			body = "common common common, and common again"
		}
		docs = append(docs, Doc{Path: fmt.Sprintf("n%02d.md", i), Title: fmt.Sprintf("N%d", i), Body: body, Updated: time.Now()})
	}
	ix := openTest(t, docs...) // ids follow the order: n11 is the newest
	ix.broad = 5
	var all []string
	for offset := 0; ; offset += 4 {
		hits, more, err := ix.Search(t.Context(), "common", Filter{}, 4, offset, ix.body)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			all = append(all, h.Path)
		}
		if !more {
			break
		}
	}
	// The five newest (n07–n11) by relevance, n09 first; then n06 down to n00 (n02's many
	// mentions do not lift it: it is older than the five).
	want := []string{"n09.md", "n07.md", "n08.md", "n10.md", "n11.md", "n06.md", "n05.md", "n04.md", "n03.md", "n02.md", "n01.md", "n00.md"}
	if !slices.Equal(all[:1], want[:1]) || !slices.Equal(all[5:], want[5:]) || len(all) != 12 {
		t.Errorf("broad search pages = %v, want %v (the four after n09 in any order)", all, want)
	}
	if got := all[1:5]; !slices.Contains(got, "n07.md") || !slices.Contains(got, "n11.md") || slices.Contains(got, "n02.md") {
		t.Errorf("the newest five = %v", all[:5])
	}
	// Under the limit, every match is ranked: n02 and n09 first.
	ix.broad = 100
	hits, _, err := ix.Search(t.Context(), "common", Filter{}, 2, 0, ix.body)
	if err != nil || len(hits) != 2 || !slices.Contains([]string{hits[0].Path, hits[1].Path}, "n02.md") {
		t.Errorf("ranked search = %+v, %v", hits, err)
	}
}
