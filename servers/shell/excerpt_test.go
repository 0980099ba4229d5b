package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestExcerptSpans(t *testing.T) {
	data := []byte(numbered(1, 20))
	at := strings.Index(string(data), "line 10\n")
	start, end := aroundMatch(data, at+5, at+7)
	if got := string(data[start:end]); got != numbered(7, 13) {
		t.Errorf("aroundMatch = %q, want lines 7 to 13", got)
	}
	if got := string(data[headEnd(data):]); got != numbered(11, 20) {
		t.Errorf("after headEnd = %q, want lines 11 to 20", got)
	}
	if got := string(data[tailStart(data):]); got != numbered(11, 20) {
		t.Errorf("from tailStart = %q, want lines 11 to 20", got)
	}
	// At the edges there is less context, not an error.
	start, end = aroundMatch(data, 0, 4)
	if got := string(data[start:end]); got != numbered(1, 4) {
		t.Errorf("first line: %q", got)
	}
	short := []byte("one\ntwo")
	if got := string(short[tailStart(short):]); got != "one\ntwo" {
		t.Errorf("tail of a short output without its last newline: %q", got)
	}
	// One enormous line is cut around the match, on a character boundary.
	long := []byte(strings.Repeat("é", 10000) + "MATCH" + strings.Repeat("é", 10000))
	ms := strings.Index(string(long), "MATCH")
	start, end = aroundMatch(long, ms, ms+5)
	if end-start > lineBytes || !strings.Contains(string(long[start:end]), "MATCH") || !json.Valid(mustJSON(t, string(long[start:end]))) {
		t.Errorf("long line cut to %d bytes around the match", end-start)
	}
	if s := string(long[tailStart(long):]); len(s) > tailBytes || strings.ContainsRune(s, '\uFFFD') {
		t.Errorf("tail of one long line: %d bytes", len(s))
	}
}

func mustJSON(t *testing.T, s string) []byte {
	t.Helper()
	if strings.ContainsRune(s, '\uFFFD') || !strings.HasPrefix(s, "é") && !strings.HasPrefix(s, "M") {
		t.Errorf("cut inside a character: %q…", s[:8])
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWaitForLongOutput: start_process with wait_for on a 20,000-line output answers with the
// matching line, its neighbours and the last lines, under 8 KiB, saying it matched; a
// pattern that never matches says it timed out and shows the end, not the beginning.
func TestWaitForLongOutput(t *testing.T) {
	_, cs, _ := start(t)
	const build = `for i in $(seq 1 20000); do echo "compiling unit $i of 20000"; if [ $i = 15000 ]; then echo "server READY on :8080"; fi; done; sleep 30`
	res := mcptest.Call(t, cs, "start_process", map[string]any{"command": build, "wait_for": "^server READY", "wait_seconds": 30})
	var out processOutput
	mcptest.Decode(t, res, &out)
	text := mcptest.Text(res)
	wire, _ := json.Marshal(res)
	t.Logf("wait_for answer: text %d bytes, result %d bytes on the wire", len(text), len(wire))
	if len(text) > 8<<10 || len(wire) > 16<<10 {
		t.Errorf("wait_for answered %d bytes of text (%d on the wire), want at most 8 KiB", len(text), len(wire))
	}
	for _, want := range []string{"compiling unit 14998 of 20000\ncompiling unit 14999 of 20000\ncompiling unit 15000 of 20000\nserver READY on :8080\n", "wait_for matched", out.Process.Handle} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if out.Matched == nil || !*out.Matched || out.TimedOut || strings.Contains(out.Output, "compiling unit 1 of") {
		t.Errorf("matched %v timed out %v, output from offset %d", out.Matched, out.TimedOut, out.Offset)
	}
	if out.Tail != "" && !strings.Contains(text, fmt.Sprintf("read_process_output offset %d", out.SkippedOffset)) {
		t.Errorf("the text does not say where the lines it left out are:\n%s", text)
	}

	// Five seconds: seq's output must be out before the wait ends, on a loaded machine too.
	res = mcptest.Call(t, cs, "start_process", map[string]any{"command": "seq 1 20000; sleep 30", "wait_for": "never printed", "wait_seconds": 5})
	mcptest.Decode(t, res, &out)
	text = mcptest.Text(res)
	if !out.TimedOut || *out.Matched || !strings.Contains(text, "wait_for timed out") || !strings.HasSuffix(out.Output, "19999\n20000\n") || len(text) > 8<<10 {
		t.Errorf("timed out: %d bytes, timed_out %v:\n%s", len(text), out.TimedOut, text)
	}
}

// TestStopProcessUnread: stop_process returns only the output no call returned yet.
func TestStopProcessUnread(t *testing.T) {
	_, cs, _ := start(t)
	var started processOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "start_process", map[string]any{
		"command": "echo first; echo second; sleep 0.5; echo third; sleep 60", "wait_for": "second",
	}), &started)
	if started.Output != "first\nsecond\n" {
		t.Fatalf("start: %q", started.Output)
	}
	// Wait, without reading, until "third" is out.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var list listProcessesOutput
		mcptest.Decode(t, mcptest.Call(t, cs, "list_processes", nil), &list)
		if list.Processes[0].OutputBytes >= int64(len("first\nsecond\nthird\n")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("third never came")
		}
	}
	res := mcptest.Call(t, cs, "stop_process", map[string]any{"handle": started.Process.Handle, "grace_seconds": 1})
	var stopped processOutput
	mcptest.Decode(t, res, &stopped)
	if stopped.Output != "third\n" || stopped.Offset != 13 {
		t.Errorf("stop_process returned %q from %d, want only the unread third line", stopped.Output, stopped.Offset)
	}
	if text := mcptest.Text(res); !strings.Contains(text, "killed by signal") || strings.Contains(text, "first") {
		t.Errorf("stop text: %s", text)
	}
	// Nothing left unread: the answer says so.
	res = mcptest.Call(t, cs, "stop_process", map[string]any{"handle": started.Process.Handle})
	if text := mcptest.Text(res); !strings.Contains(text, "no new output") {
		t.Errorf("second stop: %s", text)
	}
}
