// Command bench measures a built server over real HTTP on loopback: calls per second, p50 and
// p99 latency and server CPU time per call with 1 and 16 concurrent clients, idle RSS after
// start, and start-to-healthy time — next to, in the same run, a bare net/http handler that
// answers a fixed JSON-RPC result (the floor for HTTP+JSON on this machine).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("bin", "bin", "directory of built server binaries")
	server := flag.String("server", "calculator", "server to measure")
	tool := flag.String("tool", "evaluate", "tool to call")
	args := flag.String("args", `{"expression":"2+3*4"}`, "tool arguments as JSON")
	duration := flag.Duration("duration", 5*time.Second, "load duration per scenario")
	floorAddr := flag.String("floor", "", "internal: serve the bare floor handler on this address")
	flag.Parse()
	if *floorAddr != "" {
		serveFloor(*floorAddr)
		return
	}
	if err := run(*bin, *server, *tool, *args, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(binDir, server, tool, args string, duration time.Duration) error {
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
	fmt.Printf("\n%-10s %8s %10s %9s %9s %12s %8s %8s\n", "target", "clients", "calls/s", "p50 ms", "p99 ms", "cpu µs/call", "floor%", "RSS MB")
	for _, clients := range []int{1, 16} {
		floor, err := measure([]string{self, "-floor", "ADDR"}, body, clients, duration)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		srv, err := measure([]string{path, "--port", "PORT", "--state-dir", os.TempDir()}, body, clients, duration)
		if err != nil {
			return fmt.Errorf("%s: %w", server, err)
		}
		floor.print("floor", clients, 0)
		srv.print(server, clients, floor.rate)
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
		port, err := freePort()
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
			rss, _ = readRSS(cmd.Process.Pid)
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
}

func (r result) print(name string, clients int, floorRate float64) {
	pct := "—"
	if floorRate > 0 {
		pct = fmt.Sprintf("%.0f%%", 100*r.rate/floorRate)
	}
	fmt.Printf("%-10s %8d %10.0f %9.3f %9.3f %12.0f %8s %8.1f\n", name, clients, r.rate, ms(r.p50), ms(r.p99), float64(r.cpuPerCall.Nanoseconds())/1000, pct, float64(r.rss)/(1<<20))
}

// measure starts a target process (PORT or ADDR in argv is replaced), drives it with clients
// concurrent loops for d, and reads the process's CPU time from /proc.
func measure(argv []string, body []byte, clients int, d time.Duration) (result, error) {
	port, err := freePort()
	if err != nil {
		return result{}, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i, a := range argv {
		argv[i] = strings.NewReplacer("PORT", strconv.Itoa(port), "ADDR", addr).Replace(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url := "http://" + addr + "/mcp"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	if err := waitReady(client, url, body); err != nil {
		return result{}, err
	}
	// Warm up, then measure.
	_, _ = load(client, url, body, clients, 500*time.Millisecond)
	cpu0, err := readCPU(cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	lat, err := load(client, url, body, clients, d)
	if err != nil {
		return result{}, err
	}
	cpu1, err := readCPU(cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	rss, err := readRSS(cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	n := len(lat)
	return result{
		rate:       float64(n) / d.Seconds(),
		p50:        lat[n/2],
		p99:        lat[n*99/100],
		cpuPerCall: (cpu1 - cpu0) / time.Duration(n),
		rss:        rss,
	}, nil
}

func waitReady(client *http.Client, url string, body []byte) error {
	deadline := time.Now().Add(5 * time.Second)
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

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// readCPU returns user+system CPU time of a process from /proc/PID/stat.
func readCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the ")" that closes the command name; utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks, nil
}

// readRSS returns the resident set size of a process in bytes.
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}
