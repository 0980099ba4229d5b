package resource_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/jck411/mcp-servers/shared/resource"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
)

const public = "https://gmail.example.com"

func newResource(is *issuertest.Issuer) *resource.Resource {
	return resource.New(resource.Options{Issuer: is.URL, PublicURL: public, Server: "gmail"})
}

func TestVerify(t *testing.T) {
	is := issuertest.Start(t)
	is.AddKey(t, "ec-1", jose.ES256)
	r := newResource(is)
	aud := public + "/mcp"
	cases := []struct {
		name  string
		tok   issuertest.Token
		err   error  // nil for a valid token
		words string // in the error
		write bool
	}{
		{"read scope", issuertest.Token{Audience: aud, Scope: "gmail:read"}, nil, "", false},
		{"write scope", issuertest.Token{Audience: aud, Scope: "openid gmail:write"}, nil, "", true},
		{"scp list form", issuertest.Token{Audience: aud, Scp: []string{"gmail:read"}}, nil, "", false},
		{"audience with a trailing slash", issuertest.Token{Audience: aud + "/", Scope: "gmail:read"}, nil, "", false},
		{"an EC key", issuertest.Token{Audience: aud, Scope: "gmail:read", KeyID: "ec-1"}, nil, "", false},
		{"typ JWT", issuertest.Token{Audience: aud, Scope: "gmail:read", Type: "JWT"}, nil, "", false},
		{"no typ", issuertest.Token{Audience: aud, Scope: "gmail:read", Type: "-"}, nil, "", false},
		{"another server's token", issuertest.Token{Audience: "https://drive.example.com/mcp", Scope: "drive:write gmail:write"}, resource.ErrInvalidToken, "not this server", false},
		{"the server's base URL as audience", issuertest.Token{Audience: public, Scope: "gmail:read"}, resource.ErrInvalidToken, "not this server", false},
		{"a path beside the resource", issuertest.Token{Audience: public + "/mcp2", Scope: "gmail:read"}, resource.ErrInvalidToken, "not this server", false},
		{"expired", issuertest.Token{Audience: aud, Scope: "gmail:read", TTL: -2 * time.Minute}, resource.ErrInvalidToken, "expired", false},
		{"not valid yet", issuertest.Token{Audience: aud, Scope: "gmail:read", NotYet: true}, resource.ErrInvalidToken, "not valid yet", false},
		{"no expiry", issuertest.Token{Audience: aud, Scope: "gmail:read", NoExpiry: true}, resource.ErrInvalidToken, "no expiry", false},
		{"another issuer", issuertest.Token{Audience: aud, Scope: "gmail:read", Issuer: "https://evil.example.com"}, resource.ErrInvalidToken, "another issuer", false},
		{"an unknown kid", issuertest.Token{Audience: aud, Scope: "gmail:read", KeyID: "nope"}, resource.ErrInvalidToken, `kid "nope"`, false},
		{"an ID token's typ", issuertest.Token{Audience: aud, Scope: "gmail:read", Type: "logout+jwt"}, resource.ErrInvalidToken, "not an access token", false},
		{"no scope of this server", issuertest.Token{Audience: aud, Scope: "drive:read openid"}, resource.ErrInsufficientScope, "neither gmail:read nor gmail:write", false},
		{"no scope at all", issuertest.Token{Audience: aud}, resource.ErrInsufficientScope, "neither", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := r.Verify(t.Context(), is.Mint(t, tc.tok))
			if tc.err == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if g.Write != tc.write || g.Subject != "owner" || g.Client != "test-client" || time.Until(g.Expiry) <= 0 {
					t.Errorf("grant %+v", g)
				}
				return
			}
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("got %v, want %v with %q", err, tc.err, tc.words)
			}
		})
	}
}

// TestVerifyForgeries: tokens an attacker can make without the issuer's private key.
func TestVerifyForgeries(t *testing.T) {
	is := issuertest.Start(t)
	r := newResource(is)
	good := is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "gmail:write"})
	parts := strings.Split(good, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	enc := func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }

	// The payload made to say more, under the original signature.
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	claims["sub"] = "attacker"
	forged, _ := json.Marshal(claims)

	// HS256 keyed with the public key's JSON: the classic algorithm confusion.
	hsHeader := strings.Replace(string(header), `"RS256"`, `"HS256"`, 1)
	mac := hmac.New(sha256.New, []byte(mustJWKS(t, is)))
	mac.Write([]byte(enc(hsHeader) + "." + parts[1]))

	cases := map[string]string{
		"garbage":               "not-a-jwt",
		"empty signature":       parts[0] + "." + parts[1] + ".",
		"alg none":              enc(strings.Replace(string(header), `"RS256"`, `"none"`, 1)) + "." + parts[1] + ".",
		"payload changed":       parts[0] + "." + enc(string(forged)) + "." + parts[2],
		"HS256 with public key": enc(hsHeader) + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)),
		"no kid":                enc(strings.Replace(string(header), `"kid":"rsa-1"`, `"kid":""`, 1)) + "." + parts[1] + "." + parts[2],
		"huge":                  strings.Repeat("a", 20000),
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if g, err := r.Verify(t.Context(), tok); err == nil || !errors.Is(err, resource.ErrInvalidToken) {
				t.Fatalf("accepted or wrong error: %+v %v", g, err)
			}
		})
	}
	if _, err := r.Verify(t.Context(), good); err != nil {
		t.Fatalf("the untouched token: %v", err)
	}
}

func mustJWKS(t *testing.T, is *issuertest.Issuer) string {
	t.Helper()
	resp, err := http.Get(is.URL + "/jwks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKeyRotation: a token signed by a key published after the first fetch verifies once the
// set is refetched; made-up kids cannot make the server hammer the issuer.
func TestKeyRotation(t *testing.T) {
	is := issuertest.Start(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	r := resource.New(resource.Options{Issuer: is.URL, PublicURL: public, Server: "gmail", Now: clock})
	aud := public + "/mcp"
	if _, err := r.Verify(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read"})); err != nil {
		t.Fatal(err)
	}
	fetches := is.KeyFetches()
	for range 20 {
		_, _ = r.Verify(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read", KeyID: "made-up"}))
	}
	if got := is.KeyFetches() - fetches; got != 0 {
		t.Errorf("20 unknown kids right after a fetch caused %d key fetches, want none", got)
	}
	is.AddKey(t, "rsa-2", jose.RS256)
	rotated := is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read", KeyID: "rsa-2"})
	if _, err := r.Verify(t.Context(), rotated); err == nil {
		t.Fatal("a kid was looked up again within the minimum interval")
	}
	advance(11 * time.Second)
	if _, err := r.Verify(t.Context(), rotated); err != nil {
		t.Fatalf("a token from the rotated key is refused after the interval: %v", err)
	}
	if got := is.KeyFetches() - fetches; got != 1 {
		t.Errorf("key fetches after rotation: %d, want 1", got)
	}
	// Known keys are refetched once they are older than an hour, even without a new kid.
	advance(time.Hour)
	if _, err := r.Verify(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read", KeyID: "rsa-2", TTL: 3 * time.Hour})); err != nil {
		t.Fatal(err)
	}
	if got := is.KeyFetches() - fetches; got != 2 {
		t.Errorf("key fetches after an hour: %d, want 2", got)
	}
}

func TestIssuerDown(t *testing.T) {
	is := issuertest.Start(t)
	is.SetDown(true)
	r := newResource(is)
	_, err := r.Verify(t.Context(), is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "gmail:read"}))
	if !errors.Is(err, resource.ErrIssuerUnavailable) {
		t.Fatalf("got %v, want ErrIssuerUnavailable", err)
	}
}

func TestMetadataURL(t *testing.T) {
	r := resource.New(resource.Options{Issuer: "https://auth.example.com", PublicURL: "https://x.example.com/gmail", Server: "gmail"})
	if r.URL() != "https://x.example.com/gmail/mcp" || r.MetadataURL() != "https://x.example.com/gmail/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("URL %s, metadata %s", r.URL(), r.MetadataURL())
	}
}

// FuzzVerify: no input crashes the parser, and none is accepted without the issuer's key.
func FuzzVerify(f *testing.F) {
	is := issuertest.Start(f)
	r := newResource(is)
	good := is.Mint(f, issuertest.Token{Audience: public + "/mcp", Scope: "gmail:write"})
	f.Add(good[:len(good)-2] + "AA")
	f.Add(strings.Replace(good, ".", "..", 1))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, tok string) {
		if tok == good {
			return
		}
		if g, err := r.Verify(t.Context(), tok); err == nil {
			t.Fatalf("accepted %q: %+v", tok, g)
		}
	})
}

// TestIssuerInternalURL: with IssuerURL set, the metadata and keys come from there (the issuer's
// public URL is never contacted), the metadata must be the configured issuer's, and its
// jwks_uri is moved onto the internal URL.
func TestIssuerInternalURL(t *testing.T) {
	is := issuertest.Start(t)
	const publicIssuer = "https://auth.example.invalid" // unreachable: resolving it fails
	// The internal address: the stand-in issuer as the auth server on this host would answer
	// there, naming its public URL.
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(is.URL + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write([]byte(strings.ReplaceAll(string(b), is.URL, publicIssuer)))
	}))
	t.Cleanup(internal.Close)
	tok := is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "gmail:read", Issuer: publicIssuer})

	r := resource.New(resource.Options{Issuer: publicIssuer, IssuerURL: internal.URL + "/", PublicURL: public, Server: "gmail"})
	if _, err := r.Verify(t.Context(), tok); err != nil {
		t.Fatalf("through the internal URL: %v", err)
	}
	if is.KeyFetches() != 1 {
		t.Errorf("key fetches %d, want 1", is.KeyFetches())
	}

	other := resource.New(resource.Options{Issuer: "https://other.example.invalid", IssuerURL: internal.URL, PublicURL: public, Server: "gmail"})
	_, err := other.Verify(t.Context(), is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "gmail:read", Issuer: "https://other.example.invalid"}))
	if !errors.Is(err, resource.ErrIssuerUnavailable) || !strings.Contains(err.Error(), "not \"https://other.example.invalid\"") {
		t.Errorf("another issuer's metadata at the internal URL: %v", err)
	}
}
