package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// goBuild builds the workspace package pkg (a command) into the test's temporary folder and
// returns the binary's path. The servers' modules do not depend on each other or on the clients
// under scripts/, so the test builds them as go.work sees them.
func goBuild(t *testing.T, pkg string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is needed to build %s: %v", pkg, err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	out, err := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// freePort returns a loopback port nothing listens on, for a server started as a process.
func freePort(t *testing.T) string {
	t.Helper()
	ln, port := listen(t)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// withResource adds the MCP server name at url (its PUBLIC-URL/mcp) to the auth server's fleet.
func withResource(name, url string) envOption {
	return func(s *settings) {
		s.Fleet.byName[name] = url
		s.Fleet.names = append(s.Fleet.names, name)
		slices.Sort(s.Fleet.names)
	}
}

// startCalculator builds and starts the fleet's calculator at base as a protected resource of
// e's issuer, and waits until its /mcp answers 401.
func startCalculator(t *testing.T, e *fleetEnv, base string) {
	t.Helper()
	bin := goBuild(t, "github.com/jck411/mcp-servers/servers/calculator")
	port := base[strings.LastIndex(base, ":")+1:]
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--port", port, "--oauth-issuer", e.Issuer, "--public-url", base, "--state-dir", t.TempDir())
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("calculator's log:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return
			}
			t.Fatalf("calculator answered %s to a request without a token, want 401", resp.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("calculator did not start: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// revokeGrant ends the one live grant with `auth grants revoke`, as the owner would on the host.
func revokeGrant(ctx context.Context, t *testing.T, e *fleetEnv) {
	t.Helper()
	var grant string
	if err := e.app.db.sql.QueryRowContext(ctx, "SELECT id FROM grants WHERE revoked = 0").Scan(&grant); err != nil {
		t.Fatalf("the client's grant: %v", err)
	}
	var out strings.Builder
	if code := run(ctx, []string{"grants", "revoke", grant, "--state-dir", e.app.StateDir}, func(string) string { return "" }, &out, &out); code != 0 {
		t.Fatalf("auth grants revoke: %d %s", code, out.String())
	}
}

// TestMcpGoClient runs github.com/mark3labs/mcp-go's OAuth client (scripts/cmd/mcpgoclient, at
// the version scripts/go.mod pins) against auth and the fleet's real calculator: the 401 leads it
// to the metadata, it registers by DCR and builds the authorization URL (S256, resource); Chromium
// signs in with a passkey and allows; it exchanges the code and evaluates 6*7; its access token
// expires and it refreshes (rotated) before calling again; after `auth grants revoke` the next
// refresh is refused and it asks for a new authorization instead of calling.
func TestMcpGoClient(t *testing.T) {
	client := goBuild(t, "github.com/jck411/mcp-servers/scripts/cmd/mcpgoclient")
	calc := "http://127.0.0.1:" + freePort(t)
	e := startFleet(t, withResource("calculator", calc+"/mcp"))
	startCalculator(t, e, calc)
	b := newBrowser(t)
	b.enrol(e)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	steps := runClient(ctx, t, exec.CommandContext(ctx, client, calc+"/mcp", e.callbackURL, "evaluate", `{"expression":"6*7"}`), func(s clientStep, reply io.Writer) {
		switch s.Step {
		case "authorize":
			code, err := authorizeInBrowser(e, b, s.URL, calc+"/mcp", nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.consent, "mcp-go E2E") || !strings.Contains(b.consent, "calculator:read") {
				t.Errorf("the consent page does not name the client and the calculator's scope: %q", b.consent)
			}
			fmt.Fprintln(reply, code)
		case "revoke":
			revokeGrant(ctx, t, e)
			fmt.Fprintln(reply, "revoked")
		}
	})

	if r := steps["registered"]; len(r) != 1 || !strings.HasPrefix(r[0].ClientID, "dcr-") {
		t.Errorf("registration: %+v", r)
	}
	if tk := steps["tokens"]; len(tk) != 1 || tk[0].Scope != "calculator:read calculator:write" || !tk[0].Refresh {
		t.Errorf("tokens from the exchange: %+v", tk)
	}
	if c := steps["call"]; len(c) != 1 || c[0].Result["result"] != "42" {
		t.Errorf("6*7 with the first token: %+v", c)
	}
	if r := steps["refreshed"]; len(r) != 1 || !r[0].Rotated || r[0].Result["result"] != "42" {
		t.Errorf("6*7 after the refresh: %+v", r)
	}
	if r := steps["refused"]; len(r) != 1 {
		t.Errorf("the call after the grant was revoked: %+v", r)
	}
	if len(steps["done"]) != 1 {
		t.Errorf("the client did not finish: %v", steps)
	}
}

// clientStep is one JSON line a client driver (client.mjs, mcpgoclient) prints.
type clientStep struct {
	Step     string         `json:"step"`
	URL      string         `json:"url"`
	ClientID string         `json:"client_id"`
	Scope    string         `json:"scope"`
	Refresh  bool           `json:"refresh"`
	Rotated  bool           `json:"rotated"`
	Result   map[string]any `json:"result"`
	Message  string         `json:"message"`
}

// runClient runs a client driver, hands each step it prints to on (which may answer on the
// driver's stdin), and returns the steps by name once it exits. An "error" step fails the test.
func runClient(ctx context.Context, t *testing.T, cmd *exec.Cmd, on func(clientStep, io.Writer)) map[string][]clientStep {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	steps := map[string][]clientStep{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		var s clientStep
		if err := json.Unmarshal(lines.Bytes(), &s); err != nil {
			t.Fatalf("the client printed %q", lines.Text())
		}
		steps[s.Step] = append(steps[s.Step], s)
		if s.Step == "error" {
			t.Fatalf("the client failed: %s\n%s", s.Message, stderr.String())
		}
		on(s, stdin)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(cmd.Path), err, stderr.String())
	}
	return steps
}
