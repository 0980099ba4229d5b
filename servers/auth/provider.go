package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/crypto"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/jck411/mcp-servers/shared/resource"
)

// oauthServer is zitadel's LegacyServer with the parts MCP needs changed: the RFC 8707
// resource parameter reaches the stored request and is checked at the token endpoint,
// access tokens are RFC 9068 JWTs (typ at+jwt) for one audience with a scope claim, refresh
// tokens come with every code a refresh-capable client exchanges, and the metadata names the
// registration methods.
type oauthServer struct {
	*op.LegacyServer
	store *storage
	fleet *fleet
	cimd  bool
	dcr   bool
}

// VerifyAuthRequest lets a client leave out scope (MCP clients may): the scopes then default
// to the named resource's read and write, which the owner can narrow at consent. Without a
// resource it is offline_access alone, so that CreateAuthRequest, not the library's "scope
// missing", says what is wrong (no server named, or an unknown one).
func (s *oauthServer) VerifyAuthRequest(ctx context.Context, r *op.Request[oidc.AuthRequest]) (*op.ClientRequest[oidc.AuthRequest], error) {
	// The code travels in the redirect's query, as the metadata says; fragment and form_post
	// are refused here, on this server's page, since an error redirected to the client would
	// travel by the mode asked for.
	if m := r.Data.ResponseMode; m != "" && m != oidc.ResponseModeQuery {
		return nil, oidc.ErrInvalidRequest().WithDescription("response_mode %q is not supported: this server sends the code in the redirect's query (response_mode=query, or leave it out)", m)
	}
	if len(r.Data.Scopes) == 0 {
		r.Data.Scopes = oidc.SpaceDelimitedArray{oidc.ScopeOfflineAccess}
		if name, ok := s.fleet.server(r.Form.Get("resource")); ok && len(r.Form["resource"]) == 1 {
			r.Data.Scopes = oidc.SpaceDelimitedArray{name + ":read", name + ":write"}
		}
	}
	cr, err := s.LegacyServer.VerifyAuthRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	// The library matches a loopback redirect on path and query only; RFC 8252 §7.3 lets the
	// port vary and nothing else. Refused here, before any redirect to it.
	if !redirectRegistered(cr.Client.RedirectURIs(), r.Data.RedirectURI) {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("redirect_uri is not registered for this client: " +
			"it must equal a registered one, or for a loopback one differ from it only in the port")
	}
	// A client registered before today's rules (a look-alike Unicode host, 127.0.0.2) is held to
	// them here too.
	if err := checkRedirectURI(r.Data.RedirectURI); err != nil {
		return nil, oidc.ErrInvalidRequestRedirectURI().WithDescription("%s: register the client again", err.Error())
	}
	return cr, nil
}

// Authorize hands the resource parameters to CreateAuthRequest.
func (s *oauthServer) Authorize(ctx context.Context, r *op.ClientRequest[oidc.AuthRequest]) (*op.Redirect, error) {
	return s.LegacyServer.Authorize(withResources(ctx, r.Form["resource"]), r)
}

// Revocation revokes whatever kind of token it is given: RFC 7009 §2.1 makes token_type_hint
// a hint only, and the library looks only at access tokens when it says access_token.
func (s *oauthServer) Revocation(ctx context.Context, r *op.ClientRequest[oidc.RevocationRequest]) (*op.Response, error) {
	r.Data.TokenTypeHint = ""
	return s.LegacyServer.Revocation(ctx, r)
}

// errInvalidTarget is RFC 8707's refusal of a resource.
func errInvalidTarget(desc string) *oidc.Error {
	return &oidc.Error{ErrorType: oidc.InvalidTarget, Description: desc}
}

// checkResource refuses a token request whose resource parameter names another resource
// than the grant's.
func checkResource(form map[string][]string, granted string) error {
	for _, r := range form["resource"] {
		if r != granted && r != granted+"/" {
			return errInvalidTarget(fmt.Sprintf("this grant is for %s only; ask for %s in a new authorization", granted, r))
		}
	}
	return nil
}

// CodeExchange checks the code, PKCE verifier, client and redirect URI, then issues tokens.
func (s *oauthServer) CodeExchange(ctx context.Context, r *op.ClientRequest[oidc.AccessTokenRequest]) (*op.Response, error) {
	ar, err := s.store.AuthRequestByCode(ctx, r.Data.Code)
	if err != nil {
		return nil, err
	}
	a := ar.(*authRequest)
	if r.Data.CodeVerifier == "" {
		return nil, errInvalidGrant("code_verifier is required (PKCE)")
	}
	if err := op.AuthorizeCodeChallenge(r.Data.CodeVerifier, a.GetCodeChallenge()); err != nil {
		return nil, err
	}
	if r.Client.GetID() != a.ClientID {
		return nil, errInvalidGrant("the code was issued to another client")
	}
	if r.Data.RedirectURI != a.RedirectURI {
		return nil, errInvalidGrant("redirect_uri does not match the authorization request")
	}
	if err := checkResource(r.Form, a.Resource); err != nil {
		return nil, err
	}
	// The code works once: the transaction that makes the grant consumes it.
	a.code = r.Data.Code
	resp, err := s.issue(ctx, a, r.Client, "")
	if err != nil {
		return nil, err
	}
	return op.NewResponse(resp), nil
}

// RefreshToken rotates a refresh token (reuse revokes the grant) and issues a new access token.
func (s *oauthServer) RefreshToken(ctx context.Context, r *op.ClientRequest[oidc.RefreshTokenRequest]) (*op.Response, error) {
	req, err := s.store.TokenRequestByRefreshToken(ctx, r.Data.RefreshToken)
	if err != nil {
		return nil, err
	}
	g := req.(*grantRequest)
	if r.Client.GetID() != g.ClientID {
		return nil, errInvalidGrant("the refresh token was issued to another client")
	}
	if err := op.ValidateRefreshTokenScopes(r.Data.Scopes, g); err != nil {
		return nil, err
	}
	if err := checkResource(r.Form, g.Resource); err != nil {
		return nil, err
	}
	resp, err := s.issue(ctx, g, r.Client, r.Data.RefreshToken)
	if err != nil {
		return nil, err
	}
	return op.NewResponse(resp), nil
}

// issue records and signs an access token, with a new refresh token for a client that may refresh.
func (s *oauthServer) issue(ctx context.Context, req op.TokenRequest, client op.Client, currentRefresh string) (*oidc.AccessTokenResponse, error) {
	var (
		id, refresh string
		exp         time.Time
		err         error
	)
	if slices.Contains(client.GrantTypes(), oidc.GrantTypeRefreshToken) {
		id, refresh, exp, err = s.store.CreateAccessAndRefreshTokens(ctx, req, currentRefresh)
	} else {
		id, exp, err = s.store.CreateAccessToken(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	tok, err := s.sign(ctx, req, client.GetID(), id, exp)
	if err != nil {
		return nil, oidc.ErrServerError().WithParent(err)
	}
	return &oidc.AccessTokenResponse{
		AccessToken:  tok,
		RefreshToken: refresh,
		TokenType:    oidc.BearerToken,
		ExpiresIn:    uint64(accessTokenLifetime.Seconds()),
		Scope:        req.GetScopes(),
	}, nil
}

// sign makes the RFC 9068 access token: typ at+jwt, ES256, aud the one resource, scope and
// client_id claims.
func (s *oauthServer) sign(ctx context.Context, req op.TokenRequest, clientID, id string, exp time.Time) (string, error) {
	key, err := s.store.keys.current(ctx)
	if err != nil {
		return "", err
	}
	claims := oidc.NewAccessTokenClaims(op.IssuerFromContext(ctx), req.GetSubject(), req.GetAudience(), exp, id, clientID, 0)
	claims.Scopes = req.GetScopes()
	return signAccessToken(key, claims)
}

// signAccessToken signs access token claims with key as an RFC 9068 JWT (typ at+jwt, ES256).
func signAccessToken(key *signingKey, claims *oidc.AccessTokenClaims) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: &jose.JSONWebKey{Key: key.priv, KeyID: key.id}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		return "", fmt.Errorf("signer: %w", err)
	}
	return crypto.Sign(claims, signer)
}

// Discovery is the library's metadata with what MCP clients look for added.
func (s *oauthServer) Discovery(ctx context.Context, r *op.Request[struct{}]) (*op.Response, error) {
	resp, err := s.LegacyServer.Discovery(ctx, r)
	if err != nil {
		return nil, err
	}
	return op.NewResponse(s.metadata(ctx, resp.Data.(*oidc.DiscoveryConfiguration))), nil
}

// rfc8414Fields are the metadata names RFC 8414 §2 (with RFC 7009's revocation, RFC 8707's
// and the MCP drafts' extensions) defines; the library's OpenID Connect discovery fields
// (ID token algorithms, claims, subject types, userinfo, request objects) are left out, since
// this server issues no ID tokens.
var rfc8414Fields = []string{
	"issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "scopes_supported",
	"response_types_supported", "response_modes_supported", "grant_types_supported",
	"token_endpoint_auth_methods_supported", "service_documentation", "ui_locales_supported",
	"revocation_endpoint", "code_challenge_methods_supported",
	"authorization_response_iss_parameter_supported",
}

// metadata is the RFC 8414 document: only the code flow, the fleet's scopes, the registration
// methods offered, and no endpoint this server does not serve.
func (s *oauthServer) metadata(ctx context.Context, d *oidc.DiscoveryConfiguration) map[string]any {
	d.ResponseTypesSupported = []string{string(oidc.ResponseTypeCode)}
	d.ResponseModesSupported = []string{string(oidc.ResponseModeQuery)}
	d.GrantTypesSupported = []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
	d.ScopesSupported = append(s.fleet.scopes(), oidc.ScopeOfflineAccess)
	d.TokenEndpointAuthMethodsSupported = []oidc.AuthMethod{oidc.AuthMethodNone, oidc.AuthMethodBasic, oidc.AuthMethodPost}
	b, _ := json.Marshal(d)
	var all map[string]any
	_ = json.Unmarshal(b, &all)
	m := make(map[string]any, len(rfc8414Fields)+6)
	for _, k := range rfc8414Fields {
		if v, ok := all[k]; ok {
			m[k] = v
		}
	}
	m["revocation_endpoint_auth_methods_supported"] = d.TokenEndpointAuthMethodsSupported
	if s.dcr {
		m["registration_endpoint"] = op.IssuerFromContext(ctx) + registrationPath
	}
	m["client_id_metadata_document_supported"] = s.cimd
	m["resource_indicators_supported"] = true // RFC 8707 (draft metadata name)
	return m
}

// metadataHandler serves the RFC 8414 document at /.well-known/oauth-authorization-server to
// anyone, browsers included: a CORS preflight (which browser-based MCP clients send, since
// they add MCP-Protocol-Version) gets its Access-Control-* answer.
func (s *oauthServer) metadataHandler(issuer string) http.Handler {
	return resource.PublicMetadata(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := op.ContextWithIssuer(r.Context(), issuer)
		resp, err := s.Discovery(ctx, &op.Request[struct{}]{Method: r.Method, URL: r.URL, Header: r.Header})
		if err != nil {
			http.Error(w, "metadata unavailable", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_ = json.NewEncoder(w).Encode(resp.Data)
	}))
}
