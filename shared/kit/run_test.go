package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		checks     map[string]health.Result
		wantCode   int
		wantStatus string
	}{
		{"no checks", nil, 200, "ok"},
		{"ok", map[string]health.Result{"google token": {Status: health.OK, Detail: "valid"}}, 200, "ok"},
		{"warn", map[string]health.Result{"google token": {Status: health.Warn, Detail: "expires in 2 days"}}, 200, "degraded"},
		{"fail", map[string]health.Result{"google token": {Status: health.Fail, Detail: "missing: run gmail auth login"}}, 503, "unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, testSpec(tt.checks))
			resp, err := http.Get(h.URL + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var rep health.Report
			if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantCode || rep.Status != tt.wantStatus {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, rep.Status, tt.wantCode, tt.wantStatus)
			}
			if rep.Name != "kittest" || rep.Tools != 4 || rep.Version == "" {
				t.Errorf("report = %+v", rep)
			}
			for name, want := range tt.checks {
				if rep.Checks[name] != want {
					t.Errorf("check %s = %+v, want %+v", name, rep.Checks[name], want)
				}
			}
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tokens := writeTokens(t)
	openTokens := writeTokens(t)
	if err := os.Chmod(openTokens, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		wantOut  string // in stdout or stderr
	}{
		{"version", []string{"--version"}, nil, 0, "kittest "},
		{"help", []string{"--help"}, nil, 0, "MCP_ALLOWED_HOSTS"},
		{"bad port", []string{"--port", "abc"}, nil, 2, "invalid value"},
		{"port out of range", []string{"--port", "70000"}, nil, 2, "must be 1 to 65535"},
		{"bad transport", []string{"--transport", "websocket"}, nil, 2, "use streamable-http or stdio"},
		{"bad log level", []string{"--log-level", "loud"}, nil, 2, "invalid --log-level"},
		{"unknown flag", []string{"--bogus"}, nil, 2, "flag provided but not defined"},
		{"stray argument", []string{"serve"}, nil, 2, "unexpected argument"},
		{"bad env", nil, map[string]string{"MCP_PORT": "x"}, 2, "MCP_PORT"},
		{"bad env bool", nil, map[string]string{"MCP_READ_ONLY": "maybe"}, 2, "MCP_READ_ONLY"},
		{"public without auth", []string{"--host", "0.0.0.0"}, nil, 2, "refusing to serve"},
		{"tunnel host without auth", []string{"--allowed-hosts", "mcp-shell.example.com"}, nil, 2, "refusing to accept Host mcp-shell.example.com (--allowed-hosts) without authentication"},
		{"tunnel host from the environment without auth", nil, map[string]string{"MCP_ALLOWED_HOSTS": "mcp-shell.example.com"}, 2, "or, knowingly, --insecure-no-auth"},
		{"unknown tool", []string{"--disable-tools", "ech"}, nil, 2, `unknown tool "ech"`},
		{"both tool lists", []string{"--disable-tools", "echo", "--enable-tools", "boom"}, nil, 2, "cannot be used together"},
		{"bad origin", []string{"--allowed-origins", "evil.example"}, nil, 2, "invalid --allowed-origins"},
		{"missing tokens file", []string{"--auth-tokens-file", "/nonexistent/tokens", "--port", "1"}, nil, 2, "auth tokens file"},
		{"tokens file readable by others", []string{"--auth-tokens-file", openTokens, "--port", "1"}, nil, 2, "is open to every user (mode 0644): run chmod 600 " + openTokens},
		{"list tools", []string{"--list-tools", "--read-only"}, nil, 0, `"name": "echo"`},
		{"public with tokens is fine for --version", []string{"--host", "0.0.0.0", "--auth-tokens-file", tokens, "--version"}, nil, 0, "kittest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			code := kit.Run(t.Context(), testSpec(nil), tt.args, getenv, &stdout, &stderr)
			all := stdout.String() + stderr.String()
			if code != tt.wantCode || !strings.Contains(all, tt.wantOut) {
				t.Errorf("exit %d, want %d; want %q in output:\n%s", code, tt.wantCode, tt.wantOut, all)
			}
			// A bad flag is said once, with a pointer to --help, not around the whole usage.
			if code == 2 {
				flagErr := tt.name == "bad port" || tt.name == "unknown flag" || tt.name == "bad env"
				if strings.Count(all, tt.wantOut) != 1 || strings.Contains(all, "Usage:") || flagErr && !strings.HasSuffix(all, "Run kittest --help for the flags.\n") {
					t.Errorf("error output is not one message and the --help hint:\n%s", all)
				}
			}
		})
	}
}

// TestServeReadinessAndShutdown runs the whole command: readiness reaches the notify socket,
// SIGTERM (here: ctx cancel) lets an in-flight call finish, and the command exits 0.
func TestServeReadinessAndShutdown(t *testing.T) {
	// Not parallel: it frees a port and binds it again, which another test could take between.
	dir := t.TempDir()
	sock := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	slowSpec := testSpec(nil)
	inner := slowSpec.Setup
	slowSpec.Setup = func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "slow", Description: "Take 500ms.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, echoOut, error) {
				time.Sleep(500 * time.Millisecond)
				return nil, echoOut{Echo: "done"}, nil
			})
		return inner(s)
	}
	ctx, cancel := context.WithCancel(t.Context())
	exit := make(chan int, 1)
	go func() {
		env := map[string]string{"NOTIFY_SOCKET": sock}
		exit <- kit.Run(ctx, slowSpec, []string{"--port", strconv.Itoa(port)}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	buf := make([]byte, 64)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := conn.Read(buf)
	if err != nil || string(buf[:n]) != "READY=1" {
		t.Fatalf("readiness: %q %v", buf[:n], err)
	}

	h := &mcptest.Harness{URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	cs, err := h.TryConnect(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		result <- res
	}()
	time.Sleep(150 * time.Millisecond)
	cancel()
	n, err = conn.Read(buf)
	if err != nil || string(buf[:n]) != "STOPPING=1" {
		t.Fatalf("stopping: %q %v", buf[:n], err)
	}
	if res := <-result; res.IsError {
		t.Fatalf("in-flight call cut by shutdown: %s", mcptest.Text(res))
	}
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit code %d, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after shutdown")
	}
}

// TestBackground checks that background work starts only when serving, ends with the server,
// and is waited for before the other cleanups run.
func TestBackground(t *testing.T) {
	t.Parallel()
	var events []string
	var mu sync.Mutex
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	started := make(chan struct{})
	spec := kit.Spec{Name: "bgtest", Port: 9998, Setup: func(s *kit.Server) error {
		s.OnClose(func() { record("cleanup") })
		s.Background(func(ctx context.Context) {
			record("started")
			close(started)
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond) // Close must wait for this
			record("stopped")
		})
		return nil
	}}
	var stdout bytes.Buffer
	if code := kit.Run(t.Context(), spec, []string{"--list-tools"}, func(string) string { return "" }, &stdout, io.Discard); code != 0 {
		t.Fatalf("--list-tools exit %d", code)
	}
	if len(events) != 1 || events[0] != "cleanup" {
		t.Fatalf("--list-tools ran background work: %v", events)
	}
	events = nil
	h := mcptest.Start(t, spec)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("background work did not start")
	}
	h.Server.Close()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"started", "stopped", "cleanup"}; !slices.Equal(events, want) {
		t.Errorf("events = %v, want %v", events, want)
	}
}
