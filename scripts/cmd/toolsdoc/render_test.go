package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckUnique(t *testing.T) {
	tool := func(n string) Tool { return Tool{Name: n} }
	tests := []struct {
		name    string
		servers []Server
		wantErr string
	}{
		{"distinct", []Server{{Server: "gmail", Tools: []Tool{tool("search_messages")}}, {Server: "drive", Tools: []Tool{tool("search_files")}}}, ""},
		{"clash", []Server{{Server: "gmail", Tools: []Tool{tool("search")}}, {Server: "drive", Tools: []Tool{tool("search")}}}, `"search" in gmail and drive`},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckUnique(tt.servers)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRender(t *testing.T) {
	yes, no := true, false
	doc := string(Render([]Server{{
		Server: "calculator", Port: 9003,
		Tools: []Tool{{
			Name: "evaluate", Description: "Evaluate a | b.", Bytes: 120, ModelBytes: 90,
			Annotations: &Annotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
			InputSchema: Schema{Type: "object", Required: []string{"expression"}, Properties: map[string]Schema{
				"expression": {Type: "string", Description: "what to evaluate", MinLength: ptr(1)},
				"degrees":    {Type: "boolean"},
				"tags":       {Type: []any{"null", "array"}, Items: &Schema{Type: "string"}},
				"fields": {Type: "array", Items: &Schema{Type: "object", Required: []string{"ref"}, Properties: map[string]Schema{
					"ref":   {Type: "string", Description: "the element"},
					"value": {Type: "string", Description: "what to type"},
				}}},
			}},
		}, {
			Name: "wipe", Description: "Wipe.", Annotations: &Annotations{DestructiveHint: &yes, OpenWorldHint: &yes}, OnlyWith: "--danger on", Bytes: 30, ModelBytes: 20,
		}},
		Toolsets: []Toolset{{Name: "math", Description: "Evaluate | check.", Tools: []string{"evaluate"}}, {Name: "danger", Description: "Wipe.", Tools: []string{"wipe"}, Optional: true}},
	}}))
	for _, want := range []string{
		// Only the tools offered with default flags count in the server's total: wipe needs
		// flags; a toolset's row says what offering it costs, and that it is off by default.
		"| [calculator](#calculator) | 9003 | 1 | 90 | 120 |\n| all | | 1 | 90 | 120 |\n",
		"| toolset | tools | model bytes | tools/list bytes | what it offers |\n|---|---|---|---|---|\n| `math` | `evaluate` | 90 | 120 | Evaluate \\| check. |\n| `danger` | `wipe` | 20 | 30 | **Off by default** (`--toolsets default,danger`). Wipe. |\n",
		"| [`evaluate`](#evaluate) | Evaluate a \\| b. | RO I |",
		"| [`wipe`](#wipe) | **Only with `--danger on`.** Wipe. | D OW |",
		"### wipe\n\n**Only with `--danger on`.**\n\nWipe.\n\nNo arguments.",
		"| argument | type | required | constraints | description |\n|---|---|---|---|---|\n" +
			"| `expression` | string | yes | at least 1 character | what to evaluate |\n" +
			"| `degrees` | boolean |  |  |  |\n" +
			"| `fields` | array of object |  |  |  |\n" +
			"| `fields[].ref` | string | yes |  | the element |\n" +
			"| `fields[].value` | string |  |  | what to type |\n" +
			"| `tags` | array of string |  |  |  |\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("rendered doc lacks %q:\n%s", want, doc)
		}
	}
}

func ptr(n int) *int { return &n }

// TestConstraints reads real schema JSON, as the snapshots hold it.
func TestConstraints(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"none", `{"type": "string"}`, ""},
		{"enum and default", `{"type": "string", "enum": ["short_term", "medium_term"], "default": "medium_term"}`, "one of `short_term`, `medium_term`; default `medium_term`"},
		{"range and default", `{"type": "integer", "minimum": 1, "maximum": 50, "default": 20}`, "from 1 to 50; default `20`"},
		{"minimum only", `{"type": "integer", "minimum": 0}`, "at least 0"},
		{"maximum only", `{"type": "number", "maximum": 1.5}`, "at most 1.5"},
		{"exclusive", `{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1e3}`, "over 0; under 1e3"},
		{"length", `{"type": "string", "minLength": 1, "maxLength": 4096}`, "1 to 4096 characters"},
		{"one character", `{"type": "string", "minLength": 1}`, "at least 1 character"},
		{"at most", `{"type": "string", "maxLength": 1}`, "at most 1 character"},
		{"list", `{"type": ["null", "array"], "items": {"type": "string", "enum": ["track", "album"], "maxLength": 10}, "minItems": 1, "maxItems": 6, "default": ["track"]}`,
			"each one of `track`, `album`; each at most 10 characters; 1 to 6 items; default `[\"track\"]`"},
		{"nullable enum", `{"type": ["null", "string"], "enum": [null, "on", "off"]}`, "one of `null`, `on`, `off`"},
		{"pattern and format", `{"type": "string", "pattern": "^a|b$", "format": "date"}`, "matches `^a|b$`; format date"},
		{"backtick", "{\"type\": \"string\", \"enum\": [\"a`b\"]}", "one of `` a`b ``"},
		{"empty string default", `{"type": "string", "default": ""}`, `default ""`},
		{"boolean default", `{"type": "boolean", "default": false}`, "default `false`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Schema
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			if got := constraints(s); got != tt.want {
				t.Errorf("constraints = %q, want %q", got, tt.want)
			}
		})
	}
	var s Schema
	if err := json.Unmarshal([]byte(`{"type": ["null", "string"]}`), &s); err != nil || typeName(s) != "string" {
		t.Errorf("nullable string: %q %v", typeName(s), err)
	}
}

// snapFiles writes a server folder as shared/toolsnaps does, and returns the servers root.
func snapFiles(t *testing.T, files map[string]map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for server, fs := range files {
		for name, body := range fs {
			p := filepath.Join(root, server, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

const kitMain = "package main\n\nfunc main() { os.Exit(kit.Main(spec())) }\n"

func TestLoad(t *testing.T) {
	notes := map[string]string{
		"main.go":                               kitMain,
		"testdata/toolsnaps/_server.json":       `{"name": "notes", "onlyWith": {"sync_notes": "--sync drive"}, "port": 9009, "title": "Notes", "toolsets": [{"name": "read", "description": "Read.", "tools": ["get_note"]}]}`,
		"testdata/toolsnaps/get_note.json":      `{"name": "get_note", "description": "Read.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}`,
		"testdata/toolsnaps/sync_notes.json":    `{"name": "sync_notes", "description": "Sync.", "inputSchema": {"type": "object"}}`,
		"testdata/toolsnaps/create_note.json":   `{"name": "create_note", "description": "Write.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 300}}}}`,
		"notes_test.go":                         "package main\n",
		"testdata/other/ignored.json":           "not a snapshot",
		"vault/testdata/toolsnaps/_server.json": "not read: only servers/NAME/testdata/toolsnaps counts",
	}
	calc := map[string]string{
		"main.go":                          kitMain,
		"testdata/toolsnaps/_server.json":  `{"name": "calculator", "port": 9003}`,
		"testdata/toolsnaps/evaluate.json": `{"name": "evaluate", "description": "Math."}`,
	}
	servers, err := Load(snapFiles(t, map[string]map[string]string{"notes": notes, "calculator": calc, "scratch": {"README": "no main.go"}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Server != "calculator" || servers[1].Server != "notes" {
		t.Fatalf("servers = %+v, want calculator then notes (by port)", servers)
	}
	if got, want := servers[0].Tools[0].Bytes, len(`{"name":"evaluate","description":"Math."}`); got != want {
		t.Errorf("evaluate takes %d bytes, want %d (its snapshot as compact JSON)", got, want)
	}
	// get_note's model-facing part leaves out its annotations.
	if got, want := servers[1].Tools[1].ModelBytes, len(`{"name":"get_note","description":"Read.","inputSchema":{"type":"object"}}`); got != want {
		t.Errorf("get_note's model part takes %d bytes, want %d", got, want)
	}
	if ts := servers[1].Toolsets; len(ts) != 1 || ts[0].Name != "read" || ts[0].Tools[0] != "get_note" {
		t.Errorf("notes toolsets %+v", ts)
	}
	var names, marks []string
	for _, tool := range servers[1].Tools {
		names = append(names, tool.Name)
		marks = append(marks, tool.OnlyWith)
	}
	if strings.Join(names, ",") != "create_note,get_note,sync_notes" || strings.Join(marks, ",") != ",,--sync drive" {
		t.Errorf("notes tools %v marks %q", names, marks)
	}
	if m := servers[1].Tools[0].InputSchema.Properties["path"].MaxLength; m == nil || *m != 300 {
		t.Errorf("create_note path maxLength %v", m)
	}

	bad := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"kit server without snapshots", map[string]string{"main.go": kitMain}, "serves MCP but has no tool snapshots"},
		{"file and tool disagree", map[string]string{
			"testdata/toolsnaps/_server.json": `{"name": "x", "port": 1}`,
			"testdata/toolsnaps/a.json":       `{"name": "b"}`,
		}, `a.json holds tool "b"`},
		{"mark for a missing tool", map[string]string{
			"testdata/toolsnaps/_server.json": `{"name": "x", "port": 1, "onlyWith": {"gone": "--flag"}}`,
		}, `marks tool "gone", which has no snapshot`},
		{"stray file", map[string]string{
			"testdata/toolsnaps/_server.json": `{"name": "x", "port": 1}`,
			"testdata/toolsnaps/notes.txt":    "hi",
		}, "notes.txt: not a tool snapshot"},
		{"toolset with a missing tool", map[string]string{
			"testdata/toolsnaps/_server.json": `{"name": "x", "port": 1, "toolsets": [{"name": "read", "tools": ["gone"]}]}`,
		}, `puts tool "gone" in toolset read, but it has no snapshot`},
		{"no port", map[string]string{"testdata/toolsnaps/_server.json": `{"name": "x"}`}, "name and port are required"},
		{"not JSON", map[string]string{
			"testdata/toolsnaps/_server.json": `{"name": "x", "port": 1}`,
			"testdata/toolsnaps/a.json":       `{`,
		}, "a.json: unexpected end of JSON input"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(snapFiles(t, map[string]map[string]string{"x": tt.files}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no tool snapshots") {
		t.Errorf("no servers: %v", err)
	}
}

// TestBooleanSchema: an items schema of true (what jsonschema-go writes for []any) loads as
// an empty schema instead of failing the whole reference.
func TestBooleanSchema(t *testing.T) {
	var s Schema
	err := json.Unmarshal([]byte(`{"type":"array","items":{"type":["null","array"],"items":true},"minItems":1}`), &s)
	if err != nil || s.Items == nil || s.Items.Items == nil || s.Items.Items.Type != nil || s.MinItems == nil || *s.MinItems != 1 {
		t.Fatalf("Unmarshal = %+v, %v", s, err)
	}
	if got := typeName(s); got != "array of array of any" {
		t.Errorf("typeName = %q", got)
	}
}

func TestCheckBudget(t *testing.T) {
	within := []Server{{Server: "a", Tools: []Tool{{Name: "x", ModelBytes: ModelBudget - 10, Bytes: WholeBudget - 10}, {Name: "y", ModelBytes: 100, Bytes: 100, OnlyWith: "--more"}}}}
	if err := CheckBudget(within); err != nil {
		t.Errorf("within the budget (the flag-only tool does not count): %v", err)
	}
	for _, tools := range [][]Tool{
		{{Name: "x", ModelBytes: ModelBudget + 1, Bytes: ModelBudget + 1}},
		{{Name: "x", ModelBytes: 10, Bytes: WholeBudget}, {Name: "y", ModelBytes: 10, Bytes: 1}},
	} {
		err := CheckBudget([]Server{{Server: "a", Tools: tools}})
		if err == nil || !strings.Contains(err.Error(), "past its budget") {
			t.Errorf("%+v: %v, want past its budget", tools, err)
		}
	}
}
