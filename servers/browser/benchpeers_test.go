package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The peer benchmark's settings, from the environment (scripts/bench-browser.sh sets them).
//
//	BROWSER_BENCH_PEERS  the folder where @playwright/mcp and chrome-devtools-mcp are installed
//	BROWSER_BENCH_NODE   the node binary (22) that runs them
//	BROWSER_BENCH_OURS   this server's binary
//	BROWSER_BENCH_BEFORE another build of it (an earlier commit), measured in the same run
//	BROWSER_BENCH_CHROMIUM  the Chromium all three drive (default /usr/bin/chromium)
//	BROWSER_BENCH_RUNS   runs of each action per server (default 5)
//	BROWSER_BENCH_ONLY   a regular expression: only the actions whose "name, page" match
//	BROWSER_BENCH_OUT    a file the Markdown table is written to
func benchEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// startBenchClient starts an MCP server over stdio and connects to it.
func startBenchClient(t *testing.T, name string, d dialect, argv ...string) *benchClient {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir() // where Playwright MCP writes its snapshot files
	logf, err := os.Create(filepath.Join(cmd.Dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := cl.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = logf.Close() })
	return &benchClient{name: name, cs: cs, d: d}
}

// TestBenchPeers times every benchmark action on this server, Playwright MCP and
// chrome-devtools-mcp driving the same Chromium, interleaved, and prints the table
// docs/browser.md shows. It runs only when BROWSER_BENCH_PEERS is set (make bench-browser).
func TestBenchPeers(t *testing.T) {
	peers := os.Getenv("BROWSER_BENCH_PEERS")
	if peers == "" {
		t.Skip("BROWSER_BENCH_PEERS is not set: run `make bench-browser`")
	}
	node := benchEnv("BROWSER_BENCH_NODE", "node")
	chromium := benchEnv("BROWSER_BENCH_CHROMIUM", "/usr/bin/chromium")
	oursBin := benchEnv("BROWSER_BENCH_OURS", "")
	if oursBin == "" {
		t.Fatal("BROWSER_BENCH_OURS: the browser server's binary")
	}
	runs := 5
	if _, err := fmt.Sscan(benchEnv("BROWSER_BENCH_RUNS", "5"), &runs); err != nil || runs < 1 {
		t.Fatalf("BROWSER_BENCH_RUNS: %v", err)
	}
	only := regexp.MustCompile(benchEnv("BROWSER_BENCH_ONLY", "."))

	s := newSite(t)
	clients := []*benchClient{
		startBenchClient(t, "ours", ours{}, oursBin, "--transport", "stdio", "--state-dir", t.TempDir(),
			"--allow-private-hosts", "127.0.0.1/32", "--chromium-path", chromium, "--log-level", "warn"),
		startBenchClient(t, "Playwright MCP 0.0.83", playwright{}, node, filepath.Join(peers, "node_modules/@playwright/mcp/cli.js"),
			"--headless", "--isolated", "--no-sandbox", "--executable-path", chromium),
		startBenchClient(t, "chrome-devtools-mcp 1.11.0", devtools{}, node, filepath.Join(peers, "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"),
			"--headless", "--isolated", "--no-usage-statistics", "--executable-path", chromium, "--chrome-arg=--no-sandbox"),
	}
	if before := os.Getenv("BROWSER_BENCH_BEFORE"); before != "" {
		clients = append(clients, startBenchClient(t, "ours before", ours{}, before, "--transport", "stdio", "--state-dir", t.TempDir(),
			"--allow-private-hosts", "127.0.0.1/32", "--chromium-path", chromium, "--log-level", "warn"))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Hour)
	defer cancel()
	for _, c := range clients { // start each Chromium before anything is timed
		if err := c.d.open(ctx, c, s.URL+"/login.html"); err != nil {
			t.Fatal(err)
		}
	}

	var actions []benchAction
	for _, a := range benchActions() {
		if only.MatchString(a.name + ", " + a.page) {
			actions = append(actions, a)
		}
	}
	results := make([][][]benchResult, len(actions)) // action, client, run
	for i := range results {
		results[i] = make([][]benchResult, len(clients))
	}
	loadBefore := loadAverage()
	started := time.Now()
	for run := range runs {
		for i, a := range actions {
			for k := range clients { // a different server goes first in each run
				j := (k + run + i) % len(clients)
				r := a.run(ctx, clients[j], s.URL)
				if r.err != nil {
					t.Logf("%s, %s, %s: %v", clients[j].name, a.name, a.page, r.err)
				}
				results[i][j] = append(results[i][j], r)
			}
		}
	}
	table := benchTable(actions, clients, results)
	note := fmt.Sprintf("\n%d runs of each action per server, interleaved, %s in all; load average %s before, %s after; Chromium %s.\n",
		runs, time.Since(started).Round(time.Second), loadBefore, loadAverage(), chromium)
	t.Log("\n" + table + note)
	if out := os.Getenv("BROWSER_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table+note), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchTable renders the results as Markdown: per action, each server's p50 and p90 wall time,
// bytes and calls, and runs that failed or answered without the fact.
func benchTable(actions []benchAction, clients []*benchClient, results [][][]benchResult) string {
	var b strings.Builder
	b.WriteString("| action | page |")
	for _, c := range clients {
		b.WriteString(" " + c.name + " p50 / p90 ms |")
	}
	b.WriteString(" bytes |")
	b.WriteString(" calls |\n|---|---|")
	b.WriteString(strings.Repeat("---:|", len(clients)+2) + "\n")
	for i, a := range actions {
		fmt.Fprintf(&b, "| %s | %s |", a.name, a.page)
		var bytes, calls []string
		for j := range clients {
			var ok []time.Duration
			failed, missed, nb, nc := 0, 0, 0, 0
			for _, r := range results[i][j] {
				switch {
				case r.err != nil:
					failed++
				case r.missed:
					missed++
				default:
					ok = append(ok, r.took)
					nb, nc = r.bytes, r.calls
				}
			}
			cell := "—"
			if len(ok) > 0 {
				slices.Sort(ok)
				cell = fmt.Sprintf("%d / %d", ok[len(ok)/2].Milliseconds(), ok[int(math.Ceil(0.9*float64(len(ok))))-1].Milliseconds())
			}
			if failed > 0 {
				cell += fmt.Sprintf(" (%d failed)", failed)
			}
			if missed > 0 {
				cell += fmt.Sprintf(" (%d without the fact)", missed)
			}
			fmt.Fprintf(&b, " %s |", cell)
			bytes = append(bytes, fmt.Sprint(nb))
			calls = append(calls, fmt.Sprint(nc))
		}
		fmt.Fprintf(&b, " %s | %s |\n", strings.Join(bytes, " / "), strings.Join(calls, " / "))
	}
	return b.String()
}

// loadAverage is the machine's 1-, 5- and 15-minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
