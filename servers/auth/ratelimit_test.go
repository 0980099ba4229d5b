package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOwnerNotStarved: requests from many addresses that spend an endpoint's shared global
// budget do not lock the owner out: the owner's browser (a live session) still reaches
// /authorize, and the owner's app still exchanges its code and refreshes at /token, while
// everyone else gets 429.
func TestOwnerNotStarved(t *testing.T) {
	proxies, err := parseProxies([]string{"127.0.0.1", "::1"})
	if err != nil {
		t.Fatal(err)
	}
	e := startFleet(t, func(s *settings) { s.Limits = limits{PerIP: 100, Global: 4, Proxies: proxies} })
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p) // one /authorize of the 4
	session, err := (&sessions{db: e.app.db}).create(t.Context(), "owner-passkey")
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path, body, from string, cookie string) (int, map[string]any) {
		req, _ := http.NewRequest(method, e.Issuer+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if from != "" {
			req.Header.Set("Cf-Connecting-Ip", from)
		}
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		}
		resp, err := e.noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	// Others spend the shared budgets from rotating addresses.
	spend := func(method, path, body string) {
		t.Helper()
		refused := 0
		for i := range 10 {
			if st, _ := send(method, path, body, fmt.Sprintf("198.51.100.%d", i+1), ""); st == http.StatusTooManyRequests {
				refused++
			}
		}
		if refused == 0 {
			t.Fatalf("%s: the shared budget was never spent", path)
		}
	}
	authorize := "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}.Encode()
	spend(http.MethodGet, authorize, "")
	if st, _ := send(http.MethodGet, authorize, "", "203.0.113.5", ""); st != http.StatusTooManyRequests {
		t.Errorf("a stranger after the budget is spent: %d", st)
	}
	if st, _ := send(http.MethodGet, authorize, "", "203.0.113.5", "forged-session"); st != http.StatusTooManyRequests {
		t.Errorf("a made-up session cookie: %d", st)
	}
	if st, _ := send(http.MethodGet, authorize, "", "203.0.113.9", session); st != http.StatusFound {
		t.Errorf("the owner's browser: %d, want the redirect to the sign-in page", st)
	}

	spend(http.MethodPost, "/token", "grant_type=authorization_code&code=guess&client_id="+id)
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "redirect_uri": {redirect}, "code": {code}, "code_verifier": {p.verifier}}
	st, tok := send(http.MethodPost, "/token", exchange.Encode(), "203.0.113.9", "")
	if st != http.StatusOK {
		t.Fatalf("the owner's app exchanging its code: %d %v", st, tok)
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {tok["refresh_token"].(string)}}
	if st, body := send(http.MethodPost, "/token", refresh.Encode(), "203.0.113.9", ""); st != http.StatusOK {
		t.Errorf("the owner's app refreshing: %d %v", st, body)
	}
	refresh.Set("refresh_token", "guess")
	if st, body := send(http.MethodPost, "/token", refresh.Encode(), "203.0.113.5", ""); st != http.StatusTooManyRequests {
		t.Errorf("a guessed refresh token: %d %v", st, body)
	}
}
