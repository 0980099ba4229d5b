package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// dbFile is the one file under the state directory that holds all of the server's state.
const dbFile = "auth.db"

// schema creates every table; each statement is idempotent.
const schema = `
CREATE TABLE IF NOT EXISTS keys (
	id TEXT PRIMARY KEY,
	private BLOB NOT NULL,     -- PKCS#8 DER of the ES256 key
	created INTEGER NOT NULL,
	active_from INTEGER NOT NULL -- unix time it starts signing; a newer active key ends it
);
CREATE TABLE IF NOT EXISTS clients (
	id TEXT PRIMARY KEY,
	kind TEXT NOT NULL,        -- dcr or cimd
	name TEXT NOT NULL,
	redirect_uris TEXT NOT NULL, -- JSON list
	grant_types TEXT NOT NULL,   -- JSON list
	secret_hash TEXT NOT NULL DEFAULT '',
	created INTEGER NOT NULL,
	fetched INTEGER NOT NULL DEFAULT 0,
	revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS auth_requests (
	id TEXT PRIMARY KEY,
	data TEXT NOT NULL,        -- JSON of authRequest
	code_hash TEXT UNIQUE,
	created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
	id TEXT PRIMARY KEY,
	client_id TEXT NOT NULL,
	subject TEXT NOT NULL,
	resource TEXT NOT NULL,
	scopes TEXT NOT NULL,      -- space-separated
	auth_time INTEGER NOT NULL,
	created INTEGER NOT NULL,
	revoked INTEGER NOT NULL DEFAULT 0,
	revoked_why TEXT NOT NULL DEFAULT ''
	-- code_hash and passkey: see migrations
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
	hash TEXT PRIMARY KEY,
	grant_id TEXT NOT NULL,
	created INTEGER NOT NULL,
	expires INTEGER NOT NULL,
	used INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS access_tokens (
	id TEXT PRIMARY KEY,
	grant_id TEXT NOT NULL,
	expires INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS owner (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	handle BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS passkeys (
	id BLOB PRIMARY KEY,
	credential TEXT NOT NULL,  -- JSON of webauthn.Credential
	created INTEGER NOT NULL,
	last_used INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (
	key TEXT PRIMARY KEY,      -- "issuer": the URL the server last started with, for host commands
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS enrol_codes (
	hash TEXT PRIMARY KEY,
	expires INTEGER NOT NULL,
	used INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
	hash TEXT PRIMARY KEY,     -- SHA-256 of the owner's browser cookie
	passkey TEXT NOT NULL,     -- base64url id of the passkey that signed in
	created INTEGER NOT NULL,
	expires INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS console_samples (
	server TEXT NOT NULL,      -- a server the console manages
	at INTEGER NOT NULL,       -- unix milliseconds
	boot TEXT NOT NULL,        -- the server's boot id then (a new one: it restarted)
	totals TEXT NOT NULL       -- its metrics.Totals, JSON
);
CREATE INDEX IF NOT EXISTS console_samples_server_at ON console_samples (server, at);
CREATE TABLE IF NOT EXISTS console_audit (
	at INTEGER NOT NULL,       -- unix milliseconds
	passkey TEXT NOT NULL,     -- base64url id of the passkey of the console session
	action TEXT NOT NULL,      -- switches, revoke, sign-in
	detail TEXT NOT NULL
);
`

// migrations add the columns later versions need to a state file an earlier one made; each
// is applied once (SQLite has no ADD COLUMN IF NOT EXISTS).
var migrations = []struct{ table, column, decl, fill string }{
	// the code a grant was exchanged for: a replay of the code revokes it
	{"grants", "code_hash", "TEXT NOT NULL DEFAULT ''", ""},
	// base64url id of the passkey that signed in for it: removing the passkey revokes it
	{"grants", "passkey", "TEXT NOT NULL DEFAULT ''", ""},
	// when a client first got tokens (0: never): clients never used are evicted first
	{"clients", "used", "INTEGER NOT NULL DEFAULT 0", "UPDATE clients SET used = created WHERE id IN (SELECT client_id FROM grants)"},
}

// indexes are created after the migrations, on columns they may have added.
const indexes = `
CREATE INDEX IF NOT EXISTS grants_code_hash ON grants (code_hash);
CREATE INDEX IF NOT EXISTS grants_passkey ON grants (passkey);
CREATE INDEX IF NOT EXISTS sessions_passkey ON sessions (passkey);
CREATE INDEX IF NOT EXISTS clients_unused ON clients (used, created);
`

// migrate adds missing columns and the indexes.
func migrate(s *sql.DB) error {
	has := func(table, column string) (bool, error) {
		var n int
		if err := s.QueryRow("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, column).Scan(&n); err != nil {
			return false, fmt.Errorf("read the columns of %s: %w", table, err)
		}
		return n > 0, nil
	}
	for _, m := range migrations {
		if ok, err := has(m.table, m.column); err != nil || ok {
			if err != nil {
				return err
			}
			continue
		}
		if _, err := s.Exec("ALTER TABLE " + m.table + " ADD COLUMN " + m.column + " " + m.decl); err != nil {
			// A host command and the server starting together: the other one added it.
			if ok, _ := has(m.table, m.column); ok {
				continue
			}
			return fmt.Errorf("add %s.%s: %w", m.table, m.column, err)
		}
		if m.fill == "" {
			continue
		}
		if _, err := s.Exec(m.fill); err != nil {
			return fmt.Errorf("fill %s.%s: %w", m.table, m.column, err)
		}
	}
	if _, err := s.Exec(indexes); err != nil {
		return fmt.Errorf("create indexes: %w", err)
	}
	return nil
}

// db is the server's SQLite state.
type db struct {
	sql *sql.DB
	now func() time.Time
}

// openDB opens (creating if needed) the state file in dir, which is created 0700.
func openDB(dir string, now func() time.Time) (*db, error) {
	if dir == "" {
		return nil, errors.New("no state directory: give --state-dir")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(dir, dbFile)
	// Create it 0600 before SQLite does, so no other user can read keys or tokens.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open state file: %w", err)
	}
	f.Close()
	dsn := "file:" + path + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	s, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s.SetMaxOpenConns(1) // one writer; keeps SQLite's locking trivial within the process
	if _, err := s.Exec(schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("create tables in %s: %w", path, err)
	}
	if err := migrate(s); err != nil {
		s.Close()
		return nil, fmt.Errorf("update the tables in %s: %w", path, err)
	}
	if now == nil {
		now = time.Now
	}
	return &db{sql: s, now: now}, nil
}

// setMeta records a value the host commands read (the issuer).
func (d *db) setMeta(ctx context.Context, key, value string) error {
	if _, err := d.sql.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
}

// meta returns a recorded value, "" when none is.
func (d *db) meta(ctx context.Context, key string) (string, error) {
	var v string
	err := d.sql.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return v, nil
}

// Close closes the database.
func (d *db) Close() error { return d.sql.Close() }

// randomToken returns n random bytes, base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand never fails on Linux
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is how secrets (codes, refresh tokens, client secrets) are stored: SHA-256, hex.
func hashToken(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// errNotFound marks a row that does not exist.
var errNotFound = errors.New("not found")

// unusedClientLifetime is how long a registered client that never got tokens is kept: an app
// registers right before it sends the owner to sign in, so a day is ample, and what anyone can
// register without signing in does not pile up for a month.
const unusedClientLifetime = 24 * time.Hour

// gc deletes what has expired: auth requests older than an hour, expired refresh tokens,
// access token records and sessions, used or expired enrolment codes, grants revoked a week
// ago, clients that registered (or were fetched) a day ago and never got tokens, and console
// actions older than 90 days.
func (d *db) gc(ctx context.Context) error {
	now := d.now().Unix()
	stmts := []struct {
		q    string
		args []any
	}{
		{"DELETE FROM auth_requests WHERE created < ?", []any{now - 3600}},
		{"DELETE FROM refresh_tokens WHERE expires < ?", []any{now}},
		{"DELETE FROM access_tokens WHERE expires < ?", []any{now}},
		{"DELETE FROM sessions WHERE expires < ?", []any{now}},
		{"DELETE FROM enrol_codes WHERE expires < ? OR used = 1", []any{now}},
		{"DELETE FROM refresh_tokens WHERE grant_id IN (SELECT id FROM grants WHERE revoked > 0 AND revoked < ?)", []any{now - 7*86400}},
		{"DELETE FROM grants WHERE revoked > 0 AND revoked < ?", []any{now - 7*86400}},
		{"DELETE FROM console_audit WHERE at < ?", []any{(now - 90*86400) * 1000}},
		{"DELETE FROM console_samples WHERE at < ?", []any{(now - int64(sampleKeep.Seconds())) * 1000}},
		{"DELETE FROM clients WHERE used = 0 AND created < ? AND id NOT IN (SELECT client_id FROM grants)", []any{now - int64(unusedClientLifetime.Seconds())}},
	}
	for _, s := range stmts {
		if _, err := d.sql.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("clean up: %w", err)
		}
	}
	return nil
}

// jsonList encodes a string list for a TEXT column.
func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}
