package vault

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Note is one parsed note file.
type Note struct {
	Title   string
	Tags    []string  // normalized, sorted, without '#'
	Created time.Time // zero when unknown
	Updated time.Time // zero when unknown
	Extra   []string  // other front matter lines, kept verbatim and in order
	Body    string    // everything after the front matter
}

const fmDelim = "---"

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// Parse splits a note file into front matter and body. Only the keys the vault owns (title, tags,
// created, updated) are interpreted; anything else is kept verbatim. A file without a front
// matter block is all body. Parse never fails: a note written by hand is always readable.
func Parse(data string) Note {
	var n Note
	data = strings.TrimPrefix(data, "\ufeff")
	rest, ok := strings.CutPrefix(data, fmDelim)
	if !ok || (!strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n")) {
		n.Body = data
		return n
	}
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	var block []string
	closed := false
	for {
		line, tail, found := strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t\r") == fmDelim {
			closed, rest = true, tail
			break
		}
		if !found {
			break
		}
		block, rest = append(block, strings.TrimSuffix(line, "\r")), tail
	}
	if !closed {
		n.Body = data
		return n
	}
	n.Body = strings.TrimPrefix(strings.TrimPrefix(rest, "\r\n"), "\n")
	for i := 0; i < len(block); i++ {
		line := block[i]
		key, val, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#' {
			n.Extra = append(n.Extra, line)
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(key) {
		case "title":
			n.Title = unquote(val)
		case "tags", "tag":
			var items []string
			if val == "" {
				for i+1 < len(block) && strings.HasPrefix(strings.TrimSpace(block[i+1]), "-") {
					i++
					items = append(items, unquote(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(block[i]), "-"))))
				}
			} else {
				items = splitFlow(val)
			}
			n.Tags = NormalizeTags(append(n.Tags, items...))
		case "created":
			n.Created = parseTime(unquote(val))
		case "updated", "modified":
			n.Updated = parseTime(unquote(val))
		default:
			n.Extra = append(n.Extra, line)
			// keep an indented or list continuation with its key
			for i+1 < len(block) && block[i+1] != "" && (block[i+1][0] == ' ' || block[i+1][0] == '\t' || block[i+1][0] == '-') {
				i++
				n.Extra = append(n.Extra, block[i])
			}
		}
	}
	return n
}

// Render writes the note back as a file: front matter, a blank line, the body.
func (n Note) Render() string {
	var b strings.Builder
	b.WriteString(fmDelim + "\n")
	if n.Title != "" {
		b.WriteString("title: " + quote(n.Title) + "\n")
	}
	if len(n.Tags) > 0 {
		q := make([]string, len(n.Tags))
		for i, t := range n.Tags {
			q[i] = quote(t)
		}
		b.WriteString("tags: [" + strings.Join(q, ", ") + "]\n")
	}
	if !n.Created.IsZero() {
		b.WriteString("created: " + n.Created.Format(time.RFC3339) + "\n")
	}
	if !n.Updated.IsZero() {
		b.WriteString("updated: " + n.Updated.Format(time.RFC3339) + "\n")
	}
	for _, l := range n.Extra {
		b.WriteString(l + "\n")
	}
	b.WriteString(fmDelim + "\n\n")
	b.WriteString(n.Body)
	if n.Body != "" && !strings.HasSuffix(n.Body, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

func parseTime(s string) time.Time {
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return t
		}
	}
	return time.Time{}
}

// splitFlow reads "[a, b]" or "a, b" or "a b" into items.
func splitFlow(v string) []string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
	}
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item[0] == '"' || item[0] == '\'' {
			out = append(out, unquote(item))
			continue
		}
		out = append(out, strings.Fields(item)...)
	}
	return out
}

// unquote reads a YAML scalar: double-quoted (JSON escapes), single-quoted (” is a quote) or plain.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		var s string
		if err := json.Unmarshal([]byte(v), &s); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// quote writes s as a YAML scalar that unquote reads back: plain when that is safe, else
// double-quoted with JSON escapes (JSON strings are YAML double-quoted strings).
func quote(s string) string {
	plain := s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, ":#,[]{}\"'&*!|>%@`\\\n\r\t") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "?")
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r > 0x7e {
			plain = plain && r > 0x7e && r != 0x85 && r != 0x2028 && r != 0x2029 && r != 0xfeff
		}
	}
	if plain {
		switch strings.ToLower(s) {
		case "null", "true", "false", "yes", "no", "on", "off", "~":
			plain = false
		}
	}
	if plain {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// NormalizeTags lower-cases tags, drops '#', blanks and duplicates, and sorts them.
func NormalizeTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = NormalizeTag(t)
		if t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NormalizeTag is one tag in its stored form: lower case, letters, digits, '_', '-' and '/'
// only (runs of anything else become one '-'), without a leading '#'.
func NormalizeTag(t string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimLeft(strings.TrimSpace(t), "#")) {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '/' || r == '-' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return strings.Trim(b.String(), "-/")
}
