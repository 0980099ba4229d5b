package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// optionalSpec is toolsetSpec with its trouble toolset off by default.
func optionalSpec() kit.Spec {
	spec := toolsetSpec()
	spec.Toolsets[2].Optional = true
	spec.Toolsets[2].Instructions = "Trouble ahead."
	return spec
}

// TestOptionalToolsets: a toolset off by default is offered only when --toolsets names it (or
// all, or --tools one of its tools); "default" is every other toolset, in the flags and the
// narrowing header; a call to one of its tools says how to offer it.
func TestOptionalToolsets(t *testing.T) {
	tests := []struct {
		name         string
		args         []string
		header       http.Header
		want         []string
		instructions string
	}{
		{"no flags leave it out", nil, nil, []string{"echo", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"default and it", []string{"--toolsets", "default,trouble"}, nil, []string{"boom", "echo", "stuck", "write_thing"}, "Base. Echo echoes. Changes stick. Trouble ahead."},
		{"default alone", []string{"--toolsets", "default"}, nil, []string{"echo", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"all", []string{"--toolsets", "all"}, nil, []string{"boom", "echo", "stuck", "write_thing"}, "Base. Echo echoes. Changes stick. Trouble ahead."},
		{"by name alone", []string{"--toolsets", "trouble"}, nil, []string{"boom", "stuck"}, "Base. Trouble ahead."},
		{"one of its tools", []string{"--tools", "boom"}, nil, []string{"boom"}, "Base. Trouble ahead."},
		{"header default narrows it away", []string{"--toolsets", "all"}, http.Header{"X-Mcp-Toolsets": {"default"}}, []string{"echo", "write_thing"}, "Base. Echo echoes. Changes stick."},
		{"header names it", []string{"--toolsets", "all"}, http.Header{"X-Mcp-Toolsets": {"talk,trouble"}}, []string{"boom", "echo", "stuck"}, "Base. Echo echoes. Trouble ahead."},
		{"a header never widens", nil, http.Header{"X-Mcp-Toolsets": {"trouble"}}, nil, "Base."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := mcptest.Start(t, optionalSpec(), tt.args...).TryConnectTo(t.Context(), "/mcp", "", tt.header)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := listNames(t, cs); !slices.Equal(got, tt.want) {
				t.Errorf("tools %v, want %v", got, tt.want)
			}
			if got := cs.InitializeResult().Instructions; got != tt.instructions {
				t.Errorf("instructions %q, want %q", got, tt.instructions)
			}
		})
	}
	cs := mcptest.Start(t, optionalSpec()).Connect(t, "")
	if msg := mcptest.CallError(t, cs, "boom", nil); msg != "boom is in the trouble toolset, which is off by default: the server offers it when started with --toolsets default,trouble" {
		t.Errorf("call to a tool off by default: %s", msg)
	}
	var out, errs bytes.Buffer
	if code := kit.Run(context.Background(), optionalSpec(), []string{"--list-toolsets"}, func(string) string { return "" }, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var sets []kit.ToolsetInfo
	if err := json.Unmarshal(out.Bytes(), &sets); err != nil || len(sets) != 3 || sets[0].Optional || !sets[2].Optional || !slices.Equal(sets[2].Tools, []string{"boom", "stuck"}) {
		t.Errorf("--list-toolsets %s (%v)", out.String(), err)
	}
	spec := optionalSpec()
	spec.Toolsets[0].ID = "default"
	errs.Reset()
	if code := kit.Run(context.Background(), spec, []string{"--list-tools"}, func(string) string { return "" }, &out, &errs); code == 0 || !strings.Contains(errs.String(), `not "all" or "default"`) {
		t.Errorf("a toolset named default: exit %d, %s", code, errs.String())
	}
}
