package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
)

// n builds a snapshot node for tests.
func n(role, name string, backend int, children ...*axNode) *axNode {
	return &axNode{role: role, name: name, el: elemKey{id: int64(backend)}, children: children}
}

func withProps(a *axNode, kv ...string) *axNode {
	for i := 0; i+1 < len(kv); i += 2 {
		a.props = append(a.props, kv[i]+"="+kv[i+1])
	}
	return a
}

func TestRenderSnapshot(t *testing.T) {
	tests := []struct {
		name string
		root *axNode
		want string
	}{
		{
			name: "wrappers collapse and labels fold into controls",
			root: n("RootWebArea", "T", 1,
				n("generic", "", 2, n("generic", "", 3,
					n("LabelText", "", 4, n("StaticText", "User", 5), n("textbox", "User", 6)),
					withProps(n("checkbox", "Remember", 7), "checked", "true"),
					n("button", "Go", 8, n("StaticText", "Go", 9))))),
			want: "textbox \"User\" [e1]\ncheckbox \"Remember\" [e2] checked\nbutton \"Go\" [e3]",
		},
		{
			name: "headings, links with relative URLs, lists",
			root: n("RootWebArea", "T", 1,
				withProps(n("heading", "Title", 2, n("StaticText", "Title", 3)), "level", "1"),
				n("navigation", "", 4, n("list", "", 5,
					n("listitem", "", 6, withProps(n("link", "Home", 7, n("StaticText", "Home", 8)), "url", "http://x.test/home")),
					n("listitem", "", 9, withProps(n("link", "Out", 10), "url", "https://other.test/a"))))),
			want: "h1 \"Title\"\nnav\n - link \"Home\" [e1] /home\n - link \"Out\" [e2] https://other.test/a",
		},
		{
			name: "paragraph text merges, paragraphs stay apart",
			root: n("RootWebArea", "T", 1,
				n("paragraph", "", 2, n("StaticText", "One", 3), n("StaticText", "two.", 4)),
				n("paragraph", "", 5, n("StaticText", "Three.", 6))),
			want: "One two.\nThree.",
		},
		{
			name: "tables render one line per row",
			root: n("RootWebArea", "T", 1,
				n("table", "", 2, n("rowgroup", "", 3,
					n("row", "", 4, n("columnheader", "Host", 5, n("StaticText", "Host", 6)), n("columnheader", "CPU", 7, n("StaticText", "CPU", 8))),
					n("row", "", 9, n("cell", "a", 10, n("StaticText", "a", 11)), n("cell", "", 12, n("button", "Stop", 13)))))),
			want: "table\n Host | CPU\n a | button \"Stop\" [e1]",
		},
		{
			name: "a field's text is its value, shown once",
			root: n("RootWebArea", "T", 1,
				func() *axNode {
					c := n("textbox", "Name", 2, n("generic", "", 3, n("StaticText", "Old  Name", 4)))
					c.value = "Old Name"
					return c
				}()),
			want: "textbox \"Name\" [e1]: Old Name",
		},
		{
			name: "native select lists its options",
			root: n("RootWebArea", "T", 1,
				func() *axNode {
					c := n("combobox", "Role", 2, n("MenuListPopup", "", 3, n("option", "A", 4), n("option", "B", 5)))
					c.value = "A"
					return c
				}()),
			want: "combobox \"Role\" [e1]: A\n options: A | B",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, ok := renderSnapshot(tt.root, newRefTable(), "http://x.test/page", elemKey{}, 0, 0)
			if !ok {
				t.Fatal("render failed")
			}
			if got := snap.text(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestRefsFollowRoleAndName(t *testing.T) {
	refs := newRefTable()
	page := func(ids ...int) *axNode {
		root := n("RootWebArea", "", 1)
		names := []string{"Save", "Cancel", "Help"}
		for i, id := range ids {
			root.children = append(root.children, n("button", names[i], id))
		}
		return root
	}
	first, _ := renderSnapshot(page(10, 11, 12), refs, "", elemKey{}, 0, 0)
	// New DOM nodes (a re-render) with the same roles and names keep the refs.
	second, _ := renderSnapshot(page(20, 21, 22), refs, "", elemKey{}, 0, 0)
	if first.text() != second.text() {
		t.Errorf("refs changed on re-render:\n%s\n---\n%s", first.text(), second.text())
	}
	if refs.targets["e1"].id != 20 {
		t.Errorf("e1 should point at the new node, got %d", refs.targets["e1"].id)
	}
	// A button that is renamed gets a new ref; the others keep theirs.
	root := page(20, 21, 22)
	root.children[1].name = "Discard"
	third, _ := renderSnapshot(root, refs, "", elemKey{}, 0, 0)
	if !strings.Contains(third.text(), `button "Save" [e1]`) || !strings.Contains(third.text(), `button "Help" [e3]`) || strings.Contains(third.text(), "[e2]") {
		t.Errorf("after a rename:\n%s", third.text())
	}
}

func TestDiffLines(t *testing.T) {
	removed, added, more := diffLines([]string{"a", " b", "c", "c"}, []string{"a", "c", "d", " b"}, 10)
	if strings.Join(removed, ",") != "c" || strings.Join(added, ",") != "d" || more != 0 {
		t.Errorf("removed %v added %v more %d", removed, added, more)
	}
}

func TestPaged(t *testing.T) {
	text := strings.Repeat("line of text\n", 100)
	tests := []struct {
		offset, max int
		wantMarker  string
	}{
		{0, 5000, ""},
		{0, 100, "call again with offset=91"},
		{91, 100, "offset=182"},
		{5000, 100, "past the end"},
	}
	for _, tt := range tests {
		got := paged(text, tt.offset, tt.max)
		if tt.wantMarker == "" && got != text || tt.wantMarker != "" && !strings.Contains(got, tt.wantMarker) {
			t.Errorf("paged(offset %d, max %d) = ...%q", tt.offset, tt.max, got[max(0, len(got)-80):])
		}
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"short text stays", "One. Two.", 20, "One. Two."},
		{"no limit", strings.Repeat("word ", 100), 0, strings.Repeat("word ", 100)},
		{"cut after a sentence", "First sentence here. Second sentence is long enough to go.", 30, "First sentence here. …(+37 chars)"},
		{"cut after a word", "averyveryverylongword and then some more words", 30, "averyveryverylongword and then …(+15 chars)"},
		{"counts characters, not bytes", "ééééé ééééé ééééé", 8, "ééééé …(+11 chars)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := shorten(tt.in, tt.limit)
			if got != tt.want || cut != (got != tt.in) {
				t.Errorf("shorten(%q, %d) = %q, %v; want %q", tt.in, tt.limit, got, cut, tt.want)
			}
		})
	}
}

func TestRenderShortensLongText(t *testing.T) {
	long := strings.Repeat("A sentence of some length. ", 20)
	root := n("RootWebArea", "T", 1, n("paragraph", "", 2, n("StaticText", long, 3)), n("link", "More", 4), n("StaticText", "·", 5), n("link", "Less", 6), n("StaticText", "—", 7))
	snap, _ := renderSnapshot(root, newRefTable(), "http://x.test/", elemKey{}, 0, 60)
	want := "A sentence of some length. A sentence of some length. …(+485 chars)\nlink \"More\" [e1]\nlink \"Less\" [e2]\n—\n[1 long text shortened, each marked …(+N chars): browser_get_text reads the content whole; browser_snapshot with full_text=true, or find=\"words\", shows the lines whole]"
	if got := snap.text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if snap.whole[0] != squash(long) {
		t.Errorf("the whole line should keep the text: %q", snap.whole[0])
	}
}

// TestRenderParagraphBudget checks that the text of one paragraph shares one budget however many
// links split it: the run after a link keeps the end of its sentence, short runs between links
// stay, and the next paragraph starts afresh.
func TestRenderParagraphBudget(t *testing.T) {
	link := func(name string, id int) *axNode {
		return withProps(n("link", name, id, n("StaticText", name, id+100)), "url", "http://x.test/"+name)
	}
	root := n("RootWebArea", "T", 1,
		n("paragraph", "", 2,
			n("StaticText", "First sentence of the paragraph is here. It goes on, as the", 3), link("guide", 4),
			n("StaticText", "explains. After the link comes a lot more text that is not needed.", 5), link("a", 6),
			n("StaticText", "and", 7), link("b", 8),
			n("StaticText", "then a long run with no sentence end that goes on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on and on", 9)),
		n("paragraph", "", 10, n("StaticText", "A new paragraph has its own budget.", 11)))
	snap, _ := renderSnapshot(root, newRefTable(), "http://x.test/", elemKey{}, 0, 60)
	want := strings.Join([]string{
		"First sentence of the paragraph is here. It goes on, as the",
		`link "guide" [e1] /guide`,
		"explains. …(+56 chars)",
		`link "a" [e2] /a`,
		"and",
		`link "b" [e3] /b`,
		"then a long run with no sentence end …(+138 chars)",
		"A new paragraph has its own budget.",
		"[2 long texts shortened, each marked …(+N chars): browser_get_text reads the content whole; browser_snapshot with full_text=true, or find=\"words\", shows the lines whole]",
	}, "\n")
	if got := snap.text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPagedSnapshot(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("h2 \"Part %d\"", i), fmt.Sprintf(" link \"Go %d\" [e%d] /go/%d", i, i, i))
	}
	text := strings.Join(lines, "\n")
	tests := []struct {
		offset, max int
		want        string
	}{
		{0, len(text), ""},
		{0, 200, `shown; left out 25 refs (e6…e30); 24 headings: h2 "Part 7", h2 "Part 8", h2 "Part 9", …. browser_snapshot with offset=192 shows the rest`},
		{len(text) - 30, 200, "[end: characters"},
		{len(text) + 1, 200, "past the end"},
	}
	for _, tt := range tests {
		got := pagedSnapshot(text, tt.offset, tt.max)
		if tt.want == "" && got != text || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("pagedSnapshot(offset %d, max %d) = ...%q", tt.offset, tt.max, got[max(0, len(got)-240):])
		}
	}
}

func TestKeyEvents(t *testing.T) {
	tests := []struct {
		key      string
		n        int
		mods     int64
		commands string // of the key-down
		wantErr  bool
	}{
		{"Enter", 3, 0, "", false},
		{"a", 3, 0, "", false},
		{"Control+a", 2, modCtrl, "selectAll", false},
		{"Meta+C", 2, modMeta, "copy", false},
		{"Control+Shift+Z", 2, modCtrl | modShift, "redo", false},
		{"Control+Shift+K", 2, modCtrl | modShift, "", false},
		{"Alt+a", 2, modAlt, "", false},
		{"ArrowDown", 2, 0, "", false},
		{"Hyper+a", 0, 0, "", true},
		{"NoSuchKey", 0, 0, "", true},
	}
	for _, tt := range tests {
		evs, err := keyEvents(tt.key)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err %v", tt.key, err)
			continue
		}
		if tt.wantErr {
			continue
		}
		if len(evs) != tt.n || evs[0].Modifiers&tt.mods != tt.mods {
			t.Errorf("%s: %d events, modifiers %d; want %d events with %d", tt.key, len(evs), evs[0].Modifiers, tt.n, tt.mods)
		}
		if evs[0].Type != input.DispatchKeyEventTypeRawKeyDown || strings.Join(evs[0].Commands, ",") != tt.commands {
			t.Errorf("%s: first event %s with commands %v; want a rawKeyDown with %q", tt.key, evs[0].Type, evs[0].Commands, tt.commands)
		}
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"report.csv":        "report.csv",
		"../../etc/passwd":  "passwd",
		"a/b\\c.txt":        "c.txt",
		"weird<>:name?.pdf": "weird_name_.pdf",
		"..":                "",
		"résumé final.docx": "r_sum_ final.docx",
	} {
		if got := safeFileName(in); got != want {
			t.Errorf("safeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
