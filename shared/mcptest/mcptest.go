// Package mcptest starts a server built on the kit over real HTTP on loopback and connects
// go-sdk clients to it, so integration tests exercise the same stack production runs.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolVersion is the protocol today's clients (Claude, the Inspector, conformance) speak.
const ProtocolVersion = "2025-11-25"

// Harness is a running server and its base URL.
type Harness struct {
	URL    string // http://127.0.0.1:PORT
	Server *kit.Server
	logs   *LogBuffer
}

// Start serves spec with the given command-line flags on a loopback port until the test ends.
func Start(t testing.TB, spec kit.Spec, args ...string) *Harness {
	t.Helper()
	logs := &LogBuffer{}
	if !slices.ContainsFunc(args, func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		return strings.HasPrefix(a, "-") && name == "state-dir"
	}) {
		// Without one the server would keep its state (switches, indexes) in a folder every test
		// process shares: one test's switched-off tool would be missing from another's list.
		args = append(slices.Clone(args), "--state-dir", t.TempDir())
	}
	cfg, err := config.Parse(spec.Name, spec.Port, args, func(string) string { return "" }, logs, spec.Flags)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	s, err := kit.New(spec, cfg, logs)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	s.CheckTexts(func(tool string, missing []string, text string) {
		t.Errorf("%s: the text content leaves out next-call fields %v: show them in the output's Text, or list them with why in its Unshown\ntext: %s", tool, missing, clip(text, 600))
	})
	h, err := s.Handler()
	if err != nil {
		t.Fatalf("handler: %v", err)
	}
	ts := httptest.NewServer(h)
	s.StartBackground()
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return &Harness{URL: ts.URL, Server: s, logs: logs}
}

// clip shortens s to about n bytes for a failure message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + " … " + s[len(s)-n/2:]
}

// Logs returns the server's log output so far.
func (h *Harness) Logs() string { return h.logs.String() }

// Connect returns a client session to /mcp that sends token as a bearer token when non-empty.
func (h *Harness) Connect(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := h.TryConnect(t.Context(), token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TryConnect is Connect that returns the error instead of failing the test.
func (h *Harness) TryConnect(ctx context.Context, token string) (*mcp.ClientSession, error) {
	return h.TryConnectTo(ctx, "/mcp", token, nil)
}

// TryConnectTo connects to path (/mcp, or a narrowed URL such as /mcp/x/read) sending token as a
// bearer token when non-empty and header on every request.
func (h *Harness) TryConnectTo(ctx context.Context, path, token string, header http.Header) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "0"}, nil)
	httpClient := &http.Client{Transport: bearer{token: token, header: header, next: http.DefaultTransport}}
	tr := &mcp.StreamableClientTransport{Endpoint: h.URL + path, HTTPClient: httpClient, MaxRetries: -1}
	return client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
}

// Post sends one raw JSON-RPC message to /mcp as a stateless client would and returns the
// response body, failing the test on a transport error or a status other than 200. Benchmarks
// use it to measure the server without the go-sdk client's own cost.
func (h *Harness) Post(tb testing.TB, client *http.Client, body []byte) []byte {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URL+"/mcp", bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST /mcp: status %d: %s", resp.StatusCode, out)
	}
	return out
}

// Call calls a tool and fails the test on a protocol error; tool errors come back in the result.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// CallFor calls a tool that must succeed and decodes its structured output into a T.
func CallFor[T any](t testing.TB, cs *mcp.ClientSession, name string, args any) (T, *mcp.CallToolResult) {
	t.Helper()
	res := Call(t, cs, name, args)
	var out T
	Decode(t, res, &out)
	return out, res
}

// CallError calls a tool that must fail and returns the error text.
func CallError(t testing.TB, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res := Call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want an error: %s", name, args, Text(res))
	}
	return Text(res)
}

// Text joins the text contents of a result.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Decode unmarshals a result's structured content into out and fails the test if it cannot.
func Decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", Text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("marshal structured content: %v", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode structured content %s: %v", b, err)
	}
}

type bearer struct {
	token  string
	header http.Header
	next   http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" || len(b.header) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range b.header {
			r.Header[k] = vs
		}
		if b.token != "" {
			r.Header.Set("Authorization", "Bearer "+b.token)
		}
	}
	return b.next.RoundTrip(r)
}
