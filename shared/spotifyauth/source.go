package spotifyauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jck411/mcp-servers/shared/oauthtoken"
	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Token states, as `auth status` and /healthz show them.
const (
	StateOK       = "ok"       // usable
	StateExpiring = "expiring" // usable, but Spotify's six-month limit on the sign-in is near or past
	StateRevoked  = "revoked"  // Spotify answered invalid_grant: revoked or expired
	StateMissing  = "missing"  // no sign-in, or no client
)

const (
	refreshEarly   = 5 * time.Minute
	expiringWithin = 14 * 24 * time.Hour
)

// SourceOptions configure a Source.
type SourceOptions struct {
	TokenFile  string         // the token file
	Client     *oauth2.Config // the app's client; nil when it could not be loaded
	ClientErr  error          // why Client is nil
	FixCommand string         // the command that repairs sign-in: "spotify auth login"
	HTTPClient *http.Client   // for the token endpoint; nil means http.DefaultClient
	Now        func() time.Time
}

// Source hands out access tokens from the token file. It rereads the file when another process
// replaced it (a new login needs no restart), refreshes early under the file's lock, persists
// every rotated refresh token, and remembers invalid_grant instead of retrying until the file
// changes.
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
	s := &Source{opts: opts, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
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
	State  string
	Reason string
	Fix    string
}

func (e *SignInError) Error() string {
	if e.State == StateRevoked {
		return fmt.Sprintf("Spotify sign-in was revoked or has expired (Spotify ends sign-ins after six months): re-authorize with `%s`", e.Fix)
	}
	if e.Reason != "" {
		return fmt.Sprintf("Spotify is not signed in (%s): run `%s`", e.Reason, e.Fix)
	}
	return fmt.Sprintf("Spotify is not signed in: run `%s`", e.Fix)
}

// noClientLocked is the sign-in error when there is no client to refresh with.
func (s *Source) noClientLocked() error {
	if s.opts.Client != nil {
		return nil
	}
	return &SignInError{State: StateMissing, Reason: "no Spotify client: " + oauthtoken.ErrText(s.opts.ClientErr), Fix: s.opts.FixCommand}
}

// refreshLocked refreshes under the file lock; a token another process refreshed meanwhile is
// taken as it is.
func (s *Source) refreshLocked(ctx context.Context) error {
	var refreshErr error
	err := s.c.Update(func(cur *Record) ([]byte, error) {
		if cur != nil {
			s.c.Rec = cur
			if cur.accessValid(s.now(), refreshEarly) {
				return nil, nil
			}
		}
		if s.c.Rec.RefreshToken == "" {
			refreshErr = &SignInError{State: StateMissing, Reason: "the token file has no refresh token", Fix: s.opts.FixCommand}
			return nil, nil
		}
		tok, revoked, err := oauthtoken.Refresh(ctx, s.opts.Client, s.opts.HTTPClient, s.c.Rec.RefreshToken)
		if revoked != "" {
			s.c.Revoked, refreshErr = revoked, &SignInError{State: StateRevoked, Fix: s.opts.FixCommand}
			return nil, nil
		}
		if err != nil {
			refreshErr = fmt.Errorf("refreshing the Spotify token failed (tried again on the next call): %w", err)
			return nil, nil
		}
		next := *s.c.Rec
		next.apply(tok)
		next.Refreshed = s.now()
		s.c.Rec = &next
		return next.marshal()
	})
	if err != nil {
		return fmt.Errorf("the Spotify token file %s: %w", s.opts.TokenFile, err)
	}
	return refreshErr
}

func (s *Source) usableLocked() error {
	switch {
	case s.c.LoadErr != nil:
		return &SignInError{State: StateMissing, Reason: "token file unreadable: " + s.c.LoadErr.Error(), Fix: s.opts.FixCommand}
	case s.c.Rec == nil:
		return &SignInError{State: StateMissing, Fix: s.opts.FixCommand}
	case s.c.Revoked != "":
		return &SignInError{State: StateRevoked, Fix: s.opts.FixCommand}
	}
	return nil
}

// Status describes the sign-in without calling Spotify.
type Status struct {
	State         string    `json:"state"`
	Account       string    `json:"account,omitempty"`
	Scopes        []string  `json:"scopes,omitempty"`
	AccessExpiry  time.Time `json:"access_token_expiry,omitzero"`
	SignedIn      time.Time `json:"signed_in,omitzero"`
	RefreshExpiry time.Time `json:"sign_in_expires,omitzero"`
	Refreshed     time.Time `json:"refreshed,omitzero"`
	TokenFile     string    `json:"token_file"`
	Message       string    `json:"message,omitempty"`
}

// Status reports the current state, rereading the file if it changed.
func (s *Source) Status() Status {
	st := Status{State: StateOK, TokenFile: s.opts.TokenFile}
	oauthtoken.Locked(s.core, func() { s.status(&st) })
	return st
}

// status fills st in, with the lock held.
func (s *Source) status(st *Status) {
	if s.c.Rec != nil {
		st.Account, st.Scopes, st.AccessExpiry = s.c.Rec.Account, s.c.Rec.Scopes, s.c.Rec.Expiry
		st.SignedIn, st.RefreshExpiry, st.Refreshed = s.c.Rec.SignedIn, s.c.Rec.RefreshExpiry(), s.c.Rec.Refreshed
	}
	err := s.usableLocked()
	if err == nil {
		err = s.noClientLocked()
	}
	var se *SignInError
	switch {
	case errors.As(err, &se):
		st.State, st.Message = se.State, se.Error()
	case !st.RefreshExpiry.IsZero() && st.RefreshExpiry.Sub(s.now()) < expiringWithin:
		st.State = StateExpiring
		st.Message = fmt.Sprintf("Spotify ends sign-ins six months after authorization (this one: %s): run `%s` before then",
			st.RefreshExpiry.Format("2006-01-02"), s.opts.FixCommand)
	}
}

// Detail is the one-line summary /healthz shows.
func (st Status) Detail() string {
	if st.State != StateOK {
		return st.State + ": " + st.Message
	}
	who := st.Account
	if who == "" {
		who = "signed in"
	}
	return st.State + ": " + who
}
