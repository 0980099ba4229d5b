package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/zitadel/oidc/v3/pkg/op"
)

// An authorization code is stored as the hash in its request's row; the exchange that makes a
// grant deletes the row in the same transaction, and the grant keeps the hash, so that a code
// presented again finds the grant it gave.

// AuthRequestByCode returns the request a code was issued for. A code that was exchanged
// already revokes the grant its exchange made (see codeReplayed).
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	a, err := s.authRequest(ctx, "code_hash", hashToken(code))
	if errors.Is(err, errNotFound) {
		return nil, s.codeReplayed(ctx, code)
	}
	return a, err
}

// SaveAuthCode remembers the code (its hash) issued for a request.
func (s *storage) SaveAuthCode(ctx context.Context, id, code string) error {
	if _, err := s.db.sql.ExecContext(ctx, "UPDATE auth_requests SET code_hash = ? WHERE id = ?", hashToken(code), id); err != nil {
		return fmt.Errorf("store code: %w", err)
	}
	return nil
}

// execer is a database or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// errCodeUsed is useCode's refusal: another exchange consumed the code first.
var errCodeUsed = errors.New("the authorization code is unknown, used or expired")

// useCode consumes the code of request id: one statement deletes the row only while it still
// holds that code, and exactly one of any number of concurrent exchanges (from any connection
// or process) sees a row deleted; the others get errCodeUsed.
func useCode(ctx context.Context, q execer, id, code string) error {
	r, err := q.ExecContext(ctx, "DELETE FROM auth_requests WHERE id = ? AND code_hash = ?", id, hashToken(code))
	if err != nil {
		return fmt.Errorf("use code: %w", err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		return fmt.Errorf("use code: %w", err)
	}
	if n != 1 {
		return errCodeUsed
	}
	return nil
}

// codeReplayed answers a code that is not waiting for an exchange. If an exchange used it, the
// grant that exchange made is revoked (OAuth 2.1 §4.1.3): two parties held the code, and one
// of them is not the client. Exchanges are serialised (each is one immediate transaction), so
// the loser of a race finds the winner's grant here.
func (s *storage) codeReplayed(ctx context.Context, code string) error {
	r, err := s.db.sql.ExecContext(ctx, "UPDATE grants SET revoked = ?, revoked_why = 'authorization code replayed' WHERE code_hash = ? AND revoked = 0",
		s.db.now().Unix(), hashToken(code))
	if err != nil {
		return fmt.Errorf("revoke the grant of a replayed code: %w", err)
	}
	if n, _ := r.RowsAffected(); n > 0 {
		return errInvalidGrant("the authorization code was used before; the tokens it gave are revoked: sign in again")
	}
	return errInvalidGrant(errCodeUsed.Error())
}

// tokenTxError finishes a failed token transaction: a code another exchange used first is a
// replay (see codeReplayed); other errors pass.
func (s *storage) tokenTxError(ctx context.Context, tx *sql.Tx, req op.TokenRequest, err error) error {
	_ = tx.Rollback()
	if a, ok := req.(*authRequest); ok && errors.Is(err, errCodeUsed) {
		return s.codeReplayed(ctx, a.code)
	}
	return err
}
