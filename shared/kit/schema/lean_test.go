package schema

import (
	"encoding/json"
	"testing"
)

// TestLeanSchema: the listed schema loses what tells a model nothing, and the schema the kit
// validates with keeps all of it.
func TestLeanSchema(t *testing.T) {
	type item struct {
		Name string `json:"name" jsonschema:"a name"`
	}
	type in struct {
		Query  string   `json:"query" jsonschema:"what to find" schema:"minLength=1"`
		Color  *string  `json:"color,omitempty" jsonschema:"a colour" schema:"enum=red|blue"`
		Items  []item   `json:"items,omitempty" jsonschema:"the items"`
		Labels []string `json:"labels,omitempty" jsonschema:"labels" schema:"minLength=2"`
		Offset int      `json:"offset,omitempty" jsonschema:"where to start" schema:"minimum=0"`
		Limit  int      `json:"limit,omitempty" jsonschema:"how many" schema:"minimum=1,maximum=50"`
	}
	a, err := NewArgs[in]()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(a.schema)
	got, _ := json.Marshal(Lean(a.schema))
	want := `{"type":"object","properties":{"query":{"type":"string","description":"what to find"},` +
		`"color":{"type":"string","description":"a colour","enum":["red","blue"]},` +
		`"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","description":"a name"}},"required":["name"]},"description":"the items"},` +
		`"labels":{"type":"array","items":{"type":"string","minLength":2},"description":"labels"},` +
		`"offset":{"type":"integer","description":"where to start"},` +
		`"limit":{"type":"integer","description":"how many","minimum":1,"maximum":50}},"required":["query"]}`
	if string(got) != want {
		t.Errorf("lean schema\n got %s\nwant %s", got, want)
	}
	if after, _ := json.Marshal(a.schema); string(after) != string(before) {
		t.Errorf("leanSchema changed the validating schema:\n%s\n%s", before, after)
	}
}
