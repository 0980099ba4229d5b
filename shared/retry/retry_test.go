package retry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// script answers the n-th request with statuses[n] (the last repeats) and records the bodies.
type script struct {
	mu       sync.Mutex
	statuses []int
	headers  []http.Header
	bodies   []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.bodies)
	b, _ := io.ReadAll(r.Body)
	s.bodies = append(s.bodies, string(b))
	status := s.statuses[min(n, len(s.statuses)-1)]
	var h http.Header
	if n < len(s.headers) {
		h = s.headers[n]
	}
	s.mu.Unlock()
	for k, v := range h {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, http.StatusText(status))
}

func TestTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		method     string
		statuses   []int
		headers    []http.Header
		wantStatus int
		wantTries  int
		wantWaits  []time.Duration // exact for Retry-After; 0 means "a backoff"
	}{
		{"success at once", "GET", []int{200}, nil, 200, 1, nil},
		{"429 then success", "POST", []int{429, 200}, nil, 200, 2, []time.Duration{0}},
		{"Retry-After honoured", "GET", []int{429, 200}, []http.Header{{"Retry-After": {"3"}}}, 200, 2, []time.Duration{3 * time.Second}},
		{"Retry-After over the cap ends retries", "GET", []int{429, 200}, []http.Header{{"Retry-After": {"3600"}}}, 429, 1, nil},
		{"503 retried for POST", "POST", []int{503, 503, 200}, nil, 200, 3, []time.Duration{0, 0}},
		{"500 retried for GET", "GET", []int{500, 200}, nil, 200, 2, []time.Duration{0}},
		{"500 not retried for POST", "POST", []int{500, 200}, nil, 500, 1, nil},
		{"bounded attempts report the failure", "GET", []int{503}, nil, 503, 4, []time.Duration{0, 0, 0}},
		{"404 not retried", "GET", []int{404}, nil, 404, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{statuses: tt.statuses, headers: tt.headers}
			srv := httptest.NewServer(s)
			defer srv.Close()
			var waits []time.Duration
			tr := &Transport{Base: srv.Client().Transport, Sleep: func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			}}
			var traced []int
			var tracedWaits []time.Duration
			ctx := WithTrace(t.Context(), &Trace{Retry: func(status int, err error, wait time.Duration) {
				if err != nil {
					t.Errorf("trace got error %v for a status answer", err)
				}
				traced = append(traced, status)
				tracedWaits = append(tracedWaits, wait)
			}})
			req, _ := http.NewRequestWithContext(ctx, tt.method, srv.URL, strings.NewReader("payload"))
			req.GetBody = nil // as the Google API clients send it: replayed from a buffer
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus || string(body) != http.StatusText(tt.wantStatus) {
				t.Errorf("status %d %q, want %d", resp.StatusCode, body, tt.wantStatus)
			}
			if len(s.bodies) != tt.wantTries {
				t.Errorf("%d tries, want %d", len(s.bodies), tt.wantTries)
			}
			for i, b := range s.bodies {
				if b != "payload" {
					t.Errorf("try %d sent body %q", i+1, b)
				}
			}
			if len(waits) != len(tt.wantWaits) {
				t.Fatalf("waits %v, want %d", waits, len(tt.wantWaits))
			}
			// The trace saw every retry, with the status that caused it and the same wait.
			if len(traced) != len(waits) {
				t.Fatalf("trace saw %d retries (%v), want %d", len(traced), traced, len(waits))
			}
			for i := range traced {
				if want := tt.statuses[min(i, len(tt.statuses)-1)]; traced[i] != want || tracedWaits[i] != waits[i] {
					t.Errorf("trace retry %d: status %d wait %v, want %d %v", i, traced[i], tracedWaits[i], want, waits[i])
				}
			}
			for i, w := range tt.wantWaits {
				switch {
				case w != 0 && waits[i] != w:
					t.Errorf("wait %d = %v, want %v", i, waits[i], w)
				case w == 0 && (waits[i] < 250*time.Millisecond<<i || waits[i] > 500*time.Millisecond<<i):
					t.Errorf("backoff %d = %v, outside [%v, %v]", i, waits[i], 250*time.Millisecond<<i, 500*time.Millisecond<<i)
				}
			}
		})
	}
}

// TestTraceSeesErrorRetries: a refused connection is retried, and the trace gets the error.
func TestTraceSeesErrorRetries(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now: every try is refused
	var statuses []int
	var errs []error
	ctx := WithTrace(t.Context(), &Trace{Retry: func(status int, err error, _ time.Duration) {
		statuses = append(statuses, status)
		errs = append(errs, err)
	}})
	tr := &Transport{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if resp, err := tr.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatal("a refused connection succeeded")
	}
	if len(errs) != 2 {
		t.Fatalf("trace saw %d retries, want 2 (3 attempts)", len(errs))
	}
	for i := range errs {
		if errs[i] == nil || statuses[i] != 0 {
			t.Errorf("retry %d: status %d error %v, want 0 and the connection error", i, statuses[i], errs[i])
		}
	}
}

// inMemory serves requests with a handler in the same process, so that tests in a synctest
// bubble have no network I/O to wait on.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil { // a server's request always has a body
		r = r.Clone(r.Context())
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// TestTransportStopsWhenContextEnds runs in a synctest bubble: the hour of backoff is fake
// time, and the cancel comes once RoundTrip is durably waiting in it.
func TestTransportStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		tr := &Transport{Base: inMemory{&script{statuses: []int{503}}}, BaseDelay: time.Hour, MaxDelay: time.Hour}
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/", nil)
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			resp, err := tr.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			done <- err
		}()
		synctest.Wait() // RoundTrip is in its backoff
		cancel()
		if err := <-done; err == nil {
			t.Fatal("no error after cancel")
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("RoundTrip kept waiting %v after cancel", waited)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"Fri, 02 Jan 2026 03:04:15 GMT", 10 * time.Second, true},
		{"Fri, 02 Jan 2026 03:00:00 GMT", 0, true},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestLimiter runs in a synctest bubble: once every request is durably blocked, in the server
// or waiting for a slot, exactly two are in the server.
func TestLimiter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var running, peak atomic.Int32
		release := make(chan struct{})
		server := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			running.Add(-1)
		})
		client := &http.Client{Transport: NewLimiter(inMemory{server}, 2)}
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				resp, err := client.Get("http://api.test/")
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			})
		}
		synctest.Wait()
		if n := running.Load(); n != 2 {
			t.Errorf("%d requests in the server while the rest wait, want 2", n)
		}
		close(release)
		wg.Wait()
		if p := peak.Load(); p != 2 {
			t.Errorf("peak concurrency %d, want 2", p)
		}
	})
}
