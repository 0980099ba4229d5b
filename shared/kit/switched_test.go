package kit_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newServer builds adminSpec's server with args, without serving it.
func newServer(t *testing.T, args ...string) *kit.Server {
	t.Helper()
	cfg, err := config.Parse("kittest", 9999, args, func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := kit.New(adminSpec(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// connectInMemory connects a go-sdk client that counts tools/list_changed notifications.
func connectInMemory(t *testing.T, srv *kit.Server, changed chan<- struct{}) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(_ context.Context, _ *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kit-test", Version: "0"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestSwitchesNotify: a session that stays connected (stdio, here in memory) is told that the
// tool list changed when a switch turns a tool off and when it turns it on again.
func TestSwitchesNotify(t *testing.T) {
	t.Parallel()
	srv := newServer(t, "--state-dir", t.TempDir())
	changed := make(chan struct{}, 8)
	cs := connectInMemory(t, srv, changed)
	wait := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("no tools/list_changed after %s", what)
		}
	}
	if _, err := srv.SetSwitches(switches.State{Format: switches.Format, Version: 1, Tools: []string{"write_thing"}}); err != nil {
		t.Fatal(err)
	}
	wait("switching write_thing off")
	if got := listed(t, cs); slices.Contains(got, "write_thing") {
		t.Errorf("listed %v", got)
	}
	if _, err := srv.SetSwitches(switches.State{Format: switches.Format, Version: 2}); err != nil {
		t.Fatal(err)
	}
	wait("switching it on")
	if got := listed(t, cs); !slices.Contains(got, "write_thing") {
		t.Errorf("listed %v", got)
	}
	// Nothing changes, nothing is said.
	if _, err := srv.SetSwitches(switches.State{Format: switches.Format, Version: 3}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
		t.Error("a notification for a state that changed no tool")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestSwitchesFileWatch: a state another process writes into the switches file (a stdio
// instance on the same state folder, a replica on a shared volume) is put in force within
// the watch's period.
func TestSwitchesFileWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		srv := newServer(t, "--state-dir", dir)
		srv.StartBackground()
		changed := make(chan struct{}, 8)
		cs := connectInMemory(t, srv, changed)
		if err := switches.Write(filepath.Join(dir, switches.File), switches.State{Format: switches.Format, Version: 9, ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		<-changed
		if got := listed(t, cs); slices.Contains(got, "write_thing") || !slices.Contains(got, "echo") {
			t.Errorf("after the file changed: %v", got)
		}
	})
}

// TestSwitchesUnreadable: a switches file the server cannot read fails closed — only the
// tools that change nothing are offered, the health check says why — until the console sets
// a good state.
func TestSwitchesUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, switches.File), []byte(`{"format": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h, c := startAdmin(t, dir)
	cs := h.Connect(t, "")
	if got := listed(t, cs); !slices.Equal(got, []string{"boom", "echo", "stuck"}) {
		t.Errorf("with an unreadable file: %v", got)
	}
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ch := st.Health.Checks["switches"]; ch.Status != "warn" || !strings.Contains(ch.Detail, "unreadable") || st.Health.Status != "degraded" {
		t.Errorf("health %+v", st.Health)
	}
	if !strings.Contains(h.Logs(), "run-time switches unreadable") {
		t.Errorf("log:\n%s", h.Logs())
	}
	if _, err := c.SetSwitches(t.Context(), switches.State{Format: switches.Format, Version: 1}); err != nil {
		t.Fatal(err)
	}
	if got := listed(t, cs); !slices.Contains(got, "write_thing") {
		t.Errorf("after the console's state: %v", got)
	}
	if st, _ := c.Status(t.Context()); st.Health.Checks["switches"].Status != "ok" {
		t.Errorf("health after: %+v", st.Health.Checks["switches"])
	}
}

// TestAdminCalls: the audit ring has every finished call, in order, with what its log line
// has and nothing of its arguments.
func TestAdminCalls(t *testing.T) {
	t.Parallel()
	h, c := startAdmin(t, t.TempDir())
	cs := h.Connect(t, "")
	mcptest.Call(t, cs, "echo", map[string]any{"text": "secret-argument"})
	mcptest.Call(t, cs, "echo", map[string]any{"text": ""})
	mcptest.Call(t, cs, "boom", map[string]any{})
	got, err := c.Calls(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := c.Status(t.Context())
	if got.Boot == "" || got.Boot != st.Boot || len(got.Calls) != 3 || st.LastCall != 3 {
		t.Fatalf("calls %+v, status boot %q last %d", got, st.Boot, st.LastCall)
	}
	want := []struct{ tool, outcome, code string }{{"echo", "ok", ""}, {"echo", "error", "invalid_input"}, {"boom", "error", "internal"}}
	for i, w := range want {
		g := got.Calls[i]
		if g.Seq != int64(i+1) || g.Tool != w.tool || g.Outcome != w.outcome || g.Code != w.code || g.Caller != "local" || g.At.IsZero() || g.DurationMS < 0 {
			t.Errorf("call %d: %+v, want %+v", i, g, w)
		}
	}
	if len(st.Errors) != 2 || st.Errors[0].Tool != "boom" {
		t.Errorf("last errors %+v", st.Errors)
	}
	if st.Totals.Calls != 3 || st.Totals.Errors != 2 {
		t.Errorf("totals %+v", st.Totals)
	}
	after, _ := c.Calls(t.Context(), 2)
	if len(after.Calls) != 1 || after.Calls[0].Seq != 3 {
		t.Errorf("after 2: %+v", after)
	}
	raw, _, body := send(t, "GET", h.URL+admin.PathCalls+"?after=0", "", map[string]string{"Authorization": "Bearer " + consoleToken})
	if raw != 200 || strings.Contains(body, "secret-argument") {
		t.Errorf("the ring holds an argument: %s", body)
	}
	if code, _, _ := send(t, "GET", h.URL+admin.PathCalls+"?after=-1", "", map[string]string{"Authorization": "Bearer " + consoleToken}); code != 400 {
		t.Errorf("after=-1: %d", code)
	}
}
