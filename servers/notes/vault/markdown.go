package vault

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Heading is one ATX heading ("## Title") outside code fences.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
	Line  int    `json:"line"` // 1-based line in the body
}

var headingRe = regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$`)

// lines calls fn for every line of body with its 0-based number and whether it is inside a
// fenced code block (fence lines themselves count as inside).
func lines(body string, fn func(i int, line string, code bool)) {
	fence := ""
	for i := 0; ; i++ {
		line, rest, more := strings.Cut(body, "\n")
		body = rest
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			fn(i, line, true)
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			fn(i, line, true)
		default:
			fn(i, line, false)
		}
		if !more {
			return
		}
	}
}

// Outline lists the body's headings.
func Outline(body string) []Heading {
	var hs []Heading
	lines(body, func(i int, line string, code bool) {
		if code || !strings.HasPrefix(line, "#") {
			return
		}
		if m := headingRe.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
			hs = append(hs, Heading{Level: len(m[1]), Text: strings.TrimSpace(m[2]), Line: i + 1})
		}
	})
	return hs
}

// FirstHeading is the text of the body's first level-1 heading, or "".
func FirstHeading(body string) string {
	for _, h := range Outline(body) {
		if h.Level == 1 {
			return h.Text
		}
	}
	return ""
}

// FindSection locates the section under heading (matched case-insensitively, leading '#' and
// spaces ignored): the heading line's index and the index of the line after the section's end
// (the next heading of the same or a higher level, or the end of the body).
func FindSection(body, heading string) (head, end int, ok bool) {
	want := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(heading), "#")))
	hs := Outline(body)
	n := strings.Count(body, "\n") + 1
	for i, h := range hs {
		if strings.ToLower(h.Text) != want {
			continue
		}
		end = n
		for _, g := range hs[i+1:] {
			if g.Level <= h.Level {
				end = g.Line - 1
				break
			}
		}
		return h.Line - 1, end, true
	}
	return 0, 0, false
}

// Section returns the section under heading, heading line included.
func Section(body, heading string) (string, bool) {
	head, end, ok := FindSection(body, heading)
	if !ok {
		return "", false
	}
	ls := strings.Split(body, "\n")
	return strings.TrimRight(strings.Join(ls[head:end], "\n"), "\n") + "\n", true
}

// ReplaceSection replaces what is under heading (the heading line stays) with content.
func ReplaceSection(body, heading, content string) (string, bool) {
	head, end, ok := FindSection(body, heading)
	if !ok {
		return "", false
	}
	ls := strings.Split(body, "\n")
	content = strings.Trim(content, "\n")
	out := append([]string{}, ls[:head+1]...)
	if content != "" {
		out = append(out, "", content)
	}
	if end < len(ls) {
		out = append(out, "")
		out = append(out, ls[end:]...)
	} else {
		out = append(out, "")
	}
	return strings.Join(out, "\n"), true
}

var (
	inlineTagRe = regexp.MustCompile(`(^|[\s(\[,;])#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)`)
	inlineCode  = regexp.MustCompile("`[^`\n]*`")
	wikiLinkRe  = regexp.MustCompile(`(!?)\[\[([^\[\]\n|#]*)(#[^\[\]\n|]*)?(\|[^\[\]\n]*)?\]\]`)
	digitsOnly  = regexp.MustCompile(`^[0-9]+$`)
)

// InlineTags finds the #tags in body outside code, normalized. A tag needs a character that is
// not a digit, so "#1" is not a tag.
func InlineTags(body string) []string {
	var tags []string
	lines(body, func(_ int, line string, code bool) {
		if code || !strings.Contains(line, "#") {
			return
		}
		if strings.Contains(line, "`") {
			line = inlineCode.ReplaceAllString(line, "")
		}
		for _, tag := range lineTags(line) {
			if !digitsOnly.MatchString(tag) {
				tags = append(tags, tag)
			}
		}
	})
	return NormalizeTags(tags)
}

// lineTags lists the inline tags of one line as inlineTagRe finds them (its second group),
// without running the expression: most lines hold no '#' at all, and the rest few.
func lineTags(line string) []string {
	var out []string
	for i := 0; ; {
		j := strings.IndexByte(line[i:], '#')
		if j < 0 {
			return out
		}
		at := i + j
		i = at + 1
		if at > 0 && !strings.ContainsRune(" \t\n\f\r([,;", rune(line[at-1])) {
			continue
		}
		end := at + 1
		for k, r := range line[at+1:] {
			tagRune := unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || k > 0 && (r == '/' || r == '-')
			if !tagRune {
				break
			}
			end = at + 1 + k + utf8.RuneLen(r)
		}
		if end > at+1 {
			out = append(out, line[at+1:end])
			i = end
		}
	}
}

// lineLinks lists the targets of the wikilinks of one line as wikiLinkRe finds them (its second
// group), without running the expression.
func lineLinks(line string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(line[i:], "[[")
		if j < 0 {
			return out
		}
		at := i + j
		i = at + 1
		end := at + 2 + strings.IndexFunc(line[at+2:]+"]", func(r rune) bool { return strings.ContainsRune("[]|#\n", r) })
		k := end
		if k < len(line) && line[k] == '#' {
			k += 1 + strings.IndexFunc(line[k+1:]+"]", func(r rune) bool { return strings.ContainsRune("[]|\n", r) })
		}
		if k < len(line) && line[k] == '|' {
			k += 1 + strings.IndexFunc(line[k+1:]+"]", func(r rune) bool { return strings.ContainsRune("[]\n", r) })
		}
		if strings.HasPrefix(line[k:], "]]") {
			out = append(out, line[at+2:end])
			i = k + 2
		}
	}
}

// RemoveInlineTag turns every inline "#tag" outside code into plain "tag", so the word stays but
// the tag is gone.
func RemoveInlineTag(body, tag string) string {
	tag = NormalizeTag(tag)
	ls := strings.Split(body, "\n")
	lines(body, func(i int, line string, code bool) {
		if code {
			return
		}
		ls[i] = inlineTagRe.ReplaceAllStringFunc(line, func(m string) string {
			sub := inlineTagRe.FindStringSubmatch(m)
			if NormalizeTag(sub[2]) != tag {
				return m
			}
			return sub[1] + sub[2]
		})
	})
	return strings.Join(ls, "\n")
}

// LinkKey is the form link targets are compared in: lower case, without ".md", no outer slashes.
func LinkKey(target string) string {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(target), "/"))
	return strings.TrimSuffix(t, Ext)
}

// Links lists the distinct wikilink targets in body outside code (embeds included).
func Links(body string) []string {
	seen := map[string]bool{}
	var out []string
	lines(body, func(_ int, line string, code bool) {
		if code || !strings.Contains(line, "[[") {
			return
		}
		for _, target := range lineLinks(line) {
			t := strings.TrimSpace(target)
			if t == "" || seen[LinkKey(t)] {
				continue
			}
			seen[LinkKey(t)] = true
			out = append(out, t)
		}
	})
	return out
}

// RewriteLinks rewrites the target of every wikilink outside code for which replace says so,
// keeping headings and aliases. It returns the new body and how
// many links changed.
func RewriteLinks(body string, replace func(target string) (string, bool)) (string, int) {
	n := 0
	ls := strings.Split(body, "\n")
	lines(body, func(i int, line string, code bool) {
		if code {
			return
		}
		ls[i] = wikiLinkRe.ReplaceAllStringFunc(line, func(m string) string {
			sub := wikiLinkRe.FindStringSubmatch(m)
			nt, ok := replace(strings.TrimSpace(sub[2]))
			if !ok {
				return m
			}
			n++
			return sub[1] + "[[" + nt + sub[3] + sub[4] + "]]"
		})
	})
	return strings.Join(ls, "\n"), n
}

// Relation is a typed link, written as a list item whose text before the link names its type:
// "- works_at [[Acme]]", "* part of [[Project X]]".
type Relation struct {
	Type   string `json:"type"`
	Target string `json:"target"`
}

var relationRe = regexp.MustCompile(`^[ \t]*[-*+][ \t]+([\p{L}_][\p{L}\p{N}_-]*(?:[ \t]+[\p{L}\p{N}_-]+){0,2})[ \t]+!?\[\[([^\[\]\n|#]*)`)

// Relations lists the body's typed links outside code, each type and target once.
func Relations(body string) []Relation {
	seen := map[Relation]bool{}
	var out []Relation
	lines(body, func(_ int, line string, code bool) {
		if code || !strings.Contains(line, "[[") {
			return
		}
		m := relationRe.FindStringSubmatch(line)
		if m == nil {
			return
		}
		r := Relation{Type: strings.Join(strings.Fields(m[1]), " "), Target: strings.TrimSpace(m[2])}
		key := Relation{Type: strings.ToLower(r.Type), Target: LinkKey(r.Target)}
		if r.Target == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, r)
	})
	return out
}
