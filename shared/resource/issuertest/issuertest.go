// Package issuertest is a stand-in OAuth authorization server for tests: it publishes RFC 8414
// metadata and a JWK set over real HTTP and mints signed access tokens, so that the fleet's
// token checks run against real keys, real discovery and real key rotation.
package issuertest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer is a running stand-in authorization server.
type Issuer struct {
	URL string // the issuer identifier, also its base URL

	mu        sync.Mutex
	keys      []jose.JSONWebKey // private keys; the JWK set publishes their public halves
	down      bool
	jwksFetch atomic.Int64
}

// Start serves a new issuer with one RSA signing key until the test ends.
func Start(t testing.TB) *Issuer {
	t.Helper()
	is := &Issuer{}
	is.AddKey(t, "rsa-1", jose.RS256)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		if is.isDown(w) {
			return
		}
		writeJSON(w, map[string]any{
			"issuer":                                is.URL,
			"authorization_endpoint":                is.URL + "/authorize",
			"token_endpoint":                        is.URL + "/token",
			"jwks_uri":                              is.URL + "/jwks",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		if is.isDown(w) {
			return
		}
		is.jwksFetch.Add(1)
		is.mu.Lock()
		set := jose.JSONWebKeySet{}
		for _, k := range is.keys {
			set.Keys = append(set.Keys, k.Public())
		}
		is.mu.Unlock()
		writeJSON(w, set)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	is.URL = srv.URL
	return is
}

// AddKey generates a signing key with the given kid and algorithm (RS256 or ES256) and publishes it.
func (is *Issuer) AddKey(t testing.TB, kid string, alg jose.SignatureAlgorithm) {
	t.Helper()
	var priv any
	var err error
	switch alg {
	case jose.RS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("issuertest: unsupported algorithm %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = append(is.keys, jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: string(alg), Use: "sig"})
}

// SetDown makes the metadata and key endpoints answer 503 (true) or work again (false).
func (is *Issuer) SetDown(down bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.down = down
}

// KeyFetches counts the requests for the JWK set so far.
func (is *Issuer) KeyFetches() int64 { return is.jwksFetch.Load() }

func (is *Issuer) isDown(w http.ResponseWriter) bool {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}
	return is.down
}

// Token describes an access token to mint; zero fields take the defaults noted.
type Token struct {
	Audience string        // the resource, e.g. https://gmail.example.com/mcp
	Scope    string        // space-separated scopes
	Scp      []string      // scopes in list form, as some issuers send them
	Subject  string        // default "owner"
	ClientID string        // default "test-client"
	Issuer   string        // default the issuer's URL
	TTL      time.Duration // default 5 minutes; negative for an expired token
	NotYet   bool          // nbf an hour from now
	NoExpiry bool          // omit exp
	KeyID    string        // sign with this kid; default the first key
	Type     string        // the typ header; default at+jwt, "-" for none
}

// Mint returns a signed access token.
func (is *Issuer) Mint(t testing.TB, tok Token) string {
	t.Helper()
	is.mu.Lock()
	key := is.keys[0]
	for _, k := range is.keys {
		if k.KeyID == tok.KeyID {
			key = k
		}
	}
	is.mu.Unlock()
	if tok.KeyID != "" && key.KeyID != tok.KeyID {
		key.KeyID = tok.KeyID // sign with the first key but name a kid the set lacks
	}
	typ := jose.ContentType("at+jwt")
	switch tok.Type {
	case "-":
		typ = ""
	case "":
	default:
		typ = jose.ContentType(tok.Type)
	}
	opts := (&jose.SignerOptions{}).WithHeader(jose.HeaderKey("kid"), key.KeyID)
	if typ != "" {
		opts = opts.WithType(typ)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(key.Algorithm), Key: key.Key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ttl := tok.TTL
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	claims := jwt.Claims{
		Issuer:   or(tok.Issuer, is.URL),
		Subject:  or(tok.Subject, "owner"),
		Audience: jwt.Audience{tok.Audience},
		IssuedAt: jwt.NewNumericDate(now),
		ID:       fmt.Sprint(now.UnixNano()),
	}
	if !tok.NoExpiry {
		claims.Expiry = jwt.NewNumericDate(now.Add(ttl))
	}
	if tok.NotYet {
		claims.NotBefore = jwt.NewNumericDate(now.Add(time.Hour))
	}
	extra := map[string]any{"client_id": or(tok.ClientID, "test-client")}
	if tok.Scope != "" {
		extra["scope"] = tok.Scope
	}
	if tok.Scp != nil {
		extra["scp"] = tok.Scp
	}
	raw, err := jwt.Signed(signer).Claims(claims).Claims(extra).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
