package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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

// passkeys stores the owner's passkeys and enrolment codes. Its methods are the whole API the
// owner's tools use: list and remove for `auth passkeys` (and the console), owner, add and
// used for the sign-in and enrolment pages.
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

// passkeyID is how a passkey is named outside WebAuthn's bytes: its credential id in base64url,
// as the browser's PublicKeyCredential.id shows it.
func passkeyID(raw []byte) string { return base64.RawURLEncoding.EncodeToString(raw) }

// Passkey is an enrolled passkey as the owner's tools show it (auth passkeys list, and the
// owner's console).
type Passkey struct {
	ID        string    // passkeyID: what remove takes
	Created   time.Time // enrolled
	LastUsed  time.Time // last sign-in; zero when never used
	Synced    bool      // backup eligible: a synced passkey (iCloud Keychain, Google Password Manager, …)
	Transport []string  // how the browser reached it: internal, hybrid (a phone), usb, nfc, ble
	Cloned    bool      // its signature counter went backwards once: every sign-in with it is refused
	Sessions  int       // browsers signed in with it
	Grants    int       // unrevoked grants made through a sign-in with it
}

// list returns every passkey, the oldest first.
func (p *passkeys) list(ctx context.Context) ([]Passkey, error) {
	rows, err := p.db.sql.QueryContext(ctx, "SELECT credential, created, last_used FROM passkeys ORDER BY created, rowid")
	if err != nil {
		return nil, fmt.Errorf("read passkeys: %w", err)
	}
	defer rows.Close()
	var out []Passkey
	for rows.Next() {
		var (
			raw           string
			created, used int64
			c             webauthn.Credential
		)
		if err := rows.Scan(&raw, &created, &used); err != nil {
			return nil, fmt.Errorf("read passkeys: %w", err)
		}
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return nil, fmt.Errorf("decode passkey: %w", err)
		}
		k := Passkey{ID: passkeyID(c.ID), Created: time.Unix(created, 0), Synced: c.Flags.BackupEligible, Cloned: c.Authenticator.CloneWarning}
		if used > 0 {
			k.LastUsed = time.Unix(used, 0)
		}
		for _, t := range c.Transport {
			k.Transport = append(k.Transport, string(t))
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read passkeys: %w", err)
	}
	rows.Close()
	now := p.db.now().Unix()
	for i := range out {
		k := &out[i]
		if err := p.db.sql.QueryRowContext(ctx, "SELECT count(*) FROM sessions WHERE passkey = ? AND expires > ?", k.ID, now).Scan(&k.Sessions); err != nil {
			return nil, fmt.Errorf("count sessions: %w", err)
		}
		if err := p.db.sql.QueryRowContext(ctx, "SELECT count(*) FROM grants WHERE passkey = ? AND revoked = 0", k.ID).Scan(&k.Grants); err != nil {
			return nil, fmt.Errorf("count grants: %w", err)
		}
	}
	return out, nil
}

// Removed is what removing a passkey ended.
type Removed struct {
	Sessions int // browsers signed in with it
	SignIns  int // authorizations signed in with it and not yet exchanged for tokens
	Grants   int // grants made through a sign-in with it, now revoked
	Left     int // passkeys still enrolled
}

// errUnknownPasskey is remove's answer to an id no passkey has.
var errUnknownPasskey = errors.New("no such passkey")

// remove retires a passkey, in one transaction: it can no longer sign in, the browsers signed in
// with it are signed out, authorizations it signed in for and not yet exchanged are dropped,
// and the grants its sign-ins made are revoked (refresh tokens stop at once; access tokens
// lapse within their ten minutes) — whoever holds the device gets nothing more from it.
func (p *passkeys) remove(ctx context.Context, id string) (*Removed, error) {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("%w: %q is not a passkey id (base64url, as auth passkeys list prints it)", errUnknownPasskey, id)
	}
	tx, err := p.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("remove passkey: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	r, err := tx.ExecContext(ctx, "DELETE FROM passkeys WHERE id = ?", raw)
	if err != nil {
		return nil, fmt.Errorf("remove passkey: %w", err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return nil, fmt.Errorf("%w: %s", errUnknownPasskey, id)
	}
	var out Removed
	steps := []struct {
		n    *int
		q    string
		args []any
	}{
		{&out.Sessions, "DELETE FROM sessions WHERE passkey = ?", []any{id}},
		{&out.SignIns, "DELETE FROM auth_requests WHERE json_extract(data, '$.passkey') = ?", []any{id}},
		{&out.Grants, "UPDATE grants SET revoked = ?, revoked_why = 'passkey removed' WHERE passkey = ? AND revoked = 0", []any{p.db.now().Unix(), id}},
	}
	for _, s := range steps {
		r, err := tx.ExecContext(ctx, s.q, s.args...)
		if err != nil {
			return nil, fmt.Errorf("remove passkey: %w", err)
		}
		n, _ := r.RowsAffected()
		*s.n = int(n)
	}
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM passkeys").Scan(&out.Left); err != nil {
		return nil, fmt.Errorf("remove passkey: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("remove passkey: %w", err)
	}
	return &out, nil
}
