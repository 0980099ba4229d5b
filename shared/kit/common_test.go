package kit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type profileKey struct{}

type limitIn struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many" schema:"minimum=1,default=3"`
}

type boundOut struct {
	Text    string `json:"text"`
	Limit   int    `json:"limit"`
	Profile string `json:"profile"`
}

// TestCommonArg: a server-wide argument appears in every tool's schema, reaches the handler
// through its context and never through its arguments, is validated against its schema, and
// Bind's refusal is the tool's error; the tool's own arguments keep their checks and defaults.
func TestCommonArg(t *testing.T) {
	spec := kit.Spec{Name: "commontest", Port: 9998, Setup: func(s *kit.Server) error {
		s.AddCommonArg(kit.CommonArg{
			Name:   "profile",
			Schema: &jsonschema.Schema{Type: "string", Pattern: "^[a-z]{1,8}$", Description: "which profile (default: home)"},
			Bind: func(ctx context.Context, v any) (context.Context, error) {
				if v != "home" && v != "work" {
					return ctx, kit.Errorf(kit.CodeInvalidInput, "no profile %v; give home or work", v)
				}
				return context.WithValue(ctx, profileKey{}, v), nil
			},
		})
		kit.AddTool(s, kit.Tool{Name: "bound", Description: "Echo with the profile.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, in limitIn) (*mcp.CallToolResult, boundOut, error) {
				p, _ := ctx.Value(profileKey{}).(string)
				return nil, boundOut{in.Text, in.Limit, p}, nil
			})
		kit.AddTool(s, kit.Tool{Name: "nothing", Description: "No arguments of its own.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, boundOut, error) {
				p, _ := ctx.Value(profileKey{}).(string)
				return nil, boundOut{Profile: p}, nil
			})
		return nil
	}}
	h := mcptest.Start(t, spec, "--insecure-no-auth")
	cs := h.Connect(t, "")
	if got := cs.InitializeResult().Instructions; got != "" {
		t.Errorf("instructions %q without a common argument's Instructions", got)
	}

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		var schema jsonschema.Schema
		if b, err := json.Marshal(tl.InputSchema); err != nil || json.Unmarshal(b, &schema) != nil {
			t.Fatalf("%s: schema %v", tl.Name, err)
		}
		prop, ok := schema.Properties["profile"]
		if !ok || prop.Pattern != "^[a-z]{1,8}$" || prop.Description == "" || len(schema.Required) > 1 {
			t.Errorf("%s: profile property %+v, required %v", tl.Name, prop, schema.Required)
		}
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		want boundOut
		err  string
	}{
		{"bound", map[string]any{"text": "a"}, boundOut{"a", 3, ""}, ""},
		{"bound", map[string]any{"text": "a", "profile": "work"}, boundOut{"a", 3, "work"}, ""},
		{"bound", map[string]any{"text": "a", "profile": "", "limit": 5}, boundOut{"a", 5, ""}, ""},
		{"bound", map[string]any{"text": "a", "profile": nil}, boundOut{"a", 3, ""}, ""},
		{"nothing", map[string]any{"profile": "home"}, boundOut{Profile: "home"}, ""},
		{"bound", map[string]any{"text": "a", "profile": "Work!"}, boundOut{}, `invalid arguments: profile "Work!": `},
		{"bound", map[string]any{"text": "a", "profile": 7}, boundOut{}, "invalid arguments: profile 7: "},
		{"bound", map[string]any{"text": "a", "profile": "school"}, boundOut{}, "no profile school; give home or work"},
		{"bound", map[string]any{"text": "a", "limit": 0, "profile": "work"}, boundOut{}, "limit"},
		{"nothing", map[string]any{"other": 1}, boundOut{}, "other is not an argument of this tool (it takes profile)"},
		{"bound", map[string]any{"text": "a", "txt": "a"}, boundOut{}, "txt is not an argument of this tool (it takes limit, profile, text)"},
	} {
		res := mcptest.Call(t, cs, tc.tool, tc.args)
		if tc.err != "" {
			if !res.IsError || !strings.Contains(mcptest.Text(res), tc.err) {
				t.Errorf("%s %v: %v %q, want an error with %q", tc.tool, tc.args, res.IsError, mcptest.Text(res), tc.err)
			}
			continue
		}
		var got boundOut
		mcptest.Decode(t, res, &got)
		if got != tc.want {
			t.Errorf("%s %v = %+v, want %+v", tc.tool, tc.args, got, tc.want)
		}
	}
}

// TestCommonArgOrder: the argument must come before the tools, and no tool may take its name.
func TestCommonArgOrder(t *testing.T) {
	arg := kit.CommonArg{Name: "text", Schema: &jsonschema.Schema{Type: "string", Description: "d"},
		Bind: func(ctx context.Context, _ any) (context.Context, error) { return ctx, nil }}
	for name, setup := range map[string]func(s *kit.Server){
		"after a tool": func(s *kit.Server) {
			kit.AddTool(s, kit.Tool{Name: "nothing", Description: "d", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					return nil, empty{}, nil
				})
			s.AddCommonArg(arg)
		},
		"clashing name": func(s *kit.Server) {
			s.AddCommonArg(arg)
			kit.AddTool(s, kit.Tool{Name: "echo", Description: "d", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, empty, error) {
					return nil, empty{}, nil
				})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			spec := kit.Spec{Name: "commontest", Port: 9998, Setup: func(s *kit.Server) error { setup(s); return nil }}
			startInMemory(t, spec, &strings.Builder{})
		}()
	}
}

// TestCommonArgShown: a common argument's Show decides how tools/list lists it: left out while
// Show answers nil (a call may give it all the same, and its full Schema still validates), in
// the shown form after RelistTools, which tells a connected session that the list changed and
// changes nothing when nothing changed. Its Instructions join the server's.
func TestCommonArgShown(t *testing.T) {
	var shown atomic.Bool
	var srv *kit.Server
	spec := kit.Spec{Name: "showntest", Port: 9998, Instructions: "Base.", Setup: func(s *kit.Server) error {
		srv = s
		s.AddCommonArg(kit.CommonArg{
			Name:   "profile",
			Schema: &jsonschema.Schema{Type: "string", Pattern: "^[a-z]{1,8}$", Description: "which profile"},
			Show: func() *jsonschema.Schema {
				if !shown.Load() {
					return nil
				}
				return &jsonschema.Schema{Type: "string", Enum: []any{"home", "work"}, Description: "profile"}
			},
			Instructions: "Every tool takes profile.",
			Bind: func(ctx context.Context, v any) (context.Context, error) {
				return context.WithValue(ctx, profileKey{}, v), nil
			},
		})
		kit.AddTool(s, kit.Tool{Name: "bound", Description: "Echo.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, in limitIn) (*mcp.CallToolResult, boundOut, error) {
				p, _ := ctx.Value(profileKey{}).(string)
				return nil, boundOut{Text: in.Text, Profile: p}, nil
			})
		return nil
	}}
	h := mcptest.Start(t, spec)
	changed := make(chan struct{}, 8)
	cs := h.ConnectAs(t, "", "", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	if got := cs.InitializeResult().Instructions; got != "Base. Every tool takes profile." {
		t.Errorf("instructions %q", got)
	}
	schemaOf := func() string {
		b, _ := json.Marshal(mcptest.Tools(t, cs)[0].InputSchema)
		return string(b)
	}
	if got := schemaOf(); strings.Contains(got, "profile") {
		t.Errorf("listed schema %s while Show answers nil", got)
	}
	if got, _ := mcptest.CallFor[boundOut](t, cs, "bound", map[string]any{"text": "x", "profile": "work"}); got.Profile != "work" {
		t.Errorf("a call giving the unlisted argument: %+v", got)
	}
	if msg := mcptest.CallError(t, cs, "bound", map[string]any{"text": "x", "profile": "NOT OK"}); !strings.Contains(msg, "profile") {
		t.Errorf("a profile breaking the full schema: %q", msg)
	}
	if srv.RelistTools() {
		t.Error("RelistTools reported a change with nothing changed")
	}
	shown.Store(true)
	if !srv.RelistTools() {
		t.Error("RelistTools reported no change after Show changed")
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed after RelistTools")
	}
	if got := schemaOf(); !strings.Contains(got, `"profile":{"description":"profile","enum":["home","work"],"type":"string"}`) {
		t.Errorf("listed schema %s, want the shown form of profile", got)
	}
}

// TestRelistSwitchedOff: a tool a run-time switch has taken out of the list stays out when the
// tools are listed again, and comes back in its new form when switched on.
func TestRelistSwitchedOff(t *testing.T) {
	var shown atomic.Bool
	spec := kit.Spec{Name: "relisttest", Port: 9998, Setup: func(s *kit.Server) error {
		s.AddCommonArg(kit.CommonArg{
			Name:   "profile",
			Schema: &jsonschema.Schema{Type: "string", Description: "which profile"},
			Show: func() *jsonschema.Schema {
				if !shown.Load() {
					return nil
				}
				return &jsonschema.Schema{Type: "string", Description: "profile"}
			},
			Bind: func(ctx context.Context, _ any) (context.Context, error) { return ctx, nil },
		})
		for _, name := range []string{"kept", "switched"} {
			kit.AddTool(s, kit.Tool{Name: name, Description: "Echo.", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, limitIn) (*mcp.CallToolResult, boundOut, error) {
					return nil, boundOut{}, nil
				})
		}
		return nil
	}}
	h := mcptest.Start(t, spec, "--state-dir", t.TempDir())
	cs := h.Connect(t, "")
	listing := func() map[string]string {
		out := map[string]string{}
		for _, tl := range mcptest.Tools(t, cs) {
			b, _ := json.Marshal(tl.InputSchema)
			out[tl.Name] = string(b)
		}
		return out
	}
	if _, err := h.Server.SetSwitches(switches.State{Format: switches.Format, Version: 1, Tools: []string{"switched"}}); err != nil {
		t.Fatal(err)
	}
	shown.Store(true)
	if !h.Server.RelistTools() {
		t.Fatal("RelistTools reported no change")
	}
	got := listing()
	if _, ok := got["switched"]; ok || !strings.Contains(got["kept"], `"profile"`) {
		t.Errorf("listed again while switched off: %v", got)
	}
	if _, err := h.Server.SetSwitches(switches.State{Format: switches.Format, Version: 2}); err != nil {
		t.Fatal(err)
	}
	if got := listing(); !strings.Contains(got["switched"], `"profile"`) {
		t.Errorf("switched on again: %v", got)
	}
}
