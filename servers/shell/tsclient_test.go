package main

import (
	"bytes"
	"fmt"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner/runnertest"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// The official TypeScript SDK's client (2025-11-25) against the shell: cancellation, progress,
// the owner's confirmation and the tools. scripts/ts-client-test.sh installs the SDK and runs
// these (make test's ts-client-test step); without MCP_TS_CLIENT_DIR they are skipped.

// TestTypeScriptSDKCancel: a run_command the TypeScript client cancels — its AbortSignal
// (notifications/cancelled over HTTP, on a POST of its own, and over stdio) or closing the
// client (the request's response stream closes) — leaves no process behind, and the audit
// log says the command was cancelled.
func TestTypeScriptSDKCancel(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stdio bool
		op    string
	}{
		{"http abort signal", false, "abort"},
		{"http stream closed", false, "close"},
		{"stdio abort signal", true, "abort"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c *mcptest.TSClient
			var logs func() string
			if tt.stdio {
				buf := &mcptest.LogBuffer{}
				c, logs = mcptest.StartTSClientStdio(t, spec(), buf, "--state-dir", t.TempDir()), buf.String
			} else {
				h, _, _ := start(t)
				c, logs = mcptest.StartTSClientHTTP(t, h.URL+"/mcp"), h.Logs
			}
			marker := runnertest.NewMarker(t)
			c.Do(t, "call", map[string]any{"id": "sleep", "name": "run_command", "arguments": map[string]any{"command": "sleep " + marker, "timeout_seconds": 60}})
			deadline := time.Now().Add(10 * time.Second)
			for len(runnertest.Marked(marker)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the command did not start")
				}
				time.Sleep(20 * time.Millisecond)
			}
			c.Do(t, tt.op, map[string]any{"id": "sleep"})
			cancelled := time.Now()
			for len(runnertest.Marked(marker)) > 0 {
				if time.Since(cancelled) > stopBound {
					t.Fatalf("processes still running %s after the cancellation: %v", stopBound, runnertest.Marked(marker))
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("processes gone %s after the cancellation", time.Since(cancelled).Round(time.Millisecond))
			if a, _ := c.Answer(t, "sleep", 5*time.Second); a.Event != "error" {
				t.Errorf("the cancelled call answered %+v", a)
			}
			deadline = time.Now().Add(5 * time.Second)
			for !strings.Contains(logs(), `"cancelled":"`) {
				if time.Now().After(deadline) {
					t.Fatalf("the audit log does not say the command was cancelled:\n%s", logs())
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestTypeScriptSDKProgress: a 10 s command under a 3 s request timeout finishes when the
// client resets its timeout on progress (resetTimeoutOnProgress), and times out without it:
// the server's progress is what keeps the call alive.
func TestTypeScriptSDKProgress(t *testing.T) {
	t.Parallel()
	h, _, _ := start(t)
	c := mcptest.StartTSClientHTTP(t, h.URL+"/mcp")
	args := map[string]any{"command": "sleep 10; echo done", "timeout_seconds": 30}
	began := time.Now()
	c.Do(t, "call", map[string]any{"id": "reset", "name": "run_command", "arguments": args, "timeout": 3000, "reset": true, "progress": true})
	c.Do(t, "call", map[string]any{"id": "plain", "name": "run_command", "arguments": args, "timeout": 3000})
	plain, _ := c.Answer(t, "plain", 20*time.Second)
	if plain.Event != "error" || plain.Code != -32001 {
		t.Errorf("the call without the reset: %+v, want a request timeout (-32001)", plain)
	}
	res, on := c.Answer(t, "reset", 30*time.Second)
	var progress []mcptest.TSEvent
	for _, e := range on {
		if e.Event == "progress" {
			progress = append(progress, e)
		}
	}
	if res.Event != "result" || res.Result["isError"] == true || !strings.Contains(mcptest.TSText(res), "done") {
		t.Fatalf("the call with the reset: %+v", res)
	}
	if took := res.At.Sub(began); took < 10*time.Second {
		t.Errorf("answered after %s, before the command's 10 s", took)
	}
	var gaps []time.Duration
	last := began
	for _, p := range progress {
		gaps = append(gaps, p.At.Sub(last).Round(100*time.Millisecond))
		last = p.At
	}
	if len(progress) < 4 || slices.Max(gaps) >= 3*time.Second || !strings.HasPrefix(progress[0].Message, "running for 1") {
		t.Errorf("progress %+v (gaps %v): want notifications under 3 s apart from 1 s on", progress, gaps)
	}
}

// TestTypeScriptSDKConfirm: over stdio, where the go-sdk turns the input request into
// elicitation/create, the TypeScript client is asked about a line the blocklist refuses,
// with the rule and the line; the line runs once when the person accepts and not when they
// decline. Over stateless HTTP the server cannot ask a 2025-11-25 client, and the line stays
// refused, as before.
func TestTypeScriptSDKConfirm(t *testing.T) {
	for _, tt := range []struct {
		name, action string
		stdio        bool
		asked, ran   bool
		errText      string
	}{
		{"stdio accepted", "accept", true, true, true, ""},
		{"stdio declined", "decline", true, true, false, "declined it, so it was not done"},
		{"http", "accept", false, false, false, "refused by policy rule mkfs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			work := filepath.Join(state, "work")
			var c *mcptest.TSClient
			if tt.stdio {
				c = mcptest.StartTSClientStdio(t, spec(), nil, "--state-dir", state)
			} else {
				h := mcptest.Start(t, spec(), "--state-dir", state)
				c = mcptest.StartTSClientHTTP(t, h.URL+"/mcp")
			}
			proof := filepath.Join(work, "proof")
			line := "wipefs --no-act /nonexistent-device 2>/dev/null; echo ran > " + proof
			c.Do(t, "answer", map[string]any{"action": tt.action})
			c.Do(t, "call", map[string]any{"id": "c", "name": "run_command", "arguments": map[string]any{"command": line}})
			res, on := c.Answer(t, "c", 20*time.Second)
			var asked []string
			for _, e := range on {
				if e.Event == "asked" {
					asked = append(asked, e.Message)
				}
			}
			if tt.asked != (len(asked) == 1) || (tt.asked && (!strings.Contains(asked[0], "rule mkfs") || !strings.HasSuffix(asked[0], "\n\n"+line))) {
				t.Errorf("asked %q; want a question showing the rule and the line: %v", asked, tt.asked)
			}
			_, err := os.Stat(proof)
			if ran := err == nil; ran != tt.ran {
				t.Errorf("the command ran: %v, want %v", ran, tt.ran)
			}
			isError := res.Result["isError"] == true
			if res.Event != "result" || isError != (tt.errText != "") || !strings.Contains(mcptest.TSText(res), tt.errText) {
				t.Errorf("answer %+v, want error %q", res, tt.errText)
			}
		})
	}
}

// TestTypeScriptSDKTools: the TypeScript client, speaking 2025-11-25, lists the shell's tools
// (the SDK checks the listing and compiles each output schema) and uses every one of them;
// the SDK checks each structured result against the tool's output schema.
func TestTypeScriptSDKTools(t *testing.T) {
	t.Parallel()
	h, _, work := start(t)
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var png bytes.Buffer
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "dot.png"), png.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mcptest.StartTSClientHTTP(t, h.URL+"/mcp")
	if c.Ready.Protocol != mcptest.ProtocolVersion {
		t.Errorf("negotiated %q, want %s", c.Ready.Protocol, mcptest.ProtocolVersion)
	}
	c.Do(t, "list", nil)
	listed := c.Wait(t, 20*time.Second, func(e mcptest.TSEvent) bool { return e.Event == "tools" || e.ID == "list" })
	used := map[string]bool{}
	n := 0
	call := func(name string, args map[string]any, want string) map[string]any {
		t.Helper()
		n++
		id := fmt.Sprint(n)
		c.Do(t, "call", map[string]any{"id": id, "name": name, "arguments": args})
		res, _ := c.Answer(t, id, 30*time.Second)
		if res.Event != "result" || res.Result["isError"] == true || !strings.Contains(mcptest.TSText(res), want) {
			t.Fatalf("%s: %+v, want a result saying %q", name, res, want)
		}
		used[name] = true
		sc, _ := res.Result["structuredContent"].(map[string]any)
		return sc
	}
	call("write_text_file", map[string]any{"path": "a.txt", "content": "hello\n"}, "a.txt")
	call("edit_file", map[string]any{"path": "a.txt", "edits": []map[string]any{{"old_text": "hello", "new_text": "goodbye"}}}, "a.txt")
	call("read_text_file", map[string]any{"path": "a.txt"}, "goodbye")
	call("get_path_info", map[string]any{"path": "a.txt"}, "a.txt")
	call("list_directory", map[string]any{}, "a.txt")
	call("find_files", map[string]any{"pattern": "*.txt"}, "a.txt")
	call("search_text", map[string]any{"pattern": "goodbye"}, "a.txt")
	call("copy_path", map[string]any{"source": "a.txt", "destination": "b.txt"}, "b.txt")
	call("move_path", map[string]any{"source": "b.txt", "destination": "c.txt"}, "c.txt")
	call("delete_path", map[string]any{"path": "c.txt"}, "c.txt")
	call("read_document", map[string]any{"path": "dot.png"}, "")
	call("run_command", map[string]any{"command": "echo ts-sdk"}, "ts-sdk")
	call("get_environment", map[string]any{}, "")
	p := call("start_process", map[string]any{"command": "cat"}, "")
	proc, _ := p["process"].(map[string]any)
	handle, _ := proc["handle"].(string)
	call("send_process_input", map[string]any{"handle": handle, "input": "ping\n", "wait_seconds": 2}, "ping")
	call("read_process_output", map[string]any{"handle": handle}, "ping")
	call("list_processes", map[string]any{}, handle)
	call("stop_process", map[string]any{"handle": handle}, "")
	for _, name := range listed.Names {
		if !used[name] {
			t.Errorf("%s was listed but not used here: add a call", name)
		}
	}
	if len(listed.Names) != len(used) {
		t.Errorf("listed %v, used %d tools", listed.Names, len(used))
	}
}
