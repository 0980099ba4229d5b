package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// interactiveRoles get a ref: they are what a model acts on.
var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true,
	"radio": true, "combobox": true, "listbox": true, "option": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "tab": true, "switch": true,
	"slider": true, "spinbutton": true, "treeitem": true, "textarea": true,
	"ToggleButton": true, "PopUpButton": true, "DisclosureTriangle": true,
}

// collapsed roles are wrappers: their children take their place.
var collapsed = map[string]bool{
	"none": true, "generic": true, "presentation": true, "LabelText": true, "paragraph": true,
	"Section": true, "Div": true, "strong": true, "emphasis": true, "code": true, "time": true,
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
	next      int
	byKey     map[string]string
	byBackend map[nodeRef]refMemo
	targets   map[string]nodeRef // refs of the latest snapshot
	holders   map[string]nodeRef // the element that last held each ref, in any snapshot
}

type refMemo struct{ ref, role, name string }

func newRefTable() *refTable {
	return &refTable{byKey: map[string]string{}, byBackend: map[nodeRef]refMemo{}, targets: map[string]nodeRef{}, holders: map[string]nodeRef{}}
}

// snapshot is a rendered page: its lines and the ref of each element found.
type snapshot struct {
	lines []string
}

func (s *snapshot) text() string { return strings.Join(s.lines, "\n") }

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
}

type line struct {
	depth int
	text  string
	isTxt bool
}

// renderSnapshot renders root. scope, when non-zero, renders only that element's subtree.
// A full pass always runs so refs are assigned in document order, whatever is shown.
func renderSnapshot(root *axNode, refs *refTable, pageURL string, scope nodeRef, maxDepth int) (*snapshot, bool) {
	base, _ := url.Parse(pageURL)
	r := &renderer{refs: refs, taken: map[string]bool{}, seen: map[string]int{}, base: base, maxDepth: maxDepth}
	refs.targets = map[string]nodeRef{}
	r.assign(root, false)
	start := root
	if scope.id != 0 {
		start = findBackend(root, scope)
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
	for i, l := range r.out {
		if l.isTxt && i+1 < len(r.out) && !r.out[i+1].isTxt && r.out[i+1].depth == l.depth && strings.Contains(r.out[i+1].text, quote(l.text)+" [") {
			continue // a label: the control's name says it
		}
		snap.lines = append(snap.lines, strings.Repeat(" ", l.depth)+l.text)
	}
	return snap, true
}

func findBackend(n *axNode, id nodeRef) *axNode {
	if n.backend == id.id && n.sess == id.sess && !n.ignored {
		return n
	}
	for _, c := range n.children {
		if f := findBackend(c, id); f != nil {
			return f
		}
	}
	return nil
}

// wantsRef reports whether n gets a ref.
func wantsRef(n *axNode) bool {
	if n.ignored || n.backend == 0 {
		return false
	}
	if interactiveRoles[n.role] {
		return true
	}
	return n.props["focusable"] == "true" && n.name != "" && n.role != "RootWebArea" && n.role != "Iframe"
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

func setProp(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func (r *renderer) refFor(n *axNode) string {
	t := r.refs
	key := n.role + "\x00" + n.name
	r.seen[key]++
	occ := key + "\x00" + strconv.Itoa(r.seen[key])
	ref := ""
	at := nodeRef{sess: n.sess, id: n.backend}
	if m, ok := t.byBackend[at]; ok && m.role == n.role && m.name == n.name && !r.taken[m.ref] {
		ref = m.ref
	} else if k, ok := t.byKey[occ]; ok && !r.taken[k] {
		ref = k
	} else {
		t.next++
		ref = "e" + strconv.Itoa(t.next)
	}
	r.taken[ref] = true
	t.byKey[occ] = ref
	t.byBackend[at] = refMemo{ref: ref, role: n.role, name: n.name}
	t.targets[ref] = at
	t.holders[ref] = at
	n.props = setProp(n.props, "__ref", ref)
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
	r.out = append(r.out, line{depth: depth, text: text, isTxt: isTxt})
}

func (r *renderer) node(n *axNode, depth int) {
	if n.role == "InlineTextBox" || n.role == "ListMarker" {
		return
	}
	if r.maxDepth > 0 && depth >= r.maxDepth {
		if len(r.out) == 0 || r.out[len(r.out)-1].text != "…" || r.out[len(r.out)-1].depth != depth {
			r.emit(depth, "…", false)
		}
		return
	}
	if n.role == "StaticText" {
		if t := squash(n.name); t != "" {
			r.emit(depth, t, true)
		}
		return
	}
	ref := n.props["__ref"]
	if ref == "" && (n.ignored || collapsed[n.role] && (n.name == "" || n.role == "generic" || n.role == "paragraph")) {
		if blockBreak[n.role] {
			r.brk = true
		}
		for _, c := range n.children {
			r.node(c, depth)
		}
		if blockBreak[n.role] {
			r.brk = true
		}
		return
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
		return
	case "table", "grid", "treegrid":
		head := n.role
		if n.name != "" {
			head += " " + quote(n.name)
		}
		r.emit(depth, head, false)
		r.rows(n, depth+1)
		return
	case "img", "image":
		if n.name != "" {
			r.emit(depth, "img "+quote(n.name), false)
		}
		return
	}
	r.emit(depth, r.head(n), false)
	r.children(n, depth+1)
}

// head is the line for an element: role, name, ref, value, URL and states.
func (r *renderer) head(n *axNode) string {
	var b strings.Builder
	role := n.role
	if n.role == "heading" {
		role = "h" + n.props["level"]
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
	if ref := n.props["__ref"]; ref != "" {
		b.WriteString(" [" + ref + "]")
	}
	if n.role == "link" && n.props["url"] != "" {
		b.WriteString(" " + r.shortURL(n.props["url"]))
	}
	switch n.role {
	case "combobox", "textbox", "searchbox", "spinbutton", "slider", "textarea":
		if v := squash(n.value); v != "" {
			b.WriteString(": " + v)
		}
	}
	for _, st := range []struct{ prop, val, word string }{
		{"checked", "true", "checked"}, {"checked", "mixed", "mixed"}, {"pressed", "true", "pressed"},
		{"selected", "true", "selected"}, {"expanded", "true", "expanded"}, {"expanded", "false", "collapsed"},
		{"disabled", "true", "disabled"},
	} {
		if n.props[st.prop] == st.val {
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
	if c.props["__ref"] != "" {
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
		case c.role == "option" && c.props["__ref"] == "":
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
	if n.props["__ref"] != "" {
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
	if offset < 0 {
		offset = 0
	}
	if offset > len(text) {
		return fmt.Sprintf("[offset %d is past the end: the text has %d characters]", offset, len(text))
	}
	rest := text[offset:]
	if len(rest) <= max {
		if offset > 0 {
			return rest + fmt.Sprintf("\n[end: characters %d-%d of %d]", offset, len(text), len(text))
		}
		return rest
	}
	cut := strings.LastIndexByte(rest[:max], '\n') + 1
	if cut < max/2 {
		cut = max
		for cut > 0 && !utf8Start(rest[cut]) {
			cut--
		}
	}
	return strings.TrimSuffix(rest[:cut], "\n") + fmt.Sprintf("\n[truncated: characters %d-%d of %d; call again with offset=%d]", offset, offset+cut, len(text), offset+cut)
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
