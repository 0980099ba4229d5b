package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpRemote runs mcp-remote (the stdio-to-HTTP proxy local-only MCP clients use, installed by
// scripts/ts-client-test.sh beside the TypeScript SDK) with its state in one folder, so each run
// starts from what the last one saved, as it does on a laptop.
type mcpRemote struct {
	t      *testing.T
	node   string
	proxy  string // mcp-remote's dist/proxy.js
	config string // MCP_REMOTE_CONFIG_DIR
	server string // the MCP URL it connects to
	port   string // its OAuth callback port
}

// mcpRemoteRun is one mcp-remote process: the go-sdk client speaks MCP to it over stdio.
type mcpRemoteRun struct {
	session *mcp.ClientSession
	err     error
	done    chan struct{}    // closed when the client's connect returns
	authURL chan string      // authorization URLs mcp-remote printed
	stderr  *strings.Builder // what it printed, for failures
	mu      sync.Mutex
}

// start starts mcp-remote and connects the go-sdk client to it in the background: the connect
// waits while mcp-remote signs in.
func (m *mcpRemote) start(ctx context.Context) *mcpRemoteRun {
	m.t.Helper()
	cmd := exec.CommandContext(ctx, m.node, m.proxy, m.server, m.port, "--auth-timeout", "90", "--transport", "http-only")
	// BROWSER=true makes its opener (xdg-open) succeed without a browser: the test reads the URL
	// it prints and opens it in Chromium.
	cmd.Env = append(os.Environ(), "MCP_REMOTE_CONFIG_DIR="+m.config, "HOME="+m.config, "BROWSER=true")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	r := &mcpRemoteRun{done: make(chan struct{}), authURL: make(chan string, 4), stderr: &strings.Builder{}}
	go func() {
		lines := bufio.NewScanner(pr)
		for lines.Scan() {
			line := lines.Text()
			r.mu.Lock()
			r.stderr.WriteString(line + "\n")
			r.mu.Unlock()
			if i := strings.Index(line, "http"); i >= 0 && strings.Contains(line, "/authorize?") {
				select {
				case r.authURL <- strings.TrimSpace(line[i:]):
				default: // the test reads the first few only
				}
			}
		}
	}()
	go func() {
		defer close(r.done)
		client := mcp.NewClient(&mcp.Implementation{Name: "mcp-remote-e2e", Version: "0"}, nil)
		r.session, r.err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
		if r.err != nil {
			_ = pw.Close()
		}
	}()
	m.t.Cleanup(func() { _ = pw.Close() })
	return r
}

// log is what mcp-remote printed so far.
func (r *mcpRemoteRun) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// connected waits for the client's connect and fails the test if it did not connect.
func (r *mcpRemoteRun) connected(t *testing.T) *mcp.ClientSession {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(90 * time.Second):
		t.Fatalf("mcp-remote did not connect:\n%s", r.log())
	}
	if r.err != nil {
		t.Fatalf("connect through mcp-remote: %v\n%s", r.err, r.log())
	}
	return r.session
}

// tokens reads what mcp-remote saved for the server (its one tokens file).
func (m *mcpRemote) tokens() map[string]any {
	m.t.Helper()
	files, err := filepath.Glob(filepath.Join(m.config, "mcp-remote-*", "*_tokens.json"))
	if err != nil || len(files) != 1 {
		m.t.Fatalf("mcp-remote's tokens file: %v %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		m.t.Fatal(err)
	}
	tok := map[string]any{}
	if err := json.Unmarshal(b, &tok); err != nil {
		m.t.Fatalf("%s: %v", files[0], err)
	}
	tok["file"] = files[0]
	return tok
}

// spoil makes the saved access token bad and expired, as ten minutes would, so the next run must
// refresh it; it returns the refresh token saved.
func (m *mcpRemote) spoil() string {
	m.t.Helper()
	tok := m.tokens()
	file := tok["file"].(string)
	delete(tok, "file")
	tok["access_token"] = "expired." + tok["access_token"].(string)
	tok["expires_at"] = time.Now().Add(-time.Hour).UnixMilli()
	b, err := json.Marshal(tok)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		m.t.Fatal(err)
	}
	return tok["refresh_token"].(string)
}

// evaluate calls the calculator's evaluate through session and returns its result.
func evaluate(ctx context.Context, session *mcp.ClientSession, expr string) (string, error) {
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "evaluate", Arguments: map[string]any{"expression": expr}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New("tool error")
	}
	out, _ := res.StructuredContent.(map[string]any)
	s, _ := out["result"].(string)
	return s, nil
}

// TestMcpRemote runs mcp-remote (pinned in testdata/tsclient/package-lock.json) between the
// go-sdk client on stdio and the fleet's calculator behind auth: it meets the 401, registers by
// DCR and prints the authorization URL (S256, resource), which Chromium opens to sign in with a
// passkey and allow; mcp-remote's own loopback callback gets the code, it exchanges it, and
// evaluate answers through it. The next run finds its saved access token bad and expired and
// refreshes (rotated) without a sign-in; after `auth grants revoke` the refresh is refused and
// it asks for a sign-in again. scripts/ts-client-test.sh installs it and runs this test.
func TestMcpRemote(t *testing.T) {
	dir := os.Getenv("MCP_TS_CLIENT_DIR")
	if dir == "" {
		t.Skip("MCP_TS_CLIENT_DIR is not set: scripts/ts-client-test.sh installs mcp-remote and runs this test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	calc := "http://127.0.0.1:" + freePort(t)
	e := startFleet(t, withResource("calculator", calc+"/mcp"))
	startCalculator(t, e, calc)
	b := newBrowser(t)
	b.enrol(e)
	m := &mcpRemote{t: t, node: node, proxy: filepath.Join(dir, "node_modules", "mcp-remote", "dist", "proxy.js"),
		config: t.TempDir(), server: calc + "/mcp", port: freePort(t)}

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	// First run: registration and sign-in.
	run := m.start(ctx)
	select {
	case authURL := <-run.authURL:
		if err := checkAuthURL(e, authURL, calc+"/mcp"); err != nil {
			t.Fatal(err)
		}
		// mcp-remote's callback page is plain text; the sign-in ends there.
		if err := b.signInUntil(authURL, nil, "allow", pageSays("Authorization successful")); err != nil {
			t.Fatalf("browser: %v\n%s", err, run.log())
		}
	case <-run.done:
		t.Fatalf("mcp-remote connected without a sign-in (%v):\n%s", run.err, run.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("mcp-remote printed no authorization URL:\n%s", run.log())
	}
	session := run.connected(t)
	if got, err := evaluate(ctx, session, "6*7"); err != nil || got != "42" {
		t.Fatalf("6*7 through mcp-remote: %q %v\n%s", got, err, run.log())
	}
	_ = session.Close()
	if !strings.Contains(b.consent, "calculator:read") {
		t.Errorf("the consent page does not name the calculator's scope: %q", b.consent)
	}
	if tok := m.tokens(); tok["scope"] != "calculator:read calculator:write" || tok["refresh_token"] == "" {
		t.Errorf("tokens saved: scope %v, refresh token %t", tok["scope"], tok["refresh_token"] != "")
	}

	// Second run: the saved access token is bad and expired; mcp-remote refreshes it.
	before := m.spoil()
	run = m.start(ctx)
	session = run.connected(t)
	if got, err := evaluate(ctx, session, "2^10"); err != nil || got != "1024" {
		t.Fatalf("2^10 after the refresh: %q %v\n%s", got, err, run.log())
	}
	_ = session.Close()
	select {
	case u := <-run.authURL:
		t.Errorf("mcp-remote asked for a sign-in instead of refreshing: %s", u)
	default:
	}
	if after := m.tokens()["refresh_token"]; after == before || after == "" {
		t.Errorf("the refresh token was not rotated: %v", after)
	}

	// Third run: the owner revoked the grant; the refresh is refused and mcp-remote asks again.
	revokeGrant(ctx, t, e)
	m.spoil()
	run = m.start(ctx)
	select {
	case <-run.authURL:
	case <-run.done:
		if run.err == nil {
			t.Fatalf("mcp-remote connected with a revoked grant:\n%s", run.log())
		}
		t.Fatalf("mcp-remote failed instead of asking for a sign-in: %v\n%s", run.err, run.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("mcp-remote did not ask for a sign-in after the grant was revoked:\n%s", run.log())
	}
	cancel()
	<-run.done
}

// pageSays waits until the page, after the navigations a redirect makes, shows text.
func pageSays(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		var shown string
		for !strings.Contains(shown, text) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("the page did not say %q (it said %q): %w", text, shown, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
			// Errors while the page navigates are expected; the loop tries again.
			shown, _ = chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`)(ctx, tg)
		}
		return nil
	})
}
