package index

import (
	"slices"
	"strings"
)

// BodyFunc returns the start of a note's body (its front matter left out), for its snippet,
// and whether the body goes on past it; "" when it cannot be read. Snippets are made from the
// note as it is now, not from a copy in the index.
type BodyFunc func(path string) (body string, more bool)

// snippetPassages is how many of a body's first passages a snippet looks through for a match.
const snippetPassages = 1024

// alt is one way a query term can appear in text: a run of words (one, or a phrase's), the last
// one a prefix when the term is one.
type alt struct {
	words  []string // folded, as the tokenizer keeps them
	prefix bool
}

// alts are the ways term t can appear, widened by e's forms (t's own tokens when e gives none).
func alts(t qterm, forms func(qterm) []string) []alt {
	if t.word != "" && forms != nil {
		out := []alt{}
		for _, w := range forms(t) {
			out = append(out, alt{words: []string{w}})
		}
		return out
	}
	var words []string
	for _, tok := range tokenize(t.text) {
		words = append(words, tok.word)
	}
	if len(words) == 0 {
		return nil
	}
	return []alt{{words: words, prefix: t.prefix}}
}

// token is one word of a text as the tokenizer sees it, with where it is.
type token struct {
	word       string // folded
	start, end int    // byte offsets in the text
}

// tokenize splits text into words as the unicode61 tokenizer does (see isTokenRune, fold).
func tokenize(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, token{fold(text[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{fold(text[start:]), start, len(text)})
	}
	return out
}

// at reports whether a appears in toks starting at i, and where it ends.
func (a alt) at(toks []token, i int) (end int, ok bool) {
	if i+len(a.words) > len(toks) {
		return 0, false
	}
	for k, w := range a.words {
		got := toks[i+k].word
		if got != w && (!a.prefix || k < len(a.words)-1 || !strings.HasPrefix(got, w)) {
			return 0, false
		}
	}
	return toks[i+len(a.words)-1].end, true
}

// span is a highlighted part of a passage.
type span struct{ start, end int }

// find marks every appearance of the groups' terms in p and says how many groups appear.
func find(p string, groups [][]alt) (found int, spans []span) {
	toks := tokenize(p)
	for _, g := range groups {
		hit := false
		for _, a := range g {
			for i := range toks {
				if end, ok := a.at(toks, i); ok {
					hit = true
					spans = append(spans, span{toks[i].start, end})
				}
			}
		}
		if hit {
			found++
		}
	}
	return found, spans
}

// mark puts the highlight markers around the spans of p.
func mark(p string, spans []span) string {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		for i++; i < len(spans) && spans[i].start <= s.end; i++ {
			s.end = max(s.end, spans[i].end)
		}
		b.WriteString(p[at:s.start])
		b.WriteString(markOpen + p[s.start:s.end] + markClose)
		at = s.end
	}
	b.WriteString(p[at:])
	return b.String()
}

// snippetOf makes a snippet of body: from its first passage (of the first snippetPassages)
// holding every group's terms, else its first holding any, else (a match in the title or tags)
// its first passage. more says the body goes on past what was given.
func snippetOf(body string, more bool, groups [][]alt) string {
	ps := Passages(body)
	if len(ps) == 0 {
		return ""
	}
	after := func(i int) bool { return i+1 < len(ps) || more }
	first, firstMarked := -1, ""
	for i, p := range ps[:min(len(ps), snippetPassages)] {
		found, spans := find(p, groups)
		if found == len(groups) {
			return window(mark(p, spans), i > 0, after(i))
		}
		if found > 0 && first < 0 {
			first, firstMarked = i, mark(p, spans)
		}
	}
	if first >= 0 {
		return window(firstMarked, first > 0, after(first))
	}
	return window(ps[0], false, after(0))
}
