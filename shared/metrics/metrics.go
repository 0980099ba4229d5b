// Package metrics counts tool calls and their durations and serves them in the Prometheus
// text format at /metrics, with no dependency beyond the standard library.
package metrics

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Buckets are the upper bounds, in seconds, of the call duration histogram.
var Buckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90}

// Registry holds one server's metrics.
type Registry struct {
	name, version string
	started       time.Time
	mu            sync.Mutex
	calls         map[callKey]uint64
	abandoned     map[string]uint64
	durations     map[string]*histogram
}

type callKey struct{ tool, outcome string }

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	count  uint64
	sum    float64
}

// NewRegistry returns an empty registry for the named server.
func NewRegistry(name, version string) *Registry {
	return &Registry{name: name, version: version, started: time.Now(), calls: map[callKey]uint64{}, abandoned: map[string]uint64{}, durations: map[string]*histogram{}}
}

// ObserveCall records one finished tool call.
func (r *Registry) ObserveCall(tool, outcome string, d time.Duration) {
	secs := d.Seconds()
	i := sort.SearchFloat64s(Buckets, secs)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[callKey{tool, outcome}]++
	h := r.durations[tool]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(Buckets)+1)}
		r.durations[tool] = h
	}
	h.counts[i]++
	h.count++
	h.sum += secs
}

// ObserveAbandoned records a call answered (timeout or cancellation) while its handler was
// still running; it is counted by ObserveCall as well.
func (r *Registry) ObserveAbandoned(tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abandoned[tool]++
}

// Abandoned returns the count of abandoned calls of one tool.
func (r *Registry) Abandoned(tool string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.abandoned[tool]
}

// Calls returns the count for one tool and outcome.
func (r *Registry) Calls(tool, outcome string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[callKey{tool, outcome}]
}

// WriteTo writes every metric in the Prometheus text exposition format.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	b.WriteString("# HELP mcp_build_info Build information of the server.\n# TYPE mcp_build_info gauge\n")
	fmt.Fprintf(&b, "mcp_build_info{server=%s,version=%s,goversion=%s} 1\n", quote(r.name), quote(r.version), quote(runtime.Version()))
	b.WriteString("# HELP process_start_time_seconds Start time of the process since the Unix epoch.\n# TYPE process_start_time_seconds gauge\n")
	fmt.Fprintf(&b, "process_start_time_seconds %d\n", r.started.Unix())
	b.WriteString("# HELP go_goroutines Number of goroutines that currently exist.\n# TYPE go_goroutines gauge\n")
	fmt.Fprintf(&b, "go_goroutines %d\n", runtime.NumGoroutine())

	r.mu.Lock()
	keys := make([]callKey, 0, len(r.calls))
	for k := range r.calls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].tool != keys[j].tool {
			return keys[i].tool < keys[j].tool
		}
		return keys[i].outcome < keys[j].outcome
	})
	b.WriteString("# HELP mcp_tool_calls_total Tool calls by tool and outcome.\n# TYPE mcp_tool_calls_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "mcp_tool_calls_total{tool=%s,outcome=%s} %d\n", quote(k.tool), quote(k.outcome), r.calls[k])
	}
	b.WriteString("# HELP mcp_tool_calls_abandoned_total Tool calls answered at their timeout or on cancellation while the handler was still running; it may still complete.\n# TYPE mcp_tool_calls_abandoned_total counter\n")
	for _, t := range sortedKeys(r.abandoned) {
		fmt.Fprintf(&b, "mcp_tool_calls_abandoned_total{tool=%s} %d\n", quote(t), r.abandoned[t])
	}
	tools := make([]string, 0, len(r.durations))
	for t := range r.durations {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	b.WriteString("# HELP mcp_tool_call_duration_seconds Tool call duration.\n# TYPE mcp_tool_call_duration_seconds histogram\n")
	for _, t := range tools {
		h := r.durations[t]
		var cum uint64
		for i, le := range Buckets {
			cum += h.counts[i]
			fmt.Fprintf(&b, "mcp_tool_call_duration_seconds_bucket{tool=%s,le=%q} %d\n", quote(t), strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		fmt.Fprintf(&b, "mcp_tool_call_duration_seconds_bucket{tool=%s,le=\"+Inf\"} %d\n", quote(t), h.count)
		fmt.Fprintf(&b, "mcp_tool_call_duration_seconds_sum{tool=%s} %s\n", quote(t), strconv.FormatFloat(h.sum, 'g', -1, 64))
		fmt.Fprintf(&b, "mcp_tool_call_duration_seconds_count{tool=%s} %d\n", quote(t), h.count)
	}
	r.mu.Unlock()
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Handler serves the metrics.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = r.WriteTo(w)
	})
}

func sortedKeys(m map[string]uint64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quote escapes a label value as the exposition format requires.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
