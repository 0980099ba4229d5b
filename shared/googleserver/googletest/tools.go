package googletest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SignedOut returns the flags that start a Google server on a fresh state folder with an OAuth
// client file and no token, as before `auth login`.
func SignedOut(t testing.TB) []string {
	t.Helper()
	dir := t.TempDir()
	// The OAuth client is there (without it the servers name the missing client file first).
	client := filepath.Join(dir, "client.json")
	if err := os.WriteFile(client, []byte(`{"installed":{"client_id":"test-client","client_secret":"test-secret"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--google-token-file", filepath.Join(dir, "token.json"), "--google-client-file", client, "--state-dir", dir}
}

// CheckOpenWorld fails t unless the session lists n tools, each annotated as reaching the
// open world (Google) and described in one line.
func CheckOpenWorld(t testing.TB, cs *mcp.ClientSession, n int) {
	t.Helper()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != n {
		t.Errorf("%d tools, want %d", len(tools.Tools), n)
	}
	for _, tl := range tools.Tools {
		if tl.Annotations == nil || tl.Annotations.OpenWorldHint == nil || !*tl.Annotations.OpenWorldHint || strings.Contains(tl.Description, "\n") {
			t.Errorf("%s: annotations %+v", tl.Name, tl.Annotations)
		}
	}
}

// ReadOnlyTools lists the session's tools, fails t for any not annotated read-only, and
// returns their names sorted.
func ReadOnlyTools(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not read-only", tl.Name)
		}
	}
	slices.Sort(names)
	return names
}

// CheckSignedOut fails t unless each tool call (tool → arguments) on the server h, started
// with SignedOut, answers the error that names `command auth login`, and its health check
// warns that the sign-in is missing.
func CheckSignedOut(t testing.TB, h *mcptest.Harness, command string, calls map[string]map[string]any) {
	t.Helper()
	want := "Google sign-in missing: run `" + command + " auth login`"
	cs := h.Connect(t, "")
	for tool, args := range calls {
		if res := mcptest.Call(t, cs, tool, args); !res.IsError || mcptest.Text(res) != want {
			t.Errorf("signed out, %s: %q", tool, mcptest.Text(res))
		}
	}
	if c := h.Server.Health(t.Context()).Checks["google token"]; c.Status != "warn" || c.Detail != "missing: "+want {
		t.Errorf("signed out, health %+v", c)
	}
}
