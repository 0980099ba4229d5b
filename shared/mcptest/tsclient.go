package mcptest

import (
	"bufio"
	"bytes"
	"context"
	_ "embed" // the TypeScript driver
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

// TSClientDirEnv names the folder where scripts/ts-client-test.sh installed the TypeScript SDK.
const TSClientDirEnv = "MCP_TS_CLIENT_DIR"

//go:embed tsdriver.mjs
var tsDriver []byte

// TSClient is the official TypeScript MCP SDK's client (the version scripts/ts-client-test.sh
// installs, speaking 2025-11-25) in a node process, driven by the test through tsdriver.mjs:
// Do sends it a command, Wait reads the events it answers with.
type TSClient struct {
	stdin   io.WriteCloser
	events  chan TSEvent
	stderr  *bytes.Buffer // node's, shown when a Wait fails
	mu      sync.Mutex    // stderr
	backlog []TSEvent     // events read but not yet waited for
	Ready   TSEvent       // the event after connecting: the protocol version and the server's name
}

// TSEvent is one line the driver wrote: Event names it (ready, tools, progress, result,
// error, asked, closed); ID is the call's.
type TSEvent struct {
	Event    string         `json:"event"`
	ID       string         `json:"id"`
	Message  string         `json:"message"`
	Code     int            `json:"code"`
	Progress float64        `json:"progress"`
	Names    []string       `json:"names"`
	Result   map[string]any `json:"result"`
	Protocol string         `json:"protocol"`
	At       time.Time      `json:"-"` // when the test read it
}

// StartTSClientHTTP starts the TypeScript client against url (a server's /mcp) over Streamable
// HTTP. Without MCP_TS_CLIENT_DIR (scripts/ts-client-test.sh sets it) the test is skipped.
func StartTSClientHTTP(t testing.TB, url string) *TSClient {
	t.Helper()
	cmd := tsCommand(t, "http", url)
	return startTS(t, cmd, nil)
}

// StartTSClientStdio serves spec with the given flags (and --transport stdio) in this process
// over two pipes, and starts the TypeScript client on their other ends with the SDK's stdio
// framing: the newline-delimited JSON a spawned server speaks. The server's logs go to logs
// when it is not nil.
func StartTSClientStdio(t testing.TB, spec kit.Spec, logs io.Writer, args ...string) *TSClient {
	t.Helper()
	cmd := tsCommand(t, "pipe")
	s := newStdioServer(t, spec, logs, args...)
	toServer, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{clientIn, clientOut} // fds 3 (from the server) and 4 (to it)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	s.StartBackground()
	go func() {
		defer close(served)
		_ = s.ServeIO(ctx, toServer, fromServer)
		_ = fromServer.Close()
	}()
	c := startTS(t, cmd, func() {
		_ = clientIn.Close()
		_ = clientOut.Close()
	})
	t.Cleanup(func() {
		_ = toServer.Close()
		cancel()
		<-served
		s.Close()
	})
	return c
}

// tsCommand is node running the driver from the SDK's folder, where its imports resolve.
func tsCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	dir := os.Getenv(TSClientDirEnv)
	if dir == "" {
		t.Skip(TSClientDirEnv + " is not set: scripts/ts-client-test.sh installs the TypeScript SDK and runs this test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed: %v", err)
	}
	// Written whole under a name of its own, then renamed: tests and test binaries run side by
	// side, and a reader sees the old file or the new one, never half of one.
	script := filepath.Join(dir, "tsdriver.mjs")
	tmp, err := os.CreateTemp(dir, "tsdriver-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmp.Write(tsDriver)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), script)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		t.Fatalf("write the TypeScript driver: %v", err)
	}
	return exec.Command(node, append([]string{script}, args...)...)
}

// startTS starts cmd and waits for the client to connect; afterStart runs once node has the
// descriptors it inherits.
func startTS(t testing.TB, cmd *exec.Cmd, afterStart func()) *TSClient {
	t.Helper()
	c := &TSClient{events: make(chan TSEvent, 256), stderr: &bytes.Buffer{}}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.stderr.Write(p)
	})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	if afterStart != nil {
		afterStart()
	}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e TSEvent
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				e = TSEvent{Event: "error", ID: "driver", Message: "not JSON: " + sc.Text()}
			}
			e.At = time.Now()
			c.events <- e
		}
	}()
	t.Cleanup(func() {
		_ = c.stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	c.Ready = c.Wait(t, 30*time.Second, func(e TSEvent) bool { return e.Event == "ready" || e.ID == "connect" })
	if c.Ready.Event != "ready" {
		t.Fatalf("the TypeScript client did not connect: %s", c.Ready.Message)
	}
	return c
}

// Do sends the driver one command: op and its fields (see tsdriver.mjs).
func (c *TSClient) Do(t testing.TB, op string, fields map[string]any) {
	t.Helper()
	m := map[string]any{"op": op}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		t.Fatalf("the TypeScript client: %v", err)
	}
}

// Wait returns the first event that match accepts, earliest first; the others stay for later
// Waits. It fails the test after timeout or when the client ends.
func (c *TSClient) Wait(t testing.TB, timeout time.Duration, match func(TSEvent) bool) TSEvent {
	t.Helper()
	for i, e := range c.backlog {
		if match(e) {
			c.backlog = slices.Delete(c.backlog, i, i+1)
			return e
		}
	}
	deadline := time.After(timeout)
	for {
		select {
		case e, ok := <-c.events:
			if !ok {
				t.Fatalf("the TypeScript client ended; its stderr:\n%s", c.stderrText())
			}
			if match(e) {
				return e
			}
			c.backlog = append(c.backlog, e)
		case <-deadline:
			t.Fatalf("no such event from the TypeScript client within %s; its stderr:\n%s", timeout, c.stderrText())
		}
	}
}

// Answer waits for the answer to call id (its result or error), collecting on the way the
// events of that call (progress) and those of no call (asked, warning).
func (c *TSClient) Answer(t testing.TB, id string, timeout time.Duration) (answer TSEvent, on []TSEvent) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		e := c.Wait(t, time.Until(deadline), func(e TSEvent) bool { return e.ID == id || e.ID == "" })
		if e.ID == id && (e.Event == "result" || e.Event == "error") {
			return e, on
		}
		on = append(on, e)
	}
}

func (c *TSClient) stderrText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TSText is the text content of a result event, joined by newlines.
func TSText(e TSEvent) string {
	content, _ := e.Result["content"].([]any)
	var parts []string
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}
