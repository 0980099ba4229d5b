package kit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkViewChoice measures the two ways the go-sdk leaves to narrow what one request sees,
// on a server of 25 tools narrowed to 8 (one toolset), with tools/list and tools/call:
//   - "context": one server for every request; the route puts the request's view in its
//     context and a receiving middleware filters tools/list and refuses calls outside it (what
//     the kit does);
//   - "server per request": NewStreamableHTTPHandler's getServer builds a server holding only
//     the request's tools, every time it is called (twice per stateless request in v1.8.0).
//
// The kit chose the context: see docs/writing-a-server.md ("Inside the kit").
func BenchmarkViewChoice(b *testing.B) {
	const total, kept = 25, 8
	type toolDef struct {
		tool    *mcp.Tool
		handler mcp.ToolHandler
	}
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"query": {Type: "string", Description: "what to look for"}, "limit": {Type: "integer", Description: "how many"},
		"folder": {Type: "string", Description: "where"}, "after": {Type: "string", Description: "a date"},
	}, Required: []string{"query"}}
	var defs []toolDef
	for i := range total {
		defs = append(defs, toolDef{
			tool: &mcp.Tool{Name: fmt.Sprintf("tool_%02d", i), Description: "A tool of the benchmark that does one thing well.", InputSchema: schema},
			handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			},
		})
	}
	allowed := func(name string) bool { return name < fmt.Sprintf("tool_%02d", kept) }
	type viewKey struct{}
	opts := &mcp.StreamableHTTPOptions{Stateless: true, DisableLocalhostProtection: true}

	shared := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	for _, d := range defs {
		shared.AddTool(d.tool, d.handler)
	}
	shared.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			keep, _ := ctx.Value(viewKey{}).(func(string) bool)
			switch r := req.(type) {
			case *mcp.CallToolRequest:
				if keep != nil && !keep(r.Params.Name) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"}
				}
			case *mcp.ListToolsRequest:
				res, err := next(ctx, method, req)
				if list, ok := res.(*mcp.ListToolsResult); ok && keep != nil {
					cp := *list
					cp.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !keep(t.Name) })
					return &cp, err
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	})
	byContext := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return shared }, opts)
	withView := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		byContext.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viewKey{}, allowed)))
	})
	perRequest := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		for _, d := range defs {
			if allowed(d.tool.Name) {
				s.AddTool(d.tool, d.handler)
			}
		}
		return s
	}, opts)

	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_03","arguments":{"query":"q"}}}`
	for _, h := range []struct {
		name    string
		handler http.Handler
	}{{"context", withView}, {"server per request", perRequest}} {
		for _, m := range []struct{ name, body, want string }{{"tools/list", list, `"tool_07"`}, {"tools/call", call, `"done"`}} {
			b.Run(h.name+"/"+m.name, func(b *testing.B) {
				serve := func() string {
					req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(m.body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
					rec := httptest.NewRecorder()
					h.handler.ServeHTTP(rec, req)
					return rec.Body.String()
				}
				if out := serve(); !strings.Contains(out, m.want) || strings.Contains(out, `"tool_08"`) {
					b.Fatalf("unexpected answer: %s", out)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					serve()
				}
			})
		}
	}
}
