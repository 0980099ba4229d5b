package main

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/jck411/mcp-servers/shared/netguard"
)

// Client kinds: registered through RFC 7591, or described by a Client ID Metadata Document.
const (
	kindDCR  = "dcr"
	kindCIMD = "cimd"
)

// Limits on what a client may register or publish.
const (
	maxRedirectURIs  = 10
	maxClientName    = 200
	maxMetadataBytes = 64 << 10
	cimdTimeout      = 5 * time.Second
	cimdCacheFor     = time.Hour
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

// checkRedirectURI accepts an https URL, or http on a loopback host (127.0.0.1, [::1],
// localhost) as native apps use, without fragment or user info.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("redirect URI %q is not a URL: %w", raw, err)
	}
	switch {
	case strings.Contains(raw, "#") || u.User != nil:
		return fmt.Errorf("redirect URI %q: give it without fragment or user info", raw)
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("redirect URI %q refused: use https, or http on 127.0.0.1, [::1] or localhost", raw)
}

// redirectRegistered reports whether uri may receive a code for a client that registered
// the given URIs: the same string, or, for a loopback one, the same scheme, host, path and
// query on any port (RFC 8252 §7.3). No user info and no fragment, ever.
func redirectRegistered(registered []string, uri string) bool {
	if strings.Contains(uri, "#") {
		return false
	}
	u, err := url.Parse(uri)
	if err != nil || u.User != nil {
		return false
	}
	if slices.Contains(registered, uri) {
		return true
	}
	if u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
		return false
	}
	for _, r := range registered {
		ru, err := url.Parse(r)
		if err != nil || ru.Scheme != u.Scheme || !isLoopbackHost(ru.Hostname()) {
			continue
		}
		if strings.EqualFold(ru.Hostname(), u.Hostname()) && ru.Path == u.Path && ru.RawQuery == u.RawQuery && ru.ForceQuery == u.ForceQuery {
			return true
		}
	}
	return false
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
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
	for _, r := range m.RedirectURIs {
		if err := checkRedirectURI(r); err != nil {
			return nil, err
		}
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

// parseCIMD reads a Client ID Metadata Document fetched from id: its client_id must equal id.
func parseCIMD(id string, body []byte) (*clientMetadata, error) {
	var doc struct {
		oauthex.ClientRegistrationMetadata
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the client metadata document is not JSON: %w", err)
	}
	if doc.ClientID != id {
		return nil, fmt.Errorf("the document's client_id %q is not its own URL %q", doc.ClientID, id)
	}
	return checkMetadata(&doc.ClientRegistrationMetadata, true)
}

// isCIMDClientID reports whether id is a client identifier URL: https with a path.
func isCIMDClientID(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/" && u.Fragment == "" && u.User == nil
}

// newCIMDClient returns the HTTP client that fetches metadata documents: 5 s overall, no
// redirects, no proxy from the environment, and only global unicast addresses. The browser's
// network guard decides which (shared/netguard: private, loopback, link-local, CGNAT,
// benchmarking, reserved, multicast, site-local, Teredo, IPv4-compatible IPv6, and IPv4-mapped,
// NAT64 and 6to4 forms of any of those): it checks every address the dialer is about to connect
// to, after DNS, so a rebinding name cannot reach the host, and a refused address fails at once
// rather than after a connect timeout.
func newCIMDClient() *http.Client {
	tr := &http.Transport{
		DialContext:           (&netguard.Policy{}).DialContext, // the zero policy: global unicast only
		TLSHandshakeTimeout:   cimdTimeout,
		ResponseHeaderTimeout: cimdTimeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   cimdTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the client metadata document must be served without redirects")
		},
	}
}

// clientStore loads and registers clients.
type clientStore struct {
	db       *db
	fetch    *http.Client // for metadata documents
	cimd     bool
	loginURL func(id string) string
}

// get returns the client id names: a stored one, or for an https client_id (when metadata
// documents are on) the document fetched now or within the last hour.
func (cs *clientStore) get(ctx context.Context, id string) (*client, error) {
	c, err := cs.load(ctx, id)
	if err == nil && c.Kind == kindCIMD && cs.db.now().Sub(c.Fetched) > cimdCacheFor {
		err = errNotFound // stale: fetch again
	}
	switch {
	case err == nil:
		return c, nil
	case !errors.Is(err, errNotFound):
		return nil, err
	case !isCIMDClientID(id):
		return nil, fmt.Errorf("unknown client %q: register it first", id)
	case !cs.cimd:
		return nil, fmt.Errorf("client %q: client ID metadata documents are turned off here (--registration)", id)
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
		return nil, fmt.Errorf("client %q was revoked by the owner", id)
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

// fetchCIMD fetches, checks and stores the metadata document at id.
func (cs *clientStore) fetchCIMD(ctx context.Context, id string) (*client, error) {
	ctx, cancel := context.WithTimeout(ctx, cimdTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, fmt.Errorf("client metadata document %s: %w", id, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cs.fetch.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch client metadata document %s: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch client metadata document %s: HTTP %d", id, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read client metadata document %s: %w", id, err)
	}
	if len(body) > maxMetadataBytes {
		return nil, fmt.Errorf("client metadata document %s is larger than %d bytes", id, maxMetadataBytes)
	}
	m, err := parseCIMD(id, body)
	if err != nil {
		return nil, err
	}
	if m.Name == "" {
		m.Name = id
	}
	now := cs.db.now().Unix()
	_, err = cs.db.sql.ExecContext(ctx, `INSERT INTO clients (id, kind, name, redirect_uris, grant_types, created, fetched) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, redirect_uris = excluded.redirect_uris, grant_types = excluded.grant_types, fetched = excluded.fetched WHERE revoked = 0`,
		id, kindCIMD, m.Name, jsonList(m.RedirectURIs), jsonList(m.GrantTypes), now, now)
	if err != nil {
		return nil, fmt.Errorf("store client %s: %w", id, err)
	}
	return cs.load(ctx, id)
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
func (cs *clientStore) registrationHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			registrationError(w, http.StatusMethodNotAllowed, "invalid_request", "register with POST and a JSON body")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMetadataBytes))
		if err != nil {
			registrationError(w, http.StatusRequestEntityTooLarge, "invalid_client_metadata", fmt.Sprintf("the body is larger than %d bytes", maxMetadataBytes))
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
