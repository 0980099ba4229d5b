// Command memcheck starts each built server — its own port, an empty state folder, no sign-in —
// and reads its resident set size twice: idle after start (quiet since its first healthy
// answer), and idle again after a burst of requests and as long a quiet spell. It fails when any server
// holds more than -max MiB either time. It guards the fleet's memory promise (idle RSS at or
// under 12 MiB per server, docs/performance.md) against a heavy dependency slipping in or the
// kit's idle trim breaking.
//
// Usage: go run ./scripts/cmd/memcheck -bin bin calculator shell ...
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/scripts/internal/proc"
)

func main() {
	bin := flag.String("bin", "bin", "directory of built server binaries")
	maxMiB := flag.Float64("max", 12, "the most resident memory an idle server may hold, in MiB")
	quiet := flag.Duration("quiet", 45*time.Second, "how long the servers stay quiet before each reading (the kit trims 30 to 37.5 s after the last request)")
	burst := flag.Int("burst", 200, "requests sent to each server between the two readings")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "memcheck: name the servers to measure")
		os.Exit(2)
	}
	ctx := context.Background()
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	failed := false
	for _, name := range flag.Args() {
		s, err := start(ctx, filepath.Join(*bin, name))
		if err != nil {
			fmt.Fprintf(os.Stderr, "memcheck: %s: %v\n", name, err)
			failed = true
			continue
		}
		servers = append(servers, s)
	}
	time.Sleep(*quiet)
	for _, s := range servers {
		s.idle, s.err = proc.RSS(s.cmd.Process.Pid)
	}
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			if s.err == nil {
				s.err = s.load(ctx, *burst)
			}
		})
	}
	wg.Wait()
	time.Sleep(*quiet)
	for _, s := range servers {
		if s.err == nil {
			s.afterUse, s.err = proc.RSS(s.cmd.Process.Pid)
		}
	}
	limit := int64(*maxMiB * (1 << 20))
	fmt.Printf("memcheck: %-10s %10s %16s\n", "server", "idle MiB", "after use MiB")
	for _, s := range servers {
		verdict := "ok"
		switch {
		case s.err != nil:
			verdict = "FAILED: " + s.err.Error()
			failed = true
		case s.idle > limit || s.afterUse > limit:
			verdict = fmt.Sprintf("OVER the %.0f MiB limit", *maxMiB)
			failed = true
		}
		fmt.Printf("memcheck: %-10s %10.1f %16.1f  %s\n", s.name, mib(s.idle), mib(s.afterUse), verdict)
	}
	if failed {
		os.Exit(1)
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// server is one running server under measurement.
type server struct {
	name     string
	cmd      *exec.Cmd
	port     int
	state    string
	idle     int64
	afterUse int64
	err      error
}

// start runs a server with only --port and --state-dir, with the environment a unit gives it
// (no GOGC or GOMEMLIMIT from the caller), and waits until /healthz answers 200.
func start(ctx context.Context, path string) (*server, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, err
	}
	state, err := os.MkdirTemp("", "memcheck-")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, "--port", strconv.Itoa(port), "--state-dir", state)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + state}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(state)
		return nil, err
	}
	s := &server{name: filepath.Base(path), cmd: cmd, port: port, state: state}
	if err := s.waitHealthy(ctx, 10*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	os.RemoveAll(s.state)
}

func (s *server) waitHealthy(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if code, err := s.get(ctx, "/healthz"); err == nil && code == http.StatusOK {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("not healthy on port %d within %s", s.port, limit)
}

func (s *server) get(ctx context.Context, path string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(s.port)+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// load sends n MCP requests: tools/list, which every server answers without a sign-in, and
// /metrics and /healthz between them.
func (s *server) load(ctx context.Context, n int) error {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	for i := range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(s.port)+"/mcp", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"tools"`)) {
			return fmt.Errorf("tools/list answered %d: %.200s", resp.StatusCode, b)
		}
		if i%10 == 0 {
			for _, p := range []string{"/metrics", "/healthz"} {
				if _, err := s.get(ctx, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
