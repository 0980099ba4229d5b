package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A snippet is made from one passage of a note's body: the body is cut into passages of a few
// dozen words, and the first that holds the query's terms is highlighted (snippet.go), so its
// cost does not grow with the note.
const (
	passageWords = 64  // words (runs of non-space) in a passage
	passageBytes = 400 // bytes in a passage at most: a longer word is cut
	snippetWords = 24  // words of a passage a snippet shows
	snippetLead  = 6   // words shown before the first match
)

// Passages cuts body into passages of passageWords words (at most passageBytes each; a longer
// word is cut at a character boundary), without the space between them. The highlight
// markers (control characters) are removed from the text.
func Passages(body string) []string {
	body = strings.NewReplacer(markOpen, " ", markClose, " ").Replace(body)
	var out []string
	start, words, inWord := -1, 0, false
	cut := func(end int) {
		if p := strings.TrimRightFunc(body[start:end], unicode.IsSpace); p != "" {
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

// Highlight markers: control characters, which note text does not use, so that a "**" written
// in a note is not taken for one.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// window turns a passage with highlight markers into a snippet: snippetWords words starting a
// few before the first match, matches in **bold**, and "…" where text was cut (before and
// after say whether the passage itself was cut from more).
func window(h string, before, after bool) string {
	fields := strings.Fields(h)
	first := 0
	for i, f := range fields {
		if strings.Contains(f, markOpen) {
			first = i
			break
		}
	}
	start := max(0, first-snippetLead)
	end := min(len(fields), start+snippetWords)
	s := strings.Join(fields[start:end], " ")
	// A match cut by the window's edge is closed (or opened) at the edge.
	if strings.LastIndex(s, markOpen) > strings.LastIndex(s, markClose) {
		s += markClose
	}
	if c := strings.Index(s, markClose); c >= 0 && (c < strings.Index(s, markOpen) || !strings.Contains(s, markOpen)) {
		s = markOpen + s
	}
	s = strings.NewReplacer(markOpen, "**", markClose, "**").Replace(s)
	if before || start > 0 {
		s = "…" + s
	}
	if after || end < len(fields) {
		s += "…"
	}
	return s
}
