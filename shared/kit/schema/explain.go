package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// explain names, in words a model can act on, the first rule of s that v breaks. It knows the
// keywords the kit's schemas use; for anything else it returns "" and the caller falls back to
// the validator's own message.
func explain(s *jsonschema.Schema, v any, path string) string {
	if s == nil {
		return ""
	}
	name := path
	if name == "" {
		name = "the arguments"
	}
	if msg := explainType(s, v, name); msg != "" {
		return msg
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, v) }) {
		return fmt.Sprintf("%s must be one of %s, not %s", name, listValues(slices.DeleteFunc(slices.Clone(s.Enum), func(e any) bool { return e == nil })), jsonText(v))
	}
	switch x := v.(type) {
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			return fmt.Sprintf("%s must be at least %s, not %s", name, number(*s.Minimum), number(x))
		}
		if s.Maximum != nil && x > *s.Maximum {
			return fmt.Sprintf("%s must be at most %s, not %s", name, number(*s.Maximum), number(x))
		}
	case string:
		n := len([]rune(x))
		if s.MinLength != nil && n < *s.MinLength {
			if *s.MinLength == 1 {
				return fmt.Sprintf("%s must not be empty", name)
			}
			return fmt.Sprintf("%s must be at least %d characters long, not %d", name, *s.MinLength, n)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Sprintf("%s must be at most %d characters long, not %d", name, *s.MaxLength, n)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			return fmt.Sprintf("%s must have at least %s, not %d", name, items(*s.MinItems), len(x))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			return fmt.Sprintf("%s must have at most %s, not %d", name, items(*s.MaxItems), len(x))
		}
		for i, item := range x {
			if msg := explain(s.Items, item, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				return fmt.Sprintf("%s is required", join(path, r))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
					return fmt.Sprintf("%s is not an argument of this tool (it takes %s)", join(path, k), listNames(s.Properties))
				}
				continue
			}
			if msg := explain(p, x[k], join(path, k)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// explainType reports a value of the wrong JSON type.
func explainType(s *jsonschema.Schema, v any, name string) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		return ""
	}
	got := jsonType(v)
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return ""
		}
	}
	want := strings.Join(slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" }), " or ")
	if want == "integer" && got == "number" {
		return fmt.Sprintf("%s must be a whole number, not %s", name, jsonText(v))
	}
	if got == "null" {
		return fmt.Sprintf("%s must be %s %s, not null", name, article(want), want)
	}
	return fmt.Sprintf("%s must be %s %s, not %s %s", name, article(want), want, article(got), got)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func listValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jsonText(v)
	}
	return strings.Join(parts, ", ")
}

func listNames(props map[string]*jsonschema.Schema) string {
	if len(props) == 0 {
		return "no arguments"
	}
	return strings.Join(slices.Sorted(maps.Keys(props)), ", ")
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
