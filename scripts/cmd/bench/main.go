// Command bench measures a built server over real HTTP on loopback: calls per second, p50 and
// p99 latency and server CPU time per call with 1 and 16 concurrent clients, idle RSS after
// start, and start-to-healthy time — next to, in the same run, a bare go-sdk server with the
// same tool (the baseline for the kit's overhead) and a bare net/http handler that answers a
// fixed JSON-RPC result (the floor for HTTP+JSON on this machine). It fails when the server's
// CPU per call at 16 clients is more than -max-overhead percent above the bare SDK's.
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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/scripts/internal/proc"
)

func main() {
	bin := flag.String("bin", "bin", "directory of built server binaries")
	server := flag.String("server", "calculator", "server to measure")
	tool := flag.String("tool", "evaluate", "tool to call")
	args := flag.String("args", `{"expression":"2+3*4"}`, "tool arguments as JSON")
	duration := flag.Duration("duration", 6*time.Second, "load duration per target and client count, split into -rounds slices")
	rounds := flag.Int("rounds", 6, "slices the targets take in turn, so that outside load falls on all alike")
	maxOverhead := flag.Float64("max-overhead", 10, "fail when the server's CPU per call at 16 clients exceeds the bare go-sdk's by more than this many percent")
	floorAddr := flag.String("floor", "", "internal: serve the bare floor handler on this address")
	sdkAddr := flag.String("sdk", "", "internal: serve evaluate with the bare go-sdk on this address")
	mcpgoAddr := flag.String("mcpgo", "", "internal: serve evaluate with github.com/mark3labs/mcp-go on this address")
	var g gcRun
	flag.Var(&g.settings, "gc", `measure the server under these collector settings side by side instead of against the baselines: ";"-separated, each "default" or comma-separated variables (GOGC=800,GOMEMLIMIT=16MiB)`)
	flag.StringVar(&g.serverArgs, "server-args", "", "with -gc: more arguments for the server, space-separated (SITE is the -site folder's URL)")
	flag.StringVar(&g.setup, "setup", "", `with -gc: a tool call made once before the load, as "TOOL {JSON arguments}" (SITE is the -site folder's URL)`)
	flag.StringVar(&g.site, "site", "", "with -gc: a folder served over loopback HTTP for the server to read")
	flag.DurationVar(&g.quiet, "quiet", 2*time.Minute, "with -gc: how long the servers stay quiet after the 16-client load before the last memory reading")
	flag.BoolVar(&g.sdk, "sdk-too", false, "with -gc: run the bare go-sdk under each setting too (the tool must be evaluate)")
	flag.Parse()
	switch {
	case *floorAddr != "":
		serveFloor(*floorAddr)
		return
	case *sdkAddr != "":
		serveBareSDK(*sdkAddr)
		return
	case *mcpgoAddr != "":
		serveMcpGo(*mcpgoAddr)
		return
	}
	if len(g.settings) > 0 {
		g.bin, g.server, g.tool, g.args, g.duration, g.rounds = *bin, *server, *tool, *args, *duration, *rounds
		if err := g.run(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *server, *tool, *args, *duration, *rounds, *maxOverhead); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(binDir, server, tool, args string, duration time.Duration, rounds int, maxOverhead float64) error {
	path, err := filepath.Abs(filepath.Join(binDir, server))
	if err != nil {
		return err
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)

	starts, rss, err := startup(path, 10)
	if err != nil {
		return err
	}
	fmt.Printf("%s: start-to-healthy p50 %.1f ms (min %.1f, max %.1f over %d starts); idle RSS %.1f MB\n",
		server, ms(starts[len(starts)/2]), ms(starts[0]), ms(starts[len(starts)-1]), len(starts), float64(rss)/(1<<20))

	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The bare SDK server runs with the same GC settings as the servers: Go's defaults (kit.Main
	// adds only the unit's cgroup memory limit, which a bench run does not have), so that the
	// comparison is of the code each request runs, not of the collector's pace.
	sdkEnv := os.Environ()
	fmt.Printf("\n%-10s %8s %10s %9s %9s %12s %8s %8s %8s %8s\n", "target", "clients", "calls/s", "p50 ms", "p99 ms", "cpu µs/call", "floor%", "sdk cpu%", "RSS MB", "anon MB")
	var overhead float64
	for _, clients := range []int{1, 16} {
		res, running, err := compare([]string{"floor", "go-sdk", "mcp-go", server},
			[][]string{{self, "-floor", "ADDR"}, {self, "-sdk", "ADDR"}, {self, "-mcpgo", "ADDR"}, {path, "--port", "PORT", "--state-dir", os.TempDir()}},
			[][]string{nil, sdkEnv, sdkEnv, nil}, nil, body, clients, duration, rounds)
		stopAll(running)
		if err != nil {
			return err
		}
		floor, sdk, mgo, srv := res[0], res[1], res[2], res[3]
		floor.print("floor", clients, 0, 0)
		sdk.print("go-sdk", clients, floor.rate, sdk.cpuPerCall)
		mgo.print("mcp-go", clients, floor.rate, sdk.cpuPerCall)
		srv.print(server, clients, floor.rate, sdk.cpuPerCall)
		overhead = 100 * (float64(srv.cpuPerCall)/float64(sdk.cpuPerCall) - 1)
	}
	fmt.Printf("\n%s CPU per call at 16 clients: %+.1f%% against the bare go-sdk (limit %+.0f%%)\n", server, overhead, maxOverhead)
	if overhead > maxOverhead {
		return fmt.Errorf("%s costs %.1f%% more CPU per call than the bare go-sdk, over the %.0f%% limit", server, overhead, maxOverhead)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// startup starts the server n times and returns the sorted start-to-healthy times and the
// RSS of the last start, read once it has been idle for a moment.
func startup(path string, n int) ([]time.Duration, int64, error) {
	var times []time.Duration
	var rss int64
	for i := range n {
		port, err := proc.FreePort()
		if err != nil {
			return nil, 0, err
		}
		cmd := exec.Command(path, "--port", strconv.Itoa(port), "--state-dir", os.TempDir())
		begin := time.Now()
		if err := cmd.Start(); err != nil {
			return nil, 0, err
		}
		healthy := false
		for time.Since(begin) < 5*time.Second {
			resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/healthz")
			if err == nil {
				resp.Body.Close()
				healthy = resp.StatusCode == http.StatusOK
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		took := time.Since(begin)
		if i == n-1 {
			time.Sleep(500 * time.Millisecond)
			rss, _ = proc.RSS(cmd.Process.Pid)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if !healthy {
			return nil, 0, fmt.Errorf("%s did not become healthy", path)
		}
		times = append(times, took)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times, rss, nil
}

type result struct {
	rate       float64
	p50, p99   time.Duration
	cpuPerCall time.Duration
	rss        int64 // resident set size at the end of the load
	anon       int64 // anonymous memory (Pss_Anon) at the end of the load
}

// print writes one row; floorRate and sdkCPU, when not zero, make the share columns.
func (r result) print(name string, clients int, floorRate float64, sdkCPU time.Duration) {
	pct, sdkPct := "—", "—"
	if floorRate > 0 {
		pct = fmt.Sprintf("%.0f%%", 100*r.rate/floorRate)
	}
	if sdkCPU > 0 {
		sdkPct = fmt.Sprintf("%.0f%%", 100*float64(r.cpuPerCall)/float64(sdkCPU))
	}
	fmt.Printf("%-10s %8d %10.0f %9.3f %9.3f %12.0f %8s %8s %8.1f %8.1f\n", name, clients, r.rate, ms(r.p50), ms(r.p99), float64(r.cpuPerCall.Nanoseconds())/1000, pct, sdkPct, float64(r.rss)/(1<<20), float64(r.anon)/(1<<20))
}

// target is one server process under load; its calls and CPU time add up over the slices of
// load it is given.
type target struct {
	cmd     *exec.Cmd
	url     string
	client  *http.Client
	lat     []time.Duration
	cpu     time.Duration
	elapsed time.Duration
}

// startTarget starts a target process (PORT or ADDR in argv is replaced; env nil means this
// process's environment), makes the setup call when there is one, waits until it answers body
// and warms it up.
func startTarget(argv, env []string, setup, body []byte, clients int) (*target, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i, a := range argv {
		argv[i] = strings.NewReplacer("PORT", strconv.Itoa(port), "ADDR", addr).Replace(a)
	}
	t := &target{
		cmd:    exec.Command(argv[0], argv[1:]...),
		url:    "http://" + addr + "/mcp",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}},
	}
	t.cmd.Env = env
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	for _, b := range [][]byte{setup, body} {
		if b == nil {
			continue
		}
		if err := waitReady(t.client, t.url, b); err != nil {
			t.stop()
			return nil, err
		}
	}
	_, _ = load(t.client, t.url, body, clients, 500*time.Millisecond)
	return t, nil
}

func (t *target) stop() { _ = t.cmd.Process.Kill(); _ = t.cmd.Wait() }

// run loads the target with clients concurrent loops for d and adds up its calls and CPU time
// (user+system of the process, from /proc).
func (t *target) run(body []byte, clients int, d time.Duration) error {
	cpu0, err := proc.CPU(t.cmd.Process.Pid)
	if err != nil {
		return err
	}
	lat, err := load(t.client, t.url, body, clients, d)
	if err != nil {
		return err
	}
	cpu1, err := proc.CPU(t.cmd.Process.Pid)
	if err != nil {
		return err
	}
	t.lat = append(t.lat, lat...)
	t.cpu += cpu1 - cpu0
	t.elapsed += d
	return nil
}

// result sums up the slices run so far, with the RSS and anonymous memory the process has now.
func (t *target) result() (result, error) {
	rss, err := proc.RSS(t.cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	anon, err := proc.PssAnon(t.cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	lat := slices.Clone(t.lat)
	slices.Sort(lat)
	n := len(lat)
	return result{
		rate:       float64(n) / t.elapsed.Seconds(),
		p50:        lat[n/2],
		p99:        lat[n*99/100],
		cpuPerCall: t.cpu / time.Duration(n),
		rss:        rss,
		anon:       anon,
	}, nil
}

// compare runs the targets side by side: all started, then loaded in turn for rounds slices
// of d/rounds each, so that load from elsewhere on the machine falls on all of them alike. It
// returns the targets it started, still running, for the caller to stop (stopAll).
func compare(names []string, targets, envs [][]string, setup, body []byte, clients int, d time.Duration, rounds int) ([]result, []*target, error) {
	running := make([]*target, 0, len(targets))
	for i, argv := range targets {
		t, err := startTarget(argv, envs[i], setup, body, clients)
		if err != nil {
			return nil, running, fmt.Errorf("%s: %w", names[i], err)
		}
		running = append(running, t)
	}
	for range rounds {
		for _, t := range running {
			if err := t.run(body, clients, d/time.Duration(rounds)); err != nil {
				return nil, running, err
			}
		}
	}
	results := make([]result, len(running))
	for i, t := range running {
		r, err := t.result()
		if err != nil {
			return nil, running, err
		}
		results[i] = r
	}
	return results, running, nil
}

func stopAll(ts []*target) {
	for _, t := range ts {
		t.stop()
	}
}

func waitReady(client *http.Client, url string, body []byte) error {
	deadline := time.Now().Add(60 * time.Second) // a browser starts Chromium on its first call; notes indexes first
	for time.Now().Before(deadline) {
		got, err := call(client, url, body)
		if err == nil {
			if !bytes.Contains(got, []byte(`"result"`)) || bytes.Contains(got, []byte(`"isError":true`)) {
				return fmt.Errorf("unexpected answer: %s", got)
			}
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("%s never answered", url)
}

func load(client *http.Client, url string, body []byte, clients int, d time.Duration) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		mu       sync.Mutex
		all      []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			for ctx.Err() == nil {
				t := time.Now()
				if _, err := call(client, url, body); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no calls completed")
	}
	return all, nil
}

func call(client *http.Client, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return b, nil
}

// serveFloor answers every POST with a fixed tools/call result, reading the body as a server must.
func serveFloor(addr string) {
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"14"}],"structuredContent":{"result":"14","kind":"integer","exact":true}}}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
