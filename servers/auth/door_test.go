package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// doorAdminToken is the console token the servers of the front-door tests take (as its hash).
const doorAdminToken = "front-door-test-console-token-0123456789"

// doorFleet is an auth server with the front door on, before three real servers of the fleet:
// the calculator, notes and the shell, built and started as processes, each a protected
// resource of the auth server that takes the console token for its switches.
type doorFleet struct {
	*fleetEnv
	bases map[string]string // name → http://127.0.0.1:PORT
	procs map[string]*exec.Cmd
}

// startDoorFleet starts the three servers and the auth server with --front-door-servers.
func startDoorFleet(t *testing.T) *doorFleet {
	t.Helper()
	names := []string{"calculator", "notes", "shell"}
	f := &doorFleet{bases: map[string]string{}, procs: map[string]*exec.Cmd{}}
	opts := []envOption{}
	var door []doorServer
	for _, n := range names {
		f.bases[n] = "http://127.0.0.1:" + freePort(t)
		opts = append(opts, withResource(n, f.bases[n]+"/mcp"))
		door = append(door, doorServer{Name: n, Base: f.bases[n]})
	}
	opts = append(opts, func(s *settings) { s.Door = door })
	f.fleetEnv = startFleet(t, opts...)
	for _, n := range names {
		f.procs[n] = startServer(t, n, f.fleetEnv, f.bases[n], "--admin-token-sha256", admin.HashToken(doorAdminToken))
	}
	return f
}

// startServer builds and starts the fleet's server NAME at base as a protected resource of e's
// issuer, waits until its /mcp answers 401, and returns its process.
func startServer(t *testing.T, name string, e *fleetEnv, base string, extra ...string) *exec.Cmd {
	t.Helper()
	bin := goBuild(t, "github.com/jck411/mcp-servers/servers/"+name)
	port := base[strings.LastIndex(base, ":")+1:]
	var logs bytes.Buffer
	args := append([]string{"--port", port, "--oauth-issuer", e.Issuer, "--public-url", base, "--state-dir", t.TempDir()}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return cmd
			}
			t.Fatalf("%s answered %s to a request without a token, want 401", name, resp.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not start: %v\n%s", name, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// doorToken signs in (in the store, as codeFor does) for resource with scope and returns the
// access token and the granted scopes.
func (f *doorFleet) doorToken(t *testing.T, resource, scope string) (string, string) {
	t.Helper()
	client := f.register(t, f.callbackURL)
	p := newPKCE()
	code := f.codeFor(t, client, f.callbackURL, resource, scope, p)
	status, body := f.exchange(t, client, f.callbackURL, code, p.verifier, nil)
	if status != http.StatusOK {
		t.Fatalf("token exchange for %s: %d %v", resource, status, body)
	}
	return body["access_token"].(string), fmt.Sprint(body["scope"])
}

// bearerRT adds a bearer token to every request.
type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// doorSession connects the go-sdk client to endpoint with token at protocol version ("" for the
// SDK's newest).
func doorSession(t *testing.T, endpoint, token, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "door-test", Version: "0"}, opts)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearerRT{token}}, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%q): %v", endpoint, version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolNames lists a session's tools by name, sorted.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// callJSON calls a tool and returns its structured result (failing on a tool error).
func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %v", tool, res.Content[0].(*mcp.TextContent).Text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// TestFrontDoor drives the front door with the go-sdk client at both protocol versions it
// speaks: one token (the door's audience, every server's scopes) lists the tools of the real
// calculator, notes and shell under their own names and calls one on each; the door's URLs
// narrow by server, toolset and read-only; a token of another audience is refused there and
// the door's token is refused by the servers; progress comes through; a tool switched off on
// its server leaves the door's list; a server that stops answering is named in the error; a
// revoked grant stops at the door at once.
func TestFrontDoor(t *testing.T) {
	f := startDoorFleet(t)
	door := f.Issuer + "/mcp"
	token, scope := f.doorToken(t, door, "")
	if want := "calculator:read calculator:write notes:read notes:write shell:read shell:write"; scope != want {
		t.Fatalf("door token's scope %q, want %q", scope, want)
	}

	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			cs := doorSession(t, door, token, version, nil)
			names := toolNames(t, cs)
			for _, want := range []string{"evaluate", "create_note", "list_notes", "run_command", "list_directory"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list through the door lacks %s: %v", want, names)
				}
			}
			if got := callJSON(t, cs, "evaluate", map[string]any{"expression": "6*7"}); fmt.Sprint(got["result"]) != "42" {
				t.Errorf("evaluate 6*7 through the door: %v", got)
			}
			path := "door/" + strings.ReplaceAll(version+"x", "-", "")
			if got := callJSON(t, cs, "create_note", map[string]any{"path": path, "content": "from the front door"}); !strings.Contains(fmt.Sprint(got), path) {
				t.Errorf("create_note through the door: %v", got)
			}
			if got := callJSON(t, cs, "run_command", map[string]any{"command": "echo through-the-door"}); !strings.Contains(fmt.Sprint(got["stdout"]), "through-the-door") {
				t.Errorf("run_command through the door: %v", got)
			}
		})
	}

	t.Run("progress", func(t *testing.T) {
		var got atomic.Int32
		cs := doorSession(t, door, token, "2025-11-25", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			got.Add(1)
		}})
		params := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "sleep 2.5; echo done"}}
		params.SetProgressToken("door-progress")
		res, err := cs.CallTool(t.Context(), params)
		if err != nil || res.IsError {
			t.Fatalf("run_command: %v %+v", err, res)
		}
		if got.Load() == 0 {
			t.Error("no progress notification came through the door from the shell's heartbeat")
		}
	})

	t.Run("cancel", func(t *testing.T) {
		// A 2026-07-28 client cancels by closing its request; the door's call to the shell ends
		// with it, and the shell kills the command before it leaves its mark.
		cs := doorSession(t, door, token, "", nil)
		ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
		defer cancel()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "sleep 4; touch door-cancel-mark"}})
		if err == nil {
			t.Fatal("the cancelled call returned no error")
		}
		time.Sleep(5 * time.Second)
		got := callJSON(t, cs, "run_command", map[string]any{"command": "test -e door-cancel-mark && echo present || echo absent"})
		if strings.TrimSpace(fmt.Sprint(got["stdout"])) != "absent" {
			t.Errorf("the command of a cancelled call ran to its end on the shell: %v", got)
		}
	})

	t.Run("narrowing", func(t *testing.T) {
		for _, c := range []struct {
			path      string
			want, not []string
		}{
			{"/x/calculator", []string{"evaluate", "convert_units", "statistics"}, []string{"create_note", "run_command"}},
			{"/x/math", []string{"evaluate", "convert_units", "statistics"}, []string{"create_note", "run_command"}},
			{"/readonly", []string{"evaluate", "list_notes", "list_directory"}, []string{"create_note", "run_command"}},
			{"/x/notes/readonly", []string{"list_notes"}, []string{"create_note", "evaluate"}},
		} {
			names := toolNames(t, doorSession(t, door+c.path, token, "", nil))
			for _, w := range c.want {
				if !slices.Contains(names, w) {
					t.Errorf("%s lacks %s: %v", c.path, w, names)
				}
			}
			for _, n := range c.not {
				if slices.Contains(names, n) {
					t.Errorf("%s offers %s: %v", c.path, n, names)
				}
			}
			if c.path == "/x/calculator" && len(names) != 3 {
				t.Errorf("%s offers %v, want the calculator's three tools", c.path, names)
			}
		}
		if status, _, body := callToolAt(t, door+"/x/nosuch", token, "evaluate"); status != http.StatusNotFound {
			t.Errorf("/mcp/x/nosuch: %d %s, want 404", status, body)
		}
	})

	t.Run("read grant", func(t *testing.T) {
		read, scope := f.doorToken(t, door, "calculator:read notes:read")
		if scope != "calculator:read notes:read" {
			t.Fatalf("scope %q", scope)
		}
		names := toolNames(t, doorSession(t, door, read, "", nil))
		if !slices.Contains(names, "evaluate") || !slices.Contains(names, "list_notes") || slices.Contains(names, "create_note") || slices.Contains(names, "run_command") || slices.Contains(names, "list_directory") {
			t.Errorf("a read grant of calculator and notes lists %v", names)
		}
	})

	t.Run("audiences", func(t *testing.T) {
		status, challenge, _ := callToolAt(t, door, "", "evaluate")
		if status != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+f.Issuer+"/.well-known/oauth-protected-resource/mcp") {
			t.Errorf("no token: %d %q", status, challenge)
		}
		calcToken, _ := f.doorToken(t, f.bases["calculator"]+"/mcp", "")
		if status, challenge, _ := callToolAt(t, door, calcToken, "evaluate"); status != http.StatusUnauthorized || !strings.Contains(challenge, "invalid_token") {
			t.Errorf("the calculator's own token at the door: %d %q", status, challenge)
		}
		if status, _, _ := callToolAt(t, f.bases["calculator"]+"/mcp", token, "evaluate"); status != http.StatusUnauthorized {
			t.Errorf("the door's token at the calculator itself: %d, want 401 (one audience a token)", status)
		}
		resp, err := http.Get(f.Issuer + "/.well-known/oauth-protected-resource/mcp/x/calculator")
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if md["resource"] != door+"/x/calculator" || fmt.Sprint(md["scopes_supported"]) != "[calculator:read calculator:write]" {
			t.Errorf("metadata of /mcp/x/calculator: %v", md)
		}
	})

	t.Run("switched off", func(t *testing.T) {
		ctx := t.Context()
		c := &admin.Client{Base: f.bases["calculator"], Token: doorAdminToken}
		if _, err := c.SetSwitches(ctx, switches.State{Format: switches.Format, Version: 1, Tools: []string{"evaluate"}}); err != nil {
			t.Fatalf("switch evaluate off: %v", err)
		}
		deadline := time.Now().Add(listFresh + 3*time.Second)
		for slices.Contains(toolNames(t, doorSession(t, door, token, "", nil)), "evaluate") {
			if time.Now().After(deadline) {
				t.Fatalf("evaluate is still in the door's tools/list %s after it was switched off", listFresh+3*time.Second)
			}
			time.Sleep(200 * time.Millisecond)
		}
		cs := doorSession(t, door, token, "", nil)
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "evaluate", Arguments: map[string]any{"expression": "1"}}); err == nil && !res.IsError {
			t.Error("a switched-off tool answered through the door")
		}
		if _, err := c.SetSwitches(ctx, switches.State{Format: switches.Format, Version: 2}); err != nil {
			t.Fatal(err)
		}
		deadline = time.Now().Add(listFresh + 3*time.Second)
		for !slices.Contains(toolNames(t, doorSession(t, door, token, "", nil)), "evaluate") {
			if time.Now().After(deadline) {
				t.Fatalf("evaluate is not back in the door's tools/list %s after it was switched on", listFresh+3*time.Second)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("server down", func(t *testing.T) {
		cs := doorSession(t, door, token, "", nil)
		_ = toolNames(t, cs) // the notes list is fresh
		_ = f.procs["notes"].Process.Kill()
		_ = f.procs["notes"].Wait()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"path": "x", "content": "y"}})
		if err != nil {
			t.Fatalf("create_note with notes down: %v", err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "notes server") {
			t.Errorf("create_note with notes down: %v %q, want a tool error naming the notes server", res.IsError, text)
		}
		if got := callJSON(t, cs, "evaluate", map[string]any{"expression": "2+2"}); fmt.Sprint(got["result"]) != "4" {
			t.Errorf("the calculator through the door with notes down: %v", got)
		}
	})

	t.Run("revoked", func(t *testing.T) {
		if _, err := f.app.db.sql.ExecContext(t.Context(), "UPDATE grants SET revoked = 1"); err != nil {
			t.Fatal(err)
		}
		if status, challenge, _ := callToolAt(t, door, token, "evaluate"); status != http.StatusUnauthorized || !strings.Contains(challenge, "revoked") {
			t.Errorf("a revoked grant's token at the door: %d %q", status, challenge)
		}
	})
}

// TestDoorAudience pins which door URLs a token for each door URL works at.
func TestDoorAudience(t *testing.T) {
	const iss = "https://auth.example.com"
	for _, c := range []struct {
		aud, at string
		want    bool
	}{
		{iss + "/mcp", iss + "/mcp", true},
		{iss + "/mcp", iss + "/mcp/x/gmail/readonly", true},
		{iss + "/mcp/x/gmail", iss + "/mcp/x/gmail", true},
		{iss + "/mcp/x/gmail", iss + "/mcp/x/gmail/readonly", true},
		{iss + "/mcp/x/gmail", iss + "/mcp", false},
		{iss + "/mcp/x/gmail", iss + "/mcp/x/drive", false},
		{iss + "/mcp/readonly", iss + "/mcp", false},
		{"https://gmail.example.com/mcp", iss + "/mcp", false},
	} {
		if got := doorAudienceFits(c.aud, iss, c.at); got != c.want {
			t.Errorf("token for %s at %s: %v, want %v", c.aud, c.at, got, c.want)
		}
	}
}
