package resource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// algs are the signature algorithms accepted: asymmetric only, so a key set's public key can
// never double as an HMAC secret, and never "none".
var algs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

func acceptedAlg(name string) bool { return slices.Contains(algs, jose.SignatureAlgorithm(name)) }

// accessTokenTypes are the JWT "typ" headers accepted: RFC 9068's at+jwt, and plain JWT (or
// none), which Keycloak, Authentik and Cloudflare Access send. Any other type (an ID token's
// logout+jwt, a DPoP proof, …) is refused; an ID token also fails the audience check.
var accessTokenTypes = []string{"", "jwt", "at+jwt", "application/at+jwt"}

// maxTokenBytes bounds a token before it is parsed.
const maxTokenBytes = 16 << 10

// claims are the access token claims read beyond the registered ones.
type claims struct {
	Scope    string   `json:"scope"`     // RFC 9068: space-separated
	Scp      []string `json:"scp"`       // the list form some issuers use
	ClientID string   `json:"client_id"` // RFC 9068
	Azp      string   `json:"azp"`       // OIDC's authorized party
}

// Verify checks a bearer token: a JWT signed by one of the issuer's published keys, issued by
// the issuer, for this resource, within its lifetime, carrying this server's read or write
// scope. Errors wrap ErrInvalidToken, ErrInsufficientScope or ErrIssuerUnavailable.
func (r *Resource) Verify(ctx context.Context, raw string) (*Grant, error) {
	if len(raw) > maxTokenBytes {
		return nil, fmt.Errorf("%w: the token is longer than %d bytes", ErrInvalidToken, maxTokenBytes)
	}
	tok, err := jwt.ParseSigned(raw, algs)
	if err != nil {
		return nil, fmt.Errorf("%w: not a signed JWT with an accepted algorithm: %w", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: want exactly one signature", ErrInvalidToken)
	}
	h := tok.Headers[0]
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	if !slices.Contains(accessTokenTypes, strings.ToLower(typ)) {
		return nil, fmt.Errorf("%w: typ %q is not an access token", ErrInvalidToken, typ)
	}
	if h.KeyID == "" {
		return nil, fmt.Errorf("%w: the token names no key (kid)", ErrInvalidToken)
	}
	key, err := r.keys.key(ctx, h.KeyID)
	if err != nil {
		return nil, err
	}
	if key.Algorithm != "" && key.Algorithm != h.Algorithm {
		return nil, fmt.Errorf("%w: key %q is for %s, the token says %s", ErrInvalidToken, h.KeyID, key.Algorithm, h.Algorithm)
	}
	var std jwt.Claims
	var extra claims
	if err := tok.Claims(key.Key, &std, &extra); err != nil {
		return nil, fmt.Errorf("%w: the signature does not verify: %w", ErrInvalidToken, err)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: the token has no expiry", ErrInvalidToken)
	}
	now := r.now()
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: r.issuer, Time: now}, leeway); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, describeClaimError(err))
	}
	if !slices.ContainsFunc(r.accept, func(res string) bool { return oauthex.MatchesResource(std.Audience, res) }) {
		return nil, fmt.Errorf("%w: the token is for %v, not this server (%s)", ErrInvalidToken, []string(std.Audience), r.resource)
	}
	scopes := slices.Concat(strings.Fields(extra.Scope), extra.Scp)
	g := &Grant{
		Subject: std.Subject,
		Client:  firstOf(extra.ClientID, extra.Azp, std.Subject),
		Write:   hasScope(scopes, r.scopes.Write) && !readOnlyAudience(std.Audience),
		Scopes:  scopes,
		Expiry:  std.Expiry.Time(),
	}
	if !g.Write && !hasScope(scopes, r.scopes.Read) {
		return nil, fmt.Errorf("%w: the token carries neither %s nor %s", ErrInsufficientScope, r.scopes.Read, r.scopes.Write)
	}
	return g, nil
}

func describeClaimError(err error) string {
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return "the token has expired"
	case errors.Is(err, jwt.ErrNotValidYet):
		return "the token is not valid yet"
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return "the token was issued in the future"
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return "the token comes from another issuer"
	}
	return err.Error()
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
