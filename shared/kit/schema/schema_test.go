package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

type (
	tagUnknownKey struct {
		A string `json:"a" jsonschema:"a" schema:"pattern=x"`
	}
	tagNotKeyValue struct {
		A string `json:"a" jsonschema:"a" schema:"enum"`
	}
	tagEnumNotInt struct {
		A int `json:"a" jsonschema:"a" schema:"enum=1|two"`
	}
	tagMinOnString struct {
		A string `json:"a" jsonschema:"a" schema:"minimum=1"`
	}
	tagLengthOnInt struct {
		A int `json:"a" jsonschema:"a" schema:"maxLength=3"`
	}
	tagItemsOnString struct {
		A string `json:"a" jsonschema:"a" schema:"maxItems=3"`
	}
	tagDefaultOutOfRange struct {
		A int `json:"a,omitempty" jsonschema:"a" schema:"minimum=1,maximum=5,default=9"`
	}
	tagDefaultNotInEnum struct {
		A string `json:"a,omitempty" jsonschema:"a" schema:"enum=x|y,default=z"`
	}
	tagDefaultOnRequired struct {
		A int `json:"a" jsonschema:"a" schema:"default=3"`
	}
	tagNoDescription struct {
		A int `json:"a"`
	}
	tagBareDescribed struct {
		A string `json:"a" jsonschema:"the a" schema:"bare=true"`
	}
	tagBareFalse struct {
		A string `json:"a" schema:"bare=false"`
	}
	tagBareNotSelfExplaining struct {
		Path string `json:"path,omitempty" schema:"bare=true"`
	}
	tagBareRequired struct {
		Subject string `json:"subject" schema:"bare=true"`
	}
	tagBare struct {
		Kind string `json:"kind,omitempty" schema:"enum=start|stop,bare=true"`
		Note string `json:"note,omitempty" jsonschema:"a note"`
	}
	tagNestedNoDescription struct {
		A []struct {
			B string `json:"b"`
		} `json:"a" jsonschema:"a list"`
	}
	tagDefaultInItems struct {
		A []struct {
			B int `json:"b,omitempty" jsonschema:"b" schema:"default=1"`
		} `json:"a" jsonschema:"a list"`
	}
	tagNegativeCount struct {
		A []string `json:"a" jsonschema:"a" schema:"maxItems=-1"`
	}
	tagGood struct {
		Embedded
		Kind  string   `json:"kind,omitempty" jsonschema:"the kind" schema:"enum=a|b,default=b"`
		Sizes []int    `json:"sizes,omitempty" jsonschema:"sizes" schema:"minimum=0,maximum=9,maxItems=4"`
		Names []string `json:"names,omitempty" jsonschema:"names" schema:"minLength=2"`
		Skip  string   `json:"-"`
	}
	tagOptional struct {
		Color *string `json:"color,omitempty" jsonschema:"a color, null to leave it" schema:"enum=red|blue"`
		Mode  string  `json:"mode,omitempty" jsonschema:"a mode" schema:"enum=fast|slow,default=slow"`
		Must  string  `json:"must" jsonschema:"a required choice" schema:"enum=a|b"`
	}
	paging struct {
		Limit int `json:"limit,omitempty" jsonschema:"how many" schema:"minimum=1,maximum=50,default=20"`
	}
	tagUnexportedEmbed struct {
		paging
		IDs  []string `json:"ids" jsonschema:"ids" schema:"minItems=1"`
		Tags []string `json:"tags,omitempty" jsonschema:"tags" schema:"default=[\"a\"]"`
		Flag *bool    `json:"flag,omitempty" jsonschema:"a flag" schema:"default=true"`
	}
	// Embedded is promoted into tagGood's object, as encoding/json does.
	Embedded struct {
		Deep int `json:"deep,omitempty" jsonschema:"deep" schema:"maximum=3"`
	}
)

func TestSchemaTagsRefuseMistakes(t *testing.T) {
	cases := []struct {
		name string
		new  func() error
		want string
	}{
		{"unknown key", func() error { _, err := NewArgs[tagUnknownKey](); return err }, `unknown key "pattern"`},
		{"not key=value", func() error { _, err := NewArgs[tagNotKeyValue](); return err }, "not key=value"},
		{"enum value of the wrong type", func() error { _, err := NewArgs[tagEnumNotInt](); return err }, `enum value "two"`},
		{"minimum on a string", func() error { _, err := NewArgs[tagMinOnString](); return err }, "minimum applies to numbers"},
		{"length on a number", func() error { _, err := NewArgs[tagLengthOnInt](); return err }, "maxLength applies to strings"},
		{"items on a string", func() error { _, err := NewArgs[tagItemsOnString](); return err }, "maxItems applies to lists"},
		{"default out of range", func() error { _, err := NewArgs[tagDefaultOutOfRange](); return err }, "default 9 breaks"},
		{"default not in enum", func() error { _, err := NewArgs[tagDefaultNotInEnum](); return err }, `default "z" breaks`},
		{"default on a required argument", func() error { _, err := NewArgs[tagDefaultOnRequired](); return err }, "add omitempty"},
		{"no description", func() error { _, err := NewArgs[tagNoDescription](); return err }, "argument a has no description"},
		{"bare and described", func() error { _, err := NewArgs[tagBareDescribed](); return err }, "bare=true but described"},
		{"bare on a name that needs a description", func() error { _, err := NewArgs[tagBareNotSelfExplaining](); return err }, `"path" is not a self-explaining name`},
		{"bare on a required argument", func() error { _, err := NewArgs[tagBareRequired](); return err }, "argument subject is required"},
		{"bare=false", func() error { _, err := NewArgs[tagBareFalse](); return err }, "bare takes only true"},
		{"nested no description", func() error { _, err := NewArgs[tagNestedNoDescription](); return err }, "argument a[].b has no description"},
		{"default inside list items", func() error { _, err := NewArgs[tagDefaultInItems](); return err }, "never applied"},
		{"negative count", func() error { _, err := NewArgs[tagNegativeCount](); return err }, "not a count"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.new()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestSchemaTagBare: an argument declared bare=true needs no description and is listed
// without one, its constraints kept; the others keep theirs.
func TestSchemaTagBare(t *testing.T) {
	a, err := NewArgs[tagBare]()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a.schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":{"type":"string","enum":["start","stop"]}`, `"note":{"type":"string","description":"a note"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema %s\nlacks %s", b, want)
		}
	}
}

func TestSchemaTagsApply(t *testing.T) {
	a, err := NewArgs[tagGood]()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(a.schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"kind":{"type":"string","description":"the kind","default":"b","enum":["a","b"]}`,
		`"sizes":{"type":["null","array"],"items":{"type":"integer","minimum":0,"maximum":9},"description":"sizes","maxItems":4}`,
		`"names":{"type":["null","array"],"items":{"type":"string","minLength":2},"description":"names"}`,
		`"deep":{"type":"integer","description":"deep","maximum":3}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema %s\nlacks %s", b, want)
		}
	}
	cases := []struct {
		args string
		want string // the error, or the decoded value as JSON
	}{
		{`{}`, `{"deep":0,"kind":"b"}`},
		{`{"kind":"a","deep":3}`, `{"deep":3,"kind":"a"}`},
		{`{"kind":"c"}`, `invalid arguments: kind must be one of "a", "b", not "c"`},
		{`{"deep":4}`, `invalid arguments: deep must be at most 3, not 4`},
		{`{"sizes":[1,10]}`, `invalid arguments: sizes[1] must be at most 9, not 10`},
		{`{"sizes":[1,2,3,4,5]}`, `invalid arguments: sizes must have at most 4 items, not 5`},
		{`{"names":["ok","x"]}`, `invalid arguments: names[1] must be at least 2 characters long, not 1`},
		{`{"kind":1}`, `invalid arguments: kind must be a string, not an integer`},
		{`{"Skip":"x"}`, `invalid arguments: Skip is not an argument of this tool (it takes deep, kind, names, sizes)`},
		{`[1]`, `invalid arguments: the arguments must be an object, not an array`},
		{`{"kind":`, `invalid arguments: unexpected end of JSON input; send a JSON object matching the tool's input schema`},
	}
	for _, tc := range cases {
		in, err := a.Decode(json.RawMessage(tc.args))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			out, _ := json.Marshal(map[string]any{"kind": in.Kind, "deep": in.Deep})
			got = string(out)
		}
		if got != tc.want {
			t.Errorf("decode(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestSchemaOptionalEnums(t *testing.T) {
	a, err := NewArgs[tagOptional]()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args string
		want string
	}{
		{`{"must":"a","color":null}`, `color=<nil> mode=slow`},
		{`{"must":"a","color":"red"}`, `color=red mode=slow`},
		{`{"must":"a","mode":""}`, `color=<nil> mode=slow`},
		{`{"must":"a","mode":null}`, `color=<nil> mode=slow`},
		{`{"must":"a","mode":"fast"}`, `color=<nil> mode=fast`},
		{`{"must":"a","color":"green"}`, `invalid arguments: color must be one of "red", "blue", not "green"`},
		{`{"must":""}`, `invalid arguments: must must be one of "a", "b", not ""`},
		{`{"must":null}`, `invalid arguments: must must be a string, not null`},
	}
	for _, tc := range cases {
		in, err := a.Decode(json.RawMessage(tc.args))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			color := "<nil>"
			if in.Color != nil {
				color = *in.Color
			}
			got = "color=" + color + " mode=" + in.Mode
		}
		if got != tc.want {
			t.Errorf("decode(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestSchemaPromotedFieldsAndLists(t *testing.T) {
	a, err := NewArgs[tagUnexportedEmbed]()
	if err != nil {
		t.Fatal(err)
	}
	in, err := a.Decode(json.RawMessage(`{"ids":["x"]}`))
	if err != nil || in.Limit != 20 || len(in.Tags) != 1 || in.Flag == nil || !*in.Flag {
		t.Fatalf("defaults through an unexported embedded struct: %+v %v", in, err)
	}
	in.Tags[0], *in.Flag = "changed", false // a handler changing what it got
	again, _ := a.Decode(json.RawMessage(`{"ids":["x"]}`))
	if again.Tags[0] != "a" || !*again.Flag {
		t.Errorf("one call's change leaked into the next call's defaults: %+v", again)
	}
	for args, want := range map[string]string{
		`{"ids":["x"],"limit":51}`: "invalid arguments: limit must be at most 50, not 51",
		`{"ids":null}`:             "invalid arguments: ids must be an array, not null",
		`{"ids":[]}`:               "invalid arguments: ids must have at least 1 item, not 0",
	} {
		if _, err := a.Decode(json.RawMessage(args)); err == nil || err.Error() != want {
			t.Errorf("decode(%s) = %v, want %s", args, err, want)
		}
	}
}
