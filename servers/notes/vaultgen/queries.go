package vaultgen

import (
	"math/rand/v2"
	"strings"
)

// Query is one search a benchmark runs, with what kind of search it is.
type Query struct {
	Text string
	Kind string // word, common, two-words, name, phrase, prefix or typo
}

// Queries returns n searches over the vault opt writes, the same for the same options: single
// words drawn evenly and as often as they occur, pairs, names, phrases, prefixes, and typos
// (a word of five or more letters with one letter changed, dropped, added or two swapped).
func Queries(opt Options, n int) []Query {
	g := newGen(opt)
	r := rand.New(rand.NewPCG(opt.Seed, 0x71756572)) // "quer"
	known := map[string]bool{}
	for _, w := range g.vocab {
		known[w] = true
	}
	even := func() string { return english[r.IntN(len(english))] }
	often := func() string { return g.vocab[g.zipf.Uint64()] }
	out := make([]Query, 0, n)
	for len(out) < n {
		var q Query
		switch k := r.IntN(20); {
		case k < 5:
			q = Query{even(), "word"}
		case k < 8:
			q = Query{often(), "common"}
		case k < 11:
			q = Query{even() + " " + even(), "two-words"}
		case k < 13:
			q = Query{capital(g.names[r.IntN(len(g.names))]), "name"}
		case k < 14:
			t := g.notes[r.IntN(len(g.notes))].title
			q = Query{`"` + strings.Join(strings.Fields(t)[:min(2, len(strings.Fields(t)))], " ") + `"`, "phrase"}
		case k < 15:
			w := even()
			if len(w) < 5 {
				continue
			}
			q = Query{w[:4] + "*", "prefix"}
		default:
			w := even()
			if len(w) < 5 {
				continue
			}
			t := typo(r, w)
			if known[t] {
				continue
			}
			q = Query{t, "typo"}
		}
		out = append(out, q)
	}
	return out
}

// typo changes w by one edit after its first letter.
func typo(r *rand.Rand, w string) string {
	i := 1 + r.IntN(len(w)-2)
	c := string(rune('a' + r.IntN(26)))
	switch r.IntN(4) {
	case 0:
		return w[:i] + c + w[i+1:]
	case 1:
		return w[:i] + w[i+1:]
	case 2:
		return w[:i] + c + w[i:]
	}
	return w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:]
}

// Paths returns the paths of the notes opt writes, in the order Generate writes them.
func Paths(opt Options) []string {
	g := newGen(opt)
	out := make([]string, len(g.notes))
	for i, n := range g.notes {
		out[i] = n.path
	}
	return out
}
