package metrics

import (
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jck411/mcp-servers/shared/retry"
	"github.com/prometheus/client_golang/prometheus"
)

// UpstreamBuckets are the upper bounds, in seconds, of the upstream call duration histogram.
var UpstreamBuckets = []float64{0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90}

// StatusError is the status label of an upstream call that got no answer; the others are the
// class of the final answer: 2xx, 3xx, 4xx, 5xx.
const StatusError = "error"

// Retry reasons, as mcp_upstream_retries_total counts them.
const (
	RetryRateLimited = "rate_limited" // 429, or a 4xx the service uses to say "slow down" (Google's 403 rateLimitExceeded)
	RetryServerError = "server_error" // 5xx
	RetryNetwork     = "network"      // no answer: connection refused, reset, DNS
)

type upstreamMetrics struct {
	calls, retries  *prometheus.CounterVec
	waits, waitSecs *prometheus.CounterVec
	durations       *prometheus.HistogramVec
}

func newUpstreamMetrics() *upstreamMetrics {
	return &upstreamMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_upstream_calls_total",
			Help: "Calls to an upstream API that reached the network, by service and the class of the final answer after retries (2xx, 3xx, 4xx, 5xx, or error when none came).",
		}, []string{"service", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcp_upstream_call_duration_seconds",
			Help:    "Duration of upstream API calls, retries and their waits included.",
			Buckets: UpstreamBuckets,
		}, []string{"service"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_upstream_retries_total",
			Help: "Upstream API tries repeated, by service and reason (rate_limited, server_error, network).",
		}, []string{"service", "reason"}),
		waits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_upstream_rate_limit_waits_total",
			Help: "Waits before a retry because the upstream API was rate-limiting.",
		}, []string{"service"}),
		waitSecs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_upstream_rate_limit_wait_seconds_total",
			Help: "Seconds spent waiting before retries because the upstream API was rate-limiting.",
		}, []string{"service"}),
	}
}

func (u *upstreamMetrics) register(reg *prometheus.Registry) {
	reg.MustRegister(u.calls, u.durations, u.retries, u.waits, u.waitSecs)
}

// Upstream returns next wrapped so that each call through it to the named service is counted
// and timed; a retry.Transport below it reports its retries and rate-limit waits. Wrap the
// outermost RoundTripper of a client, so that one call is one call however often it was tried.
// A call that never reached the network (the sign-in failed, the context ended while waiting
// for a slot) is not counted: it is not the service's doing.
func (r *Registry) Upstream(service string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	u := r.upstream
	for _, status := range []string{"2xx", "4xx", "5xx", StatusError} {
		u.calls.WithLabelValues(service, status)
	}
	for _, reason := range []string{RetryRateLimited, RetryServerError, RetryNetwork} {
		u.retries.WithLabelValues(service, reason)
	}
	return &upstreamTransport{
		next:      next,
		durations: u.durations.WithLabelValues(service),
		calls:     u.calls.MustCurryWith(prometheus.Labels{"service": service}),
		retries: [...]prometheus.Counter{
			u.retries.WithLabelValues(service, RetryRateLimited),
			u.retries.WithLabelValues(service, RetryServerError),
			u.retries.WithLabelValues(service, RetryNetwork),
		},
		waits:    u.waits.WithLabelValues(service),
		waitSecs: u.waitSecs.WithLabelValues(service),
	}
}

type upstreamTransport struct {
	next            http.RoundTripper
	durations       prometheus.Observer
	calls           *prometheus.CounterVec
	retries         [3]prometheus.Counter // rate limited, server error, network
	waits, waitSecs prometheus.Counter
}

// RoundTrip implements http.RoundTripper.
func (t *upstreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var sent atomic.Bool
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GetConn: func(string) { sent.Store(true) },
	})
	ctx = retry.WithTrace(ctx, &retry.Trace{Retry: t.retried})
	start := time.Now()
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil && !sent.Load() {
		return resp, err
	}
	t.durations.Observe(time.Since(start).Seconds())
	status := StatusError
	if err == nil {
		status = strconv.Itoa(resp.StatusCode/100) + "xx"
	}
	t.calls.WithLabelValues(status).Inc()
	return resp, err
}

// retried counts one retry.Transport retry and, when the service was rate-limiting, its wait.
func (t *upstreamTransport) retried(status int, _ error, wait time.Duration) {
	switch {
	case status == 0:
		t.retries[2].Inc()
	case status >= 500:
		t.retries[1].Inc()
	default:
		t.retries[0].Inc()
		t.waits.Inc()
		t.waitSecs.Add(wait.Seconds())
	}
}
