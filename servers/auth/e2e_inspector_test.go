package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// inspectorRun is one run of the MCP Inspector's CLI.
type inspectorRun struct {
	authURL chan string   // authorization URLs it printed
	done    chan struct{} // closed when it has exited and its output is read
	err     error
	stdout  bytes.Buffer
	mu      sync.Mutex
	stderr  strings.Builder
}

// log is what the Inspector printed on stderr so far.
func (r *inspectorRun) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// startInspector runs the Inspector's CLI: a tools/call of evaluate on server, with its OAuth
// state in home (a secret file: CI has no keychain). MCP_AUTO_OPEN_ENABLED lets it sign in
// without a terminal; BROWSER=true makes its opener succeed without a browser, and the test
// opens the URL it prints in Chromium.
func startInspector(ctx context.Context, t *testing.T, node, launcher, home, server, callback, expr string, extra ...string) *inspectorRun {
	t.Helper()
	args := append([]string{launcher, "--cli", server, "--transport", "http", "--method", "tools/call", "--tool-name", "evaluate",
		"--tool-args-json", `{"expression":"` + expr + `"}`, "--format", "json", "--callback-url", callback}, extra...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_INSPECTOR_SECRET_STORE=file", "BROWSER=true", "NO_COLOR=1", "MCP_AUTO_OPEN_ENABLED=true")
	r := &inspectorRun{authURL: make(chan string, 4), done: make(chan struct{})}
	cmd.Stdout = &r.stdout
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// done closes once the process has exited and all it printed has been read, so the test
	// reads stdout and stderr only after the writers are finished.
	go func() {
		defer close(r.done)
		r.err = cmd.Wait()
		_ = pw.Close()
		<-scanned
	}()
	return r
}

// TestInspector runs the MCP Inspector's CLI (pinned in testdata/tsclient/package-lock.json)
// against the fleet's calculator behind auth, three times with one home folder: the first call
// meets the 401, registers by DCR and prints the authorization URL (S256, resource), which
// Chromium opens to sign in with a passkey and allow; the Inspector's loopback callback gets the
// code, and evaluate answers 42. The second run, with --stored-auth-only (no sign-in allowed),
// finds its saved access token bad and must refresh (rotated) to answer; after `auth grants
// revoke` the third run's refresh is refused and it stops with auth_required.
// scripts/ts-client-test.sh installs it and runs this test.
func TestInspector(t *testing.T) {
	dir := os.Getenv("MCP_TS_CLIENT_DIR")
	if dir == "" {
		t.Skip("MCP_TS_CLIENT_DIR is not set: scripts/ts-client-test.sh installs the Inspector and runs this test")
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
	launcher := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	home := t.TempDir()
	callback := "http://127.0.0.1:" + freePort(t) + "/oauth/callback"

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	run := startInspector(ctx, t, node, launcher, home, calc+"/mcp", callback, "6*7")
	select {
	case authURL := <-run.authURL:
		if err := checkAuthURL(e, authURL, calc+"/mcp"); err != nil {
			t.Fatal(err)
		}
		if err := b.signInUntil(authURL, nil, "allow", pageSays("OAuth complete")); err != nil {
			t.Fatalf("browser: %v\n%s", err, run.log())
		}
	case <-run.done:
		t.Fatalf("the Inspector ended without a sign-in (%v):\n%s\n%s", run.err, run.stdout.String(), run.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("the Inspector printed no authorization URL:\n%s", run.log())
	}
	r := run.result(t)
	if r != "42" {
		t.Fatalf("6*7 through the Inspector: %q\n%s", r, run.log())
	}
	if !strings.Contains(b.consent, "MCP Inspector") || !strings.Contains(b.consent, "calculator:read") {
		t.Errorf("the consent page does not name the Inspector and the calculator's scope: %q", b.consent)
	}

	// Second run, without interactive sign-in: the saved access token is bad, so the Inspector
	// must refresh it.
	before := spoilInspectorToken(t, home)
	run = startInspector(ctx, t, node, launcher, home, calc+"/mcp", callback, "2^10", "--stored-auth-only")
	if r := run.result(t); r != "1024" {
		t.Fatalf("2^10 after the refresh: %q\n%s", r, run.log())
	}
	if after := spoilInspectorToken(t, home); after == before {
		t.Errorf("the refresh token was not rotated")
	}

	// Third run: the owner revoked the grant; the refresh is refused and, without interactive
	// sign-in, the Inspector stops with auth_required.
	revokeGrant(ctx, t, e)
	run = startInspector(ctx, t, node, launcher, home, calc+"/mcp", callback, "3+3", "--stored-auth-only")
	<-run.done
	if run.err == nil || !strings.Contains(run.log()+run.stdout.String(), "auth_required") {
		t.Errorf("a call after the grant was revoked: %v\n%s\n%s", run.err, run.stdout.String(), run.log())
	}
}

// result waits for the run to end and returns evaluate's result.
func (r *inspectorRun) result(t *testing.T) string {
	t.Helper()
	<-r.done
	if r.err != nil {
		t.Fatalf("the Inspector: %v\n%s\n%s", r.err, r.stdout.String(), r.log())
	}
	var out struct {
		Result struct {
			StructuredContent struct {
				Result string `json:"result"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &out); err != nil {
		t.Fatalf("the Inspector printed %q: %v", r.stdout.String(), err)
	}
	return out.Result.StructuredContent.Result
}

// spoilInspectorToken makes the access token in the Inspector's secret file (its store on a
// machine without a keychain) bad, as an expired one would be, and returns its refresh token.
func spoilInspectorToken(t *testing.T, home string) string {
	t.Helper()
	file := filepath.Join(home, ".mcp-inspector", "secrets.json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var store map[string]any
	if err := json.Unmarshal(b, &store); err != nil {
		t.Fatal(err)
	}
	secrets, _ := store["secrets"].(map[string]any)
	refresh := ""
	for k, v := range secrets {
		if !strings.Contains(k, ":tokens:") {
			continue
		}
		var tok map[string]any
		if err := json.Unmarshal([]byte(v.(string)), &tok); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if refresh != "" {
			t.Fatalf("two token sets in %s", file)
		}
		refresh, _ = tok["refresh_token"].(string)
		tok["access_token"] = "expired." + tok["access_token"].(string)
		enc, err := json.Marshal(tok)
		if err != nil {
			t.Fatal(err)
		}
		secrets[k] = string(enc)
	}
	if refresh == "" {
		t.Fatalf("no refresh token in %s", file)
	}
	if b, err = json.Marshal(store); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return refresh
}
