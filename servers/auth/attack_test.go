package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCodeUsedOnceAcrossConnections: concurrent exchanges of one code, through three servers
// over the same database file (three connections, as three processes would have), give
// exactly one token.
func TestCodeUsedOnceAcrossConnections(t *testing.T) {
	e := startFleet(t)
	issuers := []string{e.Issuer}
	for range 2 {
		a, err := newApp(e.app.settings)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		ln, port := listen(t)
		serveOn(t, ln, a.handler)
		issuers = append(issuers, "http://localhost:"+port)
	}
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	for round := range 3 {
		p := newPKCE()
		code := e.codeFor(t, id, redirect, e.Alpha+"/mcp", "alpha:read", p)
		form := url.Values{"grant_type": {"authorization_code"}, "client_id": {id}, "redirect_uri": {redirect}, "code": {code}, "code_verifier": {p.verifier}}
		const racers = 12
		type result struct {
			status  int
			refresh string
		}
		var wg sync.WaitGroup
		results := make(chan result, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Go(func() {
				<-start
				resp, err := http.PostForm(issuers[i%len(issuers)]+"/token", form)
				if err != nil {
					t.Error(err)
					return
				}
				var body struct {
					RefreshToken string `json:"refresh_token"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				results <- result{resp.StatusCode, body.RefreshToken}
			})
		}
		close(start)
		wg.Wait()
		close(results)
		won, lost, refresh := 0, 0, ""
		for r := range results {
			switch r.status {
			case 200:
				won++
				refresh = r.refresh
			case 400:
				lost++
			default:
				t.Errorf("round %d: status %d", round, r.status)
			}
		}
		if won != 1 || lost != racers-1 {
			t.Errorf("round %d: %d exchanges won, %d lost; want exactly 1 winner", round, won, lost)
		}
		// The losers presented a used code: the winner's grant is revoked (OAuth 2.1), whichever
		// order the exchanges ran in.
		if st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "refresh_token": {refresh}}); st != 400 || body["error"] != "invalid_grant" {
			t.Errorf("round %d: the winner's refresh after the replays: %d %v", round, st, body)
		}
	}
}

// signedIn runs an authorization request to the sign-in page and marks it signed in and
// consented by the browser whose cookie it returns, as the pages would.
func (e *fleetEnv) signedIn(t *testing.T, clientID, redirect string) (id, cookie string) {
	t.Helper()
	p := newPKCE()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
	loc, st, body := e.authorize(t, q)
	if loc == nil || loc.Path != loginPath {
		t.Fatalf("authorize: %d %v %s", st, loc, body)
	}
	id = loc.Query().Get("id")
	a, err := e.app.store.authRequest(t.Context(), "id", id)
	if err != nil {
		t.Fatal(err)
	}
	cookie = randomToken(24)
	a.Subject, a.AuthTime, a.Consented, a.Binding = ownerSubject, time.Now(), true, hashToken(cookie)
	if err := e.app.store.saveAuthRequest(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	return id, cookie
}

// get fetches path from the auth server with the sign-in cookie (when not empty), no
// redirects: the status, the headers and the body.
func (e *fleetEnv) get(t *testing.T, path, cookie string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.Issuer+path, nil)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "mcp-auth", Value: cookie})
	}
	resp, err := e.noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestCallbackBoundToBrowser: only the browser that signed in turns a finished request into a
// code; its id alone, with no cookie or another browser's, gets nothing.
func TestCallbackBoundToBrowser(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	client := e.register(t, redirect)
	id, cookie := e.signedIn(t, client, redirect)
	path := "/authorize/callback?id=" + url.QueryEscape(id)
	for name, c := range map[string]string{"no cookie": "", "another browser": randomToken(24)} {
		st, h, body := e.get(t, path, c)
		if st != http.StatusForbidden || h.Get("Location") != "" || !strings.Contains(body, "another browser") {
			t.Errorf("%s: %d %q %s", name, st, h.Get("Location"), body)
		}
	}
	st, h, _ := e.get(t, path, cookie)
	loc, err := url.Parse(h.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" || !strings.HasPrefix(loc.String(), redirect) {
		t.Errorf("the signed-in browser: %d %v", st, loc)
	}
}

// TestLoopbackRedirects: a loopback redirect URI may differ from the registered one in its
// port only (RFC 8252 §7.3); scheme, host, path and query must match; user info and fragments
// are refused at registration and at authorization.
func TestLoopbackRedirects(t *testing.T) {
	e := startFleet(t)
	registered := "http://127.0.0.1:33418/cb"
	client := e.register(t, registered)
	p := newPKCE()
	cases := []struct {
		uri string
		ok  bool
	}{
		{registered, true},
		{"http://127.0.0.1:51000/cb", true},
		{"http://127.0.0.1/cb", true},
		{"http://localhost:33418/cb", false},
		{"http://[::1]:33418/cb", false},
		{"https://127.0.0.1:33418/cb", false},
		{"http://127.0.0.1:33418/cb2", false},
		{"http://127.0.0.1:33418/cb/", false},
		{"http://127.0.0.1:33418/cb?x=1", false},
		{"http://evil@127.0.0.1:33418/cb", false},
		{"http://127.0.0.1:33418/cb#frag", false},
		{"http://127.0.0.1:33418/cb#", false},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {tc.uri}, "state": {"st"},
				"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
			loc, st, body := e.authorize(t, q)
			switch {
			case tc.ok && (loc == nil || loc.Path != loginPath):
				t.Errorf("refused: %d %v %s", st, loc, body)
			case !tc.ok && loc != nil:
				t.Errorf("redirected to %v", loc)
			case !tc.ok && st != http.StatusBadRequest:
				t.Errorf("status %d: %s", st, body)
			}
		})
	}
	for _, bad := range []string{"http://user:pw@127.0.0.1:1/cb", "http://127.0.0.1:1/cb#", "https://app.example.com/cb#x"} {
		if st, body := e.postJSON(t, "/register", map[string]any{"redirect_uris": []string{bad}, "token_endpoint_auth_method": "none"}); st != 400 || body["error"] != "invalid_redirect_uri" {
			t.Errorf("register %s: %d %v", bad, st, body)
		}
	}
}

// TestConsentShowsHiddenCharacters: a client name with bidi overrides, zero-width or other
// invisible characters is shown on the consent page with them written out.
func TestConsentShowsHiddenCharacters(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	cases := []struct{ name, want string }{
		{"Good App\u202Eexe.tab", `Good App\u202Eexe.tab`},
		{"Claude\u200B\u200D", `Claude\u200B\u200D`},
		{"Pay\u2066Pal\u2069", `Pay\u2066Pal\u2069`},
		{"A\u00A0B\u0085C", `A\u00A0B\u0085C`},
		{"Cl\u3164aude", `Cl\u3164aude`},
		{"Café <b>", "Café &lt;b&gt;"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			st, body := e.postJSON(t, "/register", map[string]any{"redirect_uris": []string{redirect}, "client_name": tc.name, "token_endpoint_auth_method": "none"})
			if st != 201 {
				t.Fatalf("register: %d %v", st, body)
			}
			id, cookie := e.signedIn(t, body["client_id"].(string), redirect)
			st, _, page := e.get(t, consentPath+"?id="+url.QueryEscape(id), cookie)
			if st != 200 || !strings.Contains(page, "<strong>"+tc.want+"</strong>") {
				t.Errorf("%d: the page does not show %q:\n%s", st, tc.want, page)
			}
			for _, r := range tc.name {
				if r > 0x7f && r != 'é' && strings.ContainsRune(page, r) {
					t.Errorf("the page carries U+%04X raw", r)
				}
			}
		})
	}
}

// TestUseCodeOnce: every exchange may have read the request before any consumed it (the window
// between the token endpoint's read and its delete); the delete itself decides, over separate
// connections, and exactly one wins.
func TestUseCodeOnce(t *testing.T) {
	e := startFleet(t)
	redirect := "http://127.0.0.1:5555/cb"
	client := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, client, redirect, e.Alpha+"/mcp", "alpha:read", p)
	var stores []*storage
	for range 4 {
		d, err := openDB(e.app.StateDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		stores = append(stores, &storage{db: d})
	}
	var reqID string
	for _, s := range stores { // every racer has read the request
		a, err := s.AuthRequestByCode(t.Context(), code)
		if err != nil {
			t.Fatal(err)
		}
		reqID = a.GetID()
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(stores))
	for i := range 4 * len(stores) {
		wg.Go(func() { errs <- useCode(t.Context(), stores[i%len(stores)].db.sql, reqID, code) })
	}
	wg.Wait()
	close(errs)
	won := 0
	for err := range errs {
		if err == nil {
			won++
		} else if !strings.Contains(err.Error(), "used or expired") {
			t.Errorf("a losing exchange: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d exchanges consumed the code, want 1", won)
	}
}

// TestOldRedirectsHeldToTodaysRules: a client stored before the redirect rules tightened (a
// look-alike Unicode host, a loopback address other than the three) is refused at /authorize,
// on this server's page, not redirected to.
func TestOldRedirectsHeldToTodaysRules(t *testing.T) {
	e := startFleet(t)
	p := newPKCE()
	for i, uri := range []string{"https://\u0430\u0440\u0440\u04cf\u0435.com/cb", "http://127.0.0.2:5555/cb", "http://[::ffff:127.0.0.1]:5555/cb"} {
		id := "dcr-legacy-" + strconv.Itoa(i)
		if _, err := e.app.db.sql.Exec("INSERT INTO clients (id, kind, name, redirect_uris, grant_types, created) VALUES (?, 'dcr', 'Old', ?, '[\"authorization_code\"]', ?)",
			id, jsonList([]string{uri}), time.Now().Unix()); err != nil {
			t.Fatal(err)
		}
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {uri}, "state": {"s"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
		if loc, st, body := e.authorize(t, q); loc != nil || st != http.StatusBadRequest || !strings.Contains(body, "register the client again") {
			t.Errorf("%s: %d %v %s", uri, st, loc, body)
		}
	}
}
