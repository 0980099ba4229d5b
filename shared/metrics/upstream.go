package metrics

import (
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
	"github.com/jck411/mcp-servers/shared/retry"
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
	calls, durations, retries, waits, waitSecs *family
}

func newUpstreamMetrics(r *Registry) *upstreamMetrics {
	return &upstreamMetrics{
		calls: r.family("mcp_upstream_calls_total", "counter",
			"Calls to an upstream API that reached the network, by service and the class of the final answer after retries (2xx, 3xx, 4xx, 5xx, or error when none came)."),
		durations: r.family("mcp_upstream_call_duration_seconds", "histogram", "Duration of upstream API calls, retries and their waits included."),
		retries:   r.family("mcp_upstream_retries_total", "counter", "Upstream API tries repeated, by service and reason (rate_limited, server_error, network)."),
		waits:     r.family("mcp_upstream_rate_limit_waits_total", "counter", "Waits before a retry because the upstream API was rate-limiting."),
		waitSecs:  r.family("mcp_upstream_rate_limit_wait_seconds_total", "counter", "Seconds spent waiting before retries because the upstream API was rate-limiting."),
	}
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
	r.mu.Lock()
	if r.upstream == nil {
		r.upstream = newUpstreamMetrics(r)
	}
	u := r.upstream
	r.mu.Unlock()
	for _, status := range []string{"2xx", "4xx", "5xx", StatusError} {
		u.calls.counter("service", service, "status", status)
	}
	return &upstreamTransport{
		next:      next,
		service:   service,
		calls:     u.calls,
		durations: u.durations.set.GetOrCreatePrometheusHistogramExt(u.durations.series("service", service), UpstreamBuckets),
		retries: [...]*vm.Counter{
			u.retries.counter("reason", RetryRateLimited, "service", service),
			u.retries.counter("reason", RetryServerError, "service", service),
			u.retries.counter("reason", RetryNetwork, "service", service),
		},
		waits:    u.waits.counter("service", service),
		waitSecs: u.waitSecs.set.GetOrCreateFloatCounter(u.waitSecs.series("service", service)),
	}
}

type upstreamTransport struct {
	next      http.RoundTripper
	service   string
	calls     *family
	durations *vm.PrometheusHistogram
	retries   [3]*vm.Counter // rate limited, server error, network
	waits     *vm.Counter
	waitSecs  *vm.FloatCounter
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
	t.durations.Update(time.Since(start).Seconds())
	status := StatusError
	if err == nil {
		status = strconv.Itoa(resp.StatusCode/100) + "xx"
	}
	t.calls.counter("service", t.service, "status", status).Inc()
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
