package schema

import (
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestUndescribed: a listed argument without a description is reported, at any depth, unless
// its name is self-explaining and it is optional; a self-explaining choice must list its values.
// Ids, names, titles and the Google account say what they are in every schema.
func TestUndescribed(t *testing.T) {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	tests := []struct {
		name string
		in   *jsonschema.Schema
		want []string
	}{
		{"all described", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"path": str("file path")}}, nil},
		{"bare path", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"path": str(""), "session": str(" ")}}, []string{"path", "session"}},
		{"self-explaining names", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{
			"subject":     str(""),
			"page_size":   {Type: "integer"},
			"kind":        {Type: "string", Enum: []any{"a", "b"}},
			"types":       {Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: []any{"x"}}},
			"reply_all":   {Type: "boolean"},
			"description": str(""),
		}}, nil},
		{"a choice without its values", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"kind": str("")}}, []string{"kind"}},
		{"a required self-explaining name", &jsonschema.Schema{Required: []string{"subject"}, Properties: map[string]*jsonschema.Schema{"subject": str(""), "cc": str("")}}, []string{"subject"}},
		{"ids, names and choices a tool decides by", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{
			"file_id": str(""), "event_id": str(""), "name": str(""), "title": str(""), "account": str(""), "time_zone": str(""),
			"action": {Type: "string", Enum: []any{"a", "b"}},
		}}, []string{"account", "action", "event_id", "file_id", "name", "time_zone", "title"}},
		{"nested", &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{
			"events": {Type: "array", Description: "the events", Items: &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{"start": str(""), "subject": str("")}}},
			"where":  {Type: "object", Description: "place", Properties: map[string]*jsonschema.Schema{"ref": str("")}},
		}}, []string{"events[].start", "where.ref"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Undescribed(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Undescribed = %q, want %q", got, tt.want)
			}
		})
	}
}
