package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// jwtParts decodes a JWT's header and claims without checking it.
func jwtParts(t *testing.T, tok string) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	var h, c map[string]any
	for i, v := range []*map[string]any{&h, &c} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return h, c
}

func TestMetadata(t *testing.T) {
	e := startFleet(t)
	for _, path := range []string{"/.well-known/oauth-authorization-server"} {
		resp, err := http.Get(e.Issuer + path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != 200 || m["issuer"] != e.Issuer || m["registration_endpoint"] != e.Issuer+"/register" ||
			m["client_id_metadata_document_supported"] != true || m["jwks_uri"] != e.Issuer+"/keys" || m["token_endpoint"] != e.Issuer+"/token" ||
			m["revocation_endpoint"] != e.Issuer+"/revoke" {
			t.Errorf("%s: %d %v", path, resp.StatusCode, m)
		}
		if ms, _ := json.Marshal(m["code_challenge_methods_supported"]); string(ms) != `["S256"]` {
			t.Errorf("%s: code_challenge_methods_supported %s", path, ms)
		}
		if _, ok := m["userinfo_endpoint"]; ok {
			t.Errorf("%s names an endpoint it does not serve: %v", path, m["userinfo_endpoint"])
		}
	}
}

// TestTokenFlow is the code flow without a browser: the token's shape, refresh rotation and
// reuse detection, revocation, and how the MCP servers take the tokens.
func TestTokenFlow(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read alpha:write", p)
	status, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	at, rt := tok["access_token"].(string), tok["refresh_token"].(string)
	h, c := jwtParts(t, at)
	if h["typ"] != "at+jwt" || h["alg"] != "ES256" || h["kid"] == "" {
		t.Errorf("header %v", h)
	}
	if c["aud"] != e.Alpha+"/mcp" && !slices.Equal(toStrings(c["aud"]), []string{e.Alpha + "/mcp"}) {
		t.Errorf("aud %v", c["aud"])
	}
	if c["scope"] != "alpha:read alpha:write" || c["client_id"] != id || c["iss"] != e.Issuer || c["sub"] != ownerSubject {
		t.Errorf("claims %v", c)
	}
	if exp, iat := c["exp"].(float64), c["iat"].(float64); exp-iat > 601 || exp-iat < 590 {
		t.Errorf("lifetime %v s", exp-iat)
	}

	t.Run("the code works once; its replay revokes the grant it gave", func(t *testing.T) {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
		st, first := e.exchange(t, id, redirect, code, p.verifier, nil)
		if st != 200 {
			t.Fatalf("first exchange: %d %v", st, first)
		}
		st, body := e.exchange(t, id, redirect, code, p.verifier, nil)
		if st != 400 || body["error"] != "invalid_grant" || !strings.Contains(body["error_description"].(string), "tokens it gave are revoked") {
			t.Errorf("second exchange: %d %v", st, body)
		}
		st, body = e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {first["refresh_token"].(string)}})
		if st != 400 || body["error"] != "invalid_grant" || !strings.Contains(body["error_description"].(string), "revoked") {
			t.Errorf("refresh of the replayed code's grant: %d %v", st, body)
		}
		var why string
		if err := e.app.db.sql.QueryRow("SELECT revoked_why FROM grants WHERE code_hash = ?", hashToken(code)).Scan(&why); err != nil || why != "authorization code replayed" {
			t.Errorf("the grant's record: %q %v", why, err)
		}
		// A code nobody was given revokes nothing and says only that it is unknown.
		if st, body := e.exchange(t, id, redirect, "made-up", p.verifier, nil); st != 400 || !strings.Contains(body["error_description"].(string), "unknown, used or expired") {
			t.Errorf("a made-up code: %d %v", st, body)
		}
	})
	t.Run("alpha takes it, beta refuses it", func(t *testing.T) {
		if st, _, body := callTool(t, e.Alpha, at, "alpha_write"); st != 200 || !strings.Contains(body, `"echo":"hi"`) || !strings.Contains(body, "oauth:"+id) {
			t.Errorf("alpha: %d %s", st, body)
		}
		if st, www, _ := callTool(t, e.Beta, at, "beta_read"); st != 401 || !strings.Contains(www, "invalid_token") {
			t.Errorf("beta: %d %s", st, www)
		}
	})

	var rt2 string
	t.Run("refresh rotates", func(t *testing.T) {
		st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt}})
		if st != 200 || body["refresh_token"] == rt || body["access_token"] == "" {
			t.Fatalf("refresh: %d %v", st, body)
		}
		rt2 = body["refresh_token"].(string)
		if st, _, _ := callTool(t, e.Alpha, body["access_token"].(string), "alpha_read"); st != 200 {
			t.Errorf("refreshed token: %d", st)
		}
	})
	t.Run("reusing the old refresh token revokes the grant", func(t *testing.T) {
		st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt}})
		if st != 400 || body["error"] != "invalid_grant" || !strings.Contains(body["error_description"].(string), "already used") {
			t.Errorf("reuse: %d %v", st, body)
		}
		st, body = e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt2}})
		if st != 400 || body["error"] != "invalid_grant" {
			t.Errorf("the newer token after reuse: %d %v", st, body)
		}
	})
	t.Run("revocation ends the grant", func(t *testing.T) {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
		_, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
		rt := tok["refresh_token"].(string)
		if st, body := e.postForm(t, "/revoke", url.Values{"client_id": {id}, "token": {rt}, "token_type_hint": {"refresh_token"}}); st != 200 {
			t.Fatalf("revoke: %d %v", st, body)
		}
		st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {rt}})
		if st != 400 || body["error"] != "invalid_grant" {
			t.Errorf("refresh after revocation: %d %v", st, body)
		}
	})
	// RFC 7009 §2.1: the hint is a hint; a token of the other type is found and revoked too.
	for _, tc := range []struct{ name, token, hint string }{
		{"a refresh token hinted as an access token", "refresh_token", "access_token"},
		{"an access token hinted as a refresh token", "access_token", "refresh_token"},
		{"a refresh token with an unknown hint", "refresh_token", "id_token"},
	} {
		t.Run("revocation: "+tc.name, func(t *testing.T) {
			p := newPKCE()
			code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
			_, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
			if st, body := e.postForm(t, "/revoke", url.Values{"client_id": {id}, "token": {tok[tc.token].(string)}, "token_type_hint": {tc.hint}}); st != 200 {
				t.Fatalf("revoke: %d %v", st, body)
			}
			st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok["refresh_token"].(string)}})
			if st != 400 || body["error"] != "invalid_grant" || !strings.Contains(body["error_description"].(string), "revoked") {
				t.Errorf("refresh after revocation: %d %v", st, body)
			}
		})
	}
	t.Run("a read-only grant cannot call a write tool", func(t *testing.T) {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, "", "alpha:read", p)
		_, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
		at := tok["access_token"].(string)
		if _, c := jwtParts(t, at); c["scope"] != "alpha:read" {
			t.Errorf("scope %v", c["scope"])
		}
		if st, _, _ := callTool(t, e.Alpha, at, "alpha_read"); st != 200 {
			t.Errorf("read tool: %d", st)
		}
		if st, www, _ := callTool(t, e.Alpha, at, "alpha_write"); st != 403 || !strings.Contains(www, "insufficient_scope") {
			t.Errorf("write tool: %d %s", st, www)
		}
	})
	t.Run("another resource at the token endpoint is refused", func(t *testing.T) {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "", p)
		st, body := e.exchange(t, id, redirect, code, p.verifier, url.Values{"resource": {e.Beta + "/mcp"}})
		if st != 400 || body["error"] != "invalid_target" {
			t.Errorf("%d %v", st, body)
		}
	})
	t.Run("a wrong verifier is refused", func(t *testing.T) {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "", p)
		if st, body := e.exchange(t, id, redirect, code, newPKCE().verifier, nil); st != 400 || body["error"] != "invalid_grant" {
			t.Errorf("%d %v", st, body)
		}
	})
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestAuthorizeRefusals: requests refused before anyone signs in.
func TestAuthorizeRefusals(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	base := func() url.Values {
		return url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"st"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
	}
	cases := []struct {
		name   string
		change func(url.Values)
		err    string // the error the client's redirect carries
	}{
		{"PKCE plain", func(q url.Values) { q.Set("code_challenge_method", "plain"); q.Set("code_challenge", p.verifier) }, "invalid_request"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		{"an unknown resource", func(q url.Values) { q.Set("resource", "https://evil.example.com/mcp") }, "invalid_target"},
		{"two resources", func(q url.Values) { q["resource"] = []string{e.Alpha + "/mcp", e.Beta + "/mcp"} }, "invalid_target"},
		{"two servers' scopes without a resource", func(q url.Values) { q.Del("resource"); q.Set("scope", "alpha:read beta:write") }, "invalid_target"},
		// RFC 7636 §4.2: an S256 challenge is 43 to 128 base64url characters.
		{"a 3-character challenge", func(q url.Values) { q.Set("code_challenge", "abc") }, "invalid_request"},
		{"a 42-character challenge", func(q url.Values) { q.Set("code_challenge", p.challenge[:42]) }, "invalid_request"},
		{"a 129-character challenge", func(q url.Values) { q.Set("code_challenge", strings.Repeat("a", 129)) }, "invalid_request"},
		{"a challenge outside base64url", func(q url.Values) { q.Set("code_challenge", "+"+p.challenge[1:]) }, "invalid_request"},
		{"a padded challenge", func(q url.Values) { q.Set("code_challenge", p.challenge+"=") }, "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := base()
			tc.change(q)
			loc, st, body := e.authorize(t, q)
			if loc == nil || loc.Query().Get("error") != tc.err || !strings.HasPrefix(loc.String(), redirect) {
				t.Errorf("%d %v %s", st, loc, body)
			}
		})
	}
	for _, ok := range []string{p.challenge, strings.Repeat("A", 128)} {
		q := base()
		q.Set("code_challenge", ok)
		if loc, st, body := e.authorize(t, q); loc == nil || loc.Path != loginPath {
			t.Errorf("challenge of %d characters refused: %d %v %s", len(ok), st, loc, body)
		}
	}
	// Only response_mode=query: the others are refused on this server's page, never by a
	// redirect that would travel in the mode asked for.
	for _, mode := range []string{"fragment", "form_post", "query.jwt", "web_message"} {
		t.Run("response_mode "+mode, func(t *testing.T) {
			q := base()
			q.Set("response_mode", mode)
			loc, st, body := e.authorize(t, q)
			if loc != nil || st != http.StatusBadRequest || !strings.Contains(body, "response_mode") || !strings.Contains(body, "query") {
				t.Errorf("%d %v %s", st, loc, body)
			}
		})
	}
	q := base()
	q.Set("response_mode", "query")
	if loc, st, body := e.authorize(t, q); loc == nil || loc.Path != loginPath {
		t.Errorf("response_mode query: %d %v %s", st, loc, body)
	}
	t.Run("a redirect port outside 1-65535 is not redirected to", func(t *testing.T) {
		for _, port := range []string{"0", "65536", "99999"} {
			q := base()
			q.Set("redirect_uri", "http://127.0.0.1:"+port+"/cb")
			if loc, st, _ := e.authorize(t, q); loc != nil || st != http.StatusBadRequest {
				t.Errorf("port %s: %d %v", port, st, loc)
			}
		}
	})
	t.Run("an unregistered redirect URI is not redirected to", func(t *testing.T) {
		q := base()
		q.Set("redirect_uri", "https://evil.example.com/cb")
		loc, st, _ := e.authorize(t, q)
		if loc != nil || st < 400 {
			t.Errorf("%d %v", st, loc)
		}
	})
}

func TestRegistration(t *testing.T) {
	e := startFleet(t)
	cases := []struct {
		name   string
		body   map[string]any
		status int
		err    string
	}{
		{"loopback http", map[string]any{"redirect_uris": []string{"http://127.0.0.1:33418/cb"}, "token_endpoint_auth_method": "none"}, 201, ""},
		{"localhost", map[string]any{"redirect_uris": []string{"http://localhost/cb"}, "token_endpoint_auth_method": "none"}, 201, ""},
		{"https", map[string]any{"redirect_uris": []string{"https://claude.ai/api/mcp/auth_callback"}, "client_name": "Claude"}, 201, ""},
		{"plain http elsewhere", map[string]any{"redirect_uris": []string{"http://app.example.com/cb"}}, 400, "invalid_redirect_uri"},
		{"a custom scheme", map[string]any{"redirect_uris": []string{"myapp://cb"}}, 400, "invalid_redirect_uri"},
		{"no redirect", map[string]any{"client_name": "x"}, 400, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, 400, "invalid_client_metadata"},
		{"private_key_jwt", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, 400, "invalid_client_metadata"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, body := e.postJSON(t, "/register", tc.body)
			if st != tc.status || (tc.err != "" && body["error"] != tc.err) {
				t.Fatalf("%d %v", st, body)
			}
			if st == 201 && (!strings.HasPrefix(body["client_id"].(string), "dcr-")) {
				t.Errorf("client_id %v", body["client_id"])
			}
		})
	}
	t.Run("a secret client authenticates with its secret", func(t *testing.T) {
		redirect := "https://app.example.com/cb"
		st, body := e.postJSON(t, "/register", map[string]any{"redirect_uris": []string{redirect}})
		if st != 201 || body["client_secret"] == nil || body["token_endpoint_auth_method"] != "client_secret_basic" {
			t.Fatalf("%d %v", st, body)
		}
		id, secret := body["client_id"].(string), body["client_secret"].(string)
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Beta+"/mcp", "", p)
		if st, body := e.exchange(t, id, redirect, code, p.verifier, url.Values{"client_secret": {"wrong"}}); st != 400 && st != 401 {
			t.Errorf("wrong secret: %d %v", st, body)
		}
		code = e.codeFor(t, id, redirect, e.Beta+"/mcp", "", p)
		if st, body := e.exchange(t, id, redirect, code, p.verifier, url.Values{"client_secret": {secret}}); st != 200 {
			t.Errorf("right secret: %d %v", st, body)
		}
	})
	t.Run("dcr off", func(t *testing.T) {
		off := startFleet(t, func(s *settings) { s.DCR = false })
		st, _ := off.postJSON(t, "/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}})
		if st != 404 {
			t.Errorf("%d", st)
		}
	})
}

// TestReadOnlyResource: a read-only URL (/mcp/readonly, /mcp/x/…/readonly) asks for the read
// scope alone in its metadata and its 401, the consent page offers read alone, and its tokens
// carry read alone, so such a token cannot call a write tool anywhere.
func TestReadOnlyResource(t *testing.T) {
	e := startFleet(t)
	res := e.Alpha + "/mcp/readonly"
	resp, err := http.Get(e.Alpha + "/.well-known/oauth-protected-resource/mcp/readonly")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource string   `json:"resource"`
		Scopes   []string `json:"scopes_supported"`
	}
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || meta.Resource != res || !slices.Equal(meta.Scopes, []string{"alpha:read"}) {
		t.Errorf("metadata: %+v %v", meta, err)
	}
	req, _ := http.NewRequest(http.MethodPost, res, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if www := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.HasSuffix(www, `scope="alpha:read"`) {
		t.Errorf("401 challenge: %d %q", resp.StatusCode, www)
	}

	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	// The client asks for everything the whole server offers; the consent page offers read.
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {res}, "scope": {"alpha:read alpha:write"}}
	loc, st, body := e.authorize(t, q)
	if loc == nil || loc.Path != loginPath {
		t.Fatalf("authorize: %d %v %s", st, loc, body)
	}
	a, err := e.app.store.authRequest(t.Context(), "id", loc.Query().Get("id"))
	if err != nil {
		t.Fatal(err)
	}
	cookie := randomToken(24)
	a.Subject, a.AuthTime, a.Binding = ownerSubject, time.Now(), hashToken(cookie)
	if err := e.app.store.saveAuthRequest(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	st, _, page := e.get(t, consentPath+"?id="+url.QueryEscape(a.ID), cookie)
	if st != 200 || !strings.Contains(page, `value="alpha:read"`) || strings.Contains(page, "alpha:write") {
		t.Errorf("consent page: %d\n%s", st, page)
	}

	code := e.codeFor(t, id, redirect, res, "alpha:read alpha:write", p)
	st, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
	if st != 200 || tok["scope"] != "alpha:read" {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	at := tok["access_token"].(string)
	if _, c := jwtParts(t, at); c["scope"] != "alpha:read" {
		t.Errorf("claims %v", c)
	}
	// Refreshing cannot widen it either.
	st, body2 := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok["refresh_token"].(string)}, "scope": {"alpha:read alpha:write"}})
	if st != 400 {
		t.Errorf("refresh asking for write: %d %v", st, body2)
	}
	for _, tc := range []struct {
		path, tool string
		status     int
	}{
		{"/mcp/readonly", "alpha_read", 200},
		{"/mcp/readonly", "alpha_write", 403},
		{"/mcp", "alpha_write", 401}, // a wider URL than the token's: refused outright
		{"/mcp", "alpha_read", 401},
	} {
		if st, www, _ := callToolAt(t, e.Alpha+tc.path, at, tc.tool); st != tc.status || (st >= 400 && www == "") {
			t.Errorf("%s %s: %d %q, want %d", tc.path, tc.tool, st, www, tc.status)
		}
	}
}
