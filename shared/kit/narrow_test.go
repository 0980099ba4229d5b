package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsetSpec is testSpec with an inventory: talk (echo), change (write_thing), trouble (boom, stuck).
func toolsetSpec() kit.Spec {
	spec := testSpecIn(nil, map[string]kit.ToolsetID{"echo": "talk", "write_thing": "change", "boom": "trouble", "stuck": "trouble"})
	spec.Instructions = "Base."
	spec.Toolsets = []kit.Toolset{
		{ID: "talk", Description: "Echo text.", Instructions: "Echo echoes."},
		{ID: "change", Description: "Change things.", Instructions: "Changes stick."},
		{ID: "trouble", Description: "Misbehave."},
	}
	return spec
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestListToolsets(t *testing.T) {
	var out, errs bytes.Buffer
	if code := kit.Run(context.Background(), toolsetSpec(), []string{"--list-toolsets"}, func(string) string { return "" }, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var got []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Tools       []string `json:"tools"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got) != 3 || got[0].Name != "talk" || got[0].Description != "Echo text." || !slices.Equal(got[2].Tools, []string{"boom", "stuck"}) {
		t.Errorf("--list-toolsets = %+v", got)
	}
}

func TestToolsetFlags(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		want         []string
		instructions string
	}{
		{"no flags offers everything", nil, []string{"boom", "echo", "stuck", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"one toolset", []string{"--toolsets", "talk"}, []string{"echo"}, "Base. Echo echoes."},
		{"all", []string{"--toolsets", "all"}, []string{"boom", "echo", "stuck", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"toolset and a tool", []string{"--toolsets", "change", "--tools", "boom"}, []string{"boom", "write_thing"}, "Base. Changes stick."},
		{"tools alone", []string{"--tools", "echo,stuck"}, []string{"echo", "stuck"}, "Base. Echo echoes."},
		{"deprecated enable-tools", []string{"--enable-tools", "echo"}, []string{"echo"}, "Base. Echo echoes."},
		{"deprecated disable-tools", []string{"--disable-tools", "boom"}, []string{"echo", "stuck", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"read-only", []string{"--read-only", "--toolsets", "talk,change"}, []string{"echo"}, "Base. Echo echoes."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := mcptest.Start(t, toolsetSpec(), tt.args...).Connect(t, "")
			if got := listNames(t, cs); !slices.Equal(got, tt.want) {
				t.Errorf("tools %v, want %v", got, tt.want)
			}
			if got := cs.InitializeResult().Instructions; got != tt.instructions {
				t.Errorf("instructions %q, want %q", got, tt.instructions)
			}
		})
	}
}

func TestToolsetFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--toolsets", "tlak"}, `unknown toolset "tlak" in --toolsets; kittest has: talk, change, trouble`},
		{[]string{"--tools", "ecko"}, `unknown tool "ecko" in --tools/--disable-tools`},
		{[]string{"--enable-tools", "echo"}, "--enable-tools is deprecated: use --tools"},
	}
	for _, tt := range tests {
		var out, errs bytes.Buffer
		kit.Run(context.Background(), toolsetSpec(), append(tt.args, "--list-tools"), func(string) string { return "" }, &out, &errs)
		if !strings.Contains(errs.String(), tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, errs.String(), tt.want)
		}
	}
	spec := toolsetSpec()
	spec.Toolsets = spec.Toolsets[:2] // boom and stuck name a toolset the spec does not declare
	var out, errs bytes.Buffer
	if code := kit.Run(context.Background(), spec, []string{"--list-tools"}, func(string) string { return "" }, &out, &errs); code != 1 || !strings.Contains(errs.String(), `tool "boom" names toolset "trouble", which kittest does not declare`) {
		t.Errorf("a tool in an undeclared toolset: exit %d, %s", code, errs.String())
	}
	spec = toolsetSpec()
	inner := spec.Setup
	spec.Setup = func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "loose", Description: "In no toolset.", ReadOnly: true}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, nil
		})
		return inner(s)
	}
	errs.Reset()
	if code := kit.Run(context.Background(), spec, []string{"--list-tools"}, func(string) string { return "" }, &out, &errs); code != 1 || !strings.Contains(errs.String(), `tool "loose" names no toolset: give its kit.Tool a Toolset, one of kittest's: talk, change, trouble`) {
		t.Errorf("a tool without a toolset: exit %d, %s", code, errs.String())
	}
}

// TestNarrowing: headers and paths narrow tools/list and tools/call for one request, never past
// the flags or a read-only token, and a call outside them is an unknown tool.
func TestNarrowing(t *testing.T) {
	tokens := writeTokens(t)
	tests := []struct {
		name   string
		flags  []string
		path   string
		header http.Header
		want   []string
	}{
		{"no narrowing", nil, "/mcp", nil, []string{"boom", "echo", "stuck", "write_thing"}},
		{"toolsets header", nil, "/mcp", http.Header{"X-Mcp-Toolsets": {"talk, change"}}, []string{"echo", "write_thing"}},
		{"tools header", nil, "/mcp", http.Header{"X-Mcp-Tools": {"boom"}}, []string{"boom"}},
		{"both headers narrow together", nil, "/mcp", http.Header{"X-Mcp-Toolsets": {"talk,trouble"}, "X-Mcp-Tools": {"boom,echo,write_thing"}}, []string{"boom", "echo"}},
		{"repeated toolsets headers intersect", nil, "/mcp", http.Header{"X-Mcp-Toolsets": {"talk,change", "change,trouble"}}, []string{"write_thing"}},
		{"repeated tools headers intersect", nil, "/mcp", http.Header{"X-Mcp-Tools": {"echo,boom,write_thing", "boom,write_thing", "write_thing,stuck"}}, []string{"write_thing"}},
		{"read-only when any readonly header is true", nil, "/mcp", http.Header{"X-Mcp-Readonly": {"false", "true"}}, []string{"boom", "echo", "stuck"}},
		{"readonly header", nil, "/mcp", http.Header{"X-Mcp-Readonly": {"true"}}, []string{"boom", "echo", "stuck"}},
		{"readonly header off", nil, "/mcp", http.Header{"X-Mcp-Readonly": {"off"}}, []string{"boom", "echo", "stuck", "write_thing"}},
		{"never past the flags", []string{"--toolsets", "talk"}, "/mcp", http.Header{"X-Mcp-Toolsets": {"change"}}, nil},
		{"path toolset", nil, "/mcp/x/change", nil, []string{"write_thing"}},
		{"path toolset read-only", nil, "/mcp/x/trouble/readonly", nil, []string{"boom", "stuck"}},
		{"path read-only", nil, "/mcp/readonly", nil, []string{"boom", "echo", "stuck"}},
		{"path all", nil, "/mcp/x/all", nil, []string{"boom", "echo", "stuck", "write_thing"}},
		{"path and header narrow together", nil, "/mcp/x/trouble", http.Header{"X-Mcp-Tools": {"echo,boom"}}, []string{"boom"}},
		{"with a bearer token", []string{"--auth-tokens-file", tokens}, "/mcp/x/talk", nil, []string{"echo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, toolsetSpec(), tt.flags...)
			token := ""
			if slices.Contains(tt.flags, "--auth-tokens-file") {
				token = "0123456789abcdef0123456789abcdef"
				if _, err := h.TryConnectTo(t.Context(), tt.path, "", tt.header); err == nil {
					t.Error("a narrowed URL answered without a token")
				}
			}
			cs, err := h.TryConnectTo(t.Context(), tt.path, token, tt.header)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			got := listNames(t, cs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("tools %v, want %v", got, tt.want)
			}
			for _, name := range []string{"echo", "write_thing"} {
				if slices.Contains(got, name) {
					continue
				}
				_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}})
				if tt.flags == nil && (err == nil || !strings.Contains(err.Error(), `unknown tool "`+name+`"`)) {
					t.Errorf("call %s outside the narrowing: %v, want unknown tool", name, err)
				}
			}
			if has, says := slices.Contains(got, "write_thing"), strings.Contains(cs.InitializeResult().Instructions, "Changes stick."); has != says {
				t.Errorf("instructions %q do not follow the tools offered", cs.InitializeResult().Instructions)
			}
			if slices.Contains(got, "echo") {
				if res := mcptest.Call(t, cs, "echo", map[string]any{"text": "hi"}); res.IsError {
					t.Errorf("echo failed: %+v", res.Content)
				}
			}
		})
	}
}

func TestNarrowingRefusesUnknownNames(t *testing.T) {
	h := mcptest.Start(t, toolsetSpec())
	for _, hdr := range []http.Header{{"X-Mcp-Toolsets": {"tlak"}}, {"X-Mcp-Tools": {"ecko"}}} {
		_, err := h.TryConnectTo(t.Context(), "/mcp", "", hdr)
		if err == nil || !strings.Contains(err.Error(), "Bad Request") {
			t.Errorf("%v: %v, want 400", hdr, err)
		}
	}
	resp, err := http.Post(h.URL+"/mcp/x/nope", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "/mcp/x/TOOLSET and /mcp/x/TOOLSET/readonly, TOOLSET one of talk, change, trouble, all") {
		t.Errorf("/mcp/x/nope: %d %s, want 404 listing the toolsets", resp.StatusCode, body)
	}
}

// TestSharedArgs: an argument the spec explains once is listed with its short description and
// explained in full in the instructions; one without a short description, whose name is not
// self-explaining, fails the server's setup.
func TestSharedArgs(t *testing.T) {
	spec := toolsetSpec()
	spec.SharedArgs = []kit.SharedArg{{Name: "text", Meaning: "what to echo", Short: "words"}}
	cs := mcptest.Start(t, spec, "--toolsets", "talk").Connect(t, "")
	if got := cs.InitializeResult().Instructions; got != "Base. Arguments several tools take: text: what to echo. Echo echoes." {
		t.Errorf("instructions %q", got)
	}
	b, err := json.Marshal(mcptest.Tools(t, cs)[0].InputSchema)
	if err != nil || !strings.Contains(string(b), `"text":{"description":"words","type":"string"}`) {
		t.Errorf("echo's schema %s: want text with its short description", b)
	}

	spec.SharedArgs[0].Short = ""
	cfg, err := config.Parse(spec.Name, spec.Port, nil, func(string) string { return "" }, io.Discard, spec.Flags)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kit.New(spec, cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "tool echo lists text without a description") {
		t.Errorf("New with a shared argument without Short: %v", err)
	}
}
