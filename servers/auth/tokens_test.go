package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/crypto"
	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// mint signs claims as the auth server would, with its current key or with key when given.
func (e *fleetEnv) mint(t *testing.T, change func(*oidc.AccessTokenClaims), key *ecdsa.PrivateKey) string {
	t.Helper()
	k, err := e.app.store.keys.current(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	priv, kid := k.priv, k.id
	if key != nil {
		priv = key
	}
	c := oidc.NewAccessTokenClaims(e.Issuer, ownerSubject, []string{e.Alpha + "/mcp"}, time.Now().Add(5*time.Minute), "jti", "client", 0)
	c.Scopes = []string{"alpha:read", "alpha:write"}
	if change != nil {
		change(c)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: &jose.JSONWebKey{Key: priv, KeyID: kid}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := crypto.Sign(c, signer)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestTokensAtTheResource: tokens the MCP servers must refuse, though they look right.
func TestTokensAtTheResource(t *testing.T) {
	e := startFleet(t)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cases := []struct {
		name   string
		change func(*oidc.AccessTokenClaims)
		key    *ecdsa.PrivateKey
		status int
		words  string
	}{
		{"valid", nil, nil, 200, ""},
		{"expired", func(c *oidc.AccessTokenClaims) { c.Expiration = oidc.FromTime(time.Now().Add(-5 * time.Minute)) }, nil, 401, "expired"},
		{"wrong audience", func(c *oidc.AccessTokenClaims) { c.Audience = []string{e.Beta + "/mcp"} }, nil, 401, "invalid_token"},
		{"wrong issuer", func(c *oidc.AccessTokenClaims) { c.Issuer = "https://evil.example.com" }, nil, 401, "invalid_token"},
		{"signed by another key", nil, other, 401, "invalid_token"},
		{"another server's scope", func(c *oidc.AccessTokenClaims) { c.Scopes = []string{"beta:write"} }, nil, 403, "insufficient_scope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, www, body := callTool(t, e.Alpha, e.mint(t, tc.change, tc.key), "alpha_read")
			if st != tc.status || !strings.Contains(www+body, tc.words) {
				t.Errorf("%d %s %s", st, www, body)
			}
		})
	}
}

// TestKeyRotation: `auth keys rotate` publishes a new key at once and signs with it a minute
// later, so a resource server that fetched the keys meanwhile already knows it; tokens of the
// old key keep working until they expire, then the old key leaves the JWKS.
func TestKeyRotation(t *testing.T) {
	e := startFleet(t)
	oldKey, _ := e.app.store.keys.current(t.Context())
	old := e.mint(t, nil, nil)
	var out strings.Builder
	if code := run(t.Context(), []string{"keys", "rotate", "--state-dir", e.app.StateDir}, func(string) string { return "" }, &out, &out); code != 0 {
		t.Fatalf("keys rotate: %d %s", code, out.String())
	}
	if k, _ := e.app.store.keys.current(t.Context()); k.id != oldKey.id {
		t.Fatalf("the new key signs before its lead time: %s", out.String())
	}
	jwks := func() jose.JSONWebKeySet {
		resp, err := http.Get(e.Issuer + "/keys")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var set jose.JSONWebKeySet
		_ = json.NewDecoder(resp.Body).Decode(&set)
		return set
	}
	if set := jwks(); len(set.Keys) != 2 || len(set.Key(oldKey.id)) != 1 {
		t.Fatalf("JWKS after rotate %v", set)
	}
	// alpha fetches the keys now, with the waiting key in them.
	if st, _, _ := callTool(t, e.Alpha, old, "alpha_read"); st != 200 {
		t.Fatalf("before the switch: %d", st)
	}
	e.app.db.now = func() time.Time { return time.Now().Add(keyLead + time.Second) }
	newKey, _ := e.app.store.keys.current(t.Context())
	if newKey.id == oldKey.id || !strings.Contains(out.String(), newKey.id) {
		t.Fatalf("the new key does not sign after its lead time: %s", out.String())
	}
	fresh := e.mint(t, nil, nil)
	for name, tok := range map[string]string{"old": old, "new": fresh} {
		if st, _, body := callTool(t, e.Alpha, tok, "alpha_read"); st != 200 {
			t.Errorf("%s token after the switch: %d %s", name, st, body)
		}
	}
	e.app.db.now = func() time.Time { return time.Now().Add(keyLead + keyOverlap + time.Minute) }
	if set := jwks(); len(set.Keys) != 1 || len(set.Key(newKey.id)) != 1 {
		t.Errorf("JWKS after the overlap %v", set)
	}
}

// TestKeyLifetime: a key older than --key-lifetime gets a successor by itself.
func TestKeyLifetime(t *testing.T) {
	e := startFleet(t, func(s *settings) { s.KeyLifetime = time.Hour })
	first, _ := e.app.store.keys.current(t.Context())
	e.app.db.now = func() time.Time { return time.Now().Add(time.Hour + time.Second) }
	if k, _ := e.app.store.keys.current(t.Context()); k.id != first.id {
		t.Fatal("the successor signs without its lead time")
	}
	e.app.db.now = func() time.Time { return time.Now().Add(time.Hour + keyLead + 2*time.Second) }
	if k, _ := e.app.store.keys.current(t.Context()); k.id == first.id {
		t.Fatal("no successor after the key lifetime")
	}
}

// TestCIMDGuard: a metadata document on a private address is not fetched.
func TestCIMDGuard(t *testing.T) {
	e := startFleet(t) // the real fetcher: public addresses only
	p := newPKCE()
	for _, id := range []string{"https://127.0.0.1:1/client.json", "https://10.0.0.1/client.json", "https://[::1]:443/c.json"} {
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1/cb"}, "state": {"s"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
		loc, st, body := e.authorize(t, q)
		if loc != nil || st < 400 || !strings.Contains(body, "could not be fetched from a public address") {
			t.Errorf("%s: %d %v %s", id, st, loc, body)
		}
	}
	t.Run("cimd off", func(t *testing.T) {
		off := startFleet(t, func(s *settings) { s.CIMD = false })
		q := url.Values{"response_type": {"code"}, "client_id": {"https://app.example.com/client.json"}, "redirect_uri": {"http://127.0.0.1/cb"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {off.Alpha + "/mcp"}}
		_, st, body := off.authorize(t, q)
		if st < 400 || !strings.Contains(body, "turned off") {
			t.Errorf("%d %s", st, body)
		}
	})
}

// TestCIMDAddresses: a metadata document at any address that is not global unicast — in any
// IPv6 form that carries one, or behind a name — is refused at dial time, at once (no connect
// timeout: 240.0.0.1 would never answer). The answer says only that the document could not be
// fetched from a public address: not what a name resolved to, nor which rule refused it.
func TestCIMDAddresses(t *testing.T) {
	e := startFleet(t) // the real fetcher
	p := newPKCE()
	hosts := []string{
		"127.0.0.1", "10.0.0.1", "[::1]", "localhost", "0.1.2.3", "100.64.0.1", "198.18.0.1", "192.0.0.8",
		"240.0.0.1", "224.0.0.1", "169.254.169.254", "[::ffff:127.0.0.1]", "[::127.0.0.1]", "[2002:7f00:1::1]",
		"[64:ff9b::a00:1]", "[64:ff9b:1::1]", "[2001::1]", "[fec0::1]", "[ff02::1]", "[fd00::1]", "[fe80::1]",
	}
	for _, h := range hosts {
		t.Run(h, func(t *testing.T) {
			id := "https://" + h + ":8443/client.json"
			q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1/cb"}, "state": {"s"},
				"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
			start := time.Now()
			loc, st, body := e.authorize(t, q)
			took := time.Since(start)
			want := `"the client metadata document ` + id + ` could not be fetched from a public address"`
			if loc != nil || st < 400 || !strings.Contains(body, want) {
				t.Errorf("%d %v %s", st, loc, body)
			}
			if took > time.Second {
				t.Errorf("took %s: the refusal must come before any connect attempt", took)
			}
		})
	}
}

// TestRateLimit: each limited endpoint answers 429 with Retry-After and the wait in words
// once a client address has used its budget; the keys are not limited.
func TestRateLimit(t *testing.T) {
	e := startFleet(t, func(s *settings) { s.Limits = limits{PerIP: 3, Global: 1000} })
	for _, path := range []string{"/token", "/register", "/login/begin", "/enroll/begin"} {
		var last *http.Response
		var body []byte
		for range 4 {
			resp, err := e.noRedirect.Post(e.Issuer+path, "application/x-www-form-urlencoded", strings.NewReader(""))
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			last = resp
		}
		var j map[string]string
		_ = json.Unmarshal(body, &j)
		if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" || j["error"] != "rate_limited" ||
			!strings.Contains(j["error_description"], "wait ") || !strings.Contains(j["error_description"], "seconds") {
			t.Errorf("%s: %d %q %s", path, last.StatusCode, last.Header.Get("Retry-After"), body)
		}
	}
	// A page load gets the same in plain text.
	var status int
	var page []byte
	for range 4 {
		resp, err := http.Get(e.Issuer + loginPath + "?id=x")
		if err != nil {
			t.Fatal(err)
		}
		page, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
	}
	if status != http.StatusTooManyRequests || !strings.HasPrefix(string(page), "Too many attempts: wait ") {
		t.Errorf("sign-in page: %d %s", status, page)
	}
	resp, err := http.Get(e.Issuer + "/keys")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("keys: %d", resp.StatusCode)
	}
}
