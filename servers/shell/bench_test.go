package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"slices"
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
			if _, err := runner.New(mode); err != nil {
				b.Skipf("%s containment: %v", mode, err)
			}
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
