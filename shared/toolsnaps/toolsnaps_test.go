package toolsnaps

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type findIn struct {
	Query string `json:"query" jsonschema:"what to find <exactly>"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many to return" schema:"minimum=1,maximum=50,default=10"`
	Order string `json:"order,omitempty" jsonschema:"the order of the results" schema:"enum=new|old,default=new"`
}

type findOut struct {
	Found []string `json:"found"`
}

type none struct{}

// snapSpec is a small server with a read tool, a write tool, and a tool offered only with
// --extra.
func snapSpec() kit.Spec {
	var extra bool
	return kit.Spec{
		Name:  "snaptest",
		Title: "Snapshot test",
		Port:  9997,
		Flags: func(fs *flag.FlagSet) { fs.BoolVar(&extra, "extra", false, "offer extra_thing") },
		Setup: func(s *kit.Server) error {
			kit.AddTool(s, kit.Tool{Name: "find_things", Title: "Find things", Description: "Find things & more.", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, findIn) (*mcp.CallToolResult, findOut, error) {
					return nil, findOut{}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "delete_thing", Description: "Delete a thing.", Destructive: true},
				func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, none, error) {
					return nil, none{}, nil
				})
			if extra {
				kit.AddTool(s, kit.Tool{Name: "extra_thing", Description: "Only with --extra.", Idempotent: true},
					func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, none, error) {
						return nil, none{}, nil
					})
			}
			return nil
		},
	}
}

var snapOpts = Options{Optional: [][]string{{"--extra"}}}

func TestSnapshotOverMCP(t *testing.T) {
	srv, tools := collect(t, snapSpec, snapOpts)
	files, err := Snapshot(srv, tools)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}); !slices.Equal(got, []string{ServerFile, "delete_thing.json", "extra_thing.json", "find_things.json"}) {
		t.Fatalf("files = %v", got)
	}
	wantServer := "{\n  \"name\": \"snaptest\",\n  \"onlyWith\": {\n    \"extra_thing\": \"--extra\"\n  },\n  \"port\": 9997,\n  \"title\": \"Snapshot test\"\n}\n"
	if string(files[ServerFile]) != wantServer {
		t.Errorf("%s =\n%s\nwant\n%s", ServerFile, files[ServerFile], wantServer)
	}
	find := string(files["find_things.json"])
	for _, want := range []string{
		"{\n  \"annotations\": {\n", // keys sorted, two-space indent
		`"description": "Find things & more."`,
		`"description": "what to find <exactly>"`, // no \u003c escapes
		"\"limit\": {\n        \"default\": 10,\n        \"description\": \"how many to return\",\n        \"maximum\": 50,\n        \"minimum\": 1,\n",
		"\"enum\": [\n          \"new\",\n          \"old\"\n        ]",
		`"readOnlyHint": true`,
		`"title": "Find things"`,
	} {
		if !strings.Contains(find, want) {
			t.Errorf("find_things.json lacks %q:\n%s", want, find)
		}
	}
	if !strings.HasSuffix(find, "}\n") {
		t.Error("a snapshot must end in a newline")
	}
	if strings.Contains(find, "outputSchema") {
		t.Errorf("find_things.json lists an output schema: the kit lists none:\n%s", find)
	}
	var tool mcp.Tool
	if err := json.Unmarshal(files["find_things.json"], &tool); err != nil || tool.Name != "find_things" {
		t.Errorf("the snapshot does not read back as a tool: %v %+v", err, tool)
	}
}

func TestSnapshotRefusesBadNames(t *testing.T) {
	for _, name := range []string{"../escape", "Upper", "with-dash", "", "_server", "a/b"} {
		if _, err := Snapshot(Server{Name: "x"}, []*mcp.Tool{{Name: name}}); err == nil || !strings.Contains(err.Error(), "snake_case") {
			t.Errorf("tool %q: %v, want a refusal", name, err)
		}
	}
	if _, err := Snapshot(Server{Name: "x"}, []*mcp.Tool{{Name: "a"}, {Name: "a"}}); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a tool listed twice: %v", err)
	}
}

// TestUpdateThenCheck runs Test as make toolsnaps does, then as go test does, and changes the
// folder under it the ways a change to a server would.
func TestUpdateThenCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "toolsnaps")
	opts := snapOpts
	opts.Dir = dir
	t.Setenv(UpdateEnv, "1")
	Test(t, snapSpec, opts)
	t.Setenv(UpdateEnv, "")
	Test(t, snapSpec, opts) // fails the test if the update did not write what the check wants

	srv, tools := collect(t, snapSpec, snapOpts)
	files, err := Snapshot(srv, tools)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		change func()
		want   []string
	}{
		{"description changed", func() {
			write("delete_thing.json", strings.Replace(string(files["delete_thing.json"]), "Delete a thing.", "Remove a thing.", 1))
		}, []string{
			"delete_thing.json differs from the server (- snapshot, + server):\n- description: \"Remove a thing.\"\n+ description: \"Delete a thing.\"",
		}},
		{"constraint changed", func() {
			write("find_things.json", strings.Replace(string(files["find_things.json"]), `"maximum": 50`, `"maximum": 100`, 1))
		}, []string{"- inputSchema.properties.limit.maximum: 100\n+ inputSchema.properties.limit.maximum: 50"}},
		{"annotation removed", func() {
			write("find_things.json", strings.Replace(string(files["find_things.json"]), "\"idempotentHint\": true,\n", "", 1))
		}, []string{"+ annotations.idempotentHint: true"}},
		{"tool without a snapshot", func() { os.Remove(filepath.Join(dir, "extra_thing.json")) }, []string{
			"extra_thing.json: no snapshot of tool extra_thing, which the server offers",
		}},
		{"snapshot of a removed tool", func() { write("old_tool.json", "{}\n") }, []string{
			"old_tool.json: the server has no tool old_tool",
		}},
		{"flag-only mark lost", func() {
			write(ServerFile, strings.Replace(string(files[ServerFile]), "\"onlyWith\": {\n    \"extra_thing\": \"--extra\"\n  },\n", "", 1))
		}, []string{"+ onlyWith: {\"extra_thing\":\"--extra\"}"}},
		{"stray file", func() { write("notes.txt", "hi") }, []string{"notes.txt: not a tool snapshot"}},
		{"not canonical", func() {
			write("delete_thing.json", strings.ReplaceAll(string(files["delete_thing.json"]), "  ", "\t"))
		}, []string{"not written in the canonical form"}},
		{"not JSON", func() { write("delete_thing.json", "{") }, []string{"the snapshot is not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "notes.txt")) // left by the stray file case
			if err := Write(dir, files); err != nil {
				t.Fatal(err)
			}
			if err := Check(dir, files); err != nil {
				t.Fatalf("after Write: %v", err)
			}
			tt.change()
			err := Check(dir, files)
			if err == nil {
				t.Fatal("Check passed a stale folder")
			}
			for _, want := range append(tt.want, "make toolsnaps") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "toolsnaps")
	files := map[string][]byte{ServerFile: []byte("{}\n"), "a.json": []byte("{\"name\": \"a\"}\n")}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.json")); !os.IsNotExist(err) {
		t.Errorf("Write kept the snapshot of a removed tool: %v", err)
	}
	if err := Check(dir, files); err != nil {
		t.Errorf("after Write: %v", err)
	}
	// Anything but snapshots in the folder: refuse, change nothing.
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, map[string][]byte{ServerFile: []byte("{}\n")}); err == nil || !strings.Contains(err.Error(), "README: not a tool snapshot") {
		t.Errorf("Write beside a stray file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.json")); err != nil {
		t.Errorf("a refused Write removed a snapshot: %v", err)
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name, old, now, want string
	}{
		{"scalar", `{"a": 1}`, `{"a": 2}`, "- a: 1\n+ a: 2"},
		{"added and removed keys", `{"a": 1, "b": {"c": "x"}}`, `{"b": {"d": "y"}}`, "- a: 1\n- b.c: \"x\"\n+ b.d: \"y\""},
		{"list of scalars as a whole", `{"enum": ["a", "b"]}`, `{"enum": ["a", "c", "b"]}`, "- enum: [\"a\",\"b\"]\n+ enum: [\"a\",\"c\",\"b\"]"},
		{"list of objects item by item", `{"l": [{"x": 1}, {"x": 2}]}`, `{"l": [{"x": 1}, {"x": 3}]}`, "- l[1].x: 2\n+ l[1].x: 3"},
		{"type change", `{"a": {"b": 1}}`, `{"a": [1]}`, "- a: {\"b\":1}\n+ a: [1]"},
		{"exact numbers", `{"max": 9007199254740993}`, `{"max": 9007199254740992}`, "- max: 9007199254740993\n+ max: 9007199254740992"},
		{"whole document", `1`, `2`, "- (the whole document): 1\n+ (the whole document): 2"},
		{"long value cut", `{"d": "a"}`, `{"d": "` + strings.Repeat("é", 400) + `"}`, "+ d: \"" + strings.Repeat("é", 249) + " …(cut)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff([]byte(tt.old), []byte(tt.now)); !strings.Contains(got, tt.want) {
				t.Errorf("Diff =\n%s\nwant it to contain\n%s", got, tt.want)
			}
		})
	}
}
