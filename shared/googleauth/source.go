package googleauth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Token states, as `auth status` and /healthz show them.
const (
	StateOK       = "ok"       // usable
	StateExpiring = "expiring" // usable, but the refresh token expires within a day (app in Testing)
	StateExpired  = "expired"  // the refresh token's lifetime is over, or there is none
	StateRevoked  = "revoked"  // Google answered invalid_grant: revoked, expired or replaced
	StateMissing  = "missing"  // no sign-in, no OAuth client, or the sign-in lacks this server's scopes
)

// Refresh timing: a token is refreshed this long before it expires, and a refresh token
// expiring within expiringWithin is reported as expiring.
const (
	refreshEarly   = 5 * time.Minute
	expiringWithin = 24 * time.Hour
	refreshTimeout = 30 * time.Second
)

// SourceOptions configure a Source.
type SourceOptions struct {
	TokenFile  string         // the shared token file
	Client     *oauth2.Config // the OAuth client; nil when it could not be loaded
	ClientErr  error          // why Client is nil, shown to the user
	FixCommand string         // the command that repairs sign-in, e.g. "gmail auth login"
	Service    string         // the service whose scopes the token must cover, e.g. "gmail"
	ReadOnly   bool           // read-only scopes suffice
	HTTPClient *http.Client   // for the token endpoint; nil means http.DefaultClient
}

// Source hands out access tokens from the shared token file. It reloads the file whenever
// another process replaces it (a new login needs no restart), refreshes early under the file's
// lock so that concurrent servers refresh once, persists every new token, and remembers a
// revoked sign-in instead of retrying it until the file changes.
type Source struct {
	opts SourceOptions
	file tokenstore.File
	now  func() time.Time

	mu      sync.Mutex
	stamp   tokenstore.Stamp
	rec     *Record
	loadErr error // the file exists but cannot be read or parsed
	revoked string
}

// NewSource returns a source over the options' token file; it reads nothing yet.
func NewSource(opts SourceOptions) *Source {
	return &Source{opts: opts, file: tokenstore.File{Path: opts.TokenFile}, now: time.Now}
}

// SignInError says that the sign-in cannot be used and which command fixes it.
type SignInError struct {
	State   string
	Account string
	Reason  string // why, for missing
	Fix     string
}

func (e *SignInError) Error() string {
	who := "Google sign-in"
	if e.Account != "" {
		who = "Google sign-in for " + e.Account
	}
	switch e.State {
	case StateRevoked:
		return fmt.Sprintf("%s was revoked or expired: run `%s`", who, e.Fix)
	case StateExpired:
		return fmt.Sprintf("%s expired: run `%s`", who, e.Fix)
	}
	if e.Reason != "" {
		return fmt.Sprintf("%s: %s: run `%s`", who, e.Reason, e.Fix)
	}
	return fmt.Sprintf("%s missing: run `%s`", who, e.Fix)
}

// Token returns a valid access token; see TokenContext.
func (s *Source) Token() (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
	defer cancel()
	return s.TokenContext(ctx)
}

// TokenContext returns a valid access token, refreshing it when it is about to expire. An
// unusable sign-in is a *SignInError.
func (s *Source) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked()
	if err := s.usableLocked(); err != nil {
		return nil, err
	}
	if s.rec.accessValid(s.now(), refreshEarly) {
		return s.rec.Token(), nil
	}
	if s.opts.Client == nil {
		return nil, s.signInError(StateMissing, "no OAuth client ("+errText(s.opts.ClientErr)+")")
	}
	if err := s.refreshLocked(ctx); err != nil {
		return nil, err
	}
	return s.rec.Token(), nil
}

// refreshLocked refreshes under the file lock. Another process may have refreshed while this one
// waited for the lock: then its token is taken and Google is not asked again.
func (s *Source) refreshLocked(ctx context.Context) error {
	var refreshErr error
	_, err := s.file.Update(func(old []byte) ([]byte, error) {
		if old != nil {
			if cur, err := parseRecord(old); err == nil && cur.RefreshToken != "" {
				if cur.accessValid(s.now(), refreshEarly) {
					s.rec = cur
					return nil, nil
				}
				s.rec = cur
			}
		}
		if s.rec.RefreshToken == "" {
			refreshErr = s.signInError(StateExpired, "")
			return nil, nil
		}
		if s.opts.HTTPClient != nil {
			ctx = context.WithValue(ctx, oauth2.HTTPClient, s.opts.HTTPClient)
		}
		tok, err := s.opts.Client.TokenSource(ctx, &oauth2.Token{RefreshToken: s.rec.RefreshToken}).Token()
		if err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
				s.revoked = strings.TrimSpace(re.ErrorCode + ": " + re.ErrorDescription)
				refreshErr = s.signInError(StateRevoked, "")
				return nil, nil
			}
			refreshErr = fmt.Errorf("refreshing the Google token failed (tried again on the next call): %w", err)
			return nil, nil
		}
		next := *s.rec
		now := s.now()
		next.apply(tok, now)
		next.Refreshed = now
		s.rec = &next
		return next.marshal()
	})
	if err != nil {
		return fmt.Errorf("the Google token file %s: %w", s.opts.TokenFile, err)
	}
	s.stamp, _ = s.file.Stat()
	return refreshErr
}

// reloadLocked rereads the file when it was replaced (or appeared, or went away).
func (s *Source) reloadLocked() {
	stamp, err := s.file.Stat()
	if err != nil {
		s.loadErr, s.rec = err, nil
		return
	}
	if stamp == s.stamp && (s.rec != nil || s.loadErr != nil || stamp.IsZero()) {
		return
	}
	s.stamp, s.revoked, s.rec, s.loadErr = stamp, "", nil, nil
	if stamp.IsZero() {
		return
	}
	data, st, err := s.file.Read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.stamp = tokenstore.Stamp{}
	case err != nil:
		s.loadErr = err
	default:
		s.stamp = st
		s.rec, s.loadErr = parseRecord(data)
	}
}

// usableLocked is the sign-in error, if any, before a refresh is tried.
func (s *Source) usableLocked() error {
	switch {
	case s.loadErr != nil:
		return s.signInError(StateMissing, "token file unreadable ("+s.loadErr.Error()+")")
	case s.rec == nil:
		return s.signInError(StateMissing, "")
	case s.revoked != "":
		return s.signInError(StateRevoked, "")
	case s.opts.Service != "" && !Covers(s.rec.Scopes, s.opts.Service, s.opts.ReadOnly):
		return s.signInError(StateMissing, "it does not grant "+s.opts.Service+" access")
	case !s.rec.RefreshExpiry.IsZero() && !s.rec.RefreshExpiry.After(s.now()):
		return s.signInError(StateExpired, "")
	}
	return nil
}

func (s *Source) signInError(state, reason string) *SignInError {
	e := &SignInError{State: state, Reason: reason, Fix: s.opts.FixCommand}
	if s.rec != nil {
		e.Account = s.rec.Account
	}
	return e
}

// Status describes the sign-in without calling Google.
type Status struct {
	State         string    `json:"state"`
	Account       string    `json:"account,omitempty"`
	Scopes        []string  `json:"scopes,omitempty"`
	AccessExpiry  time.Time `json:"access_token_expiry,omitzero"`
	RefreshExpiry time.Time `json:"refresh_token_expiry,omitzero"`
	SignedIn      time.Time `json:"signed_in,omitzero"`
	Refreshed     time.Time `json:"refreshed,omitzero"`
	TokenFile     string    `json:"token_file"`
	Message       string    `json:"message,omitempty"` // what to do, when not ok
}

// Status reports the current state, reloading the file if it changed.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked()
	st := Status{State: StateOK, TokenFile: s.opts.TokenFile}
	if s.rec != nil {
		st.Account, st.Scopes, st.AccessExpiry = s.rec.Account, s.rec.Scopes, s.rec.Expiry
		st.RefreshExpiry, st.SignedIn, st.Refreshed = s.rec.RefreshExpiry, s.rec.SignedIn, s.rec.Refreshed
	}
	err := s.usableLocked()
	if err == nil && s.opts.Client == nil {
		err = s.signInError(StateMissing, "no OAuth client ("+errText(s.opts.ClientErr)+")")
	}
	if err == nil && s.rec.RefreshToken == "" && !s.rec.accessValid(s.now(), 0) {
		err = s.signInError(StateExpired, "")
	}
	var se *SignInError
	switch {
	case errors.As(err, &se):
		st.State, st.Message = se.State, se.Error()
	case !s.rec.RefreshExpiry.IsZero() && s.rec.RefreshExpiry.Sub(s.now()) < expiringWithin:
		st.State = StateExpiring
		st.Message = fmt.Sprintf("the refresh token expires %s (the OAuth app is in Testing: publish it, then run `%s`)",
			s.rec.RefreshExpiry.Format(time.RFC3339), s.opts.FixCommand)
	}
	return st
}

// Detail is the one-line summary /healthz shows: "ok: me@example.com (gmail.modify, …)".
func (st Status) Detail() string {
	if st.State != StateOK && st.State != StateExpiring {
		return st.State + ": " + st.Message
	}
	short := make([]string, 0, len(st.Scopes))
	for _, sc := range st.Scopes {
		if sc != ScopeOpenID && sc != ScopeEmail && !strings.HasSuffix(sc, "userinfo.email") {
			short = append(short, ShortScope(sc))
		}
	}
	d := st.State + ": " + st.Account + " (" + strings.Join(short, ", ") + ")"
	if st.State == StateExpiring {
		d += "; " + st.Message
	}
	return d
}

func errText(err error) string {
	if err == nil {
		return "not configured"
	}
	return err.Error()
}
