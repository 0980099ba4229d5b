package kit

import (
	"context"
	"io"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutputSchemaSharedByType: tools returning the same type share one inferred output schema,
// which tools/list does not carry, and each still validates and returns its own result as
// structured content.
func TestOutputSchemaSharedByType(t *testing.T) {
	cfg, err := config.Parse("outputs", 9999, nil, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	type in struct{}
	type count struct {
		N int `json:"n"`
	}
	type label struct {
		Text string `json:"text"`
	}
	counter := func(n int) func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, count, error) {
		return func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, count, error) {
			return nil, count{n}, nil
		}
	}
	s, err := New(Spec{Name: "outputs", Port: 9999, Setup: func(s *Server) error {
		AddTool(s, Tool{Name: "one", Description: "One."}, counter(1))
		AddTool(s, Tool{Name: "two", Description: "Two."}, counter(2))
		AddTool(s, Tool{Name: "name", Description: "Name."}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, label, error) {
			return nil, label{"x"}, nil
		})
		return nil
	}}, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.outputs) != 2 {
		t.Errorf("%d output schemas inferred for 2 types", len(s.outputs))
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s lists an output schema %v", tool.Name, tool.OutputSchema)
		}
	}
	for tool, want := range map[string]float64{"one": 1, "two": 2} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		if got := res.StructuredContent.(map[string]any)["n"]; got != want {
			t.Errorf("%s returned %v, want %v", tool, got, want)
		}
	}
}
