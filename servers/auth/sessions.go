package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// sessionLifetime is how long a browser the owner signed in with a passkey is known as the
// owner's. Knowing it only spares the owner's sign-ins the shared rate budget (and will let
// the owner's console recognise the browser); every authorization still asks for the passkey.
const sessionLifetime = 30 * 24 * time.Hour

// sessionCookie is the cookie that names a session (with the __Host- prefix over https).
const sessionCookie = "mcp-session"

// sessions are the browsers the owner signed in with, each tied to the passkey it used:
// removing the passkey ends them.
type sessions struct{ db *db }

// create starts a session for a sign-in with the passkey (base64url id) and returns the
// cookie value that names it; only its hash is stored.
func (s *sessions) create(ctx context.Context, passkey string) (string, error) {
	v := randomToken(32)
	now := s.db.now()
	if _, err := s.db.sql.ExecContext(ctx, "INSERT INTO sessions (hash, passkey, created, expires) VALUES (?, ?, ?, ?)",
		hashToken(v), passkey, now.Unix(), now.Add(sessionLifetime).Unix()); err != nil {
		return "", fmt.Errorf("store session: %w", err)
	}
	return v, nil
}

// passkey returns the passkey of the live session the cookie value names; errNotFound when
// there is none (no cookie, an unknown or expired one; removing a passkey deletes its sessions).
func (s *sessions) passkey(ctx context.Context, cookie string) (string, error) {
	if cookie == "" {
		return "", errNotFound
	}
	var p string
	err := s.db.sql.QueryRowContext(ctx, "SELECT passkey FROM sessions WHERE hash = ? AND expires > ?", hashToken(cookie), s.db.now().Unix()).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", errNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read session: %w", err)
	}
	return p, nil
}

// started returns the passkey of the live session the cookie value names and when it was
// signed in; errNotFound when there is none.
func (s *sessions) started(ctx context.Context, cookie string) (string, time.Time, error) {
	if cookie == "" {
		return "", time.Time{}, errNotFound
	}
	var p string
	var created int64
	err := s.db.sql.QueryRowContext(ctx, "SELECT passkey, created FROM sessions WHERE hash = ? AND expires > ?", hashToken(cookie), s.db.now().Unix()).Scan(&p, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, errNotFound
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("read session: %w", err)
	}
	return p, time.Unix(created, 0), nil
}

// end deletes the session the cookie value names, if any.
func (s *sessions) end(ctx context.Context, cookie string) error {
	if cookie == "" {
		return nil
	}
	if _, err := s.db.sql.ExecContext(ctx, "DELETE FROM sessions WHERE hash = ?", hashToken(cookie)); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// ownerRequest reports whether r comes from the owner's side: a browser with a live session
// (one the owner signed in with a passkey), or, at the token endpoint, a client presenting an
// authorization code that waits for its exchange or an unused refresh token. Nobody else holds
// one, so these requests draw on the owner's reserved rate budget (see limiter). Each check is
// one indexed lookup, as the endpoint itself would make.
func (u *ui) ownerRequest(r *http.Request) bool {
	ctx := r.Context()
	if _, err := u.sessions.passkey(ctx, u.cookie(r, sessionCookie)); err == nil {
		return true
	}
	if r.URL.Path != "/token" || r.Method != http.MethodPost || r.ParseForm() != nil {
		return false
	}
	var n int
	var err error
	switch f := r.PostForm; f.Get("grant_type") {
	case "authorization_code":
		err = u.store.db.sql.QueryRowContext(ctx, "SELECT count(*) FROM auth_requests WHERE code_hash = ?", hashToken(f.Get("code"))).Scan(&n)
	case "refresh_token":
		err = u.store.db.sql.QueryRowContext(ctx, "SELECT count(*) FROM refresh_tokens WHERE hash = ? AND used = 0 AND expires > ?",
			hashToken(f.Get("refresh_token")), u.store.db.now().Unix()).Scan(&n)
	}
	return err == nil && n > 0
}
