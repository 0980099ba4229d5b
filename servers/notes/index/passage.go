package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A note's body is also indexed cut into passages, which snippets are made from: FTS5's
// highlight() and snippet() cost grows with the square of the matches in the text they work
// on, so they only ever see one passage.
const (
	passageWords = 24  // words (runs of non-space) in a passage
	passageBytes = 400 // bytes in a passage at most: a longer word is cut
	// passageBits is how many low bits of a passage's rowid number it within its note
	// (note id << passageBits | number); a body's passages past 1<<passageBits are not kept.
	passageBits = 24
)

// passageRange is the first and last passage rowid of the note with id.
func passageRange(id int64) (lo, hi int64) {
	return id << passageBits, id<<passageBits | (1<<passageBits - 1)
}

// Passages cuts body into passages of passageWords words (at most passageBytes each; a longer
// word is cut at a character boundary), without the space between them.
func Passages(body string) []string {
	var out []string
	start, words, inWord := -1, 0, false
	cut := func(end int) {
		if p := strings.TrimRightFunc(body[start:end], unicode.IsSpace); p != "" && len(out) < 1<<passageBits {
			out = append(out, p)
		}
		start, words = -1, 0
	}
	for i, r := range body {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if start >= 0 && (!inWord && words == passageWords || i+utf8.RuneLen(r)-start > passageBytes) {
			cut(i)
			if inWord {
				words = 1 // the word cut goes on in this passage
			}
		}
		if start < 0 {
			start = i
		}
		if !inWord {
			words++
			inWord = true
		}
	}
	if start >= 0 {
		cut(len(body))
	}
	return out
}
