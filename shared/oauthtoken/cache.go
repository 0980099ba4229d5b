// Package oauthtoken is the provider-neutral half of the fleet's file-backed OAuth token
// sources: the token record's JSON file (read, save, remove, default paths), a cache that
// rereads the file whenever another process replaced it, the refresh call with invalid_grant
// told apart, and the HTTP client that signs each request with the source's token.
package oauthtoken

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Cache holds the record last read from a token file and rereads the file when it was
// replaced, appeared or went away. Its user guards it with a mutex.
type Cache[R any] struct {
	File    tokenstore.File
	Parse   func([]byte) (*R, error)
	Stamp   tokenstore.Stamp // of the file Rec (or LoadErr) came from
	Rec     *R               // nil when there is no usable file
	LoadErr error            // the file exists but cannot be read or parsed
	Revoked string           // the token endpoint's invalid_grant, until the file changes
}

// Reload rereads the file when it changed since the last read; a change forgets Revoked.
func (c *Cache[R]) Reload() {
	stamp, err := c.File.Stat()
	if err != nil {
		c.LoadErr, c.Rec = err, nil
		return
	}
	if stamp == c.Stamp && (c.Rec != nil || c.LoadErr != nil || stamp.IsZero()) {
		return
	}
	c.Stamp, c.Revoked, c.Rec, c.LoadErr = stamp, "", nil, nil
	if stamp.IsZero() {
		return
	}
	data, st, err := c.File.Read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Stamp = tokenstore.Stamp{}
	case err != nil:
		c.LoadErr = err
	default:
		c.Stamp = st
		c.Rec, c.LoadErr = c.Parse(data)
	}
}

// Update runs fn under the file's lock with the record the file holds now (nil when it is
// missing or unparsable), writes what fn returns unless that is nil, and then takes the file's
// new stamp so that the write is not mistaken for another process's.
func (c *Cache[R]) Update(fn func(cur *R) ([]byte, error)) error {
	_, err := c.File.Update(func(old []byte) ([]byte, error) {
		var cur *R
		if old != nil {
			if r, err := c.Parse(old); err == nil {
				cur = r
			}
		}
		return fn(cur)
	})
	if err != nil {
		return err
	}
	c.Stamp, _ = c.File.Stat()
	return nil
}

// Refresh trades a refresh token for a new token at the client's token endpoint (through hc
// when not nil). An invalid_grant answer — revoked, expired or replaced — comes back as
// revoked ("invalid_grant: description") with a nil error; other failures as err.
func Refresh(ctx context.Context, client *oauth2.Config, hc *http.Client, refreshToken string) (tok *oauth2.Token, revoked string, err error) {
	if hc != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	}
	tok, err = client.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			return nil, strings.TrimSpace(re.ErrorCode + ": " + re.ErrorDescription), nil
		}
		return nil, "", err
	}
	return tok, "", nil
}

// ErrText is err's text, or "not configured" for nil.
func ErrText(err error) string {
	if err == nil {
		return "not configured"
	}
	return err.Error()
}

// RefreshTimeout bounds a refresh made for a caller without a context (Background).
const RefreshTimeout = 30 * time.Second

// Background calls get with a context that ends after RefreshTimeout: oauth2.TokenSource's
// Token for a source whose TokenContext is get.
func Background(get func(context.Context) (*oauth2.Token, error)) (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), RefreshTimeout)
	defer cancel()
	return get(ctx)
}

// Flow is a provider's part of a Source. Each function runs with the caller's lock held.
type Flow[R any] struct {
	Usable   func() error      // the sign-in error, if any, before a refresh is tried
	Fresh    func(rec *R) bool // whether rec's access token can be handed out without a refresh
	Token    func(rec *R) *oauth2.Token
	NoClient func() error                    // the error when there is no client to refresh with, else nil
	Refresh  func(ctx context.Context) error // refreshes Rec (see Update)
}

// Source is a file-backed token source: Token and TokenContext hand out the cached access token
// while it is fresh and refresh it otherwise, following the provider's Flow. Providers embed it.
type Source[R any] struct {
	mu    sync.Mutex
	cache Cache[R]
	flow  Flow[R]
}

// NewSource returns a source over file; it reads nothing yet. bind returns the provider's Flow
// and is handed the cache the flow's functions work on (always under the source's lock).
func NewSource[R any](file tokenstore.File, parse func([]byte) (*R, error), bind func(c *Cache[R]) Flow[R]) *Source[R] {
	s := &Source[R]{cache: Cache[R]{File: file, Parse: parse}}
	s.flow = bind(&s.cache)
	return s
}

// Token returns a valid access token; see TokenContext.
func (s *Source[R]) Token() (*oauth2.Token, error) { return Background(s.TokenContext) }

// TokenContext returns a valid access token: it rereads the file if it changed, stops at an
// unusable sign-in, hands out the cached token while it is fresh, and otherwise refreshes it.
func (s *Source[R]) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, f := &s.cache, s.flow
	c.Reload()
	if err := f.Usable(); err != nil {
		return nil, err
	}
	if f.Fresh(c.Rec) {
		return f.Token(c.Rec), nil
	}
	if err := f.NoClient(); err != nil {
		return nil, err
	}
	if err := f.Refresh(ctx); err != nil {
		return nil, err
	}
	return f.Token(c.Rec), nil
}

// Locked runs fn with s's lock held, after rereading the file if it changed. (A function, not a
// method, so that it is not promoted to the providers' sources.)
func Locked[R any](s *Source[R], fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache.Reload()
	fn()
}
