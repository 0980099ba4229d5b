package spotifyauth

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
	StateExpiring = "expiring" // usable, but Spotify's six-month limit on the sign-in is near or past
	StateRevoked  = "revoked"  // Spotify answered invalid_grant: revoked or expired
	StateMissing  = "missing"  // no sign-in, or no client
)

const (
	refreshEarly   = 5 * time.Minute
	expiringWithin = 14 * 24 * time.Hour
	refreshTimeout = 30 * time.Second
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
	opts SourceOptions
	file tokenstore.File
	now  func() time.Time

	mu      sync.Mutex
	stamp   tokenstore.Stamp
	rec     *Record
	loadErr error
	revoked string // Spotify's invalid_grant description
}

// NewSource returns a source over the options' token file; it reads nothing yet.
func NewSource(opts SourceOptions) *Source {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Source{opts: opts, file: tokenstore.File{Path: opts.TokenFile}, now: now}
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
		return nil, &SignInError{State: StateMissing, Reason: "no Spotify client: " + errText(s.opts.ClientErr), Fix: s.opts.FixCommand}
	}
	if err := s.refreshLocked(ctx); err != nil {
		return nil, err
	}
	return s.rec.Token(), nil
}

// refreshLocked refreshes under the file lock; a token another process refreshed meanwhile is
// taken as it is.
func (s *Source) refreshLocked(ctx context.Context) error {
	var refreshErr error
	_, err := s.file.Update(func(old []byte) ([]byte, error) {
		if old != nil {
			if cur, err := parseRecord(old); err == nil {
				s.rec = cur
				if cur.accessValid(s.now(), refreshEarly) {
					return nil, nil
				}
			}
		}
		if s.rec.RefreshToken == "" {
			refreshErr = &SignInError{State: StateMissing, Reason: "the token file has no refresh token", Fix: s.opts.FixCommand}
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
				refreshErr = &SignInError{State: StateRevoked, Fix: s.opts.FixCommand}
				return nil, nil
			}
			refreshErr = fmt.Errorf("refreshing the Spotify token failed (tried again on the next call): %w", err)
			return nil, nil
		}
		next := *s.rec
		next.apply(tok)
		next.Refreshed = s.now()
		s.rec = &next
		return next.marshal()
	})
	if err != nil {
		return fmt.Errorf("the Spotify token file %s: %w", s.opts.TokenFile, err)
	}
	s.stamp, _ = s.file.Stat()
	return refreshErr
}

// reloadLocked rereads the file when it was replaced, appeared or went away.
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

func (s *Source) usableLocked() error {
	switch {
	case s.loadErr != nil:
		return &SignInError{State: StateMissing, Reason: "token file unreadable: " + s.loadErr.Error(), Fix: s.opts.FixCommand}
	case s.rec == nil:
		return &SignInError{State: StateMissing, Fix: s.opts.FixCommand}
	case s.revoked != "":
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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked()
	st := Status{State: StateOK, TokenFile: s.opts.TokenFile}
	if s.rec != nil {
		st.Account, st.Scopes, st.AccessExpiry = s.rec.Account, s.rec.Scopes, s.rec.Expiry
		st.SignedIn, st.RefreshExpiry, st.Refreshed = s.rec.SignedIn, s.rec.RefreshExpiry(), s.rec.Refreshed
	}
	err := s.usableLocked()
	if err == nil && s.opts.Client == nil {
		err = &SignInError{State: StateMissing, Reason: "no Spotify client: " + errText(s.opts.ClientErr), Fix: s.opts.FixCommand}
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
	return st
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

func errText(err error) string {
	if err == nil {
		return "not configured"
	}
	return err.Error()
}
