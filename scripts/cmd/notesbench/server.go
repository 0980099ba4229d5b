package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/scripts/internal/proc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one run of the notes binary under measurement.
type server struct {
	cmd     *exec.Cmd
	port    int
	started time.Time
	http    *http.Client
	cs      *mcp.ClientSession

	mu       sync.Mutex
	peakAnon int64 // the most Pss_Anon seen by watchMemory
	stopMem  chan struct{}
	memDone  chan struct{}
	exited   chan struct{} // closed when the process has ended
	stopOnce sync.Once
}

// startServer runs bin on a free port over the vault with state as its state folder, pinned
// to cpus with taskset when cpus is not empty, and samples its anonymous memory until stop.
func startServer(bin, cpus, vault, state string) (*server, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--port", strconv.Itoa(port), "--state-dir", state, "--notes-dir", vault}
	name := bin
	if cpus != "" {
		args = append([]string{"-c", cpus, bin}, args...)
		name = "taskset"
	}
	s := &server{port: port, http: &http.Client{Timeout: 10 * time.Second}, stopMem: make(chan struct{}), memDone: make(chan struct{}), exited: make(chan struct{})}
	s.cmd = exec.Command(name, args...)
	s.cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + state}
	s.cmd.Stderr = logFile(state)
	s.started = time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	go s.watchMemory()
	return s, nil
}

// logFile is where the server's log goes: beside its state folder, kept for a look afterwards.
func logFile(state string) io.Writer {
	f, err := os.OpenFile(state+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return io.Discard
	}
	return f
}

// watchMemory samples the server's Pss_Anon every 100 ms and keeps the peak.
func (s *server) watchMemory() {
	defer close(s.memDone)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if a, err := proc.PssAnon(s.cmd.Process.Pid); err == nil {
			s.mu.Lock()
			s.peakAnon = max(s.peakAnon, a)
			s.mu.Unlock()
		}
		select {
		case <-s.stopMem:
			return
		case <-t.C:
		}
	}
}

// peak returns the most anonymous memory seen so far and starts the count again.
func (s *server) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.peakAnon
	s.peakAnon = 0
	return p
}

func (s *server) anon() int64 {
	a, _ := proc.PssAnon(s.cmd.Process.Pid)
	return a
}

// stop ends the server with SIGTERM (a kill after 20 s); once is enough.
func (s *server) stop() { s.stopOnce.Do(s.end) }

func (s *server) end() {
	close(s.stopMem)
	<-s.memDone
	if s.cs != nil {
		_ = s.cs.Close()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// health is what /healthz says, with the index check's state.
type health struct {
	code   int
	index  string // the index check's status: ok, warn or fail ("" when absent)
	detail string
}

func (s *server) health(ctx context.Context) (health, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/healthz", s.port), nil)
	if err != nil {
		return health{}, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return health{}, err
	}
	defer resp.Body.Close()
	var rep struct {
		Checks map[string]struct{ Status, Detail string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return health{code: resp.StatusCode}, err
	}
	ix := rep.Checks["index"]
	return health{code: resp.StatusCode, index: ix.Status, detail: ix.Detail}, nil
}

// ready reports whether the index is whole: /healthz answers 200 and the index check is ok.
func (h health) ready() bool {
	return h.code == http.StatusOK && h.index == "ok"
}

// waitFor polls /healthz every 20 ms until cond holds or limit passes, and returns the time
// since the server was started.
func (s *server) waitFor(ctx context.Context, limit time.Duration, cond func(health) bool) (time.Duration, health, error) {
	deadline := time.Now().Add(limit)
	var last health
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return 0, last, errors.New("the server exited")
		default:
		}
		h, err := s.health(ctx)
		if err == nil {
			last = h
			if cond(h) {
				return time.Since(s.started), h, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, last, fmt.Errorf("not there within %s (last /healthz: %+v)", limit, last)
}

// connect opens an MCP client session to the server.
func (s *server) connect(ctx context.Context) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "notesbench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", s.port), DisableStandaloneSSE: true}, nil)
	if err != nil {
		return err
	}
	s.cs = cs
	return nil
}

// firstAnswer calls list_notes with query until it answers without an error (found or not)
// and returns the time since the server was started and the result's index field, which says
// how far the build was.
func (s *server) firstAnswer(ctx context.Context, query string, limit time.Duration) (time.Duration, string, error) {
	deadline := time.Now().Add(limit)
	for {
		out, _, err := s.call(ctx, "list_notes", map[string]any{"query": query, "limit": 10})
		if err == nil {
			status, _ := out["index"].(string)
			if status == "" {
				status = "the index whole"
			}
			return time.Since(s.started), status, nil
		}
		if time.Now().After(deadline) {
			return 0, "", fmt.Errorf("no search answered within %s: %w", limit, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call calls a tool and returns its structured result and the call's wall time.
func (s *server) call(ctx context.Context, tool string, args map[string]any) (map[string]any, time.Duration, error) {
	out, d, _, err := s.callCPU(ctx, tool, args)
	return out, d, err
}

// callCPU is call that also returns the time the server's threads ran during the call (its
// CPU cost, which a busy machine inflates far less than its wall time).
func (s *server) callCPU(ctx context.Context, tool string, args map[string]any) (map[string]any, time.Duration, time.Duration, error) {
	cpu0, _ := proc.RunTime(s.cmd.Process.Pid)
	t0 := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	d := time.Since(t0)
	cpu1, _ := proc.RunTime(s.cmd.Process.Pid)
	out, err := result(tool, res, err)
	return out, d, cpu1 - cpu0, err
}

// result is a tool call's structured result, or its error.
func result(tool string, res *mcp.CallToolResult, err error) (map[string]any, error) {
	if err != nil {
		return nil, err
	}
	if res.IsError {
		var msg strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				msg.WriteString(t.Text)
			}
		}
		return nil, fmt.Errorf("%s: %s", tool, msg.String())
	}
	out, _ := res.StructuredContent.(map[string]any)
	return out, nil
}

// notes is the paths a list_notes result holds.
func notes(out map[string]any) []string {
	list, _ := out["notes"].([]any)
	paths := make([]string, 0, len(list))
	for _, n := range list {
		if m, ok := n.(map[string]any); ok {
			p, _ := m["path"].(string)
			paths = append(paths, p)
		}
	}
	return paths
}
