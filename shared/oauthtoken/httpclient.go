package oauthtoken

import (
	"context"
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/retry"
	"golang.org/x/oauth2"
)

// TokenSource hands out access tokens for a request's context.
type TokenSource interface {
	TokenContext(ctx context.Context) (*oauth2.Token, error)
}

// ClientOptions tune NewHTTPClient.
type ClientOptions struct {
	Base          http.RoundTripper                                 // http.DefaultTransport
	Concurrent    int                                               // requests in flight at once; must be > 0
	Attempts      int                                               // tries per call (retry.Transport's default when 0)
	BaseDelay     time.Duration                                     // the first backoff (retry.Transport's default when 0)
	MaxRetryAfter time.Duration                                     // a longer Retry-After is not waited for (retry's default when 0)
	Retryable     func(req *http.Request, resp *http.Response) bool // retry.DefaultRetryable when nil
}

// NewHTTPClient returns a client whose requests carry src's access token, are retried a bounded
// number of times honouring Retry-After, and wait for one of o.Concurrent slots.
func NewHTTPClient(src TokenSource, o ClientOptions) *http.Client {
	base := o.Base
	if base == nil {
		base = http.DefaultTransport
	}
	limited := retry.NewLimiter(base, o.Concurrent)
	retrying := &retry.Transport{Base: limited, Attempts: o.Attempts, BaseDelay: o.BaseDelay, MaxRetryAfter: o.MaxRetryAfter, Retryable: o.Retryable}
	return &http.Client{Transport: &Transport{Source: src, Next: retrying}}
}

// Transport sets the Authorization header from Source, with the request's context. A token
// error fails the request without sending it.
type Transport struct {
	Source TokenSource
	Next   http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.Source.TokenContext(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	return t.Next.RoundTrip(r)
}
