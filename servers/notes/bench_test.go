package main

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpus writes count generated notes (Zipf-distributed words from a 5,000-word vocabulary,
// about 150 words each, in 50 folders, with tags and links) and returns the vocabulary.
func corpus(tb testing.TB, dir string, count int) []string {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	syl := []string{"ka", "lo", "mi", "ne", "su", "ra", "ti", "po", "ve", "da", "gu", "ri", "sa", "mo", "te", "zi"}
	vocab := make([]string, 5000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		vocab[i] = fmt.Sprintf("%s%d", b.String(), i%7)
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range count {
		var body strings.Builder
		fmt.Fprintf(&body, "# Note %d\n\n", i)
		for w := range 150 {
			body.WriteString(vocab[zipf.Uint64()])
			if w%15 == 14 {
				body.WriteString(".\n\n")
			} else {
				body.WriteString(" ")
			}
		}
		fmt.Fprintf(&body, "\nSee [[note-%d]] #topic%d\n", r.IntN(count), i%20)
		ts := created.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		file := fmt.Sprintf("---\ntitle: Note %d %s\ntags: [bench, t%d]\ncreated: %s\nupdated: %s\n---\n\n%s", i, vocab[zipf.Uint64()], i%10, ts, ts, body.String())
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i%50), fmt.Sprintf("note-%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(file), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return vocab
}

func benchStore(b *testing.B, state string) *store {
	b.Helper()
	cfg := storeConfig{notesDir: filepath.Join(state, "notes"), indexFile: filepath.Join(state, "index.sqlite"), scanInterval: 2 * time.Second}
	n, err := openStore(b.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkSearchNotes10k measures the search_notes handler (staleness check, query, ranking,
// snippets; not the HTTP transport) over 10,000 notes, reporting p50 and p95 latency, for two
// query mixes: "words" draws one or two words evenly from the vocabulary (what people look
// for: distinctive words), "common" draws them as often as they occur in the text, so most
// queries hit words that are in thousands of notes (the worst case: every match is ranked),
// "typos" draws words evenly and changes one letter to one no word has, so every query takes
// all three passes (exact, word forms, near spellings).
func BenchmarkSearchNotes10k(b *testing.B) {
	state := b.TempDir()
	vocab := corpus(b, filepath.Join(state, "notes"), 10_000)
	n := benchStore(b, state)
	defer n.close()
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	mixes := []struct {
		name string
		word func() string
	}{
		{"words", func() string { return vocab[r.IntN(len(vocab))] }},
		{"common", func() string { return vocab[zipf.Uint64()] }},
		{"typos", func() string {
			w := vocab[r.IntN(len(vocab))]
			i := 1 + r.IntN(len(w)-2)
			return w[:i] + "x" + w[i+1:]
		}},
	}
	for _, mix := range mixes {
		queries := make([]string, 256)
		for i := range queries {
			queries[i] = mix.word()
			if i%2 == 1 {
				queries[i] += " " + mix.word()
			}
		}
		b.Run(mix.name, func(b *testing.B) {
			durs := make([]time.Duration, 0, b.N)
			hits := 0
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				_, out, err := n.searchNotes(b.Context(), nil, searchInput{Query: queries[i%len(queries)], Limit: 10})
				durs = append(durs, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				hits += len(out.Notes)
			}
			b.StopTimer()
			if hits == 0 {
				b.Fatal("no query found anything")
			}
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
			slices.Sort(durs)
			b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkRebuild10k measures building the index from nothing over 10,000 notes.
func BenchmarkRebuild10k(b *testing.B) {
	state := b.TempDir()
	corpus(b, filepath.Join(state, "notes"), 10_000)
	b.ResetTimer()
	for range b.N {
		for _, f := range []string{"index.sqlite", "index.sqlite-wal", "index.sqlite-shm"} {
			_ = os.Remove(filepath.Join(state, f))
		}
		n := benchStore(b, state)
		b.StopTimer()
		if c, err := n.current().Count(b.Context()); err != nil || c != 10_000 {
			b.Fatalf("indexed %d notes: %v", c, err)
		}
		n.close()
		b.StartTimer()
	}
}

// hugeBody is about size bytes of text: one word repeated, or (mixed) sentences drawn from
// a small vocabulary, so that the word searched for matches thousands of times.
func hugeBody(size int, mixed bool) string {
	var b strings.Builder
	words := []string{"alpha", "garden", "river", "stone", "cloud", "alpha", "lamp", "field"}
	for i := 0; b.Len() < size; i++ {
		w := "alpha"
		if mixed {
			w = words[(i*7+i/5)%len(words)]
		}
		b.WriteString(w)
		if mixed && i%12 == 11 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// BenchmarkSearchHugeNote measures search_notes for "alpha" over one huge note beside 200
// ordinary ones: 240 KB, 1 MB and 3.5 MB of the one word, and 1 MB of mixed text.
func BenchmarkSearchHugeNote(b *testing.B) {
	for _, c := range []struct {
		name  string
		size  int
		mixed bool
	}{{"word-240KB", 240 << 10, false}, {"word-1MB", 1 << 20, false}, {"word-3.5MB", 3584 << 10, false}, {"mixed-1MB", 1 << 20, true}} {
		b.Run(c.name, func(b *testing.B) {
			state := b.TempDir()
			corpus(b, filepath.Join(state, "notes"), 200)
			if err := os.WriteFile(filepath.Join(state, "notes", "huge.md"), []byte(hugeBody(c.size, c.mixed)), 0o600); err != nil {
				b.Fatal(err)
			}
			n := benchStore(b, state)
			defer n.close()
			b.ResetTimer()
			for range b.N {
				_, out, err := n.searchNotes(b.Context(), nil, searchInput{Query: "alpha", Limit: 10})
				if err != nil || len(out.Notes) == 0 || !strings.Contains(out.Notes[0].Snippet, "**alpha**") {
					b.Fatalf("search = %+v, %v", out, err)
				}
			}
		})
	}
}
