package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-webauthn/webauthn/webauthn"
)

// TestCookies: over https the page cookies are Secure with the __Host- prefix; always HttpOnly
// and SameSite=Lax.
func TestCookies(t *testing.T) {
	for _, secure := range []bool{true, false} {
		w := httptest.NewRecorder()
		(&ui{secure: secure}).setCookie(w, "mcp-auth", "v")
		c := w.Header().Get("Set-Cookie")
		want := []string{"mcp-auth=v", "Path=/", "HttpOnly", "SameSite=Lax"}
		if secure {
			want = append(want, "__Host-mcp-auth=v", "Secure")
		}
		for _, s := range want {
			if !strings.Contains(c, s) {
				t.Errorf("secure=%v: %q lacks %q", secure, c, s)
			}
		}
		if !secure && strings.Contains(c, "Secure") {
			t.Errorf("a Secure cookie over http: %q", c)
		}
	}
}

// TestPageGuards: the sign-in and consent steps need the browser that opened the sign-in page
// (its cookie) and the page's CSRF token; enrolment needs its page's cookie and token.
func TestPageGuards(t *testing.T) {
	e := startFleet(t)
	if err := e.app.passkeys.add(t.Context(), &webauthn.Credential{ID: []byte("test-passkey")}); err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	loc, st, body := e.authorize(t, url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}})
	if loc == nil {
		t.Fatalf("authorize: %d %s", st, body)
	}
	jar, _ := cookiejar.New(nil)
	owner := &http.Client{Jar: jar, CheckRedirect: e.noRedirect.CheckRedirect}
	resp, err := owner.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`data-csrf="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the sign-in page: %s", page)
	}
	csrf := string(m[1])
	reqID := loc.Query().Get("id")
	post := func(c *http.Client, path, token, form string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, e.Issuer+path, strings.NewReader(form))
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		if form != "" && !strings.HasPrefix(form, "{") {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cases := []struct {
		name   string
		client *http.Client
		path   string
		token  string
		form   string
		status int
		words  string
	}{
		{"sign-in without the token", owner, loginBeginPath + "?id=" + reqID, "", "", 403, "CSRF"},
		{"sign-in from another browser", e.noRedirect, loginBeginPath + "?id=" + reqID, csrf, "", 403, "another browser"},
		{"sign-in with both", owner, loginBeginPath + "?id=" + reqID, csrf, "", 200, "challenge"},
		{"consent with a wrong token", owner, consentPath, "", "id=" + reqID + "&csrf=wrong&action=allow", 403, "CSRF"},
		{"consent before sign-in", owner, consentPath, "", "id=" + reqID + "&csrf=" + csrf + "&action=allow", 403, "Sign in"},
		{"enrolment without its page", e.noRedirect, enrolBeginPath, "x", `{"code":"x"}`, 403, "reload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, body := post(tc.client, tc.path, tc.token, tc.form)
			if st != tc.status || !strings.Contains(body, tc.words) {
				t.Errorf("%d %s", st, body)
			}
		})
	}
}
