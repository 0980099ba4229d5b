package oauth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/retry"
	"golang.org/x/oauth2"
)

// Token states, as `auth status` and /healthz show them.
const (
	StateOK       = "ok"       // usable
	StateExpiring = "expiring" // usable, but the sign-in ends soon
	StateExpired  = "expired"  // the provider's end date for the grant is past, or there is no refresh token
	StateRevoked  = "revoked"  // the provider answered invalid_grant: revoked, expired or replaced
	StateMissing  = "missing"  // no sign-in, no OAuth client, or the sign-in lacks this server's scopes
)

// refreshEarly: an access token is refreshed this long before it expires.
const refreshEarly = 5 * time.Minute

// refreshTimeout bounds a refresh made for a caller without a context (Token).
const refreshTimeout = 30 * time.Second

// SourceOptions configure a Source.
type SourceOptions struct {
	Files      Files            // the token and client files (Provider.Locate)
	Fix        string           // the command that repairs the sign-in: "gmail auth login"
	Service    string           // the service whose scopes the sign-in must grant; "" for any
	ReadOnly   bool             // read-only scopes suffice
	HTTPClient *http.Client     // for the token endpoint; nil means http.DefaultClient
	Watch      *Watch           // the token file's folder; nil means stat the file on every call
	Now        func() time.Time // time.Now when nil
}

// Source hands out access tokens from a token file. It rereads the file when another process
// replaced it (a new login needs no restart), refreshes early under the file's lock so that
// servers sharing the file refresh once, persists every new (rotated) token, and remembers an
// invalid_grant instead of retrying it until the file changes. It is safe for concurrent use.
type Source struct {
	p         *Provider
	o         SourceOptions
	client    *oauth2.Config // nil when the client file could not be loaded
	clientErr error
	file      secretFile

	mu      sync.Mutex
	stamp   stamp   // of the file rec (or loadErr) came from
	rec     *Record // nil when there is no usable file
	loadErr error   // the file exists but cannot be read or parsed
	revoked string  // the token endpoint's invalid_grant, until the file changes
	seen    uint64  // the Watch generation rec/loadErr/stamp are current for; 0 for none
	looks   int     // how often reload looked at the file (tests)
}

// NewSource loads the OAuth client and returns a source over the token file, which it reads
// on first use. A client that cannot be loaded does not stop it: every token request and the
// status say why (ClientErr).
func NewSource(p *Provider, o SourceOptions) *Source {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Source{p: p, o: o, file: secretFile{Path: o.Files.Token}}
	s.client, s.clientErr = p.loadClient(o.Files.Client)
	return s
}

// ClientErr is why the OAuth client could not be loaded, or nil.
func (s *Source) ClientErr() error { return s.clientErr }

// Token returns a valid access token; see TokenContext.
func (s *Source) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	return s.TokenContext(ctx)
}

// TokenContext returns a valid access token: it rereads the file if it changed, stops at an
// unusable sign-in, hands out the cached token while it is fresh, and otherwise refreshes it.
func (s *Source) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reload()
	if err := s.usable(); err != nil {
		return nil, cmp.Or(s.missingClient(), err)
	}
	if s.rec.accessValid(s.o.Now(), refreshEarly) {
		return s.rec.token(), nil
	}
	if err := s.noClient(); err != nil {
		return nil, err
	}
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	return s.rec.token(), nil
}

// reload rereads the file when it was replaced, appeared or went away; a change forgets revoked.
// With a Watch it looks at the file only when the folder changed since it last looked.
func (s *Source) reload() {
	gen := s.o.Watch.Gen()
	if gen != 0 && gen == s.seen {
		return
	}
	s.seen = gen // taken before the look: a change during it moves gen, and the next call looks again
	s.looks++
	st, err := s.file.Stat()
	if err != nil {
		s.loadErr, s.rec = err, nil
		return
	}
	if st == s.stamp && (s.rec != nil || s.loadErr != nil || st.IsZero()) {
		return
	}
	s.stamp, s.revoked, s.rec, s.loadErr = st, "", nil, nil
	if st.IsZero() {
		return
	}
	data, st, err := s.file.Read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.stamp = stamp{}
	case err != nil:
		s.loadErr = err
	default:
		s.stamp = st
		s.rec, s.loadErr = parseRecord(data)
	}
}

// refresh refreshes under the file lock. Another process may have refreshed while this one
// waited for the lock: then its token is taken and the provider is not asked again.
func (s *Source) refresh(ctx context.Context) error {
	var refreshErr error
	_, err := s.file.Update(func(old []byte) ([]byte, error) {
		if cur, err := parseRecord(old); old != nil && err == nil && cur.RefreshToken != "" {
			s.rec = cur
			if cur.accessValid(s.o.Now(), refreshEarly) {
				return nil, nil
			}
		}
		if s.rec.RefreshToken == "" {
			refreshErr = s.signInError(StateExpired, "")
			return nil, nil
		}
		if s.o.HTTPClient != nil {
			ctx = context.WithValue(ctx, oauth2.HTTPClient, s.o.HTTPClient)
		}
		tok, err := s.client.TokenSource(ctx, &oauth2.Token{RefreshToken: s.rec.RefreshToken}).Token()
		var re *oauth2.RetrieveError
		switch {
		case errors.As(err, &re) && re.ErrorCode == "invalid_grant":
			s.revoked = strings.TrimSpace(re.ErrorCode + ": " + re.ErrorDescription)
			refreshErr = s.signInError(StateRevoked, "")
			return nil, nil
		case err != nil:
			refreshErr = fmt.Errorf("refreshing the %s token failed (tried again on the next call): %w", s.p.Name, err)
			return nil, nil
		}
		next := *s.rec
		now := s.o.Now()
		next.apply(tok, now)
		next.Refreshed = now
		s.rec = &next
		return next.marshal()
	})
	if err != nil {
		return fmt.Errorf("the %s token file %s: %w", s.p.Name, s.o.Files.Token, err)
	}
	s.stamp, _ = s.file.Stat() // our own write is not another process's
	return refreshErr
}

// usable is the sign-in error, if any, before a refresh is tried.
func (s *Source) usable() error {
	switch {
	case s.loadErr != nil:
		return s.signInError(StateMissing, "token file unreadable ("+s.loadErr.Error()+")")
	case s.rec == nil:
		return s.signInError(StateMissing, "")
	case s.revoked != "":
		return s.signInError(StateRevoked, "")
	case s.o.Service != "" && !s.p.covers(s.rec.Scopes, s.o.Service, s.o.ReadOnly):
		return s.signInError(StateMissing, "it does not grant "+s.o.Service+" access")
	case !s.rec.RefreshExpiry.IsZero() && !s.rec.RefreshExpiry.After(s.o.Now()):
		return s.signInError(StateExpired, "")
	}
	return nil
}

// missingClient is the sign-in error when the client file does not exist, else nil: it is
// reported before any other, since `auth login` cannot work without the file.
func (s *Source) missingClient() error {
	var mc *MissingClientError
	if !errors.As(s.clientErr, &mc) {
		return nil
	}
	e := s.signInError(StateMissing, "")
	e.Client = mc
	return e
}

// noClient is the sign-in error when there is no client to refresh with.
func (s *Source) noClient() error {
	if s.client != nil {
		return nil
	}
	if err := s.missingClient(); err != nil {
		return err
	}
	why := "not configured"
	if s.clientErr != nil {
		why = s.clientErr.Error()
	}
	return s.signInError(StateMissing, "no OAuth client ("+why+")")
}

func (s *Source) signInError(state, reason string) *SignInError {
	e := &SignInError{Provider: s.p.Name, State: state, Reason: reason, Fix: s.o.Fix}
	if state == StateRevoked {
		e.Reason = s.p.RevokedHint
	}
	if s.rec != nil {
		e.Account = s.rec.Account
	}
	return e
}

// SignInError says that the sign-in cannot be used and which command fixes it.
type SignInError struct {
	Provider string // "Google"
	State    string
	Account  string
	Reason   string // why, for missing; a hint, for revoked
	Fix      string
	Client   *MissingClientError // set when the cause is a missing client file
}

// Unwrap returns the missing client file's error, if that is the cause.
func (e *SignInError) Unwrap() error {
	if e.Client == nil {
		return nil
	}
	return e.Client
}

func (e *SignInError) Error() string {
	if e.Client != nil {
		return fmt.Sprintf("%v; then run `%s`", e.Client, e.Fix)
	}
	who := e.Provider + " sign-in"
	if e.Account != "" {
		who += " for " + e.Account
	}
	switch {
	case e.State == StateRevoked && e.Reason != "":
		return fmt.Sprintf("%s was revoked or expired (%s): run `%s`", who, e.Reason, e.Fix)
	case e.State == StateRevoked:
		return fmt.Sprintf("%s was revoked or expired: run `%s`", who, e.Fix)
	case e.State == StateExpired:
		return fmt.Sprintf("%s expired: run `%s`", who, e.Fix)
	case e.Reason != "":
		return fmt.Sprintf("%s: %s: run `%s`", who, e.Reason, e.Fix)
	}
	return fmt.Sprintf("%s missing: run `%s`", who, e.Fix)
}

// Status describes the sign-in without calling the provider.
type Status struct {
	State         string    `json:"state"`
	Account       string    `json:"account,omitempty"`
	Scopes        []string  `json:"scopes,omitempty"`
	AccessExpiry  time.Time `json:"access_token_expiry,omitzero"`
	RefreshExpiry time.Time `json:"refresh_token_expiry,omitzero"` // when the sign-in ends, as the provider said or by its rule
	SignedIn      time.Time `json:"signed_in,omitzero"`
	Refreshed     time.Time `json:"refreshed,omitzero"`
	TokenFile     string    `json:"token_file"`
	ClientFile    string    `json:"client_file"`
	Message       string    `json:"message,omitempty"` // what to do, when not ok
	short         func(string) string
}

// Status reports the current state, rereading the file if it changed.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reload()
	st := Status{State: StateOK, TokenFile: s.o.Files.Token, ClientFile: s.o.Files.Client, short: s.p.ShortScope}
	if s.rec != nil {
		st.Account, st.Scopes, st.AccessExpiry = s.rec.Account, s.rec.Scopes, s.rec.Expiry
		st.SignedIn, st.Refreshed, st.RefreshExpiry = s.rec.SignedIn, s.rec.Refreshed, s.rec.RefreshExpiry
		if st.RefreshExpiry.IsZero() && s.p.Lifetime > 0 && !s.rec.SignedIn.IsZero() {
			st.RefreshExpiry = s.rec.SignedIn.Add(s.p.Lifetime)
		}
	}
	err := s.usable()
	if err != nil {
		err = cmp.Or(s.missingClient(), err)
	} else {
		err = s.noClient()
	}
	if err == nil && s.rec.RefreshToken == "" && !s.rec.accessValid(s.o.Now(), 0) {
		err = s.signInError(StateExpired, "")
	}
	var se *SignInError
	switch {
	case errors.As(err, &se):
		st.State, st.Message = se.State, se.Error()
	case !st.RefreshExpiry.IsZero() && st.RefreshExpiry.Sub(s.o.Now()) < s.p.ExpiringWithin:
		st.State = StateExpiring
		st.Message = fmt.Sprintf("the sign-in ends %s (%s): run `%s` before then", st.RefreshExpiry.Format(time.DateOnly), s.p.EndsBecause, s.o.Fix)
	}
	return st
}

// Usable reports whether the sign-in can be used (ok or expiring).
func (st Status) Usable() bool { return st.State == StateOK || st.State == StateExpiring }

// Detail is the one-line summary /healthz shows: "ok: ada@example.com (gmail.modify, …)".
func (st Status) Detail() string {
	if !st.Usable() {
		return st.State + ": " + st.Message
	}
	d := st.State + ": " + st.Account
	if st.Account == "" {
		d = st.State + ": signed in"
	}
	var shown []string
	for _, sc := range st.Scopes {
		if st.short != nil && st.short(sc) != "" {
			shown = append(shown, st.short(sc))
		}
	}
	if len(shown) > 0 {
		d += " (" + strings.Join(shown, ", ") + ")"
	}
	if st.State == StateExpiring {
		d += "; " + st.Message
	}
	return d
}

// HTTPClient returns the client API calls go through: each request carries the source's access
// token (a token error fails it unsent), is retried a bounded number of times by the provider's
// rules honouring Retry-After, and waits for one of concurrent slots (the provider's default
// when 0). base is http.DefaultTransport when nil.
func (s *Source) HTTPClient(concurrent int, base http.RoundTripper) *http.Client {
	if concurrent <= 0 {
		concurrent = s.p.Concurrent
	}
	if base == nil {
		base = http.DefaultTransport
	}
	retrying := &retry.Transport{Base: retry.NewLimiter(base, concurrent), MaxRetryAfter: s.p.MaxRetryAfter, Retryable: s.p.Retryable}
	return &http.Client{Transport: &signer{src: s, next: retrying}}
}

// signer sets the Authorization header from the source, with the request's context.
type signer struct {
	src  *Source
	next http.RoundTripper
}

func (t *signer) RoundTrip(req *http.Request) (*http.Response, error) {
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
