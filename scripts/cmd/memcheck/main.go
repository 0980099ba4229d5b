// Command memcheck measures what each built server costs in memory the kernel charges it for:
// its anonymous memory (Pss_Anon of /proc/PID/smaps_rollup: heap, stacks, private pages; not
// the executable's file pages, which are shared and reclaimable). It starts every named server
// at once — its own port, an empty state folder, no sign-in — and reads each three times:
//
//   - idle: a few seconds after its first healthy answer;
//   - right after a burst: -burst of -clients concurrent clients calling tools/list, all
//     servers loaded at the same time;
//   - after quiet: -quiet with no requests, one wait shared by all servers. Go forces a
//     collection two minutes after the last one and its scavenger then hands the free pages
//     back over some seconds, so this reading is retaken every two seconds for up to -grace
//     until every server is within budget; the time it was taken at is printed.
//
// It fails when a server is over the budget of a reading (docs/performance.md).
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

// The readings, in order.
const (
	idle = iota
	burst
	quiet
	readings
)

var readingNames = [readings]string{"idle", "after burst", "after quiet"}

func main() {
	bin := flag.String("bin", "bin", "directory of built server binaries")
	var budget [readings]float64
	flag.Float64Var(&budget[idle], "max-idle", 6, "the most anonymous memory an idle server may hold, in MiB")
	flag.Float64Var(&budget[burst], "max-burst", 24, "the most right after the burst, in MiB")
	flag.Float64Var(&budget[quiet], "max-quiet", 10, "the most after the quiet spell, in MiB")
	settle := flag.Duration("settle", 5*time.Second, "how long the servers stay untouched after start before the idle reading")
	burstFor := flag.Duration("burst", 5*time.Second, "how long the burst lasts")
	clients := flag.Int("clients", 16, "concurrent clients per server during the burst")
	quietFor := flag.Duration("quiet", 2*time.Minute, "how long the servers stay quiet after the burst")
	grace := flag.Duration("grace", 40*time.Second, "how much longer the after-quiet reading may be retaken while a server is over budget")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "memcheck: name the servers to measure")
		os.Exit(2)
	}
	ctx := context.Background()
	servers := make([]*server, flag.NArg())
	var wg sync.WaitGroup
	for i, name := range flag.Args() {
		wg.Go(func() { servers[i] = start(ctx, filepath.Join(*bin, name)) })
	}
	wg.Wait()
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()

	time.Sleep(*settle)
	readAll(servers, idle)
	for _, s := range servers {
		wg.Go(func() {
			if s.err == nil {
				s.err = s.load(ctx, *clients, *burstFor)
			}
		})
	}
	wg.Wait()
	readAll(servers, burst)
	quietStart := time.Now()
	time.Sleep(*quietFor)
	quietLimit := int64(budget[quiet] * (1 << 20))
	for {
		readAll(servers, quiet)
		if !anyOver(servers, quiet, quietLimit) || time.Since(quietStart) >= *quietFor+*grace {
			break
		}
		time.Sleep(2 * time.Second)
	}
	quietTook := time.Since(quietStart).Round(time.Second)

	fmt.Printf("memcheck: anonymous memory (Pss_Anon), MiB; budgets %.0f idle, %.0f after %s of %d clients, %.0f after %s quiet (read at %s)\n",
		budget[idle], budget[burst], *burstFor, *clients, budget[quiet], *quietFor, quietTook)
	fmt.Printf("memcheck: %-10s %8s %12s %12s %10s\n", "server", "idle", "after burst", "after quiet", "calls")
	failed := false
	for _, s := range servers {
		verdict := "ok"
		if s.err != nil {
			verdict = "FAILED: " + s.err.Error()
			failed = true
		}
		for r := range readings {
			if s.err == nil && s.anon[r] > int64(budget[r]*(1<<20)) {
				verdict = fmt.Sprintf("OVER the %.0f MiB budget %s", budget[r], readingNames[r])
				failed = true
			}
		}
		fmt.Printf("memcheck: %-10s %8.1f %12.1f %12.1f %10d  %s\n", s.name, mib(s.anon[idle]), mib(s.anon[burst]), mib(s.anon[quiet]), s.calls, verdict)
	}
	if failed {
		for _, s := range servers {
			s.stop() // os.Exit skips the deferred stop
		}
		os.Exit(1)
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// anyOver reports whether a server still running well holds more than limit at reading r.
func anyOver(servers []*server, r int, limit int64) bool {
	for _, s := range servers {
		if s.err == nil && s.anon[r] > limit {
			return true
		}
	}
	return false
}

// readAll takes reading r of every server still running well, at the same moment.
func readAll(servers []*server, r int) {
	for _, s := range servers {
		if s.err == nil {
			s.anon[r], s.err = proc.PssAnon(s.cmd.Process.Pid)
		}
	}
}

// server is one running server under measurement.
type server struct {
	name  string
	cmd   *exec.Cmd
	port  int
	state string
	anon  [readings]int64
	calls int
	http  *http.Client // keeps a connection per concurrent client
	err   error        // the first thing that went wrong; no later reading is taken
}

// start runs a server with only --port and --state-dir, with the environment a unit gives it
// (no GOGC or GOMEMLIMIT from the caller), and waits until /healthz answers 200. A server that
// does not start carries the error.
func start(ctx context.Context, path string) *server {
	s := &server{name: filepath.Base(path), http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if s.port, s.err = proc.FreePort(); s.err != nil {
		return s
	}
	if s.state, s.err = os.MkdirTemp("", "memcheck-"); s.err != nil {
		return s
	}
	s.cmd = exec.CommandContext(ctx, path, "--port", strconv.Itoa(s.port), "--state-dir", s.state)
	s.cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.state}
	if s.err = s.cmd.Start(); s.err != nil {
		s.cmd = nil
		return s
	}
	s.err = s.waitHealthy(ctx, 20*time.Second)
	return s
}

func (s *server) stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
	if s.state != "" {
		_ = os.RemoveAll(s.state)
	}
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
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// load runs clients concurrent clients for d, each calling tools/list (which every server
// answers without a sign-in) back to back, and /metrics and /healthz every tenth call.
func (s *server) load(ctx context.Context, clients int, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			n, err := s.client(ctx)
			mu.Lock()
			defer mu.Unlock()
			s.calls += n
			if err != nil && first == nil && ctx.Err() == nil { // not the burst's end
				first = err
			}
		})
	}
	wg.Wait()
	return first
}

// client calls tools/list until ctx ends and returns how many calls it made, and the error
// that stopped it (a call cut off by the burst's end is one too: load tells them apart).
func (s *server) client(ctx context.Context) (int, error) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	n := 0
	for ; ctx.Err() == nil; n++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(s.port)+"/mcp", bytes.NewReader(body))
		if err != nil {
			return n, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := s.http.Do(req)
		if err != nil {
			return n, fmt.Errorf("tools/list: %w", err)
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return n, fmt.Errorf("tools/list: %w", err)
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"tools"`)) {
			return n, fmt.Errorf("tools/list answered %d: %.200s", resp.StatusCode, b)
		}
		if n%10 == 0 {
			for _, p := range []string{"/metrics", "/healthz"} {
				if _, err := s.get(ctx, p); err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}
