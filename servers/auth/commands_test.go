package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func runCmd(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	var out strings.Builder
	code := run(t.Context(), args, func(k string) string { return env[k] }, &out, &out)
	return code, out.String()
}

// stateDir is a folder holding an (empty) state file, as the server leaves it.
func stateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := openDB(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	return dir
}

func TestFlags(t *testing.T) {
	res := "a=https://a.example.com/mcp"
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		code  int
		words string
	}{
		{"no issuer", nil, []string{"--resources", res}, 2, "--issuer is required"},
		{"http issuer off loopback", nil, []string{"--issuer", "http://auth.example.com", "--resources", res}, 2, "use https"},
		{"an IP address issuer", nil, []string{"--issuer", "http://127.0.0.1:9002", "--resources", res}, 2, "host name"},
		{"issuer with a path", nil, []string{"--issuer", "https://auth.example.com/x", "--resources", res}, 2, "scheme://host"},
		{"no resources", nil, []string{"--issuer", "https://auth.example.com"}, 2, "--resources is required"},
		{"bad registration", nil, []string{"--issuer", "https://auth.example.com", "--resources", res, "--registration", "open"}, 2, "--registration"},
		{"env fallback", map[string]string{"MCP_ISSUER": "https://auth.example.com", "MCP_RESOURCES": res, "MCP_REGISTRATION": "nope"}, nil, 2, "--registration"},
		{"a stray argument", nil, []string{"serve"}, 2, "commands are clients, enroll, grants, keys"},
		{"help", nil, []string{"--help"}, 0, "auth grants list | revoke ID"},
		{"version", nil, []string{"--version"}, 0, "auth "},
		{"command help", nil, []string{"clients", "--help"}, 0, "Usage: auth COMMAND list | revoke ID"},
		{"command usage", map[string]string{"MCP_STATE_DIR": stateDir(t)}, []string{"grants", "delete", "x"}, 2, "usage: auth grants list"},
		{"a folder without state", nil, []string{"enroll", "--state-dir", t.TempDir()}, 1, "no auth.db"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runCmd(t, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.words) {
				t.Errorf("exit %d: %s", code, out)
			}
		})
	}
	// A bad flag is said once with the --help hint, not around the whole usage.
	if code, out := runCmd(t, nil, "--bogus"); code != 2 || out != "auth: flag provided but not defined: -bogus\nRun auth --help for the flags.\n" {
		t.Errorf("--bogus: exit %d: %q", code, out)
	}
}

// TestServe runs the command itself: it serves /healthz with the fleet's JSON contract and
// stops on cancel.
func TestServe(t *testing.T) {
	ln, port := listen(t)
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	var logs syncBuilder
	dir := t.TempDir()
	go func() {
		done <- run(ctx, []string{"--issuer", "http://localhost:" + port, "--resources", "a=http://127.0.0.1:1/mcp", "--port", port,
			"--state-dir", dir}, func(string) string { return "" }, &logs, &logs)
	}()
	var resp *http.Response
	var err error
	for range 100 {
		if resp, err = http.Get("http://127.0.0.1:" + port + "/healthz"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("healthz: %v %s", err, logs.String())
	}
	var body strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	body.Write(buf[:n])
	resp.Body.Close()
	// Not yet enrolled: a warning, still ready.
	if resp.StatusCode != 200 || !strings.Contains(body.String(), `"name":"auth"`) || !strings.Contains(body.String(), `"status":"degraded"`) ||
		!strings.Contains(body.String(), "auth enroll") {
		t.Errorf("healthz %d %s", resp.StatusCode, body.String())
	}
	// The container health check finds the server through MCP_PORT.
	if c, out := runCmd(t, map[string]string{"MCP_PORT": port}, "healthcheck"); c != 0 || !strings.Contains(out, "auth ") || !strings.Contains(out, ": degraded") {
		t.Errorf("healthcheck: exit %d: %q", c, out)
	}
	// Metrics answer this machine.
	mresp, err := http.Get("http://127.0.0.1:" + port + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	n, _ = mresp.Body.Read(buf)
	mresp.Body.Close()
	if mresp.StatusCode != 200 || !strings.Contains(string(buf[:n]), "mcp_build_info") {
		t.Errorf("metrics %d %s", mresp.StatusCode, buf[:n])
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("did not stop")
	}
	// The fleet's start and shutdown lines, without the OAuth library's route noise.
	text := logs.String()
	if !strings.Contains(text, `"msg":"serving"`) || !strings.Contains(text, `"msg":"shutting down","server":"auth","grace":"10s"`) ||
		strings.Contains(text, "registered route") {
		t.Errorf("logs:\n%s", text)
	}
	// enroll names the page at the issuer the server ran with.
	want := "Open http://localhost:" + port + "/enroll in the browser that should hold the passkey"
	if c, out := runCmd(t, nil, "enroll", "--state-dir", dir); c != 0 || !strings.Contains(out, want) {
		t.Errorf("enroll: %d %s\nwant %q", c, out, want)
	}
	// Before the server ever recorded its issuer, enroll still says where, without a placeholder.
	if c, out := runCmd(t, nil, "enroll", "--state-dir", stateDir(t)); c != 0 || strings.Contains(out, "ISSUER") ||
		!strings.Contains(out, "the auth server's /enroll page (its --issuer URL followed by /enroll)") {
		t.Errorf("enroll without a recorded issuer: %d %s", c, out)
	}
}

// syncBuilder is a strings.Builder that a server goroutine and the test may share.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHostCommands: clients and grants listed and revoked from the host end the grant.
func TestHostCommands(t *testing.T) {
	e := startFleet(t)
	dir := e.app.StateDir
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
	_, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
	rt := tok["refresh_token"].(string)

	if c, out := runCmd(t, nil, "clients", "list", "--state-dir", dir); c != 0 || !strings.Contains(out, id) || !strings.Contains(out, "Test App") {
		t.Fatalf("clients list: %d %s", c, out)
	}
	c, out := runCmd(t, nil, "grants", "list", "--state-dir", dir)
	if c != 0 || !strings.Contains(out, e.Alpha+"/mcp") || !strings.Contains(out, "alpha:read") {
		t.Fatalf("grants list: %d %s", c, out)
	}
	grant := strings.Fields(strings.Split(out, "\n")[1])[0]
	if c, out := runCmd(t, nil, "grants", "--state-dir", dir, "revoke", grant); c != 0 || !strings.Contains(out, "Revoked grant") {
		t.Fatalf("grants revoke: %d %s", c, out)
	}
	if c, out := runCmd(t, nil, "grants", "revoke", grant, "--state-dir", dir); c != 1 || !strings.Contains(out, "not revoked already") {
		t.Errorf("second revoke: %d %s", c, out)
	}
	if st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt}}); st != 400 {
		t.Errorf("refresh after grants revoke: %d %v", st, body)
	}

	// Revoking the client ends its grants and the client.
	code = e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
	_, tok = e.exchange(t, id, redirect, code, p.verifier, nil)
	if c, out := runCmd(t, nil, "clients", "revoke", id, "--state-dir", dir); c != 0 {
		t.Fatalf("clients revoke: %d %s", c, out)
	}
	if st, _ := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok["refresh_token"].(string)}}); st < 400 {
		t.Errorf("refresh after clients revoke: %d", st)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "code_challenge": {p.challenge},
		"code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
	if loc, st, body := e.authorize(t, q); loc != nil || !strings.Contains(body, "revoked") {
		t.Errorf("authorize after clients revoke: %d %v %s", st, loc, body)
	}

	// The URL is the server's own (it records its issuer), and a loopback issuer is called out.
	if c, out := runCmd(t, nil, "enroll", "--state-dir", dir); c != 0 || !strings.Contains(out, "Open "+e.Issuer+"/enroll ") ||
		strings.Contains(out, "Open ISSUER") || !strings.Contains(out, "publish it first") {
		t.Errorf("enroll: %d %s", c, out)
	}
}

// TestCleanUp: the janitor keeps what is in use and deletes what expired.
func TestCleanUp(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	used := e.register(t, redirect)
	unused := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, used, redirect, e.Alpha+"/mcp", "alpha:read", p)
	if st, body := e.exchange(t, used, redirect, code, p.verifier, nil); st != 200 {
		t.Fatalf("%d %v", st, body)
	}
	count := func(q string, args ...any) int {
		var n int
		if err := e.app.db.sql.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	e.app.db.now = func() time.Time { return time.Now().Add(unusedClientLifetime + time.Hour) }
	if err := e.app.db.gc(t.Context()); err != nil {
		t.Fatal(err)
	}
	if count("SELECT count(*) FROM clients WHERE id = ?", used) != 1 || count("SELECT count(*) FROM clients WHERE id = ?", unused) != 0 {
		t.Error("the janitor kept the unused client or deleted the used one")
	}
	// Thirty days on, the refresh token and sessions have expired too; the grant stays until revoked.
	if _, err := (&sessions{db: e.app.db}).create(t.Context(), "pk"); err != nil {
		t.Fatal(err)
	}
	e.app.db.now = func() time.Time { return time.Now().Add(refreshTokenLifetime + 3*24*time.Hour) }
	if err := e.app.db.gc(t.Context()); err != nil {
		t.Fatal(err)
	}
	if count("SELECT count(*) FROM access_tokens") != 0 || count("SELECT count(*) FROM refresh_tokens") != 0 || count("SELECT count(*) FROM sessions") != 0 ||
		count("SELECT count(*) FROM grants") != 1 || count("SELECT count(*) FROM clients WHERE id = ?", used) != 1 {
		t.Error("expired tokens or sessions kept, or the grant or its client deleted")
	}
}
