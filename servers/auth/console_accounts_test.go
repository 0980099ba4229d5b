package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// fakeAccounts is a provider's accounts service over real HTTP: its token endpoint exchanges
// good-code only with the PKCE verifier of the consent URL the test last consented to; it
// revokes, and answers the Spotify API's /v1/me.
type fakeAccounts struct {
	URL       string
	mu        sync.Mutex
	challenge string
	scope     string
	revoked   []string
}

func newFakeAccounts(t *testing.T) *fakeAccounts {
	t.Helper()
	f := &fakeAccounts{}
	mux := http.NewServeMux()
	token := func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		challenge, scope := f.challenge, f.scope
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if r.FormValue("grant_type") != "authorization_code" || r.FormValue("code") != "good-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		claims := base64.RawURLEncoding.EncodeToString([]byte(`{"email":"bea@example.com"}`))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "new-access", "refresh_token": "new-refresh", "expires_in": 3600,
			"token_type": "Bearer", "scope": scope, "id_token": "e30." + claims + ".sig"})
	}
	mux.HandleFunc("POST /token", token)
	mux.HandleFunc("POST /api/token", token) // Spotify's path
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.revoked = append(f.revoked, r.FormValue("token"))
		f.mu.Unlock()
	})
	mux.HandleFunc("GET /v1/me", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"id":"bea","display_name":"Bea"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// consent plays the owner at the provider: it takes the consent URL and returns the address
// the browser lands on afterwards.
func (f *fakeAccounts) consent(t *testing.T, consentURL string) string {
	t.Helper()
	u, err := url.Parse(consentURL)
	if err != nil || u.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("consent URL %q: %v", consentURL, err)
	}
	f.mu.Lock()
	f.challenge, f.scope = u.Query().Get("code_challenge"), u.Query().Get("scope")
	f.mu.Unlock()
	return u.Query().Get("redirect_uri") + "?state=" + url.QueryEscape(u.Query().Get("state")) + "&code=good-code"
}

// withSignInServers adds gmail and spotify to the console: servers with sign-ins, started by
// startSignInServers.
func withSignInServers() envOption {
	return func(s *settings) {
		for _, name := range []string{"gmail", "spotify"} {
			s.Console = append(s.Console, consoleServer{Name: name, client: &admin.Client{Token: consoleToken}})
		}
	}
}

// signInServers are the files of the test's Google and Spotify sign-ins.
type signInServers struct {
	google, spotify oauth.Files
}

// startSignInServers starts gmail and spotify as small kit servers whose admin surface carries
// the production sign-ins (oauth.SignIns) against f: gmail's Google sign-in (ada signed in as
// the default account; grants revoked at f) and spotify's, with nobody signed in.
func (e *fleetEnv) startSignInServers(t *testing.T, f *fakeAccounts) signInServers {
	t.Helper()
	args := googletest.SignIn(t, f.URL+"/token", time.Now().Add(time.Hour), "https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic")
	flag := func(name string) string {
		for i, a := range args {
			if a == name {
				return args[i+1]
			}
		}
		return ""
	}
	google := *oauth.Google
	google.RevokeURL = f.URL + "/revoke"
	dir := filepath.Join(t.TempDir(), "spotify")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out := signInServers{
		google:  oauth.Files{Token: flag("--google-token-file"), Client: flag("--google-client-file")},
		spotify: oauth.Files{Token: filepath.Join(dir, "token.json"), Client: filepath.Join(dir, "client.json")},
	}
	if err := os.WriteFile(out.spotify.Client, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		name  string
		p     *oauth.Provider
		files oauth.Files
	}{{"gmail", &google, out.google}, {"spotify", oauth.Spotify.WithAccountsURL(f.URL), out.spotify}} {
		ln, port := listen(t)
		base := "http://127.0.0.1:" + port
		cfg, err := config.Parse(s.name, 9999, []string{"--state-dir", t.TempDir(), "--admin-token-sha256", admin.HashToken(consoleToken)}, func(string) string { return "" }, io.Discard, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec := mcpSpec(s.name)
		tools := spec.Setup
		spec.Setup = func(ks *kit.Server) error {
			h := oauth.NewSignIns(s.p, s.name, s.files, f.URL+"/v1/", nil).Handler()
			ks.HandleAdmin(admin.PathAccounts, h)
			ks.HandleAdmin(admin.PathAccounts+"/", h)
			return tools(ks)
		}
		ks, err := kit.New(spec, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ks.Handler()
		if err != nil {
			t.Fatal(err)
		}
		serveOn(t, ln, h)
		t.Cleanup(ks.Close)
		for _, c := range e.app.Console {
			if c.Name == s.name {
				c.client.Base = base
			}
		}
	}
	return out
}

var consentLink = regexp.MustCompile(`id="consent-url" href="([^"]+)"`)

// TestConsoleAccounts: the accounts page over real HTTP: Google's sign-ins shown once for the
// servers that share them and Spotify's; a Spotify sign-in started by the form and finished
// by pasting the redirected address (exchanged by the server against the fake, with PKCE),
// an address of no sign-in refused without being shown again, a Google account signed in and
// signed out (its grant revoked), every step in the console's record; servers without
// sign-ins are left out, and an unreachable one is named.
func TestConsoleAccounts(t *testing.T) {
	fake := newFakeAccounts(t)
	e := startFleet(t, withConsole(t), withSignInServers())
	files := e.startSignInServers(t, fake)
	cookie := e.consoleSession(t)
	csrf := csrfFor(cookie)

	status, body, _ := e.consoleReq(t, http.MethodGet, consoleAccountsAPIPath, cookie, nil, nil)
	var got struct {
		Providers   []signInGroup     `json:"providers"`
		Unreachable map[string]string `json:"unreachable"`
	}
	if err := json.Unmarshal([]byte(body), &got); status != http.StatusOK || err != nil || len(got.Providers) != 2 {
		t.Fatalf("accounts JSON: %d %v %s", status, err, body)
	}
	if g := got.Providers[0]; g.Provider != "google" || g.Via != "gmail" || len(g.Accounts) != 1 || g.Accounts[0].Account != "ada@example.com" || g.Accounts[0].State != "ok" {
		t.Errorf("google: %+v", g)
	}
	if s := got.Providers[1]; s.Provider != "spotify" || s.Via != "spotify" || len(s.Accounts) != 0 {
		t.Errorf("spotify: %+v", s)
	}
	if !strings.Contains(got.Unreachable["gamma"], "unreachable") || got.Unreachable["alpha"] != "" {
		t.Errorf("unreachable: %v", got.Unreachable)
	}
	if strings.Contains(body, "refresh") || strings.Contains(body, "live-token") {
		t.Errorf("the accounts JSON holds a token: %s", body)
	}

	// Spotify: start, a wrong address, then the right one.
	status, page, _ := e.consoleReq(t, http.MethodPost, consoleAccountStart, cookie, url.Values{"csrf": {csrf}, "server": {"spotify"}, "read_only": {"1"}}, nil)
	m := consentLink.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil || !strings.HasPrefix(m[1], fake.URL+"/authorize?") || !strings.Contains(page, "http://127.0.0.1:8888/callback") {
		t.Fatalf("start: %d %s", status, text(page))
	}
	redirect := fake.consent(t, html.UnescapeString(m[1]))
	wrong := strings.Replace(redirect, "state=", "state=forged", 1)
	status, page, _ = e.consoleReq(t, http.MethodPost, consoleAccountFinish, cookie, url.Values{"csrf": {csrf}, "server": {"spotify"}, "redirect": {wrong}}, nil)
	if status != http.StatusBadRequest || !strings.Contains(text(page), "belongs to no open sign-in") || strings.Contains(page, "good-code") || strings.Contains(page, "forged") {
		t.Errorf("a foreign address: %d %s", status, text(page))
	}
	status, page, loc := e.consoleReq(t, http.MethodPost, consoleAccountFinish, cookie, url.Values{"csrf": {csrf}, "server": {"spotify"}, "redirect": {redirect}}, nil)
	if status != http.StatusSeeOther || loc != consoleAccountsPath {
		t.Fatalf("finish: %d %s %s", status, loc, text(page))
	}
	rec, err := oauth.ReadRecord(files.spotify.Token)
	if err != nil || rec.RefreshToken != "new-refresh" || rec.Account != "Bea (bea)" {
		t.Fatalf("spotify's token file: %+v %v", rec, err)
	}
	_, page, _ = e.consoleReq(t, http.MethodGet, consoleAccountsPath, cookie, nil, nil)
	if !strings.Contains(page, `id="account-spotify-default" data-state="ok"`) || !strings.Contains(text(page), "default · Bea (bea)") || strings.Contains(page, "new-refresh") {
		t.Errorf("accounts page after the Spotify sign-in:\n%s", text(page))
	}

	// Google: another account beside ada, then signed out again.
	status, page, _ = e.consoleReq(t, http.MethodPost, consoleAccountStart, cookie, url.Values{"csrf": {csrf}, "server": {"gmail"}, "label": {"work"}, "service": {"gmail", "calendar"}}, nil)
	if m = consentLink.FindStringSubmatch(page); status != http.StatusOK || m == nil {
		t.Fatalf("google start: %d %s", status, text(page))
	}
	redirect = fake.consent(t, html.UnescapeString(m[1]))
	if status, _, _ := e.consoleReq(t, http.MethodPost, consoleAccountFinish, cookie, url.Values{"csrf": {csrf}, "server": {"gmail"}, "redirect": {redirect}}, nil); status != http.StatusSeeOther {
		t.Fatalf("google finish: %d", status)
	}
	work := oauth.AccountFile(files.google.Token, "work")
	if rec, err := oauth.ReadRecord(work); err != nil || rec.Account != "bea@example.com" || !strings.Contains(strings.Join(rec.Scopes, " "), "auth/calendar") {
		t.Fatalf("work's token file: %+v %v", rec, err)
	}
	status, _, loc = e.consoleReq(t, http.MethodPost, consoleAccountSignOut, cookie, url.Values{"csrf": {csrf}, "server": {"gmail"}, "label": {"work"}}, nil)
	if _, err := os.Stat(work); status != http.StatusSeeOther || loc != consoleAccountsPath || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sign-out: %d %s, file %v", status, loc, err)
	}
	if len(fake.revoked) != 1 || fake.revoked[0] != "new-refresh" {
		t.Errorf("revoked at Google: %v", fake.revoked)
	}

	audit, err := e.app.console.auditLog(t.Context(), 20)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range audit {
		actions = append(actions, a.Action+": "+a.Detail)
	}
	all := strings.Join(actions, "\n")
	for _, want := range []string{"account sign-in: started for Spotify account default (spotify) on spotify", "account sign-in: not finished on spotify",
		"account sign-in: finished: account default (Bea (bea)) on spotify", "account sign-in: finished: account work (bea@example.com) on gmail",
		"account sign-out: account work on gmail"} {
		if !strings.Contains(all, want) {
			t.Errorf("the console's record lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "good-code") {
		t.Errorf("the record holds a code:\n%s", all)
	}

	// Refused: a server the console does not manage, and a form without the session's token.
	if status, page, _ := e.consoleReq(t, http.MethodPost, consoleAccountStart, cookie, url.Values{"csrf": {csrf}, "server": {"nope"}}, nil); status != http.StatusBadRequest || !strings.Contains(page, "not one the console manages") {
		t.Errorf("unknown server: %d", status)
	}
	if status, _, _ := e.consoleReq(t, http.MethodPost, consoleAccountSignOut, cookie, url.Values{"server": {"spotify"}}, nil); status != http.StatusForbidden {
		t.Errorf("sign-out without CSRF: %d", status)
	}
	if _, err := os.Stat(files.spotify.Token); err != nil {
		t.Errorf("spotify's token after the refused sign-out: %v", err)
	}
}
