package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Lifetimes of what the server hands out.
const (
	authRequestLifetime  = 10 * time.Minute
	refreshTokenLifetime = 30 * 24 * time.Hour // renewed at every rotation
)

// owner is the one person who signs in.
const ownerSubject = "owner"

// authRequest is an authorization request on its way through sign-in and consent.
type authRequest struct {
	ID           string            `json:"id"`
	ClientID     string            `json:"client_id"`
	RedirectURI  string            `json:"redirect_uri"`
	State        string            `json:"state"`
	Nonce        string            `json:"nonce"`
	ResponseType oidc.ResponseType `json:"response_type"`
	ResponseMode oidc.ResponseMode `json:"response_mode"`
	Resource     string            `json:"resource"`
	Scopes       []string          `json:"scopes"` // the server's scopes asked, narrowed at consent
	Challenge    string            `json:"challenge"`
	Method       string            `json:"method"`
	Created      time.Time         `json:"created"`
	Subject      string            `json:"subject"`   // set when the owner signed in
	AuthTime     time.Time         `json:"auth_time"` // when
	Consented    bool              `json:"consented"`
	Binding      string            `json:"binding"` // hash of the browser cookie that signed in
	CSRF         string            `json:"csrf"`
	Passkey      string            `json:"passkey"` // base64url id of the passkey that signed in

	code string // the code being exchanged (set by the token endpoint, never stored)
}

var _ op.AuthRequest = (*authRequest)(nil)

func (a *authRequest) GetID() string          { return a.ID }
func (a *authRequest) GetACR() string         { return "" }
func (a *authRequest) GetAMR() []string       { return []string{"hwk", "user"} }
func (a *authRequest) GetAudience() []string  { return []string{a.Resource} }
func (a *authRequest) GetAuthTime() time.Time { return a.AuthTime }
func (a *authRequest) GetClientID() string    { return a.ClientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge {
	return &oidc.CodeChallenge{Challenge: a.Challenge, Method: oidc.CodeChallengeMethod(a.Method)}
}
func (a *authRequest) GetNonce() string                   { return a.Nonce }
func (a *authRequest) GetRedirectURI() string             { return a.RedirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType { return a.ResponseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode { return a.ResponseMode }
func (a *authRequest) GetScopes() []string                { return a.Scopes }
func (a *authRequest) GetState() string                   { return a.State }
func (a *authRequest) GetSubject() string                 { return a.Subject }
func (a *authRequest) Done() bool                         { return a.Subject != "" && a.Consented }

// grantRequest is a refresh token's grant as the token endpoint sees it.
type grantRequest struct {
	GrantID  string
	ClientID string
	Subject  string
	Resource string
	Scopes   []string
	AuthTime time.Time
	hash     string // of the refresh token presented
}

var _ op.RefreshTokenRequest = (*grantRequest)(nil)

func (g *grantRequest) GetAMR() []string            { return []string{"hwk", "user"} }
func (g *grantRequest) GetAudience() []string       { return []string{g.Resource} }
func (g *grantRequest) GetAuthTime() time.Time      { return g.AuthTime }
func (g *grantRequest) GetClientID() string         { return g.ClientID }
func (g *grantRequest) GetScopes() []string         { return g.Scopes }
func (g *grantRequest) GetSubject() string          { return g.Subject }
func (g *grantRequest) SetCurrentScopes(s []string) { g.Scopes = s }

// storage is the op.Storage over the database.
type storage struct {
	db      *db
	keys    *keyring
	clients *clientStore
	fleet   *fleet
}

var _ op.Storage = (*storage)(nil)

// pkceChallenge is an S256 code_challenge as RFC 7636 §4.1-4.2 bounds it: 43 to 128
// characters of the base64url alphabet.
var pkceChallenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43,128}$`)

// errInvalidGrant is what any bad code or refresh token answers.
func errInvalidGrant(desc string) error { return oidc.ErrInvalidGrant().WithDescription("%s", desc) }

type resourceKey struct{}

// withResources passes the RFC 8707 resource parameters of an authorization request to
// CreateAuthRequest, which the library's request type does not carry.
func withResources(ctx context.Context, res []string) context.Context {
	return context.WithValue(ctx, resourceKey{}, res)
}

// CreateAuthRequest checks PKCE (S256 only) and the resource and scopes, and stores the request.
func (s *storage) CreateAuthRequest(ctx context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if req.CodeChallenge == "" {
		return nil, oidc.ErrInvalidRequest().WithDescription("PKCE is required: send code_challenge and code_challenge_method=S256")
	}
	if req.CodeChallengeMethod != oidc.CodeChallengeMethodS256 {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge_method must be S256; plain and missing are refused")
	}
	if !pkceChallenge.MatchString(req.CodeChallenge) {
		return nil, oidc.ErrInvalidRequest().WithDescription("code_challenge must be 43 to 128 base64url characters (RFC 7636 §4.2: BASE64URL(SHA256(code_verifier)) is 43)")
	}
	if req.ResponseType != oidc.ResponseTypeCode {
		return nil, &oidc.Error{ErrorType: "unsupported_response_type", Description: "only response_type=code is supported"}
	}
	res, _ := ctx.Value(resourceKey{}).([]string)
	resource, scopes, err := s.fleet.resolve(res, req.Scopes)
	if err != nil {
		return nil, errInvalidTarget(err.Error())
	}
	a := &authRequest{
		ID: randomToken(18), ClientID: req.ClientID, RedirectURI: req.RedirectURI, State: req.State, Nonce: req.Nonce,
		ResponseType: req.ResponseType, ResponseMode: req.ResponseMode, Resource: resource, Scopes: scopes,
		Challenge: req.CodeChallenge, Method: string(req.CodeChallengeMethod), Created: s.db.now(), CSRF: randomToken(18),
	}
	if err := s.saveAuthRequest(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

func (s *storage) saveAuthRequest(ctx context.Context, a *authRequest) error {
	b, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encode auth request: %w", err)
	}
	_, err = s.db.sql.ExecContext(ctx, "INSERT INTO auth_requests (id, data, created) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
		a.ID, string(b), a.Created.Unix())
	if err != nil {
		return fmt.Errorf("store auth request: %w", err)
	}
	return nil
}

func (s *storage) authRequest(ctx context.Context, where string, arg string) (*authRequest, error) {
	var data string
	err := s.db.sql.QueryRowContext(ctx, "SELECT data FROM auth_requests WHERE "+where+" = ?", arg).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read auth request: %w", err)
	}
	var a authRequest
	if err := json.Unmarshal([]byte(data), &a); err != nil {
		return nil, fmt.Errorf("decode auth request: %w", err)
	}
	if s.db.now().Sub(a.Created) > authRequestLifetime {
		return nil, errNotFound
	}
	return &a, nil
}

// AuthRequestByID returns a pending request.
func (s *storage) AuthRequestByID(ctx context.Context, id string) (op.AuthRequest, error) {
	a, err := s.authRequest(ctx, "id", id)
	if errors.Is(err, errNotFound) {
		return nil, oidc.ErrInvalidRequest().WithDescription("the authorization request has expired or is unknown: start again from the app")
	}
	return a, err
}

// DeleteAuthRequest removes a request (denied, or its code exchanged).
func (s *storage) DeleteAuthRequest(ctx context.Context, id string) error {
	if _, err := s.db.sql.ExecContext(ctx, "DELETE FROM auth_requests WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete auth request: %w", err)
	}
	return nil
}

// CreateAccessToken records an access token without a refresh token (a client without the
// refresh_token grant); the grant is created on the way.
func (s *storage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("issue token: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	grantID, err := s.grantFor(ctx, tx, req)
	if err != nil {
		return "", time.Time{}, s.tokenTxError(ctx, tx, req, err)
	}
	id, exp, err := s.recordAccessToken(ctx, tx, grantID)
	if err != nil {
		return "", time.Time{}, err
	}
	return id, exp, tx.Commit()
}

// CreateAccessAndRefreshTokens records an access token and a new refresh token. For a refresh
// grant the presented token is marked used in the same transaction; if it was used already
// (two refreshes racing, or a stolen token), the grant is revoked.
func (s *storage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("issue token: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if g, ok := req.(*grantRequest); ok {
		r, err := tx.ExecContext(ctx, "UPDATE refresh_tokens SET used = 1 WHERE hash = ? AND used = 0", g.hash)
		if err != nil {
			return "", "", time.Time{}, fmt.Errorf("rotate refresh token: %w", err)
		}
		if n, _ := r.RowsAffected(); n != 1 {
			_ = tx.Rollback()
			_ = s.revokeGrant(ctx, g.GrantID, "refresh token reused")
			return "", "", time.Time{}, errInvalidGrant("the refresh token was already used; the grant is revoked: sign in again")
		}
	}
	grantID, err := s.grantFor(ctx, tx, req)
	if err != nil {
		return "", "", time.Time{}, s.tokenTxError(ctx, tx, req, err)
	}
	id, exp, err := s.recordAccessToken(ctx, tx, grantID)
	if err != nil {
		return "", "", time.Time{}, err
	}
	rt := randomToken(32)
	now := s.db.now()
	if _, err := tx.ExecContext(ctx, "INSERT INTO refresh_tokens (hash, grant_id, created, expires) VALUES (?, ?, ?, ?)",
		hashToken(rt), grantID, now.Unix(), now.Add(refreshTokenLifetime).Unix()); err != nil {
		return "", "", time.Time{}, fmt.Errorf("store refresh token: %w", err)
	}
	return id, rt, exp, tx.Commit()
}

// grantFor returns the grant a token request belongs to. For an authorization code it consumes
// the code and creates the grant, in the caller's transaction, so the code and its grant are
// one step: no exchange can see the code used and its grant not yet made.
func (s *storage) grantFor(ctx context.Context, tx *sql.Tx, req op.TokenRequest) (string, error) {
	switch r := req.(type) {
	case *grantRequest:
		// Narrowed scopes at refresh narrow the grant too.
		if _, err := tx.ExecContext(ctx, "UPDATE grants SET scopes = ? WHERE id = ?", strings.Join(r.Scopes, " "), r.GrantID); err != nil {
			return "", fmt.Errorf("update grant: %w", err)
		}
		return r.GrantID, nil
	case *authRequest:
		if err := useCode(ctx, tx, r.ID, r.code); err != nil {
			return "", err
		}
		id := "g-" + randomToken(12)
		now := s.db.now().Unix()
		_, err := tx.ExecContext(ctx, "INSERT INTO grants (id, client_id, subject, resource, scopes, auth_time, created, code_hash, passkey) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			id, r.ClientID, r.Subject, r.Resource, strings.Join(r.Scopes, " "), r.AuthTime.Unix(), now, hashToken(r.code), r.Passkey)
		if err != nil {
			return "", fmt.Errorf("store grant: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE clients SET used = ? WHERE id = ? AND used = 0", now, r.ClientID); err != nil {
			return "", fmt.Errorf("mark the client used: %w", err)
		}
		return id, nil
	}
	return "", oidc.ErrUnsupportedGrantType()
}

func (s *storage) recordAccessToken(ctx context.Context, tx *sql.Tx, grantID string) (string, time.Time, error) {
	id := randomToken(16)
	exp := s.db.now().Add(accessTokenLifetime)
	if _, err := tx.ExecContext(ctx, "INSERT INTO access_tokens (id, grant_id, expires) VALUES (?, ?, ?)", id, grantID, exp.Unix()); err != nil {
		return "", time.Time{}, fmt.Errorf("store access token: %w", err)
	}
	return id, exp, nil
}

// TokenRequestByRefreshToken finds the grant of a refresh token. A token already used means
// it was copied: the whole grant is revoked (reuse detection).
func (s *storage) TokenRequestByRefreshToken(ctx context.Context, token string) (op.RefreshTokenRequest, error) {
	h := hashToken(token)
	var (
		g                      grantRequest
		scopes                 string
		used, expires, revoked int64
		authTime               int64
	)
	err := s.db.sql.QueryRowContext(ctx, `SELECT r.used, r.expires, g.id, g.client_id, g.subject, g.resource, g.scopes, g.auth_time, g.revoked
		FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id WHERE r.hash = ?`, h).
		Scan(&used, &expires, &g.GrantID, &g.ClientID, &g.Subject, &g.Resource, &scopes, &authTime, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errInvalidGrant("the refresh token is unknown or expired: sign in again")
	}
	if err != nil {
		return nil, fmt.Errorf("read refresh token: %w", err)
	}
	switch {
	case revoked > 0:
		return nil, errInvalidGrant("the grant was revoked: sign in again")
	case used > 0:
		if err := s.revokeGrant(ctx, g.GrantID, "refresh token reused"); err != nil {
			return nil, err
		}
		return nil, errInvalidGrant("the refresh token was already used; the grant is revoked: sign in again")
	case s.db.now().Unix() > expires:
		return nil, errInvalidGrant("the refresh token expired: sign in again")
	}
	g.Scopes = strings.Fields(scopes)
	g.AuthTime = time.Unix(authTime, 0)
	g.hash = h
	return &g, nil
}

// revokeGrant ends a grant: its refresh tokens stop working.
func (s *storage) revokeGrant(ctx context.Context, id, why string) error {
	if _, err := s.db.sql.ExecContext(ctx, "UPDATE grants SET revoked = ?, revoked_why = ? WHERE id = ? AND revoked = 0", s.db.now().Unix(), why, id); err != nil {
		return fmt.Errorf("revoke grant: %w", err)
	}
	return nil
}

// TerminateSession is for end_session, which this server does not offer.
func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

// GetRefreshTokenInfo names a refresh token for revocation: its id is "rt:" + its hash.
func (s *storage) GetRefreshTokenInfo(ctx context.Context, clientID, token string) (string, string, error) {
	var subject, owner string
	err := s.db.sql.QueryRowContext(ctx, "SELECT g.subject, g.client_id FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id WHERE r.hash = ?", hashToken(token)).Scan(&subject, &owner)
	if err != nil || owner != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return subject, "rt:" + hashToken(token), nil
}

// RevokeToken revokes (RFC 7009) the grant a refresh token or an access token belongs to:
// its refresh tokens stop working, and its access tokens lapse within their ten minutes.
// A token of another client, or an unknown one, is ignored, as RFC 7009 asks.
func (s *storage) RevokeToken(ctx context.Context, tokenOrID, _, clientID string) *oidc.Error {
	var q, arg string
	if h, ok := strings.CutPrefix(tokenOrID, "rt:"); ok {
		q, arg = "SELECT g.id, g.client_id FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id WHERE r.hash = ?", h
	} else {
		q, arg = "SELECT g.id, g.client_id FROM access_tokens a JOIN grants g ON g.id = a.grant_id WHERE a.id = ?", tokenOrID
	}
	var grantID, owner string
	err := s.db.sql.QueryRowContext(ctx, q, arg).Scan(&grantID, &owner)
	switch {
	case errors.Is(err, sql.ErrNoRows) || (err == nil && owner != clientID):
		return nil
	case err != nil:
		return oidc.ErrServerError().WithParent(err)
	}
	if err := s.revokeGrant(ctx, grantID, "revoked by the client"); err != nil {
		return oidc.ErrServerError().WithParent(err)
	}
	return nil
}

// SigningKey is the current ES256 key.
func (s *storage) SigningKey(ctx context.Context) (op.SigningKey, error) { return s.keys.current(ctx) }

// SignatureAlgorithms is ES256 only.
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.ES256}, nil
}

// KeySet is the published keys.
func (s *storage) KeySet(ctx context.Context) ([]op.Key, error) { return s.keys.published(ctx) }

// GetClientByClientID returns a registered client or one described by its metadata document.
func (s *storage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.clients.get(ctx, id)
	if err != nil {
		return nil, clientLookupError(err)
	}
	return c, nil
}

// clientLookupError is the OAuth error of a failed client lookup: invalid_client with what is
// wrong with it, or server_error when this host failed (its details are in the log).
func clientLookupError(err error) *oidc.Error {
	if errors.Is(err, errClientUnavailable) {
		return oidc.ErrServerError().WithDescription("%s", err.Error())
	}
	return oidc.ErrInvalidClient().WithDescription("%s", err.Error())
}

// AuthorizeClientIDSecret checks a confidential client's secret.
func (s *storage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	c, err := s.clients.get(ctx, id)
	if err != nil {
		return clientLookupError(err)
	}
	if !c.checkSecret(secret) {
		return oidc.ErrInvalidClient().WithDescription("wrong client secret")
	}
	return nil
}

// The userinfo and introspection parts of OpenID Connect carry nothing but the subject here.

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	info.Subject = subject
	return nil
}

func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered: access tokens are JWTs, verify them with the JWKS")
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("JWT client authentication is not offered")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("the JWT profile grant is not offered")
}

// Health checks the database answers.
func (s *storage) Health(ctx context.Context) error { return s.db.sql.PingContext(ctx) }
