package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textRunMax is the length, in characters, past which a paragraph's text is shortened in a
// snapshot: the snapshot is a map of the page to act on, and browser_get_text reads prose whole.
const textRunMax = 240

// textRunMin is what a run of text keeps at least when the links before it in its paragraph
// have used up the paragraph's textRunMax.
const textRunMin = 40

// interactiveRoles get a ref: they are what a model acts on.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true,
	"radio": true, "combobox": true, "listbox": true, "option": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "tab": true, "switch": true,
	"slider": true, "spinbutton": true, "treeitem": true, "textarea": true,
	"ToggleButton": true, "PopUpButton": true, "DisclosureTriangle": true,
	"date": true, "time": true, "datetime": true, "month": true, "week": true, "color": true,
}

// collapsed roles are wrappers: their children take their place.
var collapsed = map[string]bool{
	"none": true, "generic": true, "presentation": true, "LabelText": true, "paragraph": true,
	"Section": true, "Div": true, "strong": true, "emphasis": true, "code": true, "Time": true,
	"Abbr": true, "mark": true, "superscript": true, "subscript": true, "Ruby": true,
	"group": true, "figure": true, "blockquote": true, "Canvas": true, "Pre": true,
	"DescriptionList": true, "term": true, "definition": true, "caption": true, "Legend": true,
	"rowgroup": true, "list": true, "insertion": true, "deletion": true, "Unknown": true,
	"LayoutTable": true, "LayoutTableRow": true, "LayoutTableCell": true, "ScrollArea": true,
	"document": true, "article": true, "sectionheader": true, "sectionfooter": true,
	"directory": true, "note": true, "MenuListPopup": true, "GenericContainer": true,
}

// aliases shorten landmark roles to their HTML names.
var aliases = map[string]string{
	"navigation": "nav", "banner": "header", "contentinfo": "footer", "complementary": "aside",
	"region": "section", "RootWebArea": "document",
}

// blockBreak roles end a run of text, so text from two paragraphs stays on two lines.
var blockBreak = map[string]bool{"paragraph": true, "Div": true, "blockquote": true, "Pre": true, "figure": true, "listitem": true, "Section": true}

// refTable gives elements refs that survive re-renders: the same element keeps its ref while
// its role and name stay the same, and a new element with the role and name (and position among
// equals) of an earlier one takes over that ref.
type refTable struct {
	next    int
	byKey   map[string]string
	byElem  map[elemKey]refMemo
	targets map[string]elemKey // refs of the latest snapshot
	holders map[string]elemKey // the element that last held each ref, in any snapshot
}

type refMemo struct{ ref, role, name string }

func newRefTable() *refTable {
	return &refTable{byKey: map[string]string{}, byElem: map[elemKey]refMemo{}, targets: map[string]elemKey{}, holders: map[string]elemKey{}}
}

// snapshot is a rendered page: its lines as shown, and the same lines with every text whole.
type snapshot struct {
	lines     []string
	whole     []string // lines with no text shortened, for find
	shortened int      // text runs shortened in lines
}

// text is the snapshot as a model reads it, ending with a note when text was shortened.
func (s *snapshot) text() string {
	t := strings.Join(s.lines, "\n")
	if s.shortened > 0 {
		t += fmt.Sprintf("\n[%d long text%s shortened, each marked …(+N chars): browser_get_text reads the content whole; browser_snapshot with full_text=true, or find=\"words\", shows the lines whole]",
			s.shortened, pluralS(s.shortened))
	}
	return t
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// renderer turns an accessibility tree into compact text.
type renderer struct {
	refs     *refTable
	taken    map[string]bool
	seen     map[string]int // role+name occurrences in this snapshot
	base     *url.URL
	maxDepth int // 0: no limit
	out      []line
	bullet   bool
	brk      bool
	para     int // counts block boundaries: text runs of one paragraph share a number
}

type line struct {
	depth int
	text  string
	isTxt bool
	para  int
}

// renderSnapshot renders root. scope, when non-zero, renders only that element's subtree.
// A full pass always runs so refs are assigned in document order, whatever is shown.
// textMax, when positive, shortens each run of text longer than that many characters.
func renderSnapshot(root *axNode, refs *refTable, pageURL string, scope elemKey, maxDepth, textMax int) (*snapshot, bool) {
	base, _ := url.Parse(pageURL)
	r := &renderer{refs: refs, taken: map[string]bool{}, seen: map[string]int{}, base: base, maxDepth: maxDepth}
	refs.targets = map[string]elemKey{}
	r.assign(root, false)
	start := root
	if scope.id != 0 {
		start = findElem(root, scope)
		if start == nil {
			return nil, false
		}
	}
	if start == root {
		for _, c := range root.children {
			r.node(c, 0)
		}
	} else {
		r.node(start, 0)
	}
	snap := &snapshot{}
	used := map[[2]int]int{} // characters of text shown so far per paragraph and depth
	for i, l := range r.out {
		if l.isTxt && i+1 < len(r.out) && !r.out[i+1].isTxt && r.out[i+1].depth == l.depth && strings.Contains(r.out[i+1].text, quote(l.text)+" [") {
			continue // a label: the control's name says it
		}
		indent := strings.Repeat(" ", l.depth)
		snap.whole = append(snap.whole, indent+l.text)
		text := l.text
		if l.isTxt && textMax > 0 {
			// A paragraph's text shares one budget, however many links split it into runs.
			key, limit := [2]int{l.para, l.depth}, textMax
			if u, ok := used[key]; ok {
				limit = restLimit(text, textMax-u, textMax)
			}
			short, cut := shorten(text, limit)
			if cut {
				text = short
				snap.shortened++
				used[key] = textMax
			} else {
				used[key] += utf8.RuneCountInString(text)
			}
		}
		snap.lines = append(snap.lines, indent+text)
	}
	return snap, true
}

// shorten cuts s, when it is longer than limit characters (limit > 0), after its last sentence
// (or else word) that fits, and says how many characters it left out.
func shorten(s string, limit int) (string, bool) {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	end, n := len(s), 0
	for i := range s {
		if n == limit {
			end = i
			break
		}
		n++
	}
	head := s[:end]
	cut := 0
	for _, stop := range []string{". ", "! ", "? ", "; ", ": "} {
		if i := strings.LastIndex(head, stop); i+1 > cut {
			cut = i + 1
		}
	}
	if cut < end/2 {
		// A word that ends right at the limit fits.
		cut = strings.LastIndexByte(s[:min(end+1, len(s))], ' ')
		if cut < end/2 {
			cut = end
		}
	}
	left := utf8.RuneCountInString(strings.TrimSpace(s[cut:]))
	return strings.TrimSpace(s[:cut]) + fmt.Sprintf(" …(+%d chars)", left), true
}

// restLimit is the limit for a run of text that follows a link or control in its paragraph when
// left characters of the paragraph's budget of textMax remain: its first sentence when that is at
// most half the budget (the end of the sentence the link sits in), or else at least textRunMin.
func restLimit(s string, left, textMax int) int {
	end := len(s)
	for _, stop := range []string{". ", "! ", "? "} {
		if i := strings.Index(s, stop); i >= 0 && i+1 < end {
			end = i + 1
		}
	}
	if n := utf8.RuneCountInString(s[:end]); n <= textMax/2 {
		return max(left, n)
	}
	return max(left, textRunMin)
}

// separator reports whether a text is only the punctuation that sets items apart (the "·" or
// "|" between footer links), which says nothing on a line of its own. Dashes are kept: a lone
// "-" or "—" is often a value ("none").
func separator(s string) bool {
	return strings.Trim(s, "·•| ") == ""
}

func findElem(n *axNode, k elemKey) *axNode {
	if n.el == k && !n.ignored {
		return n
	}
	for _, c := range n.children {
		if f := findElem(c, k); f != nil {
			return f
		}
	}
	return nil
}

// wantsRef reports whether n gets a ref.
func wantsRef(n *axNode) bool {
	if n.ignored || n.el.id == 0 {
		return false
	}
	if interactiveRoles[n.role] {
		return true
	}
	return n.prop("focusable") == "true" && n.name != "" && n.role != "RootWebArea" && n.role != "Iframe"
}

// assign walks the whole tree in document order and gives each interactive node its ref.
func (r *renderer) assign(n *axNode, inSelect bool) {
	if wantsRef(n) && (!inSelect || n.role != "option") {
		r.refFor(n)
	}
	inSelect = inSelect || n.role == "combobox"
	for _, c := range n.children {
		r.assign(c, inSelect)
	}
}

// label names a ref for messages: the ref and what the last snapshot showed for it.
func (t *refTable) label(ref string) string {
	ref = strings.Trim(strings.TrimSpace(ref), "[]")
	if m, ok := t.byElem[t.targets[ref]]; ok && m.ref == ref {
		if m.name == "" {
			return ref + " (" + m.role + ")"
		}
		return ref + " (" + m.role + " " + quote(m.name) + ")"
	}
	return ref
}

func (r *renderer) refFor(n *axNode) string {
	t := r.refs
	key := n.role + "\x00" + n.name
	r.seen[key]++
	occ := key + "\x00" + strconv.Itoa(r.seen[key])
	ref := ""
	at := n.el
	if m, ok := t.byElem[at]; ok && m.role == n.role && m.name == n.name && !r.taken[m.ref] {
		ref = m.ref
	} else if k, ok := t.byKey[occ]; ok && !r.taken[k] {
		ref = k
	} else {
		t.next++
		ref = "e" + strconv.Itoa(t.next)
	}
	r.taken[ref] = true
	t.byKey[occ] = ref
	t.byElem[at] = refMemo{ref: ref, role: n.role, name: n.name}
	t.targets[ref] = at
	t.holders[ref] = at
	n.ref = ref
	return ref
}

func (r *renderer) emit(depth int, text string, isTxt bool) {
	if r.bullet {
		text = "- " + text
		r.bullet = false
	} else if isTxt && !r.brk && len(r.out) > 0 {
		last := &r.out[len(r.out)-1]
		if last.isTxt && last.depth == depth {
			last.text += " " + text
			return
		}
	}
	r.brk = false
	r.out = append(r.out, line{depth: depth, text: text, isTxt: isTxt, para: r.para})
}

func (r *renderer) node(n *axNode, depth int) {
	if n.role == "InlineTextBox" || n.role == "ListMarker" {
		return
	}
	if n.role == "br" {
		r.brk = true
		return
	}
	if r.maxDepth > 0 && depth >= r.maxDepth {
		if len(r.out) == 0 || r.out[len(r.out)-1].text != "…" || r.out[len(r.out)-1].depth != depth {
			r.emit(depth, "…", false)
		}
		return
	}
	if n.role == "StaticText" {
		if t := squash(n.name); t != "" && !separator(t) {
			r.emit(depth, t, true)
		}
		return
	}
	ref := n.ref
	if ref == "" && (n.ignored || collapsed[n.role] && (n.name == "" || n.role == "generic" || n.role == "paragraph")) {
		if blockBreak[n.role] {
			r.brk = true
			r.para++
		}
		for _, c := range n.children {
			r.node(c, depth)
		}
		if blockBreak[n.role] {
			r.brk = true
			r.para++
		}
		return
	}
	if ref == "" { // a block (heading, landmark, table, …), not a link or control within text
		r.para++
	}
	switch n.role {
	case "listitem":
		r.brk = true
		r.bullet = true
		for _, c := range n.children {
			r.node(c, depth)
		}
		r.bullet = false
		r.brk = true
		r.para++
		return
	case "Iframe":
		head := "iframe"
		if n.name != "" {
			head += " " + quote(n.name)
		}
		if n.frameMissing {
			r.emit(depth, head+" (content in another process, not shown)", false)
			return
		}
		r.emit(depth, head, false)
		for _, c := range n.children {
			if c.role == "RootWebArea" {
				for _, cc := range c.children {
					r.node(cc, depth+1)
				}
				continue
			}
			r.node(c, depth+1)
		}
		r.para++
		return
	case "table", "grid", "treegrid":
		head := n.role
		if n.name != "" {
			head += " " + quote(n.name)
		}
		r.emit(depth, head, false)
		r.rows(n, depth+1)
		r.para++
		return
	case "img", "image":
		if n.name != "" {
			r.emit(depth, "img "+quote(n.name), false)
		}
		return
	}
	r.emit(depth, r.head(n), false)
	r.children(n, depth+1)
	if ref == "" {
		r.para++
	}
}

// head is the line for an element: role, name, ref, value, URL and states.
func (r *renderer) head(n *axNode) string {
	var b strings.Builder
	role := n.role
	if n.role == "heading" {
		role = "h" + n.prop("level")
		if role == "h" {
			role = "heading"
		}
	} else if a, ok := aliases[n.role]; ok {
		role = a
	}
	b.WriteString(role)
	if n.name != "" {
		b.WriteString(" " + quote(n.name))
	}
	if ref := n.ref; ref != "" {
		b.WriteString(" [" + ref + "]")
	}
	if u := n.prop("url"); n.role == "link" && u != "" {
		b.WriteString(" " + r.shortURL(u))
	}
	switch n.role {
	case "combobox", "textbox", "searchbox", "spinbutton", "slider", "textarea", "date", "time", "datetime", "month", "week", "color":
		if v := squash(n.value); v != "" {
			b.WriteString(": " + v)
		}
	}
	for _, st := range []struct{ prop, val, word string }{
		{"checked", "true", "checked"}, {"checked", "mixed", "mixed"}, {"pressed", "true", "pressed"},
		{"selected", "true", "selected"}, {"expanded", "true", "expanded"}, {"expanded", "false", "collapsed"},
		{"disabled", "true", "disabled"},
	} {
		if n.prop(st.prop) == st.val {
			if st.prop == "selected" && n.role != "tab" && n.role != "option" && n.role != "treeitem" {
				continue
			}
			if st.prop == "expanded" && n.role == "combobox" {
				continue
			}
			b.WriteString(" " + st.word)
		}
	}
	return b.String()
}

// children renders n's children, leaving out text its name already says.
func (r *renderer) children(n *axNode, depth int) {
	if n.role == "combobox" && len(n.children) > 0 {
		if opts := nativeOptions(n); len(opts) > 0 {
			r.emit(depth, "options: "+strings.Join(opts, " | "), false)
			return
		}
	}
	// A field's text is its value, which the head already shows after ":".
	value := ""
	switch n.role {
	case "textbox", "searchbox", "textarea", "combobox", "spinbutton":
		value = n.value
	}
	for _, c := range n.children {
		if n.name != "" && coveredBy(c, n.name) || value != "" && coveredBy(c, value) {
			continue
		}
		r.node(c, depth)
	}
	r.brk = true
}

// coveredBy reports whether c adds nothing to a parent named name: text (and wrappers of
// text) it contains, with no element that has a ref.
func coveredBy(c *axNode, name string) bool {
	if c.ref != "" {
		return false
	}
	switch {
	case c.role == "StaticText" || c.role == "InlineTextBox":
		return strings.Contains(squash(name), squash(c.name))
	case c.role == "img" || c.role == "image":
		return c.name == "" || strings.Contains(name, c.name)
	case c.ignored || collapsed[c.role]:
		for _, cc := range c.children {
			if !coveredBy(cc, name) {
				return false
			}
		}
		return true
	}
	return false
}

// nativeOptions lists the options of a <select> (its options have no refs).
func nativeOptions(n *axNode) []string {
	var out []string
	for _, c := range n.children {
		switch {
		case c.role == "option" && c.ref == "":
			out = append(out, squash(c.name))
		case c.role != "option":
			out = append(out, nativeOptions(c)...)
		}
	}
	return out
}

// rows renders a table: one line per row, cells separated by " | ".
func (r *renderer) rows(n *axNode, depth int) {
	for _, c := range n.children {
		switch {
		case c.role == "row":
			var cells []string
			for _, cell := range c.children {
				cells = append(cells, r.inline(cell))
			}
			r.emit(depth, strings.Join(cells, " | "), false)
		case c.ignored || collapsed[c.role]:
			r.rows(c, depth)
		default:
			r.node(c, depth)
		}
	}
	r.brk = true
}

// inline renders a subtree on one line: text, and elements with refs in their head form.
func (r *renderer) inline(n *axNode) string {
	if n.role == "InlineTextBox" || n.role == "ListMarker" {
		return ""
	}
	if n.role == "StaticText" {
		return squash(n.name)
	}
	if n.ref != "" {
		h := r.head(n)
		var rest []string
		for _, c := range n.children {
			if !coveredBy(c, n.name) {
				if s := r.inline(c); s != "" {
					rest = append(rest, s)
				}
			}
		}
		if len(rest) > 0 {
			h += " " + strings.Join(rest, " ")
		}
		return h
	}
	if n.role == "img" && n.name != "" {
		return "img " + quote(n.name)
	}
	var parts []string
	for _, c := range n.children {
		if s := r.inline(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && (n.role == "cell" || n.role == "gridcell" || n.role == "columnheader" || n.role == "rowheader") {
		return squash(n.name)
	}
	return strings.Join(parts, " ")
}

// shortURL writes a link target relative to the page when it is on the same origin.
func (r *renderer) shortURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || r.base == nil {
		return raw
	}
	if u.Scheme == r.base.Scheme && u.Host == r.base.Host {
		if u.Path == r.base.Path && u.RawQuery == r.base.RawQuery && u.Fragment != "" {
			return "#" + u.Fragment
		}
		s := u.EscapedPath()
		if s == "" {
			s = "/"
		}
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
		if u.Fragment != "" {
			s += "#" + u.Fragment
		}
		return s
	}
	return raw
}

func quote(s string) string {
	s = squash(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// squash collapses runs of white space to one space and trims.
func squash(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// paged cuts text to at most max characters from offset, at a line end when it can, and says
// how to get the rest.
func paged(text string, offset, max int) string {
	page, next, ok := cutPage(text, offset, max)
	if !ok || next == len(text) {
		return page
	}
	return page + fmt.Sprintf("\n[truncated: characters %d-%d of %d; call again with offset=%d]", offset, next, len(text), next)
}

// snapshotPageSize is the default page of a snapshot, in characters: whole pages of the size a
// benchmark article or dashboard has fit in one (docs/browser.md, Measured).
const snapshotPageSize = 24000

var refRE = regexp.MustCompile(`\[(e\d+)\]`)

// pagedSnapshot is paged for a snapshot: when it cuts, the note says what was left out (refs,
// headings) and how to get it.
func pagedSnapshot(text string, offset, max int) string {
	page, next, ok := cutPage(text, offset, max)
	if !ok || next == len(text) {
		return page
	}
	rest := text[next:]
	var heads []string
	nheads := 0
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
		role, _, _ := strings.Cut(l, " ")
		if len(role) == 2 && role[0] == 'h' && role[1] >= '1' && role[1] <= '6' {
			nheads++
			if len(heads) < 3 {
				heads = append(heads, l)
			}
		}
	}
	refs := refRE.FindAllStringSubmatch(rest, -1)
	var left []string
	if len(refs) > 0 {
		left = append(left, fmt.Sprintf("%d ref%s (%s…%s)", len(refs), pluralS(len(refs)), refs[0][1], refs[len(refs)-1][1]))
	}
	if nheads > 0 {
		h := fmt.Sprintf("%d heading%s: %s", nheads, pluralS(nheads), strings.Join(heads, ", "))
		if nheads > len(heads) {
			h += ", …"
		}
		left = append(left, h)
	}
	what := ""
	if len(left) > 0 {
		what = "; left out " + strings.Join(left, "; ")
	}
	return page + fmt.Sprintf("\n[truncated: characters %d-%d of %d shown%s. browser_snapshot with offset=%d shows the rest; find=\"words\", role or ref narrows it]",
		offset, next, len(text), what, next)
}

// cutPage returns the page of text that starts at offset, at most max characters long and
// ending at a line end when it can, and where the next page starts. ok is false when offset is
// past the end (page then says so).
func cutPage(text string, offset, max int) (page string, next int, ok bool) {
	if offset < 0 {
		offset = 0
	}
	if offset > len(text) {
		return fmt.Sprintf("[offset %d is past the end: the text has %d characters]", offset, len(text)), 0, false
	}
	rest := text[offset:]
	if len(rest) <= max {
		if offset > 0 {
			return rest + fmt.Sprintf("\n[end: characters %d-%d of %d]", offset, len(text), len(text)), len(text), true
		}
		return rest, len(text), true
	}
	cut := strings.LastIndexByte(rest[:max], '\n') + 1
	if cut < max/2 {
		cut = max
		for cut > 0 && !utf8Start(rest[cut]) {
			cut--
		}
	}
	return strings.TrimSuffix(rest[:cut], "\n"), offset + cut, true
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// diffLines lists lines removed from before and added in after (as multisets, in order),
// at most limit of each.
func diffLines(before, after []string, limit int) (removed, added []string, more int) {
	count := map[string]int{}
	for _, l := range after {
		count[strings.TrimSpace(l)]++
	}
	for _, l := range before {
		k := strings.TrimSpace(l)
		if count[k] > 0 {
			count[k]--
			continue
		}
		if len(removed) < limit {
			removed = append(removed, k)
		} else {
			more++
		}
	}
	count = map[string]int{}
	for _, l := range before {
		count[strings.TrimSpace(l)]++
	}
	for _, l := range after {
		k := strings.TrimSpace(l)
		if count[k] > 0 {
			count[k]--
			continue
		}
		if len(added) < limit {
			added = append(added, k)
		} else {
			more++
		}
	}
	return removed, added, more
}
