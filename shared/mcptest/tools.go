package mcptest

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tools lists every tool the session's server offers, following pages, and fails the test on
// an error.
func Tools(t testing.TB, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		tools = append(tools, tool)
	}
	return tools
}

// CheckReadOnly serves spec twice with args, as given and with --read-only added, and fails
// the test unless the read-only server offers exactly the tools the full one annotates
// readOnlyHint, none of them destructive, and refuses a call to every other tool with a tool
// error that names the tool and --read-only. A server without a tool that changes something
// fails too: its --read-only test would prove nothing. spec is called once per server, so
// that no flag value is shared between the two.
func CheckReadOnly(t *testing.T, spec func() kit.Spec, args ...string) {
	t.Helper()
	all := Tools(t, Start(t, spec(), args...).Connect(t, ""))
	var reads, writes []string
	for _, tool := range all {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			reads = append(reads, tool.Name)
		} else {
			writes = append(writes, tool.Name)
		}
	}
	if len(writes) == 0 {
		t.Fatalf("every one of the %d tools is read-only: --read-only has nothing to leave out", len(all))
	}

	cs := Start(t, spec(), append(slices.Clone(args), "--read-only")...).Connect(t, "")
	var offered []string
	for _, tool := range Tools(t, cs) {
		offered = append(offered, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || (a.DestructiveHint != nil && *a.DestructiveHint) {
			t.Errorf("--read-only offers %s with annotations %+v: want readOnlyHint and not destructive", tool.Name, a)
		}
	}
	slices.Sort(reads)
	slices.Sort(offered)
	if !slices.Equal(offered, reads) {
		t.Errorf("--read-only offers %v\nwant exactly the readOnlyHint tools %v", offered, reads)
	}
	for _, name := range writes {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Errorf("--read-only: calling %s: protocol error %v, want a tool error that says --read-only refuses it", name, err)
			continue
		}
		if msg := Text(res); !res.IsError || !strings.Contains(msg, name) || !strings.Contains(msg, "--read-only") {
			t.Errorf("--read-only: calling %s answered (error %v) %q, want a tool error naming %s and --read-only", name, res.IsError, msg, name)
		}
	}
}
