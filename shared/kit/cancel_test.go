package kit_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waiter is a server whose wait tool runs until its context ends and reports why it ended.
type waiter struct {
	started chan struct{}
	stopped chan error // kit.StopCause when wait's context ended
}

func newWaiter() *waiter {
	return &waiter{started: make(chan struct{}, 8), stopped: make(chan error, 8)}
}

func (w *waiter) spec() kit.Spec {
	return kit.Spec{Name: "waiter", Port: 9996, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "wait", Description: "Wait until stopped.", Timeout: 30 * time.Second},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, empty, error) {
				w.started <- struct{}{}
				<-ctx.Done()
				w.stopped <- kit.StopCause(ctx)
				return nil, empty{}, ctx.Err()
			})
		return nil
	}}
}

// stoppedBy waits for one call of wait to end and requires cause, within a second.
func (w *waiter) stoppedBy(t *testing.T, cause error) {
	t.Helper()
	select {
	case got := <-w.stopped:
		if !errors.Is(got, cause) {
			t.Errorf("the call stopped because %v, want %v", got, cause)
		}
	case <-time.After(time.Second):
		t.Fatalf("the call did not stop within a second (want %v)", cause)
	}
}

func (w *waiter) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-w.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
}

// Raw tools/call bodies of both protocol eras.
const (
	call2025 = `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"wait","arguments":{}}}`
	call2026 = `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

// open POSTs body to url and returns once the response headers are in, with the func that
// closes the request (as a client that goes away or cancels does).
func open(t *testing.T, url, version, body, token string) (closeIt func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if version >= mcptest.Stateless {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "wait")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return func() { cancel(); <-done }
}

// TestClientGoneCancels: a client that closes its request (how a 2026-07-28 client cancels,
// and what a client that went away looks like) cancels the call, in both protocol eras.
func TestClientGoneCancels(t *testing.T) {
	w := newWaiter()
	h := mcptest.Start(t, w.spec())
	for _, tt := range []struct{ era, version, body string }{
		{"2025-11-25", "2025-11-25", call2025},
		{"2026-07-28", "2026-07-28", call2026},
	} {
		t.Run(tt.era, func(t *testing.T) {
			closeIt := open(t, h.URL, tt.version, strings.Replace(tt.body, "ID", "5", 1), "")
			w.waitStarted(t)
			closeIt()
			w.stoppedBy(t, kit.ErrClientGone)
		})
	}
	if logs := h.Logs(); !strings.Contains(logs, `"code":"cancelled","cause":"the client closed the request"`) {
		t.Errorf("the call's log line does not say it was cancelled and why:\n%s", logs)
	}
}

// TestCancelledNotificationOverHTTP: a 2025-11-25 client that cancels with
// notifications/cancelled (the TypeScript SDK 1.x does, on a POST of its own) stops the call it
// names — its own, and only when the id names exactly one of its calls.
func TestCancelledNotificationOverHTTP(t *testing.T) {
	w := newWaiter()
	h := mcptest.Start(t, w.spec(), "--auth-tokens-file", writeTokens(t))
	const laptop, backend = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	cancelNote := func(token, id string) {
		code, _, body := post(t, h.URL+"/mcp", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"Esc"}}`,
			map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": "2025-11-25"})
		if code != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %d %s", code, body)
		}
	}
	stillRunning := func() {
		t.Helper()
		select {
		case cause := <-w.stopped:
			t.Fatalf("a call stopped (%v); it should still run", cause)
		case <-time.After(300 * time.Millisecond):
		}
	}

	closeIt := open(t, h.URL, "2025-11-25", strings.Replace(call2025, "ID", "7", 1), laptop)
	defer closeIt()
	w.waitStarted(t)
	cancelNote(backend, "7")  // another caller's id 7
	cancelNote(laptop, `"7"`) // a string id is another id
	stillRunning()
	cancelNote(laptop, "7")
	w.stoppedBy(t, kit.ErrCancelled)

	// Two calls of one caller with one id: the id is ambiguous, and neither is stopped.
	close1 := open(t, h.URL, "2025-11-25", strings.Replace(call2025, "ID", "9", 1), laptop)
	close2 := open(t, h.URL, "2025-11-25", strings.Replace(call2025, "ID", "9", 1), laptop)
	w.waitStarted(t)
	w.waitStarted(t)
	cancelNote(laptop, "9")
	stillRunning()
	close1()
	close2()
	w.stoppedBy(t, kit.ErrClientGone)
	w.stoppedBy(t, kit.ErrClientGone)
}

// TestStdioCancelled: over stdio, notifications/cancelled stops the call.
func TestStdioCancelled(t *testing.T) {
	w := newWaiter()
	_, cs := mcptest.StartStdio(t, w.spec(), nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		w.waitStarted(t)
		cancel() // the go-sdk client sends notifications/cancelled
	}()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait"}); err == nil {
		t.Error("the cancelled call returned no error")
	}
	w.stoppedBy(t, kit.ErrCancelled)
}

// TestShutdownCancels: on SIGTERM (the serving context ends) a call that has not finished
// within ShutdownDrain is cancelled, its answer says so, and the server stops soon after.
func TestShutdownCancels(t *testing.T) {
	w := newWaiter()
	spec := w.spec()
	cfg, err := config.Parse(spec.Name, spec.Port, nil, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	logs := &mcptest.LogBuffer{}
	s, err := kit.New(spec, cfg, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, sigterm := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()

	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: mcptest.ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wait"})
		if err != nil {
			t.Errorf("call: %v", err)
		}
		answered <- res
	}()
	w.waitStarted(t)
	start := time.Now()
	sigterm()
	select {
	case cause := <-w.stopped:
		if !errors.Is(cause, kit.ErrShutdown) {
			t.Errorf("stopped because %v, want ErrShutdown", cause)
		}
		if took := time.Since(start); took < kit.ShutdownDrain-100*time.Millisecond || took > kit.ShutdownDrain+time.Second {
			t.Errorf("cancelled %s after SIGTERM, want after the %s drain", took, kit.ShutdownDrain)
		}
	case <-time.After(kit.ShutdownDrain + 2*time.Second):
		t.Fatal("the call was not cancelled at shutdown")
	}
	if res := <-answered; res == nil || !res.IsError || !strings.Contains(mcptest.Text(res), "wait was cancelled before finishing (the server is shutting down)") {
		t.Errorf("answer %+v, want a tool error saying the server is shutting down", res)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the server did not stop")
	}
	if took := time.Since(start); took > kit.ShutdownDrain+2*time.Second {
		t.Errorf("the server took %s to stop, want about the %s drain", took, kit.ShutdownDrain)
	}
}
