package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
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
func testSpec(checks map[string]health.Result) kit.Spec {
	return kit.Spec{
		Name: "kittest",
		Port: 9999,
		Setup: func(s *kit.Server) error {
			kit.AddTool(s, kit.Tool{Name: "echo", Description: "Echo the text back.", ReadOnly: true},
				func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
					if in.Text == "" {
						return nil, echoOut{}, kit.Errorf(kit.CodeInvalidInput, "text is empty: give some text to echo")
					}
					return nil, echoOut{Echo: in.Text, Caller: kit.Caller(ctx)}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "write_thing", Description: "Change something.", Destructive: true},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					return nil, empty{}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "boom", Description: "Panic.", ReadOnly: true},
				func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
					panic("kaboom")
				})
			kit.AddTool(s, kit.Tool{Name: "stuck", Description: "Ignore the deadline.", ReadOnly: true, Timeout: 300 * time.Millisecond},
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

func TestGuards(t *testing.T) {
	t.Parallel()
	tokens := writeTokens(t)
	h := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens, "--allowed-hosts", "mcp-kit.example.com",
		"--allowed-origins", "https://app.example.com", "--max-body-bytes", "4096")
	good := "Bearer 0123456789abcdef0123456789abcdef"
	tests := []struct {
		name    string
		path    string
		body    string
		headers map[string]string
		want    int
	}{
		{"no token", "/mcp", initBody, nil, http.StatusUnauthorized},
		{"wrong token", "/mcp", initBody, map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdee"}, http.StatusUnauthorized},
		{"not bearer", "/mcp", initBody, map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, http.StatusUnauthorized},
		{"right token", "/mcp", initBody, map[string]string{"Authorization": good}, http.StatusOK},
		{"evil host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "evil.example"}, http.StatusForbidden},
		{"evil origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"evil origin without token is still 403", "/mcp", initBody, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"tunnel host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "mcp-kit.example.com"}, http.StatusOK},
		{"tunnel host with https port", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "mcp-kit.example.com:443"}, http.StatusOK},
		{"localhost host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "localhost:9999"}, http.StatusOK},
		{"loopback origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "http://localhost:9999"}, http.StatusOK},
		{"listed origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "https://app.example.com"}, http.StatusOK},
		{"oversized body", "/mcp", strings.Repeat(" ", 5000) + initBody, map[string]string{"Authorization": good}, http.StatusRequestEntityTooLarge},
		{"healthz needs no token", "/healthz", "", nil, http.StatusMethodNotAllowed},
		{"metrics need a token", "/metrics", "", nil, http.StatusUnauthorized},
		{"unknown path", "/nope", "", map[string]string{"Authorization": good}, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := post(t, h.URL+tt.path, tt.body, tt.headers)
			if code != tt.want {
				t.Fatalf("status %d, want %d; body %q", code, tt.want, body)
			}
			if code == http.StatusUnauthorized && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer (got %q)", hdr.Get("WWW-Authenticate"))
			}
		})
	}
	// Every refusal above is counted by its reason; the oversized body is not an auth failure.
	for reason, want := range map[string]uint64{
		guard.ReasonMissingToken: 3, guard.ReasonInvalidToken: 1, guard.ReasonHost: 1, guard.ReasonOrigin: 2, guard.ReasonNotLocal: 0,
	} {
		if got := h.Server.Metrics().Failures(reason); got != want {
			t.Errorf("auth failures %s = %d, want %d", reason, got, want)
		}
	}
}

func TestOversizedChunkedBody(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, testSpec(nil), "--max-body-bytes", "2048")
	// A body without Content-Length is cut off while it is read.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`))
		_ = pw.Close()
	}()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.URL+"/mcp", pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

func TestToolCalls(t *testing.T) {
	tokens := writeTokens(t)
	h := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens)
	cs := h.Connect(t, "fedcba9876543210fedcba9876543210")

	res := mcptest.Call(t, cs, "echo", map[string]any{"text": "hi"})
	var out echoOut
	mcptest.Decode(t, res, &out)
	if out.Echo != "hi" || out.Caller != "backend" {
		t.Errorf("echo = %+v, want hi from backend", out)
	}
	if got := mcptest.Text(res); got != "echo: hi" {
		t.Errorf("text = %q, want the Texter rendering", got)
	}

	res = mcptest.Call(t, cs, "echo", map[string]any{"text": ""})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "text is empty") {
		t.Errorf("empty text: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "echo", map[string]any{"text": 5})
	if !res.IsError {
		t.Errorf("wrong argument type: want a tool error")
	}

	res = mcptest.Call(t, cs, "boom", nil)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "internal error") {
		t.Fatalf("panic: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "echo", map[string]any{"text": "still here"})
	if res.IsError {
		t.Fatalf("server stopped answering after a panic: %s", mcptest.Text(res))
	}

	// An unknown tool is a protocol error, and the server survives it.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: want a protocol error naming it, got %v", err)
	}

	start := time.Now()
	res = mcptest.Call(t, cs, "stuck", nil)
	took := time.Since(start)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "stuck was abandoned after 300ms") {
		t.Fatalf("timeout: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	if took > 2*time.Second {
		t.Errorf("timeout answered after %s, want shortly after 300ms", took)
	}

	logs := h.Logs()
	for _, want := range []string{
		`"tool":"echo","caller":"backend"`, `"outcome":"ok"`, `"code":"invalid_input"`,
		`"code":"invalid_arguments"`, `"code":"internal"`, `"code":"timeout"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "session connected") {
		t.Error("the go-sdk's per-session info lines reach the log; stateless mode would log them on every request")
	}
	if strings.Contains(logs, "0123456789abcdef") || strings.Contains(logs, "fedcba98765") {
		t.Error("a token appears in the logs")
	}

	m := h.Server.Metrics()
	if got := m.Calls("echo", "ok"); got != 2 {
		t.Errorf("echo ok calls = %d, want 2", got)
	}
	if got := m.Calls("stuck", "error"); got != 1 {
		t.Errorf("stuck error calls = %d, want 1", got)
	}
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer fedcba9876543210fedcba9876543210")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`mcp_tool_calls_total{outcome="ok",tool="echo"} 2`,
		`mcp_tool_call_duration_seconds_count{tool="echo"} 4`,
		`mcp_build_info{goversion="go`,
		`server="kittest"`,
		"process_resident_memory_bytes ",
		"go_goroutines ",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

func TestAnnotationsAndReadOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"all", nil, []string{"boom", "echo", "stuck", "write_thing"}},
		{"read-only", []string{"--read-only"}, []string{"boom", "echo", "stuck"}},
		{"enable", []string{"--enable-tools", "echo,write_thing"}, []string{"echo", "write_thing"}},
		{"disable", []string{"--disable-tools", "boom"}, []string{"echo", "stuck", "write_thing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, testSpec(nil), tt.args...)
			cs := h.Connect(t, "")
			var got []string
			for tool, err := range cs.Tools(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tool.Name)
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: annotations incomplete: %+v", tool.Name, a)
				}
				if tool.Name == "write_thing" && (a.ReadOnlyHint || !*a.DestructiveHint) {
					t.Errorf("write_thing annotations = %+v", a)
				}
				if tool.Name == "echo" && (!a.ReadOnlyHint || *a.DestructiveHint || !a.IdempotentHint) {
					t.Errorf("echo annotations = %+v", a)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("tools = %v, want %v", got, tt.want)
			}
			if n := h.Server.Health(t.Context()).Tools; n != len(tt.want) {
				t.Errorf("health tool count = %d, want %d", n, len(tt.want))
			}
		})
	}
}

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

// TestHealthzDisclosure runs /healthz over real HTTP as each kind of caller: only a request
// from this machine (not through a tunnel) or one with a valid token sees the checks.
func TestHealthzDisclosure(t *testing.T) {
	t.Parallel()
	secret := map[string]health.Result{"google token": {Status: health.Warn, Detail: "alice@example.com, scopes gmail.modify, /var/lib/mcp-servers/google/token.json"}}
	summary := []string{"name", "status", "version"}
	full := []string{"checks", "name", "status", "tools", "uptime_seconds", "version"}
	const good, wrong = "Bearer 0123456789abcdef0123456789abcdef", "Bearer 0123456789abcdef0123456789abcdee"
	tunnel := "mcp-kit.example.com"
	tests := []struct {
		name    string
		tokens  bool
		headers map[string]string
		want    []string
	}{
		{"loopback, no token", true, nil, full},
		{"localhost name, no token", true, map[string]string{"Host": "localhost"}, full},
		{"tunnel host, no token", true, map[string]string{"Host": tunnel}, summary},
		{"tunnel with rewritten host", true, map[string]string{"X-Forwarded-Host": tunnel}, summary},
		{"Cf-Connecting-Ip", true, map[string]string{"Cf-Connecting-Ip": "203.0.113.7", "Cf-Ray": "8a1b2c3d4e5f-AMS"}, summary},
		{"X-Forwarded-For", true, map[string]string{"X-Forwarded-For": "203.0.113.7"}, summary},
		{"Forwarded", true, map[string]string{"Forwarded": "for=203.0.113.7;proto=https"}, summary},
		{"tunnel host, valid token", true, map[string]string{"Host": tunnel, "Authorization": good}, full},
		{"forwarded, valid token", true, map[string]string{"Cf-Connecting-Ip": "203.0.113.7", "Authorization": good}, full},
		{"tunnel host, wrong token", true, map[string]string{"Host": tunnel, "Authorization": wrong}, summary},
		{"no tokens configured, loopback", false, nil, full},
		{"no tokens configured, tunnel host", false, map[string]string{"Host": tunnel}, summary},
		{"no tokens configured, tunnel host with a token", false, map[string]string{"Host": tunnel, "Authorization": good}, summary},
	}
	tokens := writeTokens(t)
	withTokens := mcptest.Start(t, testSpec(secret), "--auth-tokens-file", tokens, "--allowed-hosts", tunnel)
	without := mcptest.Start(t, testSpec(secret), "--allowed-hosts", tunnel)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := without
			if tt.tokens {
				h = withTokens
			}
			code, body := get(t, h.URL+"/healthz", tt.headers)
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200 (a wrong token must not turn a probe into a 401); body %s", code, body)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tt.want) {
				t.Errorf("fields = %v, want %v; body %s", keys, tt.want, body)
			}
			if got["status"] != "degraded" || got["name"] != "kittest" || got["version"] == "" {
				t.Errorf("body = %s", body)
			}
			if leaked := strings.Contains(body, "alice@") || strings.Contains(body, "/var/lib"); leaked != slices.Equal(tt.want, full) {
				t.Errorf("check details present = %v: %s", leaked, body)
			}
		})
	}
	t.Run("a failing check is 503 in the summary too", func(t *testing.T) {
		h := mcptest.Start(t, testSpec(map[string]health.Result{"vault": {Status: health.Fail, Detail: "/home/alice/notes missing"}}), "--allowed-hosts", tunnel)
		code, body := get(t, h.URL+"/healthz", map[string]string{"Host": tunnel})
		if code != http.StatusServiceUnavailable || strings.Contains(body, "alice") || !strings.Contains(body, `"status":"unavailable"`) {
			t.Errorf("got %d %s, want 503 with the bare status", code, body)
		}
	})
}

// TestMetricsAccess: /metrics names the tools and versions, so it is not for the tunnel.
func TestMetricsAccess(t *testing.T) {
	t.Parallel()
	tunnel := "mcp-kit.example.com"
	tokens := writeTokens(t)
	withTokens := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens, "--allowed-hosts", tunnel)
	without := mcptest.Start(t, testSpec(nil), "--allowed-hosts", tunnel)
	tests := []struct {
		name    string
		h       *mcptest.Harness
		headers map[string]string
		want    int
	}{
		{"tokens: none sent", withTokens, nil, http.StatusUnauthorized},
		{"tokens: wrong one", withTokens, map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdee"}, http.StatusUnauthorized},
		{"tokens: valid one through the tunnel", withTokens, map[string]string{"Host": tunnel, "Authorization": "Bearer 0123456789abcdef0123456789abcdef"}, http.StatusOK},
		{"no tokens: loopback", without, nil, http.StatusOK},
		{"no tokens: tunnel host", without, map[string]string{"Host": tunnel}, http.StatusForbidden},
		{"no tokens: forwarded", without, map[string]string{"Cf-Connecting-Ip": "203.0.113.7"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, tt.h.URL+"/metrics", tt.headers)
			if code != tt.want {
				t.Fatalf("status %d, want %d; body %s", code, tt.want, body)
			}
			if code != http.StatusOK && strings.Contains(body, "mcp_") {
				t.Errorf("refused, yet the body holds metrics: %s", body)
			}
		})
	}
	for _, c := range []struct {
		h      *mcptest.Harness
		reason string
		want   uint64
	}{
		{withTokens, guard.ReasonMissingToken, 1}, {withTokens, guard.ReasonInvalidToken, 1},
		{without, guard.ReasonNotLocal, 2}, {without, guard.ReasonMissingToken, 0},
	} {
		if got := c.h.Server.Metrics().Failures(c.reason); got != c.want {
			t.Errorf("auth failures %s = %d, want %d", c.reason, got, c.want)
		}
	}
}

// get sends a GET with headers (Host sets the Host header) and returns the status and body.
func get(t *testing.T, url string, headers map[string]string) (int, string) {
	t.Helper()
	code, _, body := send(t, http.MethodGet, url, "", headers)
	return code, body
}

// TestAbandonedCalls: a handler that outlives its timeout is abandoned, not stopped, and the
// answer says so; for a tool that can change things it says to check before retrying. Each
// part runs in a synctest bubble over in-memory transports: the timeouts and the grace are
// fake time.
func TestAbandonedCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool    string
		want    string
		mustNot string
	}{
		{"slow_read", "slow_read was abandoned after 200ms: it did not answer in time and may still complete in the background; ask for less", "changed things"},
		{"slow_send", "slow_send was abandoned after 200ms: it did not answer in time and may still complete in the background — it may still have changed things: check before retrying", "ask for less"},
		{"slow_write", "may still have changed things: check before retrying", "ask for less"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				logs := &mcptest.LogBuffer{}
				srv, cs := startInMemory(t, abandonSpec(release), logs)
				start := time.Now()
				res := mcptest.Call(t, cs, tt.tool, nil)
				text := mcptest.Text(res)
				if !res.IsError || !strings.Contains(text, tt.want) || strings.Contains(text, tt.mustNot) {
					t.Errorf("answer %v %q, want an error with %q", res.IsError, text, tt.want)
				}
				if took := time.Since(start); took < 200*time.Millisecond || took > time.Second {
					t.Errorf("abandoned after %v, want its 200ms timeout and the short grace", took)
				}
				if got := srv.Metrics().Abandoned(tt.tool); got != 1 {
					t.Errorf("abandoned count = %d, want 1", got)
				}
				if got := srv.Metrics().Calls(tt.tool, "error"); got != 1 {
					t.Errorf("error count = %d, want 1", got)
				}
				if body := getMetrics(t, srv); !strings.Contains(body, `mcp_tool_calls_abandoned_total{tool="`+tt.tool+`"} 1`) {
					t.Errorf("/metrics lacks the abandoned count:\n%s", body)
				}
				if !strings.Contains(logs.String(), `"code":"timeout"`) {
					t.Errorf("the log lacks code timeout:\n%s", logs.String())
				}
				close(release)
				synctest.Wait() // the abandoned handler returns and its late finish is logged
				if n := strings.Count(logs.String(), "abandoned tool call finished"); n != 1 {
					t.Errorf("%d late finishes logged, want 1:\n%s", n, logs.String())
				}
			})
		})
	}
	// A tool that honours its context stops at the timeout: not abandoned, and the answer says so.
	synctest.Test(t, func(t *testing.T) {
		srv, cs := startInMemory(t, abandonSpec(nil), &mcptest.LogBuffer{})
		for _, tt := range []struct{ tool, want string }{
			{"stop_read", "stop_read stopped at its 200ms timeout before finishing (listing messages: context deadline exceeded); ask for less"},
			{"stop_send", "stop_send stopped at its 200ms timeout before finishing (listing messages: context deadline exceeded) — it may have done part of its work: check before retrying"},
		} {
			res := mcptest.Call(t, cs, tt.tool, nil)
			if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, tt.want) {
				t.Errorf("%s: %v %q, want %q", tt.tool, res.IsError, text, tt.want)
			}
			if got := srv.Metrics().Abandoned(tt.tool); got != 0 {
				t.Errorf("%s: abandoned count = %d, want 0 (it stopped)", tt.tool, got)
			}
		}
	})
}

// abandonSpec is a server whose slow_* tools ignore their 200ms timeout until release is
// closed and whose stop_* tools stop at it.
func abandonSpec(release chan struct{}) kit.Spec {
	hang := func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
		<-release // ignores its context, as a handler blocked in a syscall would
		return nil, empty{}, nil
	}
	return kit.Spec{Name: "abandon", Port: 9997, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "slow_read", Description: "Read slowly.", ReadOnly: true, Timeout: 200 * time.Millisecond}, hang)
		kit.AddTool(s, kit.Tool{Name: "slow_send", Description: "Send slowly.", Destructive: true, Timeout: 200 * time.Millisecond}, hang)
		kit.AddTool(s, kit.Tool{Name: "slow_write", Description: "Write slowly.", Timeout: 200 * time.Millisecond}, hang)
		honour := func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, empty, error) {
			<-ctx.Done()
			return nil, empty{}, fmt.Errorf("listing messages: %w", ctx.Err())
		}
		kit.AddTool(s, kit.Tool{Name: "stop_read", Description: "Read until told to stop.", ReadOnly: true, Timeout: 200 * time.Millisecond}, honour)
		kit.AddTool(s, kit.Tool{Name: "stop_send", Description: "Send until told to stop.", Destructive: true, Timeout: 200 * time.Millisecond}, honour)
		return nil
	}}
}

// getMetrics is the server's /metrics page, asked for from loopback without a socket.
func getMetrics(t *testing.T, srv *kit.Server) string {
	t.Helper()
	h, err := srv.Handler()
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9997/metrics", nil)
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
