package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeProvider is a provider's accounts service over real HTTP: the token endpoint (codes with
// PKCE, refresh tokens, optional rotation), a revoke endpoint and the API's /me.
type fakeProvider struct {
	srv       *httptest.Server
	refreshes atomic.Int32
	revokes   atomic.Int32
	mu        sync.Mutex
	challenge string         // the S256 challenge the consent URL carried
	granted   string         // the scopes the consent URL asked, granted by the code exchange
	refresh   string         // the refresh token the endpoint accepts
	rotate    bool           // each refresh answers a new refresh token
	failWith  string         // an OAuth error code every refresh answers
	delay     time.Duration  // before answering a refresh
	extra     map[string]any // added to the code exchange's answer
}

func newFake(t *testing.T) *fakeProvider {
	t.Helper()
	f := &fakeProvider{refresh: "refresh-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		f.revokes.Add(1)
		if r.FormValue("token") != "refresh-1" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_token"}`)
		}
	})
	mux.HandleFunc("GET /v1/me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer access-0" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"id":"me","display_name":"Ada"}`)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) set(fn func(f *fakeProvider)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func idToken(email string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"email":"`+email+`"}`)) + ".sig"
}

func (f *fakeProvider) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	challenge, granted, refresh, rotate, failWith, delay, extra := f.challenge, f.granted, f.refresh, f.rotate, f.failWith, f.delay, f.extra
	f.mu.Unlock()
	switch r.FormValue("grant_type") {
	case "authorization_code":
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if r.FormValue("code") != "good-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge ||
			!strings.HasPrefix(r.FormValue("redirect_uri"), "http://127.0.0.1:") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Bad code or verifier"}`)
			return
		}
		body := map[string]any{"access_token": "access-0", "refresh_token": "refresh-1", "expires_in": 3599, "token_type": "Bearer",
			"scope": granted, "id_token": idToken("ada@example.com")}
		for k, v := range extra {
			body[k] = v
		}
		_ = json.NewEncoder(w).Encode(body)
	case "refresh_token":
		time.Sleep(delay)
		n := f.refreshes.Add(1)
		if failWith != "" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error":%q,"error_description":"Token has been expired or revoked."}`, failWith)
			return
		}
		if r.FormValue("refresh_token") != refresh {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		body := map[string]any{"access_token": fmt.Sprintf("access-%d", n), "expires_in": 3599, "token_type": "Bearer"}
		if rotate {
			next := fmt.Sprintf("refresh-%d", n+1)
			f.set(func(f *fakeProvider) { f.refresh = next })
			body["refresh_token"] = next
		}
		_ = json.NewEncoder(w).Encode(body)
	default:
		w.WriteHeader(http.StatusBadRequest)
	}
}

// google and spotify are the providers pointed at the fake.
func (f *fakeProvider) google() *Provider {
	p := *Google
	p.Endpoint = oauth2.Endpoint{AuthURL: f.srv.URL + "/auth", TokenURL: f.srv.URL + "/token"}
	p.RevokeURL = f.srv.URL + "/revoke"
	return &p
}

func (f *fakeProvider) spotify() *Provider {
	p := *Spotify
	p.Endpoint = oauth2.Endpoint{AuthURL: Spotify.AccountsURL + "/authorize", TokenURL: Spotify.AccountsURL + "/token"}
	p.APIURL = f.srv.URL + "/v1/"
	return p.WithAccountsURL(f.srv.URL)
}

// consent plays the user: it takes the consent URL from what the login printed, checks the
// parameters every sign-in sends, and returns the redirect the provider would send (with state
// replaced when state is not "").
func (f *fakeProvider) consent(t *testing.T, printed, state string) string {
	t.Helper()
	var authURL string
	for line := range strings.Lines(printed) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, f.srv.URL+"/auth") {
			authURL = l
		}
	}
	u, err := url.Parse(authURL)
	if err != nil || authURL == "" {
		t.Fatalf("no consent URL in %q", printed)
	}
	q := u.Query()
	for k, want := range map[string]string{"code_challenge_method": "S256", "response_type": "code"} {
		if q.Get(k) != want {
			t.Errorf("consent URL %s=%q, want %q", k, q.Get(k), want)
		}
	}
	f.set(func(f *fakeProvider) { f.challenge, f.granted = q.Get("code_challenge"), q.Get("scope") })
	if state == "" {
		state = q.Get("state")
	}
	return q.Get("redirect_uri") + "?state=" + url.QueryEscape(state) + "&code=good-code"
}

// syncBuffer is an io.Writer safe to read while a login writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// privateDir is a temporary folder a token store accepts: t.TempDir makes them 0755.
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// signedIn writes a client file and a sign-in for ada@example.com with gmail's scopes whose
// access token expires at expiry, and returns the files.
func signedIn(t *testing.T, p *Provider, expiry time.Time, refresh string) Files {
	t.Helper()
	dir := privateDir(t)
	f := Files{Token: filepath.Join(dir, "token.json"), Client: filepath.Join(dir, "client.json")}
	client := `{"client_id":"cid"}`
	if p.ID == "google" {
		client = `{"installed":{"client_id":"cid","client_secret":"s"}}`
	}
	if err := os.WriteFile(f.Client, []byte(client), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &Record{Account: "ada@example.com", Scopes: []string{"openid", "email", googleScope + "gmail.modify", googleScope + "gmail.settings.basic"},
		AccessToken: "access-0", TokenType: "Bearer", RefreshToken: refresh, Expiry: expiry, SignedIn: time.Now()}
	if err := SaveRecord(f.Token, rec); err != nil {
		t.Fatal(err)
	}
	return f
}
