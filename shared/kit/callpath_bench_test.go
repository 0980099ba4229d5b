package kit_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callPathIn is the calculator's evaluate arguments: a required string, an optional number
// with a default, an optional flag.
type callPathIn struct {
	Expression string `json:"expression" jsonschema:"the expression" schema:"minLength=1,maxLength=4096"`
	Precision  int    `json:"precision,omitempty" jsonschema:"significant digits" schema:"minimum=1,maximum=1000,default=34"`
	Degrees    bool   `json:"degrees,omitempty" jsonschema:"trig in degrees"`
}

type callPathOut struct {
	Result string `json:"result"`
	Digits int    `json:"digits"`
}

// BenchmarkCallPath is one tools/call through the kit's whole HTTP surface in-process, without a
// socket: body limit, Host check, the gate, the envelope, the go-sdk's stateless handler, the
// view, the call wrapper, argument decoding and the output. allocs/op counts every allocation
// of the call on both sides of the go-sdk; the kit's share is what changes between versions.
// Each credential scheme is one sub-benchmark: none (a local request), a static token, and a
// read-only OAuth token (whose scope check reads the called tool from the body).
func BenchmarkCallPath(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"evaluate","arguments":{"expression":"2+3*4","precision":10}}}`
	tokens := filepath.Join(b.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("bench:0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	is := issuertest.Start(b)
	oauthToken := is.Mint(b, issuertest.Token{Audience: "https://bench.example.com/mcp", Scope: "bench:read"})
	for _, tc := range []struct {
		name   string
		args   []string
		bearer string
	}{
		{"local", nil, ""},
		{"static token", []string{"--auth-tokens-file", tokens}, "0123456789abcdef0123456789abcdef"},
		{"read-only OAuth token", []string{"--oauth-issuer", is.URL, "--public-url", "https://bench.example.com"}, oauthToken},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := callPathHandler(b, tc.args)
			serve := func() string {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9996/mcp", strings.NewReader(body))
				req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:9996"))))
				req.RemoteAddr = "127.0.0.1:40000"
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				if tc.bearer != "" {
					req.Header.Set("Authorization", "Bearer "+tc.bearer)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec.Body.String()
			}
			if out := serve(); !strings.Contains(out, `"result":"14"`) {
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

// callPathHandler is the HTTP surface of a server with evaluate's shape, started with args.
func callPathHandler(b *testing.B, args []string) http.Handler {
	b.Helper()
	spec := kit.Spec{Name: "bench", Port: 9996, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "evaluate", Description: "Evaluate.", ReadOnly: true},
			func(_ context.Context, _ *mcp.CallToolRequest, in callPathIn) (*mcp.CallToolResult, callPathOut, error) {
				if in.Expression != "2+3*4" || in.Precision != 10 {
					b.Errorf("arguments %+v", in)
				}
				return nil, callPathOut{Result: "14", Digits: in.Precision}, nil
			})
		return nil
	}}
	cfg, err := config.Parse(spec.Name, spec.Port, args, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := kit.New(spec, cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	h, err := s.Handler()
	if err != nil {
		b.Fatal(err)
	}
	return h
}
