package kit

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit/envelope"
	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadOnlyCallerInMCPLayer: whatever gets past the HTTP layer's scope check, the MCP layer
// itself lists and runs only the read-only tools for a request whose view (its token lacks the
// write scope) allows only those.
func TestReadOnlyCallerInMCPLayer(t *testing.T) {
	cfg, err := config.Parse("scopes", 9999, nil, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	type empty struct{}
	s, err := New(Spec{Name: "scopes", Port: 9999, Setup: func(s *Server) error {
		AddTool(s, Tool{Name: "look", Description: "Look.", ReadOnly: true}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, nil
		})
		AddTool(s, Tool{Name: "change", Description: "Change."}, func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
			return nil, empty{}, nil
		})
		return nil
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reached := false
	next := func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		reached = true
		if method == "tools/list" {
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "change"}, {Name: "look"}}}, nil
		}
		return &mcp.CallToolResult{}, nil
	}
	mw := s.toolMiddleware(s.viewMiddleware(next))
	for _, tc := range []struct {
		write bool
		list  string
		call  bool // change runs
	}{{false, "look", false}, {true, "change look", true}} {
		ctx := withRouted(t.Context(), &routed{env: &envelope.Envelope{}, view: s.inv.View(inventory.Narrowing{}, inventory.Scope{ReadOnly: !tc.write})})
		res, err := mw(ctx, "tools/list", &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.(*mcp.ListToolsResult).Tools {
			names = append(names, tool.Name)
		}
		if got := strings.Join(names, " "); got != tc.list {
			t.Errorf("write=%v: tools/list %q, want %q", tc.write, got, tc.list)
		}
		reached = false
		res, err = mw(ctx, "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "change"}})
		if err != nil {
			t.Fatal(err)
		}
		if reached != tc.call || res.(*mcp.CallToolResult).IsError == tc.call {
			t.Errorf("write=%v: change reached the handler %v, result %+v", tc.write, reached, res)
		}
	}
}
