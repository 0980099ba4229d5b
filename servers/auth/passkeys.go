package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// enrolCodeLifetime is how long a code printed by `auth enroll` works.
const enrolCodeLifetime = 15 * time.Minute

// ownerUser is the one WebAuthn user: a random handle and the passkeys enrolled.
type ownerUser struct {
	handle []byte
	creds  []webauthn.Credential
}

func (u *ownerUser) WebAuthnID() []byte                         { return u.handle }
func (u *ownerUser) WebAuthnName() string                       { return "owner" }
func (u *ownerUser) WebAuthnDisplayName() string                { return "Owner" }
func (u *ownerUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// passkeys stores the owner's passkeys and enrolment codes.
type passkeys struct{ db *db }

// owner returns the owner with every passkey, creating the handle on first use.
func (p *passkeys) owner(ctx context.Context) (*ownerUser, error) {
	var handle []byte
	err := p.db.sql.QueryRowContext(ctx, "SELECT handle FROM owner WHERE id = 1").Scan(&handle)
	if errors.Is(err, sql.ErrNoRows) {
		handle = make([]byte, 32)
		_, _ = rand.Read(handle)
		if _, err := p.db.sql.ExecContext(ctx, "INSERT OR IGNORE INTO owner (id, handle) VALUES (1, ?)", handle); err != nil {
			return nil, fmt.Errorf("store owner: %w", err)
		}
		return p.owner(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("read owner: %w", err)
	}
	u := &ownerUser{handle: handle}
	rows, err := p.db.sql.QueryContext(ctx, "SELECT credential FROM passkeys ORDER BY created")
	if err != nil {
		return nil, fmt.Errorf("read passkeys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("read passkeys: %w", err)
		}
		var c webauthn.Credential
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return nil, fmt.Errorf("decode passkey: %w", err)
		}
		u.creds = append(u.creds, c)
	}
	return u, rows.Err()
}

// add stores a new passkey.
func (p *passkeys) add(ctx context.Context, c *webauthn.Credential) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode passkey: %w", err)
	}
	if _, err := p.db.sql.ExecContext(ctx, "INSERT INTO passkeys (id, credential, created) VALUES (?, ?, ?)", c.ID, string(b), p.db.now().Unix()); err != nil {
		return fmt.Errorf("store passkey: %w", err)
	}
	return nil
}

// used records a sign-in: the new signature counter and the time.
func (p *passkeys) used(ctx context.Context, c *webauthn.Credential) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode passkey: %w", err)
	}
	if _, err := p.db.sql.ExecContext(ctx, "UPDATE passkeys SET credential = ?, last_used = ? WHERE id = ?", string(b), p.db.now().Unix(), c.ID); err != nil {
		return fmt.Errorf("update passkey: %w", err)
	}
	return nil
}

// newEnrolCode stores and returns a one-time code for enrolling a passkey.
func (p *passkeys) newEnrolCode(ctx context.Context) (string, error) {
	// Four groups of five from an alphabet without look-alikes: easy to type, ~98 bits.
	const alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	code := sb.String()
	if _, err := p.db.sql.ExecContext(ctx, "INSERT INTO enrol_codes (hash, expires) VALUES (?, ?)",
		hashToken(normalizeCode(code)), p.db.now().Add(enrolCodeLifetime).Unix()); err != nil {
		return "", fmt.Errorf("store enrolment code: %w", err)
	}
	return code, nil
}

// normalizeCode forgives case, spaces and dashes in a typed code.
func normalizeCode(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// codeValid reports whether code is an unused, unexpired enrolment code.
func (p *passkeys) codeValid(ctx context.Context, code string) bool {
	var n int
	err := p.db.sql.QueryRowContext(ctx, "SELECT count(*) FROM enrol_codes WHERE hash = ? AND used = 0 AND expires > ?",
		hashToken(normalizeCode(code)), p.db.now().Unix()).Scan(&n)
	return err == nil && n == 1
}

// useCode consumes an enrolment code; false when it was not valid (or another tab used it).
func (p *passkeys) useCode(ctx context.Context, code string) bool {
	r, err := p.db.sql.ExecContext(ctx, "UPDATE enrol_codes SET used = 1 WHERE hash = ? AND used = 0 AND expires > ?",
		hashToken(normalizeCode(code)), p.db.now().Unix())
	if err != nil {
		return false
	}
	n, _ := r.RowsAffected()
	return n == 1
}

// ceremony is a WebAuthn exchange in progress, held in memory for ceremonyLifetime.
type ceremony struct {
	csrf    string
	code    string // enrolment: the code the begin step checked
	session *webauthn.SessionData
	expires time.Time
}

const ceremonyLifetime = 5 * time.Minute

// ceremonies maps a browser's cookie (hashed) to its enrolment ceremony.
type ceremonies struct {
	mu sync.Mutex
	m  map[string]*ceremony
}

func (c *ceremonies) put(key string, v *ceremony) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for k, e := range c.m {
		if now.After(e.expires) {
			delete(c.m, k)
		}
	}
	if len(c.m) > 1000 { // bounded: a flood of page loads cannot grow it without end
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[key] = v
}

func (c *ceremonies) get(key string) (*ceremony, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok || time.Now().After(v.expires) {
		return nil, false
	}
	return v, true
}

func (c *ceremonies) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// newWebAuthn configures the relying party for the issuer's origin.
func newWebAuthn(rpID, origin string) (*webauthn.WebAuthn, error) {
	w, err := webauthn.New(&webauthn.Config{
		RPID:          rpID,
		RPDisplayName: "mcp-servers",
		RPOrigins:     []string{origin},
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
			UserVerification: protocol.VerificationRequired,
		},
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyLifetime},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: ceremonyLifetime},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("webauthn: %w", err)
	}
	return w, nil
}
