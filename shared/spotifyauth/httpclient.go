package spotifyauth

import (
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
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
	n := o.Concurrent
	if n <= 0 {
		n = 4
	}
	return oauthtoken.NewHTTPClient(src, oauthtoken.ClientOptions{Base: o.Base, Concurrent: n, Attempts: o.Attempts, BaseDelay: o.BaseDelay, MaxRetryAfter: o.MaxRetryAfter})
}
