package schema

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Lean returns the form of an input schema that tools/list shows: a copy without what
// tells a model nothing it can act on. Objects lose "additionalProperties": false (the kit
// refuses unknown arguments whatever the listing says, naming the known ones) and a type
// "null or T" becomes T (an optional argument is left out; the kit reads null as absent), and
// a string's minLength of 1 goes (a model does not send an empty string for a value it means;
// the kit still refuses one, saying so), and so does a number's minimum of 0 (counts, offsets
// and positions are not negative; the kit still refuses a negative one, naming the bound).
// Validation keeps using the full schema.
func Lean(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.CloneSchemas()
	trim(c)
	return c
}

func trim(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if isFalse(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		t := s.Types[0]
		if t == "null" {
			t = s.Types[1]
		}
		s.Type, s.Types = t, nil
		s.Enum = slices.DeleteFunc(slices.Clone(s.Enum), func(v any) bool { return v == nil })
	}
	if s.MinLength != nil && *s.MinLength == 1 {
		s.MinLength = nil
	}
	if s.Minimum != nil && *s.Minimum == 0 {
		s.Minimum = nil
	}
	for _, p := range s.Properties {
		trim(p)
	}
	for _, p := range s.Defs {
		trim(p)
	}
	trim(s.Items)
	for _, list := range [][]*jsonschema.Schema{s.PrefixItems, s.AnyOf, s.OneOf, s.AllOf} {
		for _, p := range list {
			trim(p)
		}
	}
}

// isFalse reports whether s is the schema that accepts nothing, as jsonschema.For writes
// "additionalProperties": false.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && s.Not.Type == "" && len(s.Not.Types) == 0 && s.Not.Properties == nil && s.Not.Not == nil && len(s.Not.Enum) == 0
}
