// Package metrics holds one server's metrics — tool calls, abandoned calls, refused requests,
// upstream API calls, the build, and the standard go_* and process_* metrics — and serves them at
// /metrics in the Prometheus text format. It is built on github.com/VictoriaMetrics/metrics rather
// than prometheus/client_golang, whose protobuf data model adds about 2 MiB to every server's idle
// RSS (docs/performance.md, "Idle RSS per server").
package metrics

import (
	"bytes"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
	"github.com/jck411/mcp-servers/shared/guard"
)

// Buckets are the upper bounds, in seconds, of the tool call duration histogram.
var Buckets = bucketBounds[:]

// UnknownTool is the tool label of calls to a tool the server never declared: the name comes
// from the client, so it is not let into a label where it could grow the series without bound.
const UnknownTool = "unknown"

// family is one metric family: its HELP and TYPE lines and its series, kept in a set of their
// own so that the lines can be written before them.
type family struct {
	name, typ, help string
	set             *vm.Set
}

// series returns the family's name with labels, given as name, value pairs in name order.
func (f *family) series(labels ...string) string {
	var b strings.Builder
	b.WriteString(f.name)
	for i := 0; i+1 < len(labels); i += 2 {
		if i == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.WriteString(labels[i])
		b.WriteString("=")
		b.WriteString(quote(labels[i+1]))
	}
	if len(labels) > 0 {
		b.WriteByte('}')
	}
	return b.String()
}

func (f *family) counter(labels ...string) *vm.Counter {
	return f.set.GetOrCreateCounter(f.series(labels...))
}

// value reads a counter series without creating it; 0 when it does not exist.
func (f *family) value(labels ...string) uint64 {
	name := f.series(labels...)
	if !slices.Contains(f.set.ListMetricNames(), name) {
		return 0
	}
	return f.set.GetOrCreateCounter(name).Get()
}

// Registry holds one server's metrics.
type Registry struct {
	mu        sync.RWMutex    // guards known, families and upstream
	known     map[string]bool // tools the server declared
	families  []*family
	calls     *family
	durations *family
	abandoned *family
	refused   *family
	disabled  *family
	upstream  *upstreamMetrics // made by the first Upstream: servers without one show none
	totals    totals
}

// NewRegistry returns a registry for the named server holding mcp_build_info and the server's
// own metrics, all empty; Handler adds the go_* and process_* metrics.
func NewRegistry(name, version string) *Registry {
	r := &Registry{known: map[string]bool{}}
	build := r.family("mcp_build_info", "gauge", "Build information of the server.")
	build.set.NewGauge(build.series("goversion", runtime.Version(), "server", name, "version", version), func() float64 { return 1 })
	r.calls = r.family("mcp_tool_calls_total", "counter", "Tool calls by tool and outcome (ok or error).")
	r.durations = r.family("mcp_tool_call_duration_seconds", "histogram", "Tool call duration.")
	r.abandoned = r.family("mcp_tool_calls_abandoned_total", "counter",
		"Tool calls answered at their timeout or on cancellation while the handler was still running; it may still complete.")
	r.refused = r.family("mcp_auth_failures_total", "counter",
		"Requests refused before MCP by reason: missing_token, invalid_token, host, origin, not_local.")
	r.disabled = r.family("mcp_tool_calls_disabled_total", "counter",
		"Tool calls refused because a run-time switch turns the tool off (code disabled); counted in mcp_tool_calls_total too.")
	for _, reason := range []string{guard.ReasonMissingToken, guard.ReasonInvalidToken, guard.ReasonHost, guard.ReasonOrigin, guard.ReasonNotLocal, guard.ReasonInsufficientScope, guard.ReasonIssuerUnavailable} {
		r.refused.counter("reason", reason)
	}
	return r
}

// family adds a family; the caller holds r.mu or is NewRegistry.
func (r *Registry) family(name, typ, help string) *family {
	f := &family{name: name, typ: typ, help: help, set: vm.NewSet()}
	r.families = append(r.families, f)
	return f
}

// DeclareTool makes a tool's name a label value; calls to undeclared names count as UnknownTool.
func (r *Registry) DeclareTool(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.known[name] = true
}

func (r *Registry) toolLabel(name string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.known[name] {
		return name
	}
	return UnknownTool
}

// ObserveCall records one finished tool call.
func (r *Registry) ObserveCall(tool, outcome string, d time.Duration) {
	tool = r.toolLabel(tool)
	r.calls.counter("outcome", outcome, "tool", tool).Inc()
	r.durations.set.GetOrCreatePrometheusHistogramExt(r.durations.series("tool", tool), Buckets).Update(d.Seconds())
	r.totals.observe(outcome != "ok", d)
}

// ObserveDisabled records a call refused because a run-time switch turns the tool off; it is
// counted by ObserveCall as well.
func (r *Registry) ObserveDisabled(tool string) {
	r.disabled.counter("tool", r.toolLabel(tool)).Inc()
	r.totals.disabled.Add(1)
}

// Disabled returns the count of calls of one tool refused by a run-time switch.
func (r *Registry) Disabled(tool string) uint64 { return r.disabled.value("tool", tool) }

// ObserveAbandoned records a call answered (timeout or cancellation) while its handler was
// still running; it is counted by ObserveCall as well.
func (r *Registry) ObserveAbandoned(tool string) {
	r.abandoned.counter("tool", r.toolLabel(tool)).Inc()
}

// Refused records a request refused before MCP; reason is one of guard's Reason constants.
func (r *Registry) Refused(reason string) {
	r.refused.counter("reason", reason).Inc()
}

// Abandoned returns the count of abandoned calls of one tool.
func (r *Registry) Abandoned(tool string) uint64 { return r.abandoned.value("tool", tool) }

// Calls returns the count for one tool and outcome.
func (r *Registry) Calls(tool, outcome string) uint64 {
	return r.calls.value("outcome", outcome, "tool", tool)
}

// Failures returns the count of requests refused for one reason.
func (r *Registry) Failures(reason string) uint64 { return r.refused.value("reason", reason) }

// WriteTo writes every metric in the Prometheus text format: the server's families, each with
// its HELP and TYPE lines, then the go_* and process_* metrics (without them: they are the
// library's, which writes its metadata only behind a process-wide switch).
func (r *Registry) WriteTo(b *bytes.Buffer) {
	r.mu.RLock()
	families := slices.Clone(r.families)
	r.mu.RUnlock()
	for _, f := range families {
		b.WriteString("# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.typ + "\n")
		f.set.WritePrometheus(b)
	}
	vm.WriteGoMetrics(b)
	vm.WriteProcMetrics(b)
	vm.WriteFDMetrics(b)
}

// Handler serves the metrics.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var b bytes.Buffer
		r.WriteTo(&b)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(b.Bytes())
	})
}

// quote escapes a label value as the text format requires.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
