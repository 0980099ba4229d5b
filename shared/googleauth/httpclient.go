package googleauth

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
	"github.com/jck411/mcp-servers/shared/retry"
)

// ClientOptions tune NewHTTPClient; zero values take the defaults shown.
type ClientOptions struct {
	Base       http.RoundTripper // http.DefaultTransport
	Concurrent int               // 5: Google API calls in flight at once for the account
	Attempts   int               // 4: tries per call, the first included
	BaseDelay  time.Duration     // 500 ms: the first backoff
}

// NewHTTPClient returns the client Google API calls go through: each request carries the
// source's access token, is retried a bounded number of times on 429 and 5xx (and on Google's
// 403 rate-limit answers) with backoff honouring Retry-After, and waits for one of the
// account's concurrency slots.
func NewHTTPClient(src *Source, o ClientOptions) *http.Client {
	n := o.Concurrent
	if n <= 0 {
		n = 5
	}
	return oauthtoken.NewHTTPClient(src, oauthtoken.ClientOptions{Base: o.Base, Concurrent: n, Attempts: o.Attempts, BaseDelay: o.BaseDelay, Retryable: Retryable})
}

// Retryable is retry.DefaultRetryable plus Google's 403 answers that mean "slow down"
// (rateLimitExceeded, userRateLimitExceeded), which Gmail sends as well as 429.
func Retryable(req *http.Request, resp *http.Response) bool {
	if retry.DefaultRetryable(req, resp) {
		return true
	}
	if resp.StatusCode != http.StatusForbidden {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil && (bytes.Contains(body, []byte(`"rateLimitExceeded"`)) || bytes.Contains(body, []byte(`"userRateLimitExceeded"`)))
}
