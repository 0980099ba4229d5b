// Package googleserver is what every Google server (gmail, calendar, drive) does the same way on
// top of the shared sign-in: its Google flags, the authorized HTTP client with retries, the
// "google token" health check, and turning Google API errors into tool errors that say what to do.
package googleserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// Product is one Google API as a server uses it.
type Product struct {
	Server       string // the server id, which names its auth command: gmail
	Name         string // the API's name in messages: Google Drive
	EndpointFlag string // the flag that points the client elsewhere (tests use it): drive-endpoint
	Endpoint     string // the API's base URL
}

// service names the API in the upstream metrics: the endpoint flag without "-endpoint"
// (gmail, calendar, drive).
func (p Product) service() string { return strings.TrimSuffix(p.EndpointFlag, "-endpoint") }

// Flags are the flags every Google server takes.
type Flags struct {
	TokenFile  string
	ClientFile string
	Endpoint   string
	Concurrent int
}

// Register adds --google-token-file, --google-client-file, the product's endpoint flag and
// --max-concurrent to fs.
func (f *Flags) Register(fs *flag.FlagSet, p Product) {
	fs.StringVar(&f.TokenFile, "google-token-file", "", "the Google token file the Google servers share (default: /var/lib/mcp-servers/google/token.json when that folder exists, else ~/.local/state/mcp-servers/google/token.json)")
	fs.StringVar(&f.ClientFile, "google-client-file", "", "the Google OAuth client JSON, Desktop app type (default: $CREDENTIALS_DIRECTORY/google_client.json, else /etc/mcp-servers/credentials/google/client.json, else client.json beside the token file)")
	fs.StringVar(&f.Endpoint, p.EndpointFlag, p.Endpoint, "base URL of the "+p.Name+" API")
	fs.IntVar(&f.Concurrent, "max-concurrent", 5, p.Name+" API calls in flight at once for the account")
}

// Account is a server's authorized connection to one Google API.
type Account struct {
	Source   *oauth.Source // the shared sign-in's token source
	HTTP     *http.Client  // authorized, with bounded retries and the concurrency limit
	Endpoint string        // the API's base URL, ending in "/"
	ReadOnly bool          // the server runs with --read-only
	product  Product
}

// Open validates the flags and builds the account without using the network. A missing or bad
// OAuth client is logged and reported by every tool, so the server still starts. It adds the
// "google token" health check to s.
func Open(s *kit.Server, f *Flags, p Product) (*Account, error) {
	switch {
	case f.Concurrent < 1 || f.Concurrent > 50:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 50", f.Concurrent)
	case !strings.HasPrefix(f.Endpoint, "http://") && !strings.HasPrefix(f.Endpoint, "https://"):
		return nil, fmt.Errorf("--%s %q: give an http(s) URL", p.EndpointFlag, f.Endpoint)
	}
	cfg := s.Config()
	files := oauth.Google.Locate(p.Server, oauth.Files{Token: f.TokenFile, Client: f.ClientFile}, cfg.StateDir, cfg.Getenv)
	fix := p.Server + " auth login"
	if cfg.ReadOnly {
		fix += " --read-only"
	}
	src := oauth.NewSource(oauth.Google, oauth.SourceOptions{Files: files, Fix: fix, Service: p.Server, ReadOnly: cfg.ReadOnly})
	if err := src.ClientErr(); err != nil {
		s.Logger().Warn("Google OAuth client not loaded; tools will say so", "error", err.Error())
	}
	hc := src.HTTPClient(f.Concurrent, nil)
	hc.Transport = s.Metrics().Upstream(p.service(), hc.Transport) // mcp_upstream_* metrics
	a := &Account{
		Source:   src,
		HTTP:     hc,
		Endpoint: strings.TrimSuffix(f.Endpoint, "/") + "/",
		ReadOnly: cfg.ReadOnly,
		product:  p,
	}
	s.AddHealthCheck("google token", a.Health)
	return a, nil
}

// For is the same sign-in and HTTP client calling another Google API (the drive server's
// Sheets and Docs calls): p names that API in errors, endpoint is its base URL. Upstream
// metrics still count its calls under the account's own service.
func (a *Account) For(p Product, endpoint string) *Account {
	b := *a
	b.product = p
	b.Endpoint = strings.TrimSuffix(endpoint, "/") + "/"
	return &b
}

// Health reports the sign-in: missing or expiring warn (the server is up, tools say how to sign
// in), expired or revoked fail.
func (a *Account) Health(context.Context) health.Result {
	st := a.Source.Status()
	switch st.State {
	case oauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case oauth.StateExpiring, oauth.StateMissing:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// Fail turns an error from a Google call into the tool error the model sees; what names the
// object for "not found" ("message 18c2…").
func (a *Account) Fail(err error, what string) error {
	name := a.product.Name
	var se *oauth.SignInError
	var ge *APIError
	var ke *kit.Error
	switch {
	case errors.As(err, &ke):
		return err
	case errors.As(err, &se):
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return kit.Errorf(kit.CodeTimeout, "%s did not answer in time; try again", name)
	case errors.As(err, &ge):
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		lower := strings.ToLower(msg)
		switch {
		case ge.Code == http.StatusNotFound || ge.Code == http.StatusGone:
			return kit.Errorf(kit.CodeNotFound, "%s not found", what)
		case ge.Code == http.StatusBadRequest:
			return kit.Errorf(kit.CodeInvalidInput, "%s refused the request: %s", name, msg)
		case ge.Code == http.StatusForbidden && (strings.Contains(lower, "insufficient") || strings.Contains(msg, "scope")):
			return kit.Errorf(kit.CodeUnavailable, "the Google sign-in does not allow this (granted read-only?): run `%s auth login` without --read-only", a.product.Server)
		case ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusForbidden && strings.Contains(lower, "rate"):
			return kit.Errorf(kit.CodeLimit, "%s is rate-limiting this account (still after retries): wait a minute and try again", name)
		case ge.Code >= 500:
			return kit.Errorf(kit.CodeUnavailable, "%s failed (%d %s) after retries; try again later", name, ge.Code, msg)
		}
		return kit.Errorf(kit.CodeUnavailable, "%s answered %d: %s", name, ge.Code, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "%s call failed: %v", name, err)
}
