// Package schema holds what the kit knows about tool arguments: the schema tag language a
// tool's argument struct declares its constraints in, the lean form of an input schema that
// tools/list shows, the plain-words explanation of an argument that breaks its schema, and the
// decoding of a call's arguments into the tool's input type.
package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's argument struct declares its constraints in a `schema` struct tag next to the
// `jsonschema` description, so that the model sees the rules in the input schema and the kit
// refuses bad input before the handler runs:
//
//	Unit  string `json:"unit,omitempty" jsonschema:"the unit of the result" schema:"enum=c|f|k,default=c"`
//	Limit int    `json:"limit,omitempty" jsonschema:"how many to return" schema:"minimum=1,maximum=100,default=20"`
//
// Keys (comma-separated key=value pairs):
//   - enum=a|b|c: the allowed values; on a slice, the allowed values of each item; on an
//     optional argument an empty string counts as absent (so its default applies), and on a
//     pointer null stays allowed
//
// Any optional argument sent as null counts as absent, so its default applies too; a required
// list with minItems refuses null.
//   - minimum=N, maximum=N: inclusive bounds of a number; on a slice, of each item
//   - minLength=N, maxLength=N: bounds of a string's length in characters; on a slice, of each item
//   - minItems=N, maxItems=N: bounds of a slice's length
//   - default=V: the value used when the argument is absent (JSON for numbers, booleans and
//     lists; a bare string for strings); the handler receives it as if the caller had sent it
//   - bare=true: the argument has no description, because its name, type and allowed values
//     already say what to send (cc, subject, a kind enum); only an optional argument whose
//     name SelfExplaining allows may be bare, every other argument needs a description
//
// A malformed tag, a key the kit does not know, or a default that breaks the field's own
// constraints panics at registration, so that a mistake cannot ship.
const schemaTag = "schema"

// emptyAbsent lists the top-level optional string arguments with allowed values, for which
// an empty string means the same as leaving the argument out: models often send "" for "none".
func emptyAbsent(s *jsonschema.Schema) map[string]bool {
	names := map[string]bool{}
	for name, p := range s.Properties {
		if len(p.Enum) > 0 && !slices.Contains(s.Required, name) && (p.Type == "string" || slices.Contains(p.Types, "string")) && !slices.Contains(p.Enum, any("")) {
			names[name] = true
		}
	}
	return names
}

// constrain applies the `schema` tags of t's fields (and of nested structs) to s, the schema
// jsonschema.For inferred for t. It also requires every property to have a description
// unless its tag says bare=true.
func constrain(t reflect.Type, s *jsonschema.Schema, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return constrain(t.Elem(), s.Items, path+"[]")
		}
		return nil
	default:
		return nil
	}
	for _, f := range jsonFields(t) {
		prop := s.Properties[f.name]
		if prop == nil {
			continue
		}
		where := strings.TrimPrefix(path+"."+f.name, ".")
		if tag, ok := f.tag.Lookup(schemaTag); ok {
			if err := applyTag(f.typ, prop, tag); err != nil {
				return fmt.Errorf("argument %s: schema tag %q: %w", where, tag, err)
			}
			if prop.Default != nil && !slices.Contains(s.Required, f.name) && strings.Contains(path, "[]") {
				return fmt.Errorf("argument %s: a default inside list items is never applied; handle the absent value in the handler", where)
			}
			if prop.Default != nil && slices.Contains(s.Required, f.name) {
				return fmt.Errorf("argument %s: a default on a required argument is never used; add omitempty to its json tag", where)
			}
			if prop.MinItems != nil && *prop.MinItems > 0 && slices.Contains(s.Required, f.name) && slices.Contains(prop.Types, "null") {
				// A required list that must have items must be a list: null would slip past minItems.
				prop.Types, prop.Type = nil, "array"
			}
		}
		bare := isBare(f.tag.Get(schemaTag))
		switch desc := strings.TrimSpace(prop.Description); {
		case bare && desc != "":
			return fmt.Errorf("argument %s is bare=true but described %q: keep one of the two", where, desc)
		case !bare && desc == "":
			return fmt.Errorf("argument %s has no description: add a `jsonschema:\"...\"` tag that tells a model what to send (a few words are enough), or schema:\"bare=true\" when its name is self-explaining (schema.SelfExplaining)", where)
		case bare && slices.Contains(s.Required, f.name):
			return fmt.Errorf("argument %s is required and bare=true: every argument a model must fill says what it means; describe it in a `jsonschema:\"...\"` tag, a few words are enough", where)
		case bare:
			if err := checkBare(f.name, where); err != nil {
				return err
			}
		}
		if err := constrain(f.typ, prop, where); err != nil {
			return err
		}
	}
	return nil
}

// jsonField is a struct field as encoding/json sees it: its JSON name and where it sits,
// fields of embedded structs (exported or not) promoted into the outer object.
type jsonField struct {
	name       string
	index      []int
	typ        reflect.Type
	tag        reflect.StructTag
	viaPointer bool // reached through an embedded pointer, which may be nil
}

// jsonFields lists the JSON fields of struct type t.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, skip := jsonName(f)
		if skip {
			continue
		}
		if f.Anonymous && name == "" {
			et, ptr := f.Type, false
			if et.Kind() == reflect.Pointer {
				et, ptr = et.Elem(), true
			}
			if et.Kind() == reflect.Struct {
				for _, inner := range jsonFields(et) {
					inner.index = append([]int{i}, inner.index...)
					inner.viaPointer = inner.viaPointer || ptr
					out = append(out, inner)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, index: []int{i}, typ: f.Type, tag: f.Tag})
	}
	return out
}

// jsonName returns the JSON name of a struct field ("" when it has none) and whether
// encoding/json skips it.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	return name, false
}

// isBare reports whether a schema tag declares its argument bare=true (listed without a
// description).
func isBare(tag string) bool {
	return slices.Contains(strings.Split(tag, ","), "bare=true")
}

// applyTag sets the constraints of one tag on prop, the schema of a field of type t.
func applyTag(t reflect.Type, prop *jsonschema.Schema, tag string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	elem, elemType := prop, t
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && prop.Items != nil {
		elem, elemType = prop.Items, t.Elem()
		for elemType.Kind() == reflect.Pointer {
			elemType = elemType.Elem()
		}
	}
	for _, kv := range strings.Split(tag, ",") {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" || val == "" {
			return fmt.Errorf("%q is not key=value", kv)
		}
		switch key {
		case "enum":
			elem.Enum = nil
			for _, v := range strings.Split(val, "|") {
				x, err := literal(elemType, v)
				if err != nil {
					return fmt.Errorf("enum value %q: %w", v, err)
				}
				elem.Enum = append(elem.Enum, x)
			}
			if slices.Contains(elem.Types, "null") {
				elem.Enum = append(elem.Enum, nil) // an optional pointer: null means "leave as it is"
			}
		case "minimum", "maximum":
			if !isNumber(elemType) {
				return fmt.Errorf("%s applies to numbers, not %s", key, elemType)
			}
			n, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if key == "minimum" {
				elem.Minimum = &n
			} else {
				elem.Maximum = &n
			}
		case "minLength", "maxLength":
			if elemType.Kind() != reflect.String {
				return fmt.Errorf("%s applies to strings, not %s", key, elemType)
			}
			n, err := count(val)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if key == "minLength" {
				elem.MinLength = &n
			} else {
				elem.MaxLength = &n
			}
		case "minItems", "maxItems":
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return fmt.Errorf("%s applies to lists, not %s", key, t)
			}
			n, err := count(val)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if key == "minItems" {
				prop.MinItems = &n
			} else {
				prop.MaxItems = &n
			}
		case "default":
			x, err := literal(t, val)
			if err != nil {
				return fmt.Errorf("default: %w", err)
			}
			raw, err := json.Marshal(x)
			if err != nil {
				return fmt.Errorf("default: %w", err)
			}
			prop.Default = raw
		case "bare":
			if val != "true" {
				return fmt.Errorf("bare takes only true, not %q", val)
			}
		default:
			return fmt.Errorf("unknown key %q (known: enum, minimum, maximum, minLength, maxLength, minItems, maxItems, default, bare)", key)
		}
	}
	if prop.Default != nil {
		return checkDefault(prop)
	}
	return nil
}

// checkDefault refuses a default that breaks the property's own constraints.
func checkDefault(prop *jsonschema.Schema) error {
	var v any
	if err := json.Unmarshal(prop.Default, &v); err != nil {
		return fmt.Errorf("default: %w", err)
	}
	copied := *prop
	copied.Default = nil
	r, err := copied.Resolve(nil)
	if err != nil {
		return fmt.Errorf("default: %w", err)
	}
	if err := r.Validate(v); err != nil {
		return fmt.Errorf("default %s breaks the field's constraints: %w", prop.Default, err)
	}
	return nil
}

// literal parses a tag value as a value of type t: strings are taken as written, everything
// else as JSON.
func literal(t reflect.Type, s string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.String {
		return s, nil
	}
	v := reflect.New(t)
	if err := json.Unmarshal([]byte(s), v.Interface()); err != nil {
		return nil, fmt.Errorf("not a %s: %w", t, err)
	}
	return v.Elem().Interface(), nil
}

func isNumber(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}

// nestedDefaults reports whether any schema below the top level of s declares a default.
func nestedDefaults(s *jsonschema.Schema) bool {
	var below func(s *jsonschema.Schema) bool
	below = func(s *jsonschema.Schema) bool {
		if s == nil {
			return false
		}
		if s.Default != nil {
			return true
		}
		for _, p := range s.Properties {
			if below(p) {
				return true
			}
		}
		return below(s.Items)
	}
	for _, p := range s.Properties {
		for _, sub := range p.Properties {
			if below(sub) {
				return true
			}
		}
		if below(p.Items) {
			return true
		}
	}
	return false
}
