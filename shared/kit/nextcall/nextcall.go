// Package nextcall finds the fields of a tool's structured output that a model needs for its
// next call — ids, handles, hashes, offsets, page tokens, counts, exit status, whether a wait
// matched, whether output was cut — and checks that the tool's text carries them. Most clients
// (Claude Code, Claude Desktop, chat backends) hand the model only the text content, so a fact
// that lives only in structuredContent is a fact the model never sees.
//
// A field is a next-call field by its JSON name (Field), wherever it sits in the output. Its
// value is carried when the text holds it: a string as written, a number as a whole token, a
// true boolean by its name ("timed_out" or "timed out"); a false boolean, null, "" and empty
// lists need nothing. Complete appends what the text lacks at the top level as one line of
// compact JSON; fields inside lists are the text rendering's job, and Missing reports them.
package nextcall

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// exact are next-call field names; suffixes and prefixes below extend them.
var exact = map[string]bool{
	"id": true, "ids": true, "handle": true, "ref": true, "uri": true, "uris": true,
	"sha256": true, "hash": true, "etag": true, "next": true, "next_offset": true,
	"exit_code": true, "signal": true, "matched": true, "timed_out": true,
	"truncated": true, "more": true, "has_more": true, "dropped": true,
	"total": true, "count": true,
}

var (
	suffixes = []string{"_id", "_ids", "_token", "_hash", "_offset", "_truncated", "_total", "_count"}
	prefixes = []string{"next_", "total_"}
)

// Field reports whether a JSON field name names a next-call fact: id, ids, handle, ref, uri,
// uris, sha256, hash, etag, next, exit_code, signal, matched, timed_out, truncated, more,
// has_more, dropped, total, count, and names ending _id, _ids, _token, _hash, _offset,
// _truncated, _total or _count, or starting next_ or total_.
func Field(name string) bool {
	if exact[name] {
		return true
	}
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Missing lists the next-call fields of v, a structured output decoded from JSON (objects as
// map[string]any, numbers as float64), whose values neither text nor args (the call's
// arguments as JSON: what the model sent it has) carries. Each is named by its path with list
// indexes, as "messages[3].id"; skip holds paths with the indexes left out ("messages[].id")
// that the text leaves out on purpose.
func Missing(text, args string, v any, skip map[string]string) []string {
	var out []string
	walk(v, "", "", func(path, general, name string, value any) {
		if _, ok := skip[general]; !ok && !carried(text, name, value) && !carried(args, name, value) {
			out = append(out, path)
		}
	}, true)
	return out
}

// Complete returns text with the top-level next-call fields of v that neither it nor args
// carries (those of objects nested in objects too, not those inside lists) appended as one
// line of compact JSON, so that the model sees them whatever the text rendering chose to say.
func Complete(text, args string, v any, skip map[string]string) string {
	var missing map[string]any
	walk(v, "", "", func(path, general, name string, value any) {
		if _, ok := skip[general]; ok || carried(text, name, value) || carried(args, name, value) {
			return
		}
		if missing == nil {
			missing = map[string]any{}
		}
		put(missing, strings.Split(path, "."), value)
	}, false)
	if missing == nil {
		return text
	}
	b, err := json.Marshal(missing) // maps marshal with sorted keys: the line is stable
	if err != nil {
		return text
	}
	if text == "" {
		return string(b)
	}
	return strings.TrimRight(text, "\n") + "\n" + string(b)
}

// walk calls found for every next-call field under v: its path with indexes, its path without
// them, its name and its value. Lists are entered only when intoLists is set.
func walk(v any, path, general string, found func(path, general, name string, value any), intoLists bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		value := obj[name]
		p, g := join(path, name), join(general, name)
		if Field(name) {
			found(p, g, name, value)
			continue
		}
		switch x := value.(type) {
		case map[string]any:
			walk(x, p, g, found, intoLists)
		case []any:
			if !intoLists {
				continue
			}
			for i, item := range x {
				walk(item, p+"["+strconv.Itoa(i)+"]", g+"[]", found, intoLists)
			}
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// put sets value at the dotted path in m, making the objects on the way.
func put(m map[string]any, path []string, value any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// carried reports whether text carries a field's value.
func carried(text, name string, value any) bool {
	switch x := value.(type) {
	case nil:
		return true
	case string:
		return x == "" || strings.Contains(text, x)
	case float64:
		if x == 0 && (name == "offset" || strings.HasSuffix(name, "_offset")) {
			return true // the start: there is nothing before it to page back to
		}
		return hasNumber(text, strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		return !x || containsFold(text, name) || containsFold(text, strings.ReplaceAll(name, "_", " "))
	case []any:
		for _, item := range x {
			if !carried(text, name, item) {
				return false
			}
		}
		return true
	case map[string]any:
		b, err := json.Marshal(x)
		return err == nil && strings.Contains(text, string(b))
	}
	return false
}

// hasNumber reports whether text holds n as a whole number: not as part of a longer one.
func hasNumber(text, n string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], n)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(n)
		if !digitAround(text, start-1, -1) && !digitAround(text, end, 1) {
			return true
		}
		i = start + 1
	}
}

// digitAround reports whether position i of text continues a number in direction dir: a digit,
// or a decimal point followed (in that direction) by a digit.
func digitAround(text string, i, dir int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	if isDigit(text[i]) {
		return true
	}
	if text[i] == '.' {
		k := i + dir
		return k >= 0 && k < len(text) && isDigit(text[k])
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func containsFold(text, word string) bool {
	return strings.Contains(strings.ToLower(text), strings.ToLower(word))
}
