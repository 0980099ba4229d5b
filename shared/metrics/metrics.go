// Package metrics holds one server's Prometheus metrics — tool calls, abandoned calls, refused
// requests, upstream API calls, the build and the standard process and Go runtime collectors —
// in a registry of its own, and serves them at /metrics.
package metrics

import (
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Buckets are the upper bounds, in seconds, of the tool call duration histogram.
var Buckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90}

// UnknownTool is the tool label of calls to a tool the server never declared: the name comes
// from the client, so it is not let into a label where it could grow the series without bound.
const UnknownTool = "unknown"

// Registry holds one server's metrics.
type Registry struct {
	reg       *prometheus.Registry
	mu        sync.RWMutex
	known     map[string]bool // tools the server declared
	calls     *prometheus.CounterVec
	durations *prometheus.HistogramVec
	abandoned *prometheus.CounterVec
	refused   *prometheus.CounterVec
	upstream  *upstreamMetrics
}

// NewRegistry returns a registry for the named server holding the process and Go collectors,
// mcp_build_info and the server's own metrics, all empty.
func NewRegistry(name, version string) *Registry {
	r := &Registry{
		reg:   prometheus.NewRegistry(),
		known: map[string]bool{},
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_tool_calls_total", Help: "Tool calls by tool and outcome (ok or error).",
		}, []string{"tool", "outcome"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcp_tool_call_duration_seconds", Help: "Tool call duration.", Buckets: Buckets,
		}, []string{"tool"}),
		abandoned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_tool_calls_abandoned_total",
			Help: "Tool calls answered at their timeout or on cancellation while the handler was still running; it may still complete.",
		}, []string{"tool"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_auth_failures_total",
			Help: "Requests refused before MCP by reason: missing_token, invalid_token, host, origin, not_local.",
		}, []string{"reason"}),
		upstream: newUpstreamMetrics(),
	}
	for _, reason := range []string{guard.ReasonMissingToken, guard.ReasonInvalidToken, guard.ReasonHost, guard.ReasonOrigin, guard.ReasonNotLocal} {
		r.refused.WithLabelValues(reason)
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "mcp_build_info",
		Help:        "Build information of the server.",
		ConstLabels: prometheus.Labels{"server": name, "version": version, "goversion": runtime.Version()},
	})
	build.Set(1)
	r.reg.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(),
		build, r.calls, r.durations, r.abandoned, r.refused,
	)
	r.upstream.register(r.reg)
	return r
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
	r.calls.WithLabelValues(tool, outcome).Inc()
	r.durations.WithLabelValues(tool).Observe(d.Seconds())
}

// ObserveAbandoned records a call answered (timeout or cancellation) while its handler was
// still running; it is counted by ObserveCall as well.
func (r *Registry) ObserveAbandoned(tool string) {
	r.abandoned.WithLabelValues(r.toolLabel(tool)).Inc()
}

// Refused records a request refused before MCP; reason is one of guard's Reason constants.
func (r *Registry) Refused(reason string) {
	r.refused.WithLabelValues(reason).Inc()
}

// Abandoned returns the count of abandoned calls of one tool.
func (r *Registry) Abandoned(tool string) uint64 {
	return r.value("mcp_tool_calls_abandoned_total", map[string]string{"tool": tool})
}

// Calls returns the count for one tool and outcome.
func (r *Registry) Calls(tool, outcome string) uint64 {
	return r.value("mcp_tool_calls_total", map[string]string{"tool": tool, "outcome": outcome})
}

// Failures returns the count of requests refused for one reason.
func (r *Registry) Failures(reason string) uint64 {
	return r.value("mcp_auth_failures_total", map[string]string{"reason": reason})
}

// value reads one counter series as /metrics would serve it; 0 when it does not exist.
func (r *Registry) value(name string, labels map[string]string) uint64 {
	families, err := r.reg.Gather()
	if err != nil {
		return 0
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue series
				}
			}
			return uint64(m.GetCounter().GetValue())
		}
	}
	return 0
}

// Gatherer returns the registry for tests and tools that read the metrics directly.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the metrics in the exposition format the scraper asks for (text by default).
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}
