package index

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jck411/mcp-servers/shared/editdist"
	"github.com/kljensen/snowball/english"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// The full-text tables keep words as written (unicode61: lower case, diacritics removed), and
// the vocabulary, every distinct word of the notes, is what a query word is widened with: its
// other forms (the words sharing its English stem: run, runs, running) and, for a word that is
// in no note, the words within one or two edits of it (a typo). A search ranks the notes
// matching the words as typed first, then those matching other forms, then near spellings.
//
// The vocabulary is kept in the index's terms table and in memory. Words of deleted notes stay
// in it until the index is rebuilt: they widen a query with a form no note has, which finds
// nothing, and keep a word that no note has any more from being taken for a typo.

// Typo tolerance: a query word of at least fuzzyMin1 letters matches words one edit away
// (a letter added, dropped, changed, or two neighbours swapped), of at least fuzzyMin2 two;
// at most fuzzyMax near words are used per query word, the nearest first.
const (
	fuzzyMin1 = 4
	fuzzyMin2 = 8
	fuzzyMax  = 12
)

// vocab is the index's vocabulary in memory, safe for concurrent use.
type vocab struct {
	mu    sync.RWMutex
	terms map[string]struct{}
	// byStem maps a stem key to the words with it, other than the word the key spells: most
	// words are their own stem (every number, code and name), and a vault of 100,000 notes
	// holds a few hundred thousand words, so those are found in terms instead of here.
	byStem  map[string][]string
	byFirst map[rune][]string // first letter -> the words starting with it (typo candidates)
}

func newVocab() *vocab {
	return &vocab{terms: map[string]struct{}{}, byStem: map[string][]string{}, byFirst: map[rune][]string{}}
}

// has reports whether term is known.
func (v *vocab) has(term string) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	_, ok := v.terms[term]
	return ok
}

// unknown adds to out the distinct words of texts, folded, that the vocabulary does not hold.
// raw is scratch space for the words as written (most repeat), emptied first.
func (v *vocab) unknown(out, raw map[string]struct{}, texts ...string) {
	clear(raw)
	v.mu.RLock()
	defer v.mu.RUnlock()
	eachWord(func(w string) {
		if _, ok := raw[w]; ok {
			return
		}
		raw[w] = struct{}{}
		f := fold(w)
		if _, ok := v.terms[f]; ok {
			return
		}
		if _, ok := out[f]; !ok {
			out[strings.Clone(f)] = struct{}{} // not a slice of a note's whole text
		}
	}, texts...)
}

// add records terms (already folded).
func (v *vocab) add(terms []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, t := range terms {
		if _, ok := v.terms[t]; ok {
			continue
		}
		v.terms[t] = struct{}{}
		for _, k := range stemKeys(t) {
			if k != t {
				v.byStem[k] = append(v.byStem[k], t)
			}
		}
		r, _ := utf8.DecodeRuneInString(t)
		v.byFirst[r] = append(v.byFirst[r], t)
	}
}

// forms is word and the known words sharing one of its stems, sorted, word first.
func (v *vocab) forms(word string) []string {
	out := []string{word}
	v.mu.RLock()
	for _, k := range stemKeys(word) {
		if _, ok := v.terms[k]; ok && k != word && slices.Contains(stemKeys(k), k) {
			out = append(out, k) // a word that is its own stem, kept in terms alone
		}
		for _, t := range v.byStem[k] {
			if t != word {
				out = append(out, t)
			}
		}
	}
	v.mu.RUnlock()
	slices.Sort(out[1:])
	return slices.Compact(out)
}

// near lists up to fuzzyMax known words within the typo distance of word, nearest first. The
// candidates start with word's first or second letter, so a typo in the first letter is
// found only when it swaps the first two letters or adds a letter in front.
func (v *vocab) near(word string) []string {
	n := utf8.RuneCountInString(word)
	maxDist := 0
	switch {
	case n >= fuzzyMin2:
		maxDist = 2
	case n >= fuzzyMin1:
		maxDist = 1
	default:
		return nil
	}
	w := []rune(word)
	type cand struct {
		term string
		dist int
	}
	var cands []cand
	firsts := []rune{w[0]}
	if w[1] != w[0] {
		firsts = append(firsts, w[1]) // each word is under one first letter: no word is seen twice
	}
	v.mu.RLock()
	for _, first := range firsts {
		for _, t := range v.byFirst[first] {
			if t == word {
				continue
			}
			if l := utf8.RuneCountInString(t); l > n+maxDist || l < n-maxDist {
				continue // too long or too short to be near: no need to measure
			}
			if d := editDistance(w, t, maxDist); d <= maxDist {
				cands = append(cands, cand{t, d})
			}
		}
	}
	v.mu.RUnlock()
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.term, b.term))
	})
	out := make([]string, 0, min(len(cands), fuzzyMax))
	for i := 0; i < len(cands) && i < fuzzyMax; i++ {
		out = append(out, cands[i].term)
	}
	return out
}

// editDistance is editdist.OSA of a and bs, or max+1 when it is more than max.
func editDistance(a []rune, bs string, max int) int { return editdist.OSA(a, []rune(bs), max) }

// irregular maps English plurals and verb forms that no suffix rule undoes to their base form.
// Forms of be, have and do are left out: joining them would widen nearly every query.
var irregular = map[string]string{
	"men": "man", "women": "woman", "children": "child", "people": "person", "mice": "mouse",
	"geese": "goose", "feet": "foot", "teeth": "tooth", "lice": "louse", "oxen": "ox",
	"ran": "run", "went": "go", "gone": "go", "ate": "eat", "eaten": "eat", "wrote": "write",
	"written": "write", "took": "take", "taken": "take", "gave": "give", "given": "give",
	"came": "come", "knew": "know", "known": "know", "thought": "think", "bought": "buy",
	"brought": "bring", "taught": "teach", "caught": "catch", "spoke": "speak", "spoken": "speak",
	"drove": "drive", "driven": "drive", "chose": "choose", "chosen": "choose", "began": "begin",
	"begun": "begin", "swam": "swim", "swum": "swim", "sang": "sing", "sung": "sing", "flew": "fly",
	"flown": "fly", "grew": "grow", "grown": "grow", "drew": "draw", "drawn": "draw",
	"threw": "throw", "thrown": "throw", "forgot": "forget", "forgotten": "forget",
	"broke": "break", "broken": "break", "stole": "steal", "stolen": "steal", "wore": "wear",
	"worn": "wear", "slept": "sleep", "kept": "keep", "felt": "feel", "met": "meet", "sent": "send",
	"spent": "spend", "built": "build", "sold": "sell", "told": "tell", "paid": "pay", "said": "say",
	"made": "make", "sought": "seek", "fought": "fight",
}

// stemKeys are the keys under which word's forms are grouped: its Snowball (Porter2) English
// stem, and for plurals and verb forms the stemmer leaves apart from their base (wolves, knives,
// leaves; men, children; ran, written) the base's stem too.
func stemKeys(word string) []string {
	if strings.ContainsFunc(word, unicode.IsDigit) {
		return []string{word} // codes and numbers have no word forms
	}
	keys := []string{english.Stem(word, true)}
	if s, ok := irregular[word]; ok {
		keys = append(keys, english.Stem(s, true))
	}
	if base, ok := strings.CutSuffix(word, "ves"); ok && len(base) >= 2 {
		keys = append(keys, english.Stem(base+"f", true), english.Stem(base+"fe", true))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// isTokenRune reports whether r is part of a word for the unicode61 tokenizer.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

var stripMarks = runes.Remove(runes.In(unicode.Mn))

// fold is a word as the tokenizer keeps it: lower case, without diacritics.
func fold(word string) string {
	word = strings.ToLower(word)
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			t := transform.Chain(norm.NFD, stripMarks, norm.NFC)
			if out, _, err := transform.String(t, word); err == nil {
				return out
			}
			return word
		}
	}
	return word
}

// eachWord calls fn with every word of texts as the tokenizer splits them (not folded).
func eachWord(fn func(w string), texts ...string) {
	for _, text := range texts {
		start := -1
		for i, r := range text {
			if isTokenRune(r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				fn(text[start:i])
				start = -1
			}
		}
		if start >= 0 {
			fn(text[start:])
		}
	}
}

// oneWord reports whether s is a single word for the tokenizer, and returns it folded.
func oneWord(s string) (string, bool) {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return !isTokenRune(r) }) >= 0 {
		return "", false
	}
	return fold(s), true
}
