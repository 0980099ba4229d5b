package mcptest

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stateless is the protocol version of per-request state (no initialize, input requests in
// results), which the go-sdk client speaks with a stateless server unless told otherwise.
const Stateless = "2026-07-28"

// ConnectAs connects a go-sdk client with opts (handlers for elicitation, progress …) to /mcp
// at protocol version ("" lets the client choose: Stateless against the kit's servers),
// sending token as a bearer token when non-empty.
func (h *Harness) ConnectAs(t testing.TB, token, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "0"}, opts)
	httpClient := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	tr := &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", HTTPClient: httpClient, MaxRetries: -1}
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(t.Context(), tr, so)
	if err != nil {
		t.Fatalf("connect at %q: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// newStdioServer builds spec's server with the given flags and --transport stdio, logging to
// logs (nothing when nil), for a test to serve over pipes.
func newStdioServer(t testing.TB, spec kit.Spec, logs io.Writer, args ...string) *kit.Server {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	cfg, err := config.Parse(spec.Name, spec.Port, append([]string{"--transport", "stdio"}, args...), func(string) string { return "" }, logs, spec.Flags)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	s, err := kit.New(spec, cfg, logs)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	return s
}

// StartStdio serves spec with the given flags (and --transport stdio) over in-process pipes,
// as a client that spawns the server would reach it, and connects a go-sdk client with opts.
// The server's logs go to logs when it is not nil.
func StartStdio(t testing.TB, spec kit.Spec, opts *mcp.ClientOptions, logs io.Writer, args ...string) (*kit.Server, *mcp.ClientSession) {
	t.Helper()
	s := newStdioServer(t, spec, logs, args...)
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	s.StartBackground()
	go func() {
		defer close(served)
		_ = s.ServeIO(ctx, toServer, fromServer)
		_ = fromServer.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "0"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		cancel()
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = clientOut.Close()
		cancel()
		<-served
		s.Close()
	})
	return s, cs
}
