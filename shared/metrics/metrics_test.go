package metrics

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/retry"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape serves r over real HTTP, fetches it as Prometheus would and parses the text format.
func scrape(t *testing.T, r *Registry) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("exposition does not parse: %v\n%s", err, body)
	}
	return families, string(body)
}

// series finds the series of a family whose labels are exactly want.
func series(t *testing.T, families map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f := families[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		for _, l := range m.GetLabel() {
			if want[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m
	}
	t.Fatalf("no series %s%v", name, want)
	return nil
}

func counter(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	return series(t, families, name, labels).GetCounter().GetValue()
}

func TestExposition(t *testing.T) {
	t.Parallel()
	r := NewRegistry("calc\"ulator", "v1")
	r.DeclareTool("evaluate")
	r.DeclareTool("statistics")
	r.ObserveCall("evaluate", "ok", 300*time.Microsecond)
	r.ObserveCall("evaluate", "ok", 20*time.Millisecond)
	r.ObserveCall("evaluate", "error", 2*time.Second)
	r.ObserveCall("statistics", "ok", 100*time.Second)
	r.ObserveCall("made_up_by_a_client", "error", time.Millisecond)
	r.ObserveAbandoned("evaluate")
	r.Refused(guard.ReasonInvalidToken)
	r.Refused(guard.ReasonInvalidToken)
	r.Refused(guard.ReasonOrigin)

	families, body := scrape(t, r)
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds", "go_goroutines", "go_memstats_heap_alloc_bytes", "go_gc_duration_seconds"} {
		if families[name] == nil {
			t.Errorf("no standard collector metric %s", name)
		}
	}
	build := series(t, families, "mcp_build_info", map[string]string{"server": `calc"ulator`, "version": "v1", "goversion": runtime.Version()})
	if build.GetGauge().GetValue() != 1 {
		t.Errorf("mcp_build_info = %v, want 1", build.GetGauge().GetValue())
	}
	if !strings.Contains(body, `mcp_build_info{goversion="go`) || !strings.Contains(body, `server="calc\"ulator"`) {
		t.Errorf("build info label not escaped as the format requires:\n%s", body)
	}
	counts := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"mcp_tool_calls_total", map[string]string{"tool": "evaluate", "outcome": "ok"}, 2},
		{"mcp_tool_calls_total", map[string]string{"tool": "evaluate", "outcome": "error"}, 1},
		{"mcp_tool_calls_total", map[string]string{"tool": "statistics", "outcome": "ok"}, 1},
		{"mcp_tool_calls_total", map[string]string{"tool": UnknownTool, "outcome": "error"}, 1},
		{"mcp_tool_calls_abandoned_total", map[string]string{"tool": "evaluate"}, 1},
		{"mcp_auth_failures_total", map[string]string{"reason": guard.ReasonInvalidToken}, 2},
		{"mcp_auth_failures_total", map[string]string{"reason": guard.ReasonOrigin}, 1},
		{"mcp_auth_failures_total", map[string]string{"reason": guard.ReasonMissingToken}, 0},
		{"mcp_auth_failures_total", map[string]string{"reason": guard.ReasonHost}, 0},
		{"mcp_auth_failures_total", map[string]string{"reason": guard.ReasonNotLocal}, 0},
	}
	for _, c := range counts {
		if got := counter(t, families, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if strings.Contains(body, "mcp_upstream") {
		t.Errorf("a server that calls no upstream API shows upstream metrics:\n%s", body)
	}
	if strings.Contains(body, "made_up_by_a_client") {
		t.Error("a tool name the server never declared became a label value")
	}
	if strings.Contains(body, `mcp_tool_calls_abandoned_total{tool="statistics"}`) {
		t.Errorf("a tool never abandoned has an abandoned series:\n%s", body)
	}

	h := series(t, families, "mcp_tool_call_duration_seconds", map[string]string{"tool": "evaluate"}).GetHistogram()
	if h.GetSampleCount() != 3 || math.Abs(h.GetSampleSum()-2.0203) > 1e-9 {
		t.Errorf("evaluate histogram count %d sum %v, want 3 and 2.0203", h.GetSampleCount(), h.GetSampleSum())
	}
	wantBuckets := map[float64]uint64{0.001: 1, 0.05: 2, 1: 2, 2.5: 3, 90: 3}
	for _, b := range h.GetBucket() {
		if want, ok := wantBuckets[b.GetUpperBound()]; ok && b.GetCumulativeCount() != want {
			t.Errorf("evaluate le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if len(h.GetBucket()) != len(Buckets)+1 { // and +Inf
		t.Errorf("%d buckets, want %d and +Inf", len(h.GetBucket()), len(Buckets))
	}
	if !strings.Contains(body, `mcp_tool_call_duration_seconds_bucket{tool="statistics",le="+Inf"} 1`) ||
		!strings.Contains(body, `mcp_tool_call_duration_seconds_bucket{tool="statistics",le="90"} 0`) {
		t.Errorf("a call over the last bucket is not only in +Inf:\n%s", body)
	}

	if got := r.Calls("evaluate", "ok"); got != 2 {
		t.Errorf("Calls = %d, want 2", got)
	}
	if got := r.Abandoned("evaluate"); got != 1 {
		t.Errorf("Abandoned = %d, want 1", got)
	}
	if got := r.Failures(guard.ReasonInvalidToken); got != 2 {
		t.Errorf("Failures = %d, want 2", got)
	}
}

// script answers the n-th request with statuses[n] (the last repeats).
type script struct {
	mu       sync.Mutex
	n        int
	statuses []int
}

func (s *script) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	status := s.statuses[min(s.n, len(s.statuses)-1)]
	s.n++
	s.mu.Unlock()
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "2")
	}
	w.WriteHeader(status)
}

// TestUpstream drives real HTTP calls through Upstream over a retry.Transport and reads what
// /metrics says about them.
func TestUpstream(t *testing.T) {
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	tests := []struct {
		name     string
		statuses []int  // the upstream's answers, in order
		url      string // instead of the scripted upstream
		status   string // the call's status label
		retries  map[string]float64
		waits    float64
		waitSecs float64
	}{
		{"ok at once", []int{200}, "", "2xx", nil, 0, 0},
		{"rate limited, then ok", []int{429, 429, 200}, "", "2xx", map[string]float64{RetryRateLimited: 2}, 2, 4},
		{"server errors to the end", []int{503}, "", "5xx", map[string]float64{RetryServerError: 3}, 0, 0},
		{"not found", []int{404}, "", "4xx", nil, 0, 0},
		{"connection refused", nil, refusedURL, StatusError, map[string]float64{RetryNetwork: 3}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if url == "" {
				srv := httptest.NewServer(&script{statuses: tt.statuses})
				defer srv.Close()
				url = srv.URL
			}
			r := NewRegistry("gmail", "v1")
			rt := &retry.Transport{Sleep: func(context.Context, time.Duration) error { return nil }}
			client := &http.Client{Transport: r.Upstream("gmail", rt)}
			resp, err := client.Get(url)
			if err == nil {
				resp.Body.Close()
			}
			families, _ := scrape(t, r)
			for _, status := range []string{"2xx", "4xx", "5xx", StatusError} {
				want := 0.0
				if status == tt.status {
					want = 1
				}
				if got := counter(t, families, "mcp_upstream_calls_total", map[string]string{"service": "gmail", "status": status}); got != want {
					t.Errorf("calls{status=%s} = %v, want %v", status, got, want)
				}
			}
			for _, reason := range []string{RetryRateLimited, RetryServerError, RetryNetwork} {
				if got := counter(t, families, "mcp_upstream_retries_total", map[string]string{"service": "gmail", "reason": reason}); got != tt.retries[reason] {
					t.Errorf("retries{reason=%s} = %v, want %v", reason, got, tt.retries[reason])
				}
			}
			gmail := map[string]string{"service": "gmail"}
			if got := counter(t, families, "mcp_upstream_rate_limit_waits_total", gmail); got != tt.waits {
				t.Errorf("rate-limit waits = %v, want %v", got, tt.waits)
			}
			if got := counter(t, families, "mcp_upstream_rate_limit_wait_seconds_total", gmail); got != tt.waitSecs {
				t.Errorf("rate-limit wait seconds = %v, want %v (Retry-After: 2, twice)", got, tt.waitSecs)
			}
			if got := series(t, families, "mcp_upstream_call_duration_seconds", gmail).GetHistogram().GetSampleCount(); got != 1 {
				t.Errorf("duration samples = %d, want 1: one call however often it was tried", got)
			}
		})
	}
}

// failing is a RoundTripper that fails before sending, as a token source without a sign-in does.
type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("not signed in")
}

func TestUpstreamNotSentIsNotCounted(t *testing.T) {
	r := NewRegistry("spotify", "v1")
	client := &http.Client{Transport: r.Upstream("spotify", failing{})}
	if resp, err := client.Get("http://127.0.0.1:1/"); err == nil {
		resp.Body.Close()
		t.Fatal("the failing transport succeeded")
	}
	families, _ := scrape(t, r)
	if got := counter(t, families, "mcp_upstream_calls_total", map[string]string{"service": "spotify", "status": StatusError}); got != 0 {
		t.Errorf("a call that never reached the network was counted: %v", got)
	}
}

// TestConcurrent: calls recorded from many goroutines while /metrics is scraped all count.
func TestConcurrent(t *testing.T) {
	r := NewRegistry("calculator", "v1")
	r.DeclareTool("evaluate")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				r.ObserveCall("evaluate", "ok", time.Millisecond)
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			r.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/metrics", nil))
		}
	})
	wg.Wait()
	families, _ := scrape(t, r)
	if got := counter(t, families, "mcp_tool_calls_total", map[string]string{"tool": "evaluate", "outcome": "ok"}); got != 800 {
		t.Errorf("calls = %v, want 800", got)
	}
	if got := series(t, families, "mcp_tool_call_duration_seconds", map[string]string{"tool": "evaluate"}).GetHistogram().GetSampleCount(); got != 800 {
		t.Errorf("duration samples = %d, want 800", got)
	}
}

// TestTotals: the totals count every call, the failed ones, the disabled ones and each call's
// duration bucket (cumulative, as Prometheus counts), all tools together.
func TestTotals(t *testing.T) {
	t.Parallel()
	r := NewRegistry("x", "v")
	r.DeclareTool("a")
	r.DeclareTool("b")
	for _, c := range []struct {
		tool, outcome string
		d             time.Duration
	}{{"a", "ok", 500 * time.Microsecond}, {"b", "ok", 30 * time.Millisecond}, {"a", "error", 2 * time.Second}, {"b", "error", 2 * time.Minute}} {
		r.ObserveCall(c.tool, c.outcome, c.d)
	}
	r.ObserveDisabled("a")
	got := r.Totals()
	if got.Calls != 4 || got.Errors != 2 || got.Disabled != 1 || len(got.Bounds) != len(Buckets) || len(got.Buckets) != len(Buckets) {
		t.Fatalf("%+v", got)
	}
	// ≤1 ms: 1; ≤50 ms: 2; ≤2.5 s: 3; the 2-minute call is past the last bound (90 s).
	want := map[float64]uint64{0.001: 1, 0.01: 1, 0.05: 2, 1: 2, 2.5: 3, 90: 3}
	for i, b := range got.Bounds {
		if w, ok := want[b]; ok && got.Buckets[i] != w {
			t.Errorf("≤%gs: %d, want %d", b, got.Buckets[i], w)
		}
	}
	if r.Disabled("a") != 1 {
		t.Errorf("Disabled(a) = %d", r.Disabled("a"))
	}
}
