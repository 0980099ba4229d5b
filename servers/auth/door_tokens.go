package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// doorGrant is what a front-door token lets its client do.
type doorGrant struct {
	client, subject string
	scopes          []string
	readOnly        bool // the token was made for a read-only URL
	exp             jwt.NumericDate
}

// verify checks a token presented at the front door URL at: an access token this server
// signed, for the door (at, or a door URL that at narrows), within its lifetime, whose grant
// is not revoked. The revocation check is the door's own: it reads the grant, so a revoked
// device stops here at once, not after its token's ten minutes.
func (d *door) verify(ctx context.Context, raw, at string) (*doorGrant, error) {
	if len(raw) > 16<<10 {
		return nil, errors.New("the token is too long")
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil || len(tok.Headers) != 1 {
		return nil, errors.New("not an access token of this server")
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "at+jwt" {
		return nil, errors.New("not an access token (typ at+jwt)")
	}
	keys, err := d.store.keys.published(ctx)
	if err != nil {
		return nil, fmt.Errorf("signing keys: %w", err)
	}
	i := slices.IndexFunc(keys, func(k op.Key) bool { return k.ID() == h.KeyID })
	if i < 0 {
		return nil, errors.New("the token's key is not one of this server's")
	}
	var std jwt.Claims
	var extra struct {
		Scope    string `json:"scope"`
		ClientID string `json:"client_id"`
	}
	if err := tok.Claims(keys[i].Key(), &std, &extra); err != nil {
		return nil, errors.New("the signature does not verify")
	}
	if std.Expiry == nil {
		return nil, errors.New("the token has no expiry")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: d.issuer, Time: d.now()}, leeway); err != nil {
		return nil, fmt.Errorf("the token is not valid now or not from this issuer: %w", err)
	}
	aud := ""
	for _, a := range std.Audience {
		if doorAudienceFits(strings.TrimSuffix(a, "/"), d.issuer, at) {
			aud = a
		}
	}
	if aud == "" {
		return nil, fmt.Errorf("the token is for %v, not the front door (%s)", []string(std.Audience), at)
	}
	var revoked int64
	err = d.store.db.sql.QueryRowContext(ctx, "SELECT g.revoked FROM access_tokens a JOIN grants g ON g.id = a.grant_id WHERE a.id = ?", std.ID).Scan(&revoked)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, errors.New("the token is unknown here: sign in again")
	case err != nil:
		return nil, fmt.Errorf("read the token's grant: %w", err)
	case revoked > 0:
		return nil, errors.New("the token's grant was revoked: sign in again")
	}
	return &doorGrant{client: extra.ClientID, subject: std.Subject, scopes: strings.Fields(extra.Scope),
		readOnly: readOnlyResource(aud), exp: *std.Expiry}, nil
}

// leeway is the clock difference tolerated on exp, nbf and iat, as the servers tolerate it.
const leeway = time.Minute

// doorAudienceFits reports whether a token for aud works at the door URL at: the door's whole
// endpoint works everywhere on it, a narrowed URL at itself and at its read-only form.
func doorAudienceFits(aud, issuer, at string) bool {
	at = strings.TrimSuffix(at, "/")
	return aud == issuer+"/mcp" || aud == at || aud+"/readonly" == at
}

// mint makes the token of one downstream call: the caller's client and subject, the grant's
// scopes of that server alone (read only when the request is), audience that server's resource,
// expiring no later than the door token it stands for.
func (d *door) mint(ctx context.Context, g *doorGrant, ds downstream) (string, error) {
	name := ds.server.Name
	var scopes []string
	for _, s := range g.scopes {
		if n, level, _ := strings.Cut(s, ":"); n == name && (level == "read" || ds.write) {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		scopes = []string{name + ":read"} // a write grant reads too
	}
	key, err := d.store.keys.current(ctx)
	if err != nil {
		return "", err
	}
	exp := d.now().Add(accessTokenLifetime)
	if g.exp.Time().Before(exp) {
		exp = g.exp.Time()
	}
	claims := oidc.NewAccessTokenClaims(d.issuer, g.subject, []string{d.fleet.byName[name]}, exp, randomToken(16), g.client, 0)
	claims.Scopes = scopes
	return signAccessToken(key, claims)
}
