package vault

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Front matter fields other than the four the vault owns are kept as the lines they were
// written in (Note.Extra). Fields reads them typed; SetField rewrites one key's lines and leaves
// every other line as it was.

// Field types SetField writes.
const (
	TypeAuto   = "auto" // from the value: a JSON string, number, bool or list
	TypeString = "string"
	TypeNumber = "number"
	TypeDate   = "date"
	TypeBool   = "bool"
	TypeList   = "list"
)

var (
	fieldKeyRe = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_-]*$`)
	numberRe   = regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)
	dateRe     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[-+]\d{2}:?\d{2})?)?$`)
)

// Fields is every front matter field of the note with its value: a string, a float64, a bool,
// a []any list, a date as its ISO text (YYYY-MM-DD, or an RFC 3339 time), or for a nested
// block the block's YAML text. The owned keys are included (created and updated in RFC 3339).
func (n Note) Fields() map[string]any {
	out := map[string]any{}
	if n.Title != "" {
		out["title"] = n.Title
	}
	if len(n.Tags) > 0 {
		tags := make([]any, len(n.Tags))
		for i, t := range n.Tags {
			tags[i] = t
		}
		out["tags"] = tags
	}
	if !n.Created.IsZero() {
		out["created"] = n.Created.Format(time.RFC3339)
	}
	if !n.Updated.IsZero() {
		out["updated"] = n.Updated.Format(time.RFC3339)
	}
	for _, f := range n.extraFields() {
		out[f.key] = f.value()
	}
	return out
}

// extraField is one key of Extra: its lines [start, end).
type extraField struct {
	key        string
	start, end int
	lines      []string
}

func (n Note) extraFields() []extraField {
	var out []extraField
	for i := 0; i < len(n.Extra); i++ {
		line := n.Extra[i]
		key, _, ok := strings.Cut(line, ":")
		if !ok || line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '-' || line[0] == '#' {
			continue
		}
		f := extraField{key: strings.TrimSpace(key), start: i}
		for i+1 < len(n.Extra) && n.Extra[i+1] != "" && (n.Extra[i+1][0] == ' ' || n.Extra[i+1][0] == '\t' || n.Extra[i+1][0] == '-') {
			i++
		}
		f.end = i + 1
		f.lines = n.Extra[f.start:f.end]
		out = append(out, f)
	}
	return out
}

// value reads the field's YAML value.
func (f extraField) value() any {
	_, v, _ := strings.Cut(f.lines[0], ":")
	v = stripComment(strings.TrimSpace(v))
	if len(f.lines) == 1 {
		return scalar(v)
	}
	items := make([]any, 0, len(f.lines)-1)
	for _, l := range f.lines[1:] {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "-") {
			return strings.Join(f.lines[1:], "\n") // a nested block: its text
		}
		items = append(items, scalar(stripComment(strings.TrimSpace(strings.TrimPrefix(t, "-")))))
	}
	return items
}

// stripComment drops a " # comment" after a plain value.
func stripComment(v string) string {
	if v == "" || v[0] == '"' || v[0] == '\'' {
		return v
	}
	if i := strings.Index(v, " #"); i >= 0 {
		return strings.TrimSpace(v[:i])
	}
	return v
}

// scalar reads one YAML value: a quoted string, a [flow, list], true/false, a number, null
// (nil), or plain text (dates stay text).
func scalar(v string) any {
	switch {
	case v == "" || v == "~" || v == "null" || v == "Null" || v == "NULL":
		return nil
	case v[0] == '"' || v[0] == '\'':
		return unquote(v)
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		inner := strings.TrimSpace(v[1 : len(v)-1])
		items := []any{}
		if inner == "" {
			return items
		}
		for _, it := range splitFlowItems(inner) {
			items = append(items, scalar(strings.TrimSpace(it)))
		}
		return items
	}
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	if numberRe.MatchString(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

// splitFlowItems splits the inside of a [flow list] at commas outside quotes.
func splitFlowItems(s string) []string {
	var out []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// ErrFieldValue is a value SetField cannot write as the type asked for.
var ErrFieldValue = errors.New("bad field value")

// SetField sets the front matter field key to value, written as typ (TypeAuto: from the JSON
// type of value), or removes it when value is nil. Every other line of the front matter is
// kept as it was; an existing key keeps its place. The owned keys: title takes a string, tags
// a list, created a date; updated is the vault's and refused.
func (n *Note) SetField(key string, value any, typ string) error {
	if !fieldKeyRe.MatchString(key) {
		return fmt.Errorf("%w: field name %q: use letters, digits, '_' and '-', starting with a letter", ErrFieldValue, key)
	}
	if value == nil {
		return n.removeField(key)
	}
	text, err := yamlValue(value, typ)
	if err != nil {
		return err
	}
	switch strings.ToLower(key) {
	case "updated", "modified":
		return fmt.Errorf("%w: %s is set by the server on every change", ErrFieldValue, key)
	case "title":
		s, ok := value.(string)
		if !ok || typ != TypeAuto && typ != TypeString {
			return fmt.Errorf("%w: title is a string", ErrFieldValue)
		}
		n.Title = strings.TrimSpace(s)
		return nil
	case "tags", "tag":
		items, ok := value.([]any)
		if !ok {
			return fmt.Errorf("%w: tags is a list of strings", ErrFieldValue)
		}
		var tags []string
		for _, it := range items {
			tags = append(tags, fmt.Sprint(it))
		}
		n.Tags = NormalizeTags(tags)
		return nil
	case "created":
		t := parseTime(unquote(text))
		if t.IsZero() {
			return fmt.Errorf("%w: created is a date, YYYY-MM-DD or RFC 3339", ErrFieldValue)
		}
		n.Created = t
		return nil
	}
	lines := []string{key + ": " + text}
	for _, f := range n.extraFields() {
		if f.key == key {
			n.Extra = append(n.Extra[:f.start], append(lines, n.Extra[f.end:]...)...)
			return nil
		}
	}
	n.Extra = append(n.Extra, lines...)
	return nil
}

func (n *Note) removeField(key string) error {
	switch strings.ToLower(key) {
	case "title":
		n.Title = ""
		return nil
	case "tags", "tag":
		n.Tags = nil
		return nil
	case "created", "updated", "modified":
		return fmt.Errorf("%w: %s cannot be removed", ErrFieldValue, key)
	}
	for _, f := range n.extraFields() {
		if f.key == key {
			n.Extra = append(n.Extra[:f.start], n.Extra[f.end:]...)
			return nil
		}
	}
	return nil
}

// yamlValue writes value as typ in YAML that Fields reads back as that type.
func yamlValue(value any, typ string) (string, error) {
	if typ == "" || typ == TypeAuto {
		switch value.(type) {
		case string:
			typ = TypeString
		case float64, int, int64:
			typ = TypeNumber
		case bool:
			typ = TypeBool
		case []any:
			typ = TypeList
		default:
			return "", fmt.Errorf("%w: give a string, number, true/false or a list, not %T", ErrFieldValue, value)
		}
	}
	switch typ {
	case TypeString:
		s, ok := value.(string)
		if !ok {
			s = fmt.Sprint(value)
		}
		return quoteText(s), nil
	case TypeNumber:
		switch v := value.(type) {
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				break
			}
			return strconv.FormatFloat(v, 'f', -1, 64), nil
		case int:
			return strconv.Itoa(v), nil
		case int64:
			return strconv.FormatInt(v, 10), nil
		case string:
			if s := strings.TrimSpace(v); numberRe.MatchString(s) {
				return s, nil
			}
		}
		return "", fmt.Errorf("%w: %v is not a number", ErrFieldValue, value)
	case TypeBool:
		switch v := value.(type) {
		case bool:
			return strconv.FormatBool(v), nil
		case string:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true", "yes", "on", "1":
				return "true", nil
			case "false", "no", "off", "0":
				return "false", nil
			}
		}
		return "", fmt.Errorf("%w: %v is not true or false", ErrFieldValue, value)
	case TypeDate:
		s, _ := value.(string)
		s = strings.TrimSpace(s)
		if !dateRe.MatchString(s) || parseTime(s).IsZero() && !validDate(s) {
			return "", fmt.Errorf("%w: %v is not a date: give YYYY-MM-DD or an RFC 3339 time", ErrFieldValue, value)
		}
		return s, nil
	case TypeList:
		items, ok := value.([]any)
		if !ok {
			items = []any{value}
		}
		parts := make([]string, 0, len(items))
		for _, it := range items {
			switch v := it.(type) {
			case []any, map[string]any, nil:
				return "", fmt.Errorf("%w: a list holds strings, numbers or true/false, not %T", ErrFieldValue, it)
			case string:
				parts = append(parts, quoteText(v))
			default:
				t, err := yamlValue(v, TypeAuto)
				if err != nil {
					return "", err
				}
				parts = append(parts, t)
			}
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("%w: type %q is unknown", ErrFieldValue, typ)
}

// ParseTime reads a date or time as front matter holds one: YYYY-MM-DD (the day's start in the
// server's time zone), with a time, or RFC 3339. It is zero when s is not one.
func ParseTime(s string) time.Time {
	if t := parseTime(s); !t.IsZero() {
		return t
	}
	if t, err := time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "T", 1)); err == nil {
		return t
	}
	return time.Time{}
}

// validDate reports whether s is a date or time with a zone offset, which parseTime's layouts
// do not all cover.
func validDate(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, strings.Replace(s, " ", "T", 1))
	return err == nil
}

// quoteText writes s as a YAML string that reads back as a string: quoted when it would
// otherwise read as a number, a bool, a date or null.
func quoteText(s string) string {
	q := quote(s)
	if q != s {
		return q
	}
	if numberRe.MatchString(s) || dateRe.MatchString(s) || s == "~" || strings.EqualFold(s, "null") {
		return `"` + s + `"`
	}
	return s
}
