package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner/runnertest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stopBound is how soon after a cancellation the command's processes must be gone: the issue
// asks for a second; the rest is slack for a machine running several test binaries.
const stopBound = 2 * time.Second

// TestCancelKillsCommand: a run_command whose call is cancelled — the 2026-07-28 client
// closing its request, the 2025-11-25 client over HTTP, notifications/cancelled over stdio —
// kills the command's processes, and the audit log says why.
func TestCancelKillsCommand(t *testing.T) {
	h, _, _ := start(t)
	for _, tt := range []struct {
		name string
		cs   func(t *testing.T) (*mcp.ClientSession, func() string)
	}{
		{"http 2026-07-28", func(t *testing.T) (*mcp.ClientSession, func() string) {
			return h.ConnectAs(t, "", mcptest.Stateless, nil), h.Logs
		}},
		{"http 2025-11-25", func(t *testing.T) (*mcp.ClientSession, func() string) {
			return h.ConnectAs(t, "", mcptest.ProtocolVersion, nil), h.Logs
		}},
		{"stdio 2025-11-25", func(t *testing.T) (*mcp.ClientSession, func() string) {
			logs := &mcptest.LogBuffer{}
			_, cs := mcptest.StartStdio(t, spec(), nil, logs, "--state-dir", t.TempDir())
			return cs, logs.String
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, logs := tt.cs(t)
			marker := runnertest.NewMarker(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			returned := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "sleep " + marker + " & sleep " + marker, "timeout_seconds": 60}})
				returned <- err
			}()
			deadline := time.Now().Add(10 * time.Second)
			for len(runnertest.Marked(marker)) < 2 {
				if time.Now().After(deadline) {
					t.Fatal("the command did not start")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			cancelled := time.Now()
			for len(runnertest.Marked(marker)) > 0 {
				if time.Since(cancelled) > stopBound {
					t.Fatalf("processes still running %s after the cancellation: %v", stopBound, runnertest.Marked(marker))
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("processes gone %s after the cancellation", time.Since(cancelled).Round(time.Millisecond))
			if err := <-returned; err == nil {
				t.Error("the cancelled call returned no error")
			}
			deadline = time.Now().Add(5 * time.Second)
			for !strings.Contains(logs(), `"command":"sleep `+marker) || !strings.Contains(logs(), `"cancelled":"the client`) {
				if time.Now().After(deadline) {
					t.Fatalf("the audit log does not say the command was cancelled:\n%s", logs())
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestCommandProgress: a command that runs for seconds sends progress (elapsed time and
// output so far) to a client that asked for it, on both protocol revisions.
func TestCommandProgress(t *testing.T) {
	h, _, _ := start(t)
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		t.Run(version, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			cs := h.ConnectAs(t, "", version, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, r.Params.Message)
			}})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Meta: mcp.Meta{"progressToken": "cmd"},
				Arguments: map[string]any{"command": "head -c 3000 /dev/zero; sleep 3.5"}})
			if err != nil || res.IsError {
				t.Fatalf("run_command: %v %s", err, mcptest.Text(res))
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) < 2 || !strings.HasPrefix(got[0], "running for 1") || !strings.HasSuffix(got[len(got)-1], "2.9 KiB of output") {
				t.Errorf("progress %q; want heartbeats from 1 s on with the output's size", got)
			}
		})
	}
}

// TestOwnerAllowsBlockedCommand: a line the blocklist refuses is put to the person behind a
// client that can ask; it runs once when they accept, and not when they decline, when the
// client cannot ask, or when the refusal is one the question could not explain.
func TestOwnerAllowsBlockedCommand(t *testing.T) {
	h, _, work := start(t)
	proof := filepath.Join(work, "proof")
	// wipefs --no-act changes nothing, but the blocklist refuses every wipefs (rule mkfs).
	blocked := "wipefs --no-act /nonexistent-device 2>/dev/null; echo ran > " + proof
	for _, tt := range []struct {
		name    string
		version string
		action  string // the person's answer, "" for a client without elicitation
		line    string
		asked   bool
		ran     bool
		errText string
	}{
		{"accepted", mcptest.Stateless, "accept", blocked, true, true, ""},
		{"declined", mcptest.Stateless, "decline", blocked, true, false, "declined it, so it was not done"},
		{"no elicitation", mcptest.Stateless, "", blocked, false, false, "refused by policy rule mkfs"},
		{"2025-11-25 over stateless HTTP", mcptest.ProtocolVersion, "accept", blocked, false, false, "refused by policy rule mkfs"},
		{"a computed command", mcptest.Stateless, "accept", "c=wipefs; $c --no-act /x; echo ran > " + proof, false, false, "refused by policy rule computed-command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(proof)
			var asked []string
			opts := &mcp.ClientOptions{}
			if tt.action != "" {
				opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, r.Params.Message)
					return &mcp.ElicitResult{Action: tt.action}, nil
				}
			}
			res := mcptest.Call(t, h.ConnectAs(t, "", tt.version, opts), "run_command", map[string]any{"command": tt.line})
			if tt.asked != (len(asked) == 1) || (tt.asked && (!strings.Contains(asked[0], "rule mkfs") || !strings.HasSuffix(asked[0], "\n\n"+tt.line))) {
				t.Errorf("asked %q; want a question showing the rule and the line: %v", asked, tt.asked)
			}
			_, err := os.Stat(proof)
			if ran := err == nil; ran != tt.ran {
				t.Errorf("the command ran: %v, want %v", ran, tt.ran)
			}
			if text := mcptest.Text(res); res.IsError != (tt.errText != "") || !strings.Contains(text, tt.errText) {
				t.Errorf("answer %v %q, want error %q", res.IsError, text, tt.errText)
			}
		})
	}
	if logs := h.Logs(); !strings.Contains(logs, `"msg":"command allowed once by the owner"`) || !strings.Contains(logs, `"policy":"allowed-by-owner"`) ||
		!strings.Contains(logs, `"msg":"command declined by the owner"`) {
		t.Errorf("the audit log does not show the owner's answers:\n%s", logs)
	}
}

// TestAllowlistDoesNotAsk: under the allowlist the operator's list stands; nobody is asked.
func TestAllowlistDoesNotAsk(t *testing.T) {
	h, _, _ := start(t, "--policy", "allowlist", "--allow-commands", "echo")
	asked := 0
	cs := h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	msg := mcptest.CallError(t, cs, "run_command", map[string]any{"command": "wipefs --no-act /x"})
	if asked != 0 || !strings.Contains(msg, "refused by policy rule") {
		t.Errorf("asked %d times, answer %q; want a refusal without a question", asked, msg)
	}
}
