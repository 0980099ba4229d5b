package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestTokenResponsesNotCached: RFC 6749 §5.1 — every token endpoint answer, and the other
// answers that carry credentials, has Cache-Control: no-store and Pragma: no-cache.
func TestTokenResponsesNotCached(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
	good := url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "redirect_uri": {redirect}, "code": {code}, "code_verifier": {p.verifier}}
	cases := []struct {
		name, path string
		body       string
		ctype      string
		status     int
	}{
		{"token issued", "/token", good.Encode(), "application/x-www-form-urlencoded", 200},
		{"token refused", "/token", good.Encode(), "application/x-www-form-urlencoded", 400}, // the code is used now
		{"revocation", "/revoke", url.Values{"client_id": {id}, "token": {"nothing"}}.Encode(), "application/x-www-form-urlencoded", 200},
		{"registration", "/register", `{"redirect_uris":["https://app.example.com/cb"]}`, "application/json", 201},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := e.noRedirect.Post(e.Issuer+tc.path, tc.ctype, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Pragma") != "no-cache" {
				t.Errorf("%d, Cache-Control %q, Pragma %q: %s", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Pragma"), b)
			}
		})
	}
}

// TestRegistrationSecretExpiry: RFC 7591 §3.2.1 — a client given a secret learns when it
// expires (0: never); a public client gets neither field.
func TestRegistrationSecretExpiry(t *testing.T) {
	e := startFleet(t)
	cases := []struct {
		name       string
		method     string
		wantSecret bool
	}{
		{"client_secret_basic", "client_secret_basic", true},
		{"client_secret_post", "client_secret_post", true},
		{"default (basic)", "", true},
		{"public", "none", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"redirect_uris": []string{"https://app.example.com/cb"}}
			if tc.method != "" {
				req["token_endpoint_auth_method"] = tc.method
			}
			st, body := e.postJSON(t, "/register", req)
			exp, hasExp := body["client_secret_expires_at"]
			_, hasSecret := body["client_secret"]
			if st != 201 || hasSecret != tc.wantSecret || hasExp != tc.wantSecret || (hasExp && exp != float64(0)) {
				t.Errorf("%d %v", st, body)
			}
			if iat, _ := body["client_id_issued_at"].(float64); time.Since(time.Unix(int64(iat), 0)) > time.Minute {
				t.Errorf("client_id_issued_at %v", body["client_id_issued_at"])
			}
		})
	}
}

// TestDiscoveryIsPlainOAuth: the server is no OpenID provider (no ID tokens, no openid scope),
// so it publishes RFC 8414 metadata without OpenID Connect's fields, and no OIDC discovery.
func TestDiscoveryIsPlainOAuth(t *testing.T) {
	e := startFleet(t)
	resp, err := http.Get(e.Issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("openid-configuration: %d, want 404", resp.StatusCode)
	}
	resp, err = http.Get(e.Issuer + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	for _, k := range []string{"id_token_signing_alg_values_supported", "subject_types_supported", "claims_supported", "userinfo_endpoint",
		"request_parameter_supported", "request_uri_parameter_supported", "claims_parameter_supported", "end_session_endpoint",
		"request_object_signing_alg_values_supported", "introspection_endpoint"} {
		if v, ok := m[k]; ok {
			t.Errorf("metadata has the OpenID Connect field %s: %v", k, v)
		}
	}
	if s, _ := json.Marshal(m["scopes_supported"]); strings.Contains(string(s), `"openid"`) {
		t.Errorf("scopes_supported %s offers openid", s)
	}
	if m["issuer"] != e.Issuer || m["authorization_endpoint"] != e.Issuer+"/authorize" {
		t.Errorf("metadata %v", m)
	}
}

// TestMetadataPreflight: a browser-based client's CORS preflight (it sends MCP-Protocol-Version)
// of the metadata is answered, and the GET is readable from any origin.
func TestMetadataPreflight(t *testing.T) {
	e := startFleet(t)
	req, _ := http.NewRequest(http.MethodOptions, e.Issuer+"/.well-known/oauth-authorization-server", nil)
	req.Header.Set("Origin", "https://inspector.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "mcp-protocol-version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "GET") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "mcp-protocol-version") {
		t.Errorf("preflight: %d %v", resp.StatusCode, h)
	}
	req, _ = http.NewRequest(http.MethodGet, e.Issuer+"/.well-known/oauth-authorization-server", nil)
	req.Header.Set("Origin", "https://inspector.example")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ = http.NewRequest(http.MethodPost, e.Issuer+"/.well-known/oauth-authorization-server", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

// TestSignInsFitTheDefaultLimits: with the default limits, five sign-ins in a row from one
// address, each making every request a browser and its app make (authorize, the sign-in page,
// the passkey steps, the consent page and answer, the token exchange), are never refused.
func TestSignInsFitTheDefaultLimits(t *testing.T) {
	e := startFleet(t, func(s *settings) { s.Limits = limits{} }) // newApp's defaults
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	for flow := range 5 {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar, CheckRedirect: e.noRedirect.CheckRedirect, Timeout: 10 * time.Second}
		p := newPKCE()
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "state": {"st"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
		steps := []struct{ method, path, body string }{
			{"GET", "/authorize?" + q.Encode(), ""},
			{"GET", loginPath + "?id=ID", ""},
			{"POST", loginBeginPath + "?id=ID", "{}"},
			{"POST", loginFinishPath + "?id=ID", "{}"},
			{"GET", consentPath + "?id=ID", ""},
			{"POST", consentPath, "id=ID&csrf=x&action=deny"},
			{"POST", "/token", "grant_type=authorization_code&code=none&client_id=" + url.QueryEscape(id)},
		}
		reqID := ""
		for _, s := range steps {
			path := strings.ReplaceAll(s.path, "ID", url.QueryEscape(reqID))
			body := strings.ReplaceAll(s.body, "ID", url.QueryEscape(reqID))
			req, _ := http.NewRequest(s.method, e.Issuer+path, strings.NewReader(body))
			if strings.HasPrefix(body, "{") {
				req.Header.Set("Content-Type", "application/json")
			} else if body != "" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if loc, err := resp.Location(); err == nil && reqID == "" {
				reqID = loc.Query().Get("id")
			}
			if resp.StatusCode == http.StatusTooManyRequests {
				t.Fatalf("flow %d: %s %s refused: %s", flow+1, s.method, s.path, resp.Header.Get("Retry-After"))
			}
		}
		if reqID == "" {
			t.Fatalf("flow %d: authorize gave no request id", flow+1)
		}
	}
}

// TestLimiter: the client address is the header's only from a trusted proxy, the global cap
// holds whatever addresses are named, the map of buckets stays bounded, and the wait is in words.
func TestLimiter(t *testing.T) {
	proxies, err := parseProxies([]string{"127.0.0.1", "::1", "10.9.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("client address", func(t *testing.T) {
		l := newLimiter(limits{PerIP: 1, Global: 1, Proxies: proxies}, func(string) {}, nil)
		cases := []struct {
			peer   string
			header []string
			want   string
		}{
			{"127.0.0.1:5000", []string{"203.0.113.7"}, "203.0.113.7"},
			{"[::1]:5000", []string{"2001:db8::1"}, "2001:db8::/64"},
			{"[::1]:5000", []string{"2001:db8::2:3:4:5"}, "2001:db8::/64"}, // one /64, one client
			{"[::1]:5000", []string{"2001:db8:0:1::1"}, "2001:db8:0:1::/64"},
			{"10.9.3.4:5000", []string{"203.0.113.7"}, "203.0.113.7"},
			{"192.0.2.10:5000", []string{"203.0.113.7"}, "192.0.2.10"}, // not a proxy: the header is the caller's claim
			{"127.0.0.1:5000", []string{"not-an-ip"}, "127.0.0.1"},
			{"127.0.0.1:5000", []string{"203.0.113.050"}, "127.0.0.1"}, // not an IP address: ignored
			{"127.0.0.1:5000", []string{" 203.0.113.50 "}, "203.0.113.50"},
			{"127.0.0.1:5000", []string{"203.0.113.5, 198.51.100.1"}, "127.0.0.1"},
			{"127.0.0.1:5000", []string{"203.0.113.5", "198.51.100.1"}, "127.0.0.1"}, // two headers: ignored
			{"127.0.0.1:5000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},        // IPv4 in IPv6: unmapped
			{"127.0.0.1:5000", []string{"fe80::1%eth0"}, "fe80::/64"},
			{"127.0.0.1:5000", nil, "127.0.0.1"},
			{"[::ffff:127.0.0.1]:5000", []string{"203.0.113.8"}, "203.0.113.8"},
			{"[2001:db8:5::7]:5000", nil, "2001:db8:5::/64"}, // a direct IPv6 peer is grouped too
		}
		for _, tc := range cases {
			r := httptest.NewRequest(http.MethodPost, "/token", nil)
			r.RemoteAddr = tc.peer
			for _, h := range tc.header {
				r.Header.Add("Cf-Connecting-Ip", h)
			}
			if got := l.clientKey(r); got != tc.want {
				t.Errorf("peer %s header %q: %s, want %s", tc.peer, tc.header, got, tc.want)
			}
		}
		untrusted := newLimiter(limits{PerIP: 1, Global: 1}, func(string) {}, nil)
		r := httptest.NewRequest(http.MethodPost, "/token", nil)
		r.RemoteAddr = "127.0.0.1:5000"
		r.Header.Set("Cf-Connecting-Ip", "203.0.113.7")
		if got := untrusted.clientKey(r); got != "127.0.0.1" {
			t.Errorf("no proxy configured: %s", got)
		}
	})
	t.Run("rotating the header hits the global cap", func(t *testing.T) {
		l := newLimiter(limits{PerIP: 5, Global: 20, Proxies: proxies}, func(string) {}, nil)
		h := l.wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
		ok := 0
		for i := range 100 {
			r := httptest.NewRequest(http.MethodPost, "/token", nil)
			r.RemoteAddr = "127.0.0.1:5000"
			r.Header.Set("Cf-Connecting-Ip", fmt.Sprintf("198.51.100.%d", i))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code == http.StatusNoContent {
				ok++
			}
		}
		if ok != 20 {
			t.Errorf("%d of 100 admitted, want the global 20", ok)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		l := newLimiter(limits{PerIP: 2, Global: 1 << 30}, func(string) {}, nil)
		base := netip.MustParseAddr("2001:db8::")
		for range maxBuckets + 500 {
			base = base.Next()
			l.allow(base.String(), false)
		}
		if n := l.size(); n > maxBuckets {
			t.Errorf("%d buckets, want at most %d", n, maxBuckets)
		}
		// The overflow bucket is shared: new addresses beyond the bound run out together.
		admitted := 0
		for range 5 {
			base = base.Next()
			if ok, _ := l.allow(base.String(), false); ok {
				admitted++
			}
		}
		if admitted != 0 {
			t.Errorf("%d new addresses admitted past the bound with the overflow bucket used up", admitted)
		}
	})
	t.Run("wait in words", func(t *testing.T) {
		for secs, want := range map[int]string{0: "1 second", 1: "1 second", 2: "2 seconds", 59: "59 seconds", 60: "1 minute", 61: "2 minutes", 150: "3 minutes"} {
			if got := inWords(secs); got != want {
				t.Errorf("%d: %q, want %q", secs, got, want)
			}
		}
	})
}
