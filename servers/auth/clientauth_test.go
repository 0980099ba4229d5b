package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestClientAuthChallenge: a failed client authentication at /token and /revoke answers 401
// invalid_client with WWW-Authenticate: Basic (RFC 6749 §5.2), however it failed; other errors
// stay 400 without the header, and the right secret works.
func TestClientAuthChallenge(t *testing.T) {
	e := startFleet(t)
	redirect := "https://app.example.com/cb"
	st, reg := e.postJSON(t, "/register", map[string]any{"redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code", "refresh_token"}})
	if st != 201 {
		t.Fatalf("register: %d %v", st, reg)
	}
	id, secret := reg["client_id"].(string), reg["client_secret"].(string)
	public := e.register(t, "http://127.0.0.1:5555/cb")
	send := func(path string, form url.Values, user, pass string, header string) (int, string, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, e.Issuer+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		switch {
		case header != "":
			req.Header.Set("Authorization", header)
		case user != "":
			req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
		}
		resp, err := e.noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), out
	}
	code := func() (string, pkce) {
		p := newPKCE()
		return e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p), p
	}
	exchange := func(c string, p pkce) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "redirect_uri": {redirect}, "code": {c}, "code_verifier": {p.verifier}}
	}
	challenge := `Basic realm="` + e.Issuer + `", charset="UTF-8"`
	c, p := code()
	cases := []struct {
		name, path, user, pass, header string
		form                           url.Values
	}{
		{"wrong secret in Basic", "/token", id, "wrong", "", exchange(c, p)},
		{"unknown client in Basic", "/token", "dcr-nobody", "x", "", exchange(c, p)},
		{"a malformed Basic header", "/token", "", "", "Basic %%%", exchange(c, p)},
		{"Basic with bad escapes", "/token", "", "", "Basic JXp6OnNlY3JldA==", exchange(c, p)}, // "%zz:secret"
		{"wrong secret in the form", "/token", "", "", "", func() url.Values {
			f := exchange(c, p)
			f.Set("client_id", id)
			f.Set("client_secret", "wrong")
			return f
		}()},
		{"no secret for a secret client", "/token", "", "", "", func() url.Values { f := exchange(c, p); f.Set("client_id", id); return f }()},
		{"wrong secret at /revoke", "/revoke", id, "wrong", "", url.Values{"token": {"x"}}},
		{"unknown client at /revoke", "/revoke", "dcr-nobody", "x", "", url.Values{"token": {"x"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, www, body := send(tc.path, tc.form, tc.user, tc.pass, tc.header)
			if st != http.StatusUnauthorized || body["error"] != "invalid_client" || www != challenge {
				t.Errorf("%d %q %v", st, www, body)
			}
		})
	}
	t.Run("the right secret", func(t *testing.T) {
		st, www, body := send("/token", exchange(c, p), id, secret, "")
		if st != http.StatusOK || www != "" || body["access_token"] == nil {
			t.Fatalf("%d %q %v", st, www, body)
		}
		if st, www, body := send("/revoke", url.Values{"token": {body["refresh_token"].(string)}}, id, secret, ""); st != http.StatusOK || www != "" {
			t.Errorf("revoke: %d %q %v", st, www, body)
		}
	})
	t.Run("other errors stay 400 without a challenge", func(t *testing.T) {
		st, www, body := send("/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {public}, "code": {"made-up"}, "code_verifier": {p.verifier}, "redirect_uri": {"http://127.0.0.1:5555/cb"}}, "", "", "")
		if st != http.StatusBadRequest || www != "" || body["error"] != "invalid_grant" {
			t.Errorf("%d %q %v", st, www, body)
		}
	})
}
