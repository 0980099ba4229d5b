// Package retry is an http.RoundTripper that retries rate-limited and failed upstream calls a
// bounded number of times with exponential backoff and jitter, honouring Retry-After, and a
// limiter that bounds how many calls run at once.
package retry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Transport retries a request when Retryable says so. The zero value of each field takes the
// default shown beside it.
type Transport struct {
	Base          http.RoundTripper                                 // http.DefaultTransport
	Attempts      int                                               // 4: tries in all, the first included
	BaseDelay     time.Duration                                     // 500 ms: the first backoff; it doubles each time
	MaxDelay      time.Duration                                     // 8 s: the longest backoff
	MaxRetryAfter time.Duration                                     // 20 s: a longer Retry-After ends the retries
	Retryable     func(req *http.Request, resp *http.Response) bool // DefaultRetryable
	Sleep         func(ctx context.Context, d time.Duration) error  // waits; tests replace it
}

// DefaultRetryable retries 429 and 503 for every method (the server did not act on the request),
// and 500, 502 and 504 only for idempotent methods, where doing the work twice is harmless.
func DefaultRetryable(req *http.Request, resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return Idempotent(req.Method)
	}
	return false
}

// Idempotent reports whether a request with this method may be repeated safely.
func Idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// RoundTrip sends req, retrying as configured. The last response or error is returned as it is,
// so a failure stays a failure.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	attempts := orDefault(t.Attempts, 4)
	retryable := t.Retryable
	if retryable == nil {
		retryable = DefaultRetryable
	}
	sleep := t.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	// A body without GetBody (the Google API clients send their JSON so) is buffered to be
	// replayed; one too large to buffer allows one try only.
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		buffered, ok, err := bufferBody(req)
		if err != nil {
			return nil, err
		}
		req = buffered
		if !ok {
			attempts = 1
		}
	}
	for attempt := 1; ; attempt++ {
		try := req
		if attempt > 1 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			try = req.Clone(req.Context())
			try.Body = body
		}
		resp, err := base.RoundTrip(try)
		if attempt >= attempts {
			return resp, err
		}
		var wait time.Duration
		switch {
		case err != nil:
			if !retryableError(req, err) {
				return nil, err
			}
			wait = t.backoff(attempt)
		case retryable(req, resp):
			wait = t.backoff(attempt)
			if ra, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
				if ra > orDefault(t.MaxRetryAfter, 20*time.Second) {
					return resp, nil
				}
				wait = max(wait, ra)
			}
		default:
			return resp, nil
		}
		if dl, ok := req.Context().Deadline(); ok && time.Until(dl) < wait {
			if resp != nil {
				return resp, nil
			}
			return nil, err
		}
		status := 0
		if resp != nil {
			status = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if tr := ContextTrace(req.Context()); tr != nil && tr.Retry != nil {
			tr.Retry(status, err, wait)
		}
		if serr := sleep(req.Context(), wait); serr != nil {
			return nil, serr
		}
	}
}

// Trace receives what a Transport does with one request; WithTrace puts it on the request's
// context, as net/http/httptrace does, so that whoever sends the request can watch its retries
// without building the Transport.
type Trace struct {
	// Retry is called before each wait for another try, with the status that caused it (0 when
	// it was an error) or the transport error, and how long the Transport will wait.
	Retry func(status int, err error, wait time.Duration)
}

type traceKey struct{}

// WithTrace returns ctx carrying t for the Transports that send requests made with it.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// ContextTrace returns the Trace of ctx, or nil.
func ContextTrace(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// maxBuffered bounds the request bodies buffered for replay (Gmail's 35 MB message limit, base64).
const maxBuffered = 64 << 20

// bufferBody reads the body into memory and gives the request a GetBody; ok is false (and the
// body streams as it was) when it is larger than maxBuffered.
func bufferBody(req *http.Request) (*http.Request, bool, error) {
	data, err := io.ReadAll(io.LimitReader(req.Body, maxBuffered+1))
	if err != nil {
		req.Body.Close()
		return nil, false, err
	}
	r := req.Clone(req.Context())
	if len(data) > maxBuffered {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(data), req.Body), req.Body}
		return r, false, nil
	}
	req.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r.ContentLength = int64(len(data))
	return r, true, nil
}

// backoff is BaseDelay·2^(attempt-1), capped at MaxDelay, with jitter in its upper half.
func (t *Transport) backoff(attempt int) time.Duration {
	d := orDefault(t.BaseDelay, 500*time.Millisecond) << (attempt - 1)
	if limit := orDefault(t.MaxDelay, 8*time.Second); d > limit || d <= 0 {
		d = limit
	}
	return d/2 + rand.N(d/2+1)
}

// retryableError: a connection that was never made can always be retried; other transport
// errors (a reset mid-request) only for idempotent methods.
func retryableError(req *http.Request, err error) bool {
	if req.Context().Err() != nil {
		return false
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	return Idempotent(req.Method)
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Limiter is an http.RoundTripper that lets at most cap(slots) requests run at once; the others
// wait for a slot or their context.
type Limiter struct {
	Base  http.RoundTripper
	slots chan struct{}
}

// NewLimiter returns a limiter of n concurrent requests over base.
func NewLimiter(base http.RoundTripper, n int) *Limiter {
	return &Limiter{Base: base, slots: make(chan struct{}, max(n, 1))}
}

// RoundTrip waits for a slot and sends req; the slot is held until the response body is closed.
func (l *Limiter) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case l.slots <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp, err := l.Base.RoundTrip(req)
	if err != nil {
		<-l.slots
		return nil, err
	}
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: func() { <-l.slots }}
	return resp, nil
}

type releaseBody struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}
