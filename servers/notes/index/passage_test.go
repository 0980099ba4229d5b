package index

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPassages(t *testing.T) {
	t.Parallel()
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	long := strings.Repeat("é", 500) // 1,000 bytes, no space
	cases := []struct {
		name string
		body string
		want []int // byte length of each passage
	}{
		{"empty", "", nil},
		{"spaces", " \n\t ", nil},
		{"short", "two words\n", []int{9}},
		{"exactly one passage", words(passageWords), []int{len(words(passageWords))}},
		{"two and a bit", words(2*passageWords + 2), []int{len(words(passageWords)), len(words(passageWords)), len(words(2))}},
		{"one long word", long, []int{400, 400, 200}},
		{"words then a long word", "a b " + long, []int{4 + 396, 400, 204}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Passages(c.body)
			var lens []int
			for _, p := range got {
				lens = append(lens, len(p))
				if !utf8.ValidString(p) || p != strings.TrimSpace(p) || len(p) > passageBytes || len(strings.Fields(p)) > passageWords {
					t.Errorf("bad passage %q", p)
				}
			}
			if len(lens) != len(c.want) {
				t.Fatalf("passage lengths %v, want %v", lens, c.want)
			}
			for i := range lens {
				if lens[i] != c.want[i] {
					t.Fatalf("passage lengths %v, want %v", lens, c.want)
				}
			}
			// No text is lost: the passages hold every non-space character in order.
			strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if strip(strings.Join(got, "")) != strip(c.body) {
				t.Errorf("passages lose text")
			}
		})
	}
}
