package toolsnaps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxValue is how much of one value a diff line shows.
const maxValue = 500

// Diff describes how the JSON document now differs from old, one line per difference, each
// named by its JSON path: "- path: old value", "+ path: new value".
func Diff(old, now []byte) string {
	a, err := decode(old)
	if err != nil {
		return fmt.Sprintf("  the snapshot is not valid JSON (%v)", err)
	}
	b, err := decode(now)
	if err != nil {
		return fmt.Sprintf("  the new definition is not valid JSON (%v)", err)
	}
	var lines []string
	diffValue("", a, b, &lines)
	if len(lines) == 0 {
		return "  the same definition, not written in the canonical form (keys sorted, two-space indent)"
	}
	return strings.Join(lines, "\n")
}

// diffValue appends the differences between a and b at path: objects key by key, lists of
// objects or lists item by item when their lengths agree, anything else as a whole.
func diffValue(path string, a, b any, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := slices.Sorted(maps.Keys(av))
			for k := range bv {
				if _, ok := av[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				x, inA := av[k]
				y, inB := bv[k]
				p := join(path, k)
				switch {
				case !inA:
					*out = append(*out, "+ "+p+": "+show(y))
				case !inB:
					*out = append(*out, "- "+p+": "+show(x))
				default:
					diffValue(p, x, y, out)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok && len(av) == len(bv) && (nested(av) || nested(bv)) {
			for i := range av {
				diffValue(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], out)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		if path == "" {
			path = "(the whole document)"
		}
		*out = append(*out, "- "+path+": "+show(a), "+ "+path+": "+show(b))
	}
}

// nested reports whether a list holds an object or a list.
func nested(list []any) bool {
	for _, v := range list {
		switch v.(type) {
		case map[string]any, []any:
			return true
		}
	}
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// show is v as compact JSON, cut at maxValue bytes.
func show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) > maxValue {
		n := maxValue
		for !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n] + " …(cut)"
	}
	return s
}
