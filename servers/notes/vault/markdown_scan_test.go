package vault

import (
	"slices"
	"testing"
)

// FuzzLineScanners checks that lineTags and lineLinks find exactly what the expressions they
// stand in for find.
func FuzzLineScanners(f *testing.F) {
	for _, s := range []string{"#a #b", "#a#b", "x,#a;#b (#c [#d", "##a", "#1 #é-x/y #_", "a [[b]] [[c#h|d]] ![[e]]",
		"[[[a]]", "[[a|b|c]]", "[[a#b#c]]", "[[]] [[ x ]]", "[[a\n]]", "see [[x]]] and [[y", "#tag[[l]]#t2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var tags, links []string
		for _, m := range inlineTagRe.FindAllStringSubmatch(line, -1) {
			tags = append(tags, m[2])
		}
		for _, m := range wikiLinkRe.FindAllStringSubmatch(line, -1) {
			links = append(links, m[2])
		}
		if got := lineTags(line); !slices.Equal(got, tags) {
			t.Errorf("lineTags(%q) = %q, the expression finds %q", line, got, tags)
		}
		if got := lineLinks(line); !slices.Equal(got, links) {
			t.Errorf("lineLinks(%q) = %q, the expression finds %q", line, got, links)
		}
	})
}
