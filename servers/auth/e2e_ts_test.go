package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tsScript is the TypeScript client beside the test.
var tsScript = filepath.Join("testdata", "tsclient", "client.mjs")

// TestTypeScriptClient runs the official TypeScript MCP SDK client (testdata/tsclient, pinned
// by its package-lock.json) against auth and alpha: it discovers the authorization server from
// alpha's 401, registers by DCR, sends the owner to the authorization URL, where Chromium signs
// in with a passkey and allows read only; the client exchanges the code, calls a read tool,
// refreshes when its access token goes bad and calls again. A write call then meets 403
// insufficient_scope: the SDK refreshes instead of asking again, gets the same scope and gives
// up (docs/remote.md, step 11); after `auth grants revoke` its refresh fails, it asks again, the
// owner allows write, and the write call works. The SDK validates every metadata document and
// token response against its schemas, so a spec break fails it. scripts/ts-client-test.sh
// installs the SDK and runs this test; without MCP_TS_CLIENT_DIR it is skipped.
func TestTypeScriptClient(t *testing.T) {
	dir := os.Getenv("MCP_TS_CLIENT_DIR")
	if dir == "" {
		t.Skip("MCP_TS_CLIENT_DIR is not set: scripts/ts-client-test.sh installs the TypeScript SDK and runs this test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	script, err := os.ReadFile(tsScript)
	if err != nil {
		t.Fatal(err)
	}
	// The script runs beside the installed node_modules, which ES modules resolve from.
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	e := startFleet(t)
	b := newBrowser(t)
	b.enrol(e)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), e.Alpha+"/mcp", e.callbackURL, "alpha_read", "alpha_write")
	authorizations := 0
	steps := runClient(ctx, t, cmd, func(s clientStep, reply io.Writer) {
		switch s.Step {
		case "authorize":
			authorizations++
			untick := []string{"alpha:write"} // the first consent allows read only
			if authorizations > 1 {
				untick = nil
			}
			code, err := authorizeInBrowser(e, b, s.URL, e.Alpha+"/mcp", untick)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(reply, code)
		case "upscope":
			// The owner ends the read grant on the host, as docs/remote.md says.
			revokeGrant(ctx, t, e)
			fmt.Fprintln(reply, "revoked")
		}
	})

	if r := steps["registered"]; len(r) != 1 || !strings.HasPrefix(r[0].ClientID, "dcr-") {
		t.Errorf("registration: %+v", r)
	}
	// The exchange, the refresh of a bad token, the refresh tried for more scope (the same
	// scope comes back), and the exchange after the new consent.
	tk := steps["tokens"]
	scopes := make([]string, len(tk))
	for i, s := range tk {
		scopes[i] = s.Scope
		if !s.Refresh {
			t.Errorf("tokens %d came without a refresh token", i)
		}
	}
	if want := []string{"alpha:read", "alpha:read", "alpha:read", "alpha:read alpha:write"}; !slices.Equal(scopes, want) {
		t.Errorf("scopes of the tokens saved: %q, want %q", scopes, want)
	}
	if c := steps["call"]; len(c) != 1 || c[0].Result["echo"] != "first" || !strings.HasPrefix(fmt.Sprint(c[0].Result["caller"]), "oauth:dcr-") {
		t.Errorf("first call: %+v", c)
	}
	if r := steps["refreshed"]; len(r) != 1 || !r[0].Rotated || r[0].Result["echo"] != "after refresh" {
		t.Errorf("call after the refresh: %+v", r)
	}
	if u := steps["upscope"]; len(u) != 1 || !strings.Contains(u[0].Message, "403") {
		t.Errorf("the write call with a read grant: %+v", u)
	}
	if a := steps["authorize"]; len(a) != 2 {
		t.Errorf("authorizations: %d, want 2 (the first, and the one after the revoked refresh)", len(a))
	}
	if inv := steps["invalidated"]; len(inv) == 0 || inv[0].Scope != "tokens" {
		t.Errorf("the SDK did not drop its tokens after the refused refresh: %+v", inv)
	}
	if w := steps["write"]; len(w) != 1 || w[0].Result["echo"] != "with write" {
		t.Errorf("the write call after the new consent: %+v", w)
	}
	if len(steps["done"]) != 1 {
		t.Errorf("the client did not finish: %v", steps)
	}
}

// authorizeInBrowser checks the authorization URL a client built (S256, resource), signs in and
// allows in Chromium (with the scopes in untick unticked), and returns the code that reached the
// redirect URI.
func authorizeInBrowser(e *fleetEnv, b *browser, raw, resource string, untick []string) (string, error) {
	if err := checkAuthURL(e, raw, resource); err != nil {
		return "", err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	if err := b.signIn(raw, untick, "allow"); err != nil {
		return "", fmt.Errorf("browser: %w", err)
	}
	select {
	case cb := <-e.callbackHits:
		if cb.Get("code") == "" || cb.Get("state") != q.Get("state") {
			return "", fmt.Errorf("callback %v (state sent %q)", cb, q.Get("state"))
		}
		return cb.Get("code"), nil
	case <-time.After(20 * time.Second):
		return "", fmt.Errorf("no callback")
	}
}

// checkAuthURL checks that a client sends the owner to e's /authorize with an S256 challenge and
// the resource it calls.
func checkAuthURL(e *fleetEnv, raw, resource string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("authorization URL %q: %w", raw, err)
	}
	q := u.Query()
	if !strings.HasPrefix(raw, e.Issuer+"/authorize?") || q.Get("code_challenge_method") != "S256" || q.Get("resource") != resource {
		return fmt.Errorf("authorization URL %s: want %s/authorize with S256 and resource %s", raw, e.Issuer, resource)
	}
	return nil
}
