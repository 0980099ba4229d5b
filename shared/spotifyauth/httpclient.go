package spotifyauth

import (
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/retry"
)

// ClientOptions tune NewHTTPClient; zero values take the defaults shown.
type ClientOptions struct {
	Base          http.RoundTripper // http.DefaultTransport
	Concurrent    int               // 4: Web API calls in flight at once
	Attempts      int               // 4: tries per call, the first included
	BaseDelay     time.Duration     // 500 ms: the first backoff
	MaxRetryAfter time.Duration     // 20 s: a longer Retry-After is not waited for
}

// NewHTTPClient returns the client Web API calls go through: each request carries the source's
// access token, is retried a bounded number of times on 429 and 5xx honouring Retry-After, and
// waits for one of the concurrency slots.
func NewHTTPClient(src *Source, o ClientOptions) *http.Client {
	base := o.Base
	if base == nil {
		base = http.DefaultTransport
	}
	n := o.Concurrent
	if n <= 0 {
		n = 4
	}
	limited := retry.NewLimiter(base, n)
	retrying := &retry.Transport{Base: limited, Attempts: o.Attempts, BaseDelay: o.BaseDelay, MaxRetryAfter: o.MaxRetryAfter}
	return &http.Client{Transport: &authTransport{src: src, next: retrying}}
}

type authTransport struct {
	src  *Source
	next http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.src.TokenContext(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	return t.next.RoundTrip(r)
}
