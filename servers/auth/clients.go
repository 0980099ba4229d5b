package main

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Client kinds: registered through RFC 7591, or described by a Client ID Metadata Document.
const (
	kindDCR  = "dcr"
	kindCIMD = "cimd"
)

// Limits on what a client may register or publish. What a registration stores is bounded by
// these (ten URIs of at most 1 KiB, 4 KiB together, a name of 200 characters), and how many
// clients that never got tokens are kept by maxUnusedClients and unusedClientLifetime.
const (
	maxRedirectURIs      = 10
	maxRedirectURIBytes  = 1024
	maxRedirectURIsBytes = 4096
	maxClientName        = 200
	maxRegistrationBytes = 16 << 10 // an RFC 7591 request body
	maxMetadataBytes     = 64 << 10 // a fetched client metadata document (logos and all)
	maxUnusedClients     = 1000
	cimdTimeout          = 5 * time.Second
	cimdCacheFor         = time.Hour
)

// client is a registered client: always public or secret-based, authorization code only.
type client struct {
	ID          string
	Kind        string
	Name        string
	Redirects   []string
	GrantTypesL []string
	SecretHash  string
	Created     time.Time
	Fetched     time.Time
	loginURL    func(id string) string
}

var _ op.Client = (*client)(nil)

func (c *client) GetID() string                    { return c.ID }
func (c *client) RedirectURIs() []string           { return c.Redirects }
func (c *client) PostLogoutRedirectURIs() []string { return nil }

// ApplicationType is native for all: loopback redirect URIs may use any port (RFC 8252 §7.3)
// and https ones must match exactly.
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeNative }
func (c *client) AuthMethod() oidc.AuthMethod {
	if c.SecretHash != "" {
		return oidc.AuthMethodBasic
	}
	return oidc.AuthMethodNone
}
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType {
	out := []oidc.GrantType{oidc.GrantTypeCode}
	if slices.Contains(c.GrantTypesL, string(oidc.GrantTypeRefreshToken)) {
		out = append(out, oidc.GrantTypeRefreshToken)
	}
	return out
}
func (c *client) LoginURL(id string) string            { return c.loginURL(id) }
func (c *client) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *client) IDTokenLifetime() time.Duration       { return accessTokenLifetime }
func (c *client) DevMode() bool                        { return false }
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }
func (c *client) ClockSkew() time.Duration             { return 0 }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// clientMetadata is the part of RFC 7591 metadata (and of a Client ID Metadata Document)
// this server uses, checked.
type clientMetadata struct {
	Name         string
	RedirectURIs []string
	GrantTypes   []string
	AuthMethod   string // none, client_secret_basic or client_secret_post
}

// checkMetadata validates registration metadata: redirect URIs (https or loopback), only the
// code flow, a known auth method; cimd forbids secrets.
func checkMetadata(m *oauthex.ClientRegistrationMetadata, cimd bool) (*clientMetadata, error) {
	if len(m.RedirectURIs) == 0 {
		return nil, errors.New("redirect_uris is required")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return nil, fmt.Errorf("at most %d redirect_uris", maxRedirectURIs)
	}
	total := 0
	for _, r := range m.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return nil, err
		}
		total += len(r)
	}
	if total > maxRedirectURIsBytes {
		return nil, fmt.Errorf("the redirect_uris are longer than %d bytes together", maxRedirectURIsBytes)
	}
	out := &clientMetadata{Name: strings.TrimSpace(m.ClientName), RedirectURIs: m.RedirectURIs, AuthMethod: m.TokenEndpointAuthMethod}
	if len([]rune(out.Name)) > maxClientName {
		return nil, fmt.Errorf("client_name is longer than %d characters", maxClientName)
	}
	for _, r := range out.Name {
		if r < 0x20 || r == 0x7f {
			return nil, errors.New("client_name has control characters")
		}
	}
	switch out.AuthMethod {
	case "":
		out.AuthMethod = "none"
		if !cimd {
			out.AuthMethod = "client_secret_basic" // RFC 7591 §2 default
		}
	case "none":
	case "client_secret_basic", "client_secret_post":
		if cimd {
			return nil, errors.New("a Client ID Metadata Document client has no secret: token_endpoint_auth_method must be none")
		}
	default:
		return nil, fmt.Errorf("token_endpoint_auth_method %q is not supported: use none, client_secret_basic or client_secret_post", out.AuthMethod)
	}
	grants := m.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, fmt.Errorf("grant_type %q is not supported: use authorization_code and refresh_token", g)
		}
	}
	out.GrantTypes = grants
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return nil, fmt.Errorf("response_type %q is not supported: use code", rt)
		}
	}
	return out, nil
}

// parseRegistration reads an RFC 7591 registration request body.
func parseRegistration(body []byte) (*clientMetadata, error) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("the body is not client metadata JSON: %w", err)
	}
	return checkMetadata(&m, false)
}

// clientStore loads and registers clients.
type clientStore struct {
	db       *db
	fetch    *http.Client // for metadata documents
	cimd     bool
	loginURL func(id string) string
	log      *slog.Logger
	// maxUnused is how many clients that never got tokens are kept (maxUnusedClients; tests
	// lower it).
	maxUnused int
}

// clientError is a refusal the caller may read: it says what is wrong with the client id or
// its document, and nothing about this host (its resolver, addresses or database).
type clientError struct{ msg string }

func (e *clientError) Error() string { return e.msg }

func refuseClient(format string, args ...any) error {
	return &clientError{fmt.Sprintf(format, args...)}
}

// errClientUnavailable is what an unauthenticated caller hears of a failure inside this host;
// the details go to the log.
var errClientUnavailable = &clientError{"the client cannot be read right now: try again later"}

// internal logs err and returns the answer without its details.
func (cs *clientStore) internal(id string, err error) error {
	cs.log.Error("client lookup failed", "client", id, "error", err.Error())
	return errClientUnavailable
}

// get returns the client id names: a stored one, or for an https client_id (when metadata
// documents are on) the document fetched now or within the last hour. Its errors are
// *clientError, safe to show to anyone.
func (cs *clientStore) get(ctx context.Context, id string) (*client, error) {
	c, err := cs.load(ctx, id)
	if err == nil && c.Kind == kindCIMD && cs.db.now().Sub(c.Fetched) > cimdCacheFor {
		err = errNotFound // stale: fetch again
	}
	var refused *clientError
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &refused):
		return nil, err
	case !errors.Is(err, errNotFound):
		return nil, cs.internal(id, err)
	case !isCIMDClientID(id):
		return nil, refuseClient("unknown client %q: register it first", id)
	case !cs.cimd:
		return nil, refuseClient("client %q: client ID metadata documents are turned off here (--registration)", id)
	}
	return cs.fetchCIMD(ctx, id)
}

// load reads a stored, unrevoked client.
func (cs *clientStore) load(ctx context.Context, id string) (*client, error) {
	var (
		c                    client
		uris, grants         string
		created, fetched, rv int64
	)
	err := cs.db.sql.QueryRowContext(ctx, "SELECT id, kind, name, redirect_uris, grant_types, secret_hash, created, fetched, revoked FROM clients WHERE id = ?", id).
		Scan(&c.ID, &c.Kind, &c.Name, &uris, &grants, &c.SecretHash, &created, &fetched, &rv)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read client: %w", err)
	}
	if rv > 0 {
		return nil, refuseClient("client %q was revoked by the owner", id)
	}
	if err := json.Unmarshal([]byte(uris), &c.Redirects); err != nil {
		return nil, fmt.Errorf("client %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(grants), &c.GrantTypesL); err != nil {
		return nil, fmt.Errorf("client %s: %w", id, err)
	}
	c.Created, c.Fetched = time.Unix(created, 0), time.Unix(fetched, 0)
	c.loginURL = cs.loginURL
	return &c, nil
}

// evictUnused deletes the oldest clients that never got tokens while more than
// maxUnused are kept: registering (or naming metadata documents) in a loop replaces
// its own earlier clients, never one that was used.
func (cs *clientStore) evictUnused(ctx context.Context) error {
	_, err := cs.db.sql.ExecContext(ctx, `DELETE FROM clients WHERE id IN (
		SELECT id FROM clients WHERE used = 0 AND id NOT IN (SELECT client_id FROM grants)
		ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET ?)`, cs.maxUnused)
	if err != nil {
		return fmt.Errorf("evict unused clients: %w", err)
	}
	return nil
}

// registration is the RFC 7591 §3.2.1 response, written here rather than with the go-sdk's
// struct, which drops a zero client_secret_expires_at: that field is REQUIRED whenever a
// secret is issued, and 0 says the secret never expires.
type registration struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"` // set exactly when ClientSecret is
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
}

// register stores a client registered through RFC 7591 and returns the response body.
func (cs *clientStore) register(ctx context.Context, m *clientMetadata) (*registration, error) {
	id := "dcr-" + randomToken(16)
	var secret, secretHash string
	if m.AuthMethod != "none" {
		secret = randomToken(32)
		secretHash = hashToken(secret)
	}
	name := m.Name
	if name == "" {
		name = "unnamed client " + id
	}
	now := cs.db.now()
	_, err := cs.db.sql.ExecContext(ctx, "INSERT INTO clients (id, kind, name, redirect_uris, grant_types, secret_hash, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
		id, kindDCR, name, jsonList(m.RedirectURIs), jsonList(m.GrantTypes), secretHash, now.Unix())
	if err != nil {
		return nil, fmt.Errorf("store client: %w", err)
	}
	if err := cs.evictUnused(ctx); err != nil {
		return nil, err
	}
	r := &registration{
		ClientID:                id,
		ClientSecret:            secret,
		ClientIDIssuedAt:        now.Unix(),
		ClientName:              name,
		RedirectURIs:            m.RedirectURIs,
		TokenEndpointAuthMethod: m.AuthMethod,
		GrantTypes:              m.GrantTypes,
		ResponseTypes:           []string{"code"},
	}
	if secret != "" {
		never := int64(0)
		r.ClientSecretExpiresAt = &never
	}
	return r, nil
}

// checkSecret compares a client's secret in constant time.
func (c *client) checkSecret(secret string) bool {
	return c.SecretHash != "" && subtle.ConstantTimeCompare([]byte(hashToken(secret)), []byte(c.SecretHash)) == 1
}

// registrationHandler serves RFC 7591 registration: POST JSON metadata, 201 with the client.
// Only application/json is read: a browser sends that only after a CORS preflight, which this
// server answers for loopback pages alone (see corsLoopback), so a page elsewhere cannot make
// its visitors register clients.
func (cs *clientStore) registrationHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			registrationError(w, http.StatusMethodNotAllowed, "invalid_request", "register with POST and a JSON body")
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			registrationError(w, http.StatusUnsupportedMediaType, "invalid_request", "send the client metadata as Content-Type: application/json (RFC 7591 §3.1)")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
		if err != nil {
			registrationError(w, http.StatusRequestEntityTooLarge, "invalid_client_metadata", fmt.Sprintf("the body is larger than %d bytes", maxRegistrationBytes))
			return
		}
		m, err := parseRegistration(body)
		if err != nil {
			code := "invalid_client_metadata"
			if strings.Contains(err.Error(), "redirect") {
				code = "invalid_redirect_uri"
			}
			registrationError(w, http.StatusBadRequest, code, err.Error())
			return
		}
		resp, err := cs.register(r.Context(), m)
		if err != nil {
			cs.log.Error("registration failed", "error", err.Error())
			registrationError(w, http.StatusInternalServerError, "server_error", "the client could not be stored")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(resp)
	})
}

func registrationError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}
