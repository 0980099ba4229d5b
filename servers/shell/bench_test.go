package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// reportLatency adds p50 and p99 of the measured durations to the benchmark's output.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds()), "p99-µs")
}

// BenchmarkRunCommandHTTP measures run_command "true" through the whole server over loopback
// HTTP: guards, the go-sdk's stateless handler, the tool middleware, the policy and bash, in
// each containment mode (cgroup needs a writable cgroup v2 tree).
func BenchmarkRunCommandHTTP(b *testing.B) {
	for _, mode := range []string{"cgroup", "subreaper"} {
		b.Run(mode, func(b *testing.B) {
			_, err := runner.New(mode)
			mcptest.Require(b, mode+" containment", err)
			benchRunCommand(b, "--containment", mode)
		})
	}
}

func benchRunCommand(b *testing.B, args ...string) {
	h := mcptest.Start(b, spec(), append([]string{"--state-dir", b.TempDir()}, args...)...)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"true"}}}`)
	client := &http.Client{}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		if out := h.Post(b, client, body); !bytes.Contains(out, []byte(`"exit_code":0`)) {
			b.Fatalf("unexpected answer: %s", out)
		}
		durations = append(durations, time.Since(began))
	}
	b.StopTimer()
	reportLatency(b, durations)
}

// BenchmarkBashDirect spawns bash -c true directly, the floor under run_command.
func BenchmarkBashDirect(b *testing.B) {
	durations := make([]time.Duration, 0, b.N)
	for range b.N {
		began := time.Now()
		if err := exec.Command("/bin/bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(began))
	}
	b.StopTimer()
	reportLatency(b, durations)
}

// makeTree writes n small text files in folders of 100 under dir; one in 200 holds "needle".
func makeTree(tb testing.TB, dir string, n int) {
	tb.Helper()
	line := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2) + "\n"
	body := strings.Repeat(line, 40)
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		content := body
		if i%200 == 0 {
			content += "a needle here\n"
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d.txt", i)), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func mustLiteral(s string) *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(s)) }

// BenchmarkSearchText searches a generated tree of 100 000 files (3.6 KB each) through the tool over HTTP.
func BenchmarkSearchText(b *testing.B) {
	_, cs, work := start(b)
	makeTree(b, work, 100000)
	b.ResetTimer()
	for b.Loop() {
		var out searchTextOutput
		mcptest.Decode(b, mcptest.Call(b, cs, "search_text", map[string]any{"pattern": "needle", "max_results": 1000}), &out)
		if len(out.Matches) != 500 || out.FilesScanned != 100000 {
			b.Fatalf("%d matches in %d files", len(out.Matches), out.FilesScanned)
		}
	}
}
