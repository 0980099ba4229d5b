package kit_test

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCallToolLeftOut(t *testing.T) {
	tests := []struct {
		name string
		args []string
		tool string
		want string
	}{
		{"read-only", []string{"--read-only"}, "write_thing", "write_thing changes something, and this server runs with --read-only"},
		{"disabled", []string{"--disable-tools", "echo"}, "echo", "echo is turned off on this server (--disable-tools)"},
		{"disabled and read-only", []string{"--read-only", "--disable-tools", "write_thing"}, "write_thing", "write_thing is turned off on this server (--disable-tools)"},
		{"not enabled", []string{"--enable-tools", "echo"}, "boom", "boom is not among the tools this server offers (--toolsets, --tools)"},
		{"not enabled, read-only", []string{"--read-only", "--enable-tools", "echo"}, "write_thing", "write_thing is not among the tools this server offers (--toolsets, --tools)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, testSpec(nil), tt.args...)
			cs := h.Connect(t, "")
			if msg := mcptest.CallError(t, cs, tt.tool, map[string]any{}); !strings.HasPrefix(msg, tt.want) {
				t.Errorf("%s: %q, want it to start %q", tt.tool, msg, tt.want)
			}
			// A name the server never had stays a protocol error.
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), `unknown tool "no_such_tool"`) {
				t.Errorf("unknown tool: %v, want the protocol error", err)
			}
			if logs := h.Logs(); !strings.Contains(logs, `"tool":"`+tt.tool+`"`) || !strings.Contains(logs, `"code":"not_offered"`) {
				t.Errorf("the refusal is not logged with code not_offered:\n%s", logs)
			}
		})
	}
}

func TestCheckReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, func() kit.Spec { return testSpec(nil) })
}
