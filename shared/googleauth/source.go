package googleauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
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
	*core // Token and TokenContext
	opts  SourceOptions
	now   func() time.Time
	c     *oauthtoken.Cache[Record] // core's: the file, its record, a load error, a remembered invalid_grant
}

// core is the provider-neutral source, embedded for its Token and TokenContext.
type core = oauthtoken.Source[Record]

// NewSource returns a source over the options' token file; it reads nothing yet.
func NewSource(opts SourceOptions) *Source {
	s := &Source{opts: opts, now: time.Now}
	s.core = oauthtoken.NewSource(tokenstore.File{Path: opts.TokenFile}, parseRecord, s.bind)
	return s
}

// bind hands the core this provider's rules, which work on the core's cache.
func (s *Source) bind(c *oauthtoken.Cache[Record]) oauthtoken.Flow[Record] {
	s.c = c
	fresh := func(r *Record) bool { return r.accessValid(s.now(), refreshEarly) }
	return oauthtoken.Flow[Record]{Usable: s.usableLocked, Fresh: fresh, Token: (*Record).Token, NoClient: s.noClientLocked, Refresh: s.refreshLocked}
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

// noClientLocked is the sign-in error when there is no client to refresh with.
func (s *Source) noClientLocked() error {
	if s.opts.Client != nil {
		return nil
	}
	return s.signInError(StateMissing, "no OAuth client ("+oauthtoken.ErrText(s.opts.ClientErr)+")")
}

// refreshLocked refreshes under the file lock. Another process may have refreshed while this one
// waited for the lock: then its token is taken and Google is not asked again.
func (s *Source) refreshLocked(ctx context.Context) error {
	var refreshErr error
	err := s.c.Update(func(cur *Record) ([]byte, error) {
		if cur != nil && cur.RefreshToken != "" {
			s.c.Rec = cur
			if cur.accessValid(s.now(), refreshEarly) {
				return nil, nil
			}
		}
		if s.c.Rec.RefreshToken == "" {
			refreshErr = s.signInError(StateExpired, "")
			return nil, nil
		}
		tok, revoked, err := oauthtoken.Refresh(ctx, s.opts.Client, s.opts.HTTPClient, s.c.Rec.RefreshToken)
		switch {
		case revoked != "":
			s.c.Revoked, refreshErr = revoked, s.signInError(StateRevoked, "")
			return nil, nil
		case err != nil:
			refreshErr = fmt.Errorf("refreshing the Google token failed (tried again on the next call): %w", err)
			return nil, nil
		}
		next := *s.c.Rec
		now := s.now()
		next.apply(tok, now)
		next.Refreshed = now
		s.c.Rec = &next
		return next.marshal()
	})
	if err != nil {
		return fmt.Errorf("the Google token file %s: %w", s.opts.TokenFile, err)
	}
	return refreshErr
}

// usableLocked is the sign-in error, if any, before a refresh is tried.
func (s *Source) usableLocked() error {
	switch {
	case s.c.LoadErr != nil:
		return s.signInError(StateMissing, "token file unreadable ("+s.c.LoadErr.Error()+")")
	case s.c.Rec == nil:
		return s.signInError(StateMissing, "")
	case s.c.Revoked != "":
		return s.signInError(StateRevoked, "")
	case s.opts.Service != "" && !Covers(s.c.Rec.Scopes, s.opts.Service, s.opts.ReadOnly):
		return s.signInError(StateMissing, "it does not grant "+s.opts.Service+" access")
	case !s.c.Rec.RefreshExpiry.IsZero() && !s.c.Rec.RefreshExpiry.After(s.now()):
		return s.signInError(StateExpired, "")
	}
	return nil
}

func (s *Source) signInError(state, reason string) *SignInError {
	e := &SignInError{State: state, Reason: reason, Fix: s.opts.FixCommand}
	if s.c.Rec != nil {
		e.Account = s.c.Rec.Account
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
	st := Status{State: StateOK, TokenFile: s.opts.TokenFile}
	oauthtoken.Locked(s.core, func() { s.status(&st) })
	return st
}

// status fills st in, with the lock held.
func (s *Source) status(st *Status) {
	if s.c.Rec != nil {
		st.Account, st.Scopes, st.AccessExpiry = s.c.Rec.Account, s.c.Rec.Scopes, s.c.Rec.Expiry
		st.RefreshExpiry, st.SignedIn, st.Refreshed = s.c.Rec.RefreshExpiry, s.c.Rec.SignedIn, s.c.Rec.Refreshed
	}
	err := s.usableLocked()
	if err == nil {
		err = s.noClientLocked()
	}
	if err == nil && s.c.Rec.RefreshToken == "" && !s.c.Rec.accessValid(s.now(), 0) {
		err = s.signInError(StateExpired, "")
	}
	var se *SignInError
	switch {
	case errors.As(err, &se):
		st.State, st.Message = se.State, se.Error()
	case !s.c.Rec.RefreshExpiry.IsZero() && s.c.Rec.RefreshExpiry.Sub(s.now()) < expiringWithin:
		st.State = StateExpiring
		st.Message = fmt.Sprintf("the refresh token expires %s (the OAuth app is in Testing: publish it, then run `%s`)",
			s.c.Rec.RefreshExpiry.Format(time.RFC3339), s.opts.FixCommand)
	}
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
