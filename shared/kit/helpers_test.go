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
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

type echoOut struct {
	Echo   string `json:"echo"`
	Caller string `json:"caller"`
}

func (o echoOut) Text() string { return "echo: " + o.Echo }

type empty struct{}

// testSpec is a small server with one tool of each behaviour the kit must handle.
func testSpec(checks map[string]health.Result) kit.Spec { return testSpecIn(checks, nil) }

// testSpecIn is testSpec with its tools in the toolsets of sets (none for a tool not in it).
func testSpecIn(checks map[string]health.Result, sets map[string]kit.ToolsetID) kit.Spec {
	return kit.Spec{
		Name: "kittest",
		Port: 9999,
		Setup: func(s *kit.Server) error {
			kit.AddTool(s, kit.Tool{Name: "echo", Toolset: sets["echo"], Description: "Echo the text back.", ReadOnly: true},
				func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
					if in.Text == "" {
						return nil, echoOut{}, kit.Errorf(kit.CodeInvalidInput, "text is empty: give some text to echo")
					}
					return nil, echoOut{Echo: in.Text, Caller: kit.Caller(ctx)}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "write_thing", Toolset: sets["write_thing"], Description: "Change something.", Destructive: true},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					return nil, empty{}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "boom", Toolset: sets["boom"], Description: "Panic.", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					panic("kaboom")
				})
			kit.AddTool(s, kit.Tool{Name: "stuck", Toolset: sets["stuck"], Description: "Ignore the deadline.", ReadOnly: true, Timeout: 300 * time.Millisecond},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					time.Sleep(3 * time.Second)
					return nil, empty{}, nil
				})
			for name, res := range checks {
				s.AddHealthCheck(name, func(context.Context) health.Result { return res })
			}
			return nil
		},
	}
}

func writeTokens(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	body := "# callers\nlaptop:0123456789abcdef0123456789abcdef\nbackend:fedcba9876543210fedcba9876543210\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// post sends a JSON-RPC body with the given headers and returns the status, headers and body.
func post(t *testing.T, url string, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	return send(t, http.MethodPost, url, body, headers)
}

// send makes one request; a "Host" entry in headers sets the Host header.
func send(t *testing.T, method, url, body string, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// get sends a GET with headers (Host sets the Host header) and returns the status and body.
func get(t *testing.T, url string, headers map[string]string) (int, string) {
	t.Helper()
	code, _, body := send(t, http.MethodGet, url, "", headers)
	return code, body
}

// getMetrics is the server's /metrics page, asked for from loopback without a socket.
func getMetrics(t *testing.T, srv *kit.Server) string {
	t.Helper()
	h, err := srv.Handler()
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9997/metrics", nil)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:9997"))))
	req.RemoteAddr = "127.0.0.1:40000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// startInMemory builds the spec's server and connects a go-sdk client to it over in-memory
// transports, for tests in a synctest bubble (which cannot wait on real sockets).
func startInMemory(t *testing.T, spec kit.Spec, logs io.Writer) (*kit.Server, *mcp.ClientSession) {
	t.Helper()
	cfg, err := config.Parse(spec.Name, spec.Port, nil, func(string) string { return "" }, logs, spec.Flags)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := kit.New(spec, cfg, logs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kit-test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return srv, cs
}
