package googleauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeGoogle is Google's token endpoint: it exchanges codes (checking PKCE) and refresh tokens.
type fakeGoogle struct {
	srv       *httptest.Server
	challenge string // the S256 challenge the consent URL carried
	refreshes atomic.Int32
	revokes   atomic.Int32
	mu        sync.Mutex
	failWith  string // an OAuth error code every refresh answers
	delay     time.Duration
	extra     map[string]any
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	f := &fakeGoogle{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", f.token)
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		f.revokes.Add(1)
		if r.FormValue("token") != "refresh-1" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_token"}`)
		}
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGoogle) client() *oauth2.Config {
	return &oauth2.Config{ClientID: "cid.apps.googleusercontent.com", ClientSecret: "secret",
		Endpoint: oauth2.Endpoint{AuthURL: f.srv.URL + "/auth", TokenURL: f.srv.URL + "/token", AuthStyle: oauth2.AuthStyleInParams}}
}

func idToken(email string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"email":"`+email+`"}`)) + ".sig"
}

func (f *fakeGoogle) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	failWith, delay, extra := f.failWith, f.delay, f.extra
	f.mu.Unlock()
	switch r.FormValue("grant_type") {
	case "authorization_code":
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if r.FormValue("code") != "good-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != f.challenge ||
			!strings.HasPrefix(r.FormValue("redirect_uri"), "http://127.0.0.1:") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Bad code or verifier"}`)
			return
		}
		body := map[string]any{"access_token": "access-0", "refresh_token": "refresh-1", "expires_in": 3599, "token_type": "Bearer",
			"scope":    "openid https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.settings.basic email",
			"id_token": idToken("ada@example.com")}
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
		if r.FormValue("refresh_token") != "refresh-1" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("access-%d", n), "expires_in": 3599, "token_type": "Bearer"})
	default:
		w.WriteHeader(http.StatusBadRequest)
	}
}

// consent plays the user: it takes the printed consent URL and returns the redirect Google would send.
func (f *fakeGoogle) consent(t *testing.T, printed string, state string) string {
	t.Helper()
	var authURL string
	for _, line := range strings.Split(printed, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, f.srv.URL+"/auth?") {
			authURL = l
		}
	}
	u, err := url.Parse(authURL)
	if err != nil || authURL == "" {
		t.Fatalf("no consent URL in %q", printed)
	}
	q := u.Query()
	for k, want := range map[string]string{"access_type": "offline", "prompt": "consent", "code_challenge_method": "S256", "response_type": "code"} {
		if q.Get(k) != want {
			t.Errorf("consent URL %s=%q, want %q", k, q.Get(k), want)
		}
	}
	f.challenge = q.Get("code_challenge")
	if state == "" {
		state = q.Get("state")
	}
	return q.Get("redirect_uri") + "?state=" + url.QueryEscape(state) + "&code=good-code&scope=x"
}

// syncBuffer is an io.Writer safe to read while Login writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

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

func TestLoginPasteTheURL(t *testing.T) {
	f := newFakeGoogle(t)
	pr, pw := io.Pipe()
	out := &syncBuffer{}
	type result struct {
		rec *Record
		err error
	}
	done := make(chan result, 1)
	go func() {
		rec, err := Login(t.Context(), LoginOptions{Client: f.client(), Scopes: []string{"openid", "email", "https://www.googleapis.com/auth/gmail.modify"},
			In: pr, Out: out, HTTPClient: f.srv.Client()})
		done <- result{rec, err}
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	// A foreign redirect (wrong state) is refused and the user may paste again.
	_, _ = io.WriteString(pw, f.consent(t, out.String(), "forged-state")+"\n")
	waitFor(t, func() bool { return strings.Contains(out.String(), "state does not match") })
	_, _ = io.WriteString(pw, "  "+f.consent(t, out.String(), "")+"  \n")
	r := <-done
	pw.Close()
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.rec.Account != "ada@example.com" || r.rec.RefreshToken != "refresh-1" || r.rec.AccessToken != "access-0" {
		t.Errorf("record = %+v", r.rec)
	}
	if !Covers(r.rec.Scopes, "gmail", false) {
		t.Errorf("scopes %v do not cover gmail", r.rec.Scopes)
	}
	if d := time.Until(r.rec.Expiry); d < 58*time.Minute || d > time.Hour {
		t.Errorf("expiry in %v", d)
	}
}

func TestLoginLoopbackRedirect(t *testing.T) {
	f := newFakeGoogle(t)
	f.extra = map[string]any{"refresh_token_expires_in": 604799}
	out := &syncBuffer{}
	done := make(chan error, 1)
	var rec *Record
	go func() {
		var err error
		rec, err = Login(t.Context(), LoginOptions{Client: f.client(), Scopes: []string{"openid"}, Out: out, HTTPClient: f.srv.Client()})
		done <- err
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	resp, err := http.Get(f.consent(t, out.String(), ""))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Signed in") {
		t.Errorf("callback page %q", body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Until(rec.RefreshExpiry); d < 6*24*time.Hour || d > 7*24*time.Hour {
		t.Errorf("refresh token expiry in %v, want about 7 days", d)
	}
}

func TestLoginGoogleRefused(t *testing.T) {
	f := newFakeGoogle(t)
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		_, err := Login(t.Context(), LoginOptions{Client: f.client(), Scopes: []string{"openid"}, In: strings.NewReader(""), Out: out})
		done <- err
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), "paste it here") })
	redirect := f.consent(t, out.String(), "")
	resp, err := http.Get(strings.Replace(redirect, "code=good-code", "error=access_denied", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Errorf("err = %v, want access_denied", err)
	}
}

// writeRecord stores a sign-in whose access token expires at expiry.
func writeRecord(t *testing.T, path string, expiry time.Time, refresh string) {
	t.Helper()
	rec := &Record{Account: "ada@example.com", Scopes: []string{"openid", "email", "https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic"},
		AccessToken: "access-0", TokenType: "Bearer", RefreshToken: refresh, Expiry: expiry, SignedIn: time.Now()}
	if err := SaveRecord(path, rec); err != nil {
		t.Fatal(err)
	}
}

func newTestSource(f *fakeGoogle, path string) *Source {
	return NewSource(SourceOptions{TokenFile: path, Client: f.client(), FixCommand: "gmail auth login", Service: "gmail", HTTPClient: f.srv.Client()})
}

func TestSourceRefreshPersists(t *testing.T) {
	f := newFakeGoogle(t)
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, time.Now().Add(2*time.Minute), "refresh-1") // inside the early-refresh window
	src := newTestSource(f, path)
	tok, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "access-1" {
		t.Errorf("access token %q, want the refreshed access-1", tok.AccessToken)
	}
	rec, err := readRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.AccessToken != "access-1" || rec.RefreshToken != "refresh-1" || rec.Refreshed.IsZero() || rec.Account != "ada@example.com" {
		t.Errorf("persisted %+v", rec)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", info.Mode().Perm())
	}
	if _, err := src.Token(); err != nil || f.refreshes.Load() != 1 {
		t.Errorf("second Token: err %v, %d refreshes; want the cached token", err, f.refreshes.Load())
	}
}

func TestSourceRevokedThenNewLogin(t *testing.T) {
	f := newFakeGoogle(t)
	f.failWith = "invalid_grant"
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, time.Now().Add(-time.Minute), "refresh-1")
	src := newTestSource(f, path)
	const want = "Google sign-in for ada@example.com was revoked or expired: run `gmail auth login`"
	for range 3 {
		_, err := src.Token()
		var se *SignInError
		if !errors.As(err, &se) || se.State != StateRevoked || err.Error() != want {
			t.Fatalf("err = %v, want %q", err, want)
		}
	}
	if n := f.refreshes.Load(); n != 1 {
		t.Errorf("%d refresh attempts, want 1 (no retry loop)", n)
	}
	if st := src.Status(); st.State != StateRevoked || st.Detail() != "revoked: "+want {
		t.Errorf("status %q %q", st.State, st.Detail())
	}
	// A new login replaces the file: the source picks it up without a restart.
	f.mu.Lock()
	f.failWith = ""
	f.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	writeRecord(t, path, time.Now().Add(time.Hour), "refresh-1")
	tok, err := src.Token()
	if err != nil || tok.AccessToken != "access-0" {
		t.Fatalf("after a new login: %v, %v", tok, err)
	}
	if st := src.Status(); st.State != StateOK || st.Detail() != "ok: ada@example.com (gmail.modify, gmail.settings.basic)" {
		t.Errorf("status %q %q", st.State, st.Detail())
	}
}

func TestSourceStates(t *testing.T) {
	f := newFakeGoogle(t)
	dir := privateDir(t)
	tests := []struct {
		name    string
		setup   func(path string)
		client  bool
		service string
		state   string
		message string
	}{
		{"missing", func(string) {}, true, "gmail", StateMissing, "Google sign-in missing: run `gmail auth login`"},
		{"no client", func(p string) { writeRecord(t, p, time.Now().Add(time.Hour), "refresh-1") }, false, "gmail", StateMissing,
			"Google sign-in for ada@example.com: no OAuth client (not configured): run `gmail auth login`"},
		{"lacks the scopes", func(p string) { writeRecord(t, p, time.Now().Add(time.Hour), "refresh-1") }, true, "calendar", StateMissing,
			"Google sign-in for ada@example.com: it does not grant calendar access: run `gmail auth login`"},
		{"garbage", func(p string) { _ = os.WriteFile(p, []byte("{"), 0o600) }, true, "gmail", StateMissing, "token file unreadable"},
		{"readable by others", func(p string) {
			writeRecord(t, p, time.Now().Add(time.Hour), "refresh-1")
			_ = os.Chmod(p, 0o644)
		}, true, "gmail", StateMissing, "is open to every user (mode 0644): run chmod 600 " + dir},
		{"in a folder others can read", func(p string) {
			writeRecord(t, p, time.Now().Add(time.Hour), "refresh-1")
			_ = os.Chmod(filepath.Dir(p), 0o755)
		}, true, "gmail", StateMissing, "(mode 0755): run chmod 700 " + dir},
		{"expired without refresh token", func(p string) { writeRecord(t, p, time.Now().Add(-time.Hour), "") }, true, "gmail", StateExpired,
			"Google sign-in for ada@example.com expired: run `gmail auth login`"},
		{"testing app about to expire", func(p string) {
			rec := &Record{Account: "ada@example.com", Scopes: []string{"https://www.googleapis.com/auth/gmail.readonly"}, RefreshToken: "r", RefreshExpiry: time.Now().Add(3 * time.Hour)}
			_ = SaveRecord(p, rec)
		}, true, "gmail", StateMissing, "does not grant gmail access"},
		{"ok", func(p string) { writeRecord(t, p, time.Now().Add(time.Hour), "refresh-1") }, true, "gmail", StateOK, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprint(i), "token.json")
			_ = os.MkdirAll(filepath.Dir(path), 0o700)
			tt.setup(path)
			o := SourceOptions{TokenFile: path, FixCommand: "gmail auth login", Service: tt.service, HTTPClient: f.srv.Client()}
			if tt.client {
				o.Client = f.client()
			}
			st := NewSource(o).Status()
			if st.State != tt.state || !strings.Contains(st.Message, tt.message) {
				t.Errorf("status %q %q, want %q containing %q", st.State, st.Message, tt.state, tt.message)
			}
		})
	}
}

func TestSourceExpiring(t *testing.T) {
	path := filepath.Join(privateDir(t), "token.json")
	rec := &Record{Account: "ada@example.com", Scopes: []string{"https://www.googleapis.com/auth/gmail.readonly"}, AccessToken: "a", RefreshToken: "r",
		Expiry: time.Now().Add(time.Hour), RefreshExpiry: time.Now().Add(3 * time.Hour)}
	if err := SaveRecord(path, rec); err != nil {
		t.Fatal(err)
	}
	src := NewSource(SourceOptions{TokenFile: path, Client: &oauth2.Config{}, FixCommand: "gmail auth login", Service: "gmail", ReadOnly: true})
	st := src.Status()
	if st.State != StateExpiring || !strings.Contains(st.Detail(), "the OAuth app is in Testing: publish it") {
		t.Errorf("status %q %q", st.State, st.Detail())
	}
	if tok, err := src.Token(); err != nil || tok.AccessToken != "a" {
		t.Errorf("an expiring sign-in still works: %v, %v", tok, err)
	}
}

// TestConcurrentRefreshes has several sources — as several servers would — refresh the same
// expired token at once: Google is asked once, the file is written once and stays valid.
func TestConcurrentRefreshes(t *testing.T) {
	f := newFakeGoogle(t)
	f.delay = 50 * time.Millisecond
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, time.Now().Add(-time.Minute), "refresh-1")
	const n = 8
	var wg sync.WaitGroup
	tokens := make([]string, n)
	for i := range n {
		src := newTestSource(f, path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := src.TokenContext(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			tokens[i] = tok.AccessToken
		}()
	}
	wg.Wait()
	if got := f.refreshes.Load(); got != 1 {
		t.Errorf("%d refreshes, want 1", got)
	}
	for i, tok := range tokens {
		if tok != "access-1" {
			t.Errorf("source %d got %q, want access-1", i, tok)
		}
	}
	rec, err := readRecord(path)
	if err != nil || rec.AccessToken != "access-1" {
		t.Errorf("file holds %+v, %v", rec, err)
	}
}

func TestHTTPClientSignsAndRetries(t *testing.T) {
	f := newFakeGoogle(t)
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, time.Now().Add(time.Hour), "refresh-1")
	var calls atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer access-0" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"errors":[{"reason":"userRateLimitExceeded"}]}}`)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	defer api.Close()
	client := NewHTTPClient(newTestSource(f, path), ClientOptions{Base: api.Client().Transport, BaseDelay: time.Millisecond})
	resp, err := client.Get(api.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" || calls.Load() != 3 {
		t.Errorf("status %d %q after %d calls", resp.StatusCode, body, calls.Load())
	}
	// Without a sign-in the request never leaves: the error names the fix.
	_ = RemoveRecord(path)
	resp, err = client.Get(api.URL)
	if err == nil {
		resp.Body.Close()
	}
	var se *SignInError
	if !errors.As(err, &se) || se.State != StateMissing || calls.Load() != 3 {
		t.Errorf("err %v after %d calls", err, calls.Load())
	}
}

func TestParseClient(t *testing.T) {
	tests := []struct {
		json    string
		id      string
		wantErr bool
	}{
		{`{"installed":{"client_id":"a.apps","client_secret":"s","token_uri":"https://oauth2.googleapis.com/token"}}`, "a.apps", false},
		{`{"web":{"client_id":"w.apps","client_secret":"s"}}`, "w.apps", false},
		{`{"other":{}}`, "", true},
		{`not json`, "", true},
	}
	for _, tt := range tests {
		conf, err := ParseClient([]byte(tt.json))
		if (err != nil) != tt.wantErr || (err == nil && (conf.ClientID != tt.id || conf.Endpoint.TokenURL != TokenURL)) {
			t.Errorf("ParseClient(%s) = %+v, %v", tt.json, conf, err)
		}
	}
}

func TestScopes(t *testing.T) {
	tests := []struct {
		services []string
		readOnly bool
		want     string
	}{
		{[]string{"gmail"}, false, "email https://www.googleapis.com/auth/gmail.modify https://www.googleapis.com/auth/gmail.settings.basic openid"},
		{[]string{"gmail", "calendar"}, true, "email https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/gmail.readonly openid"},
		{[]string{"drive", "notes"}, false, "email https://www.googleapis.com/auth/drive https://www.googleapis.com/auth/drive.file openid"},
	}
	for _, tt := range tests {
		got, err := Scopes(tt.services, tt.readOnly)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("Scopes(%v, %v) = %v, %v", tt.services, tt.readOnly, got, err)
		}
		if svc := ServicesOf(got); strings.Join(svc, ",") != strings.Join(slices.Sorted(slices.Values(tt.services)), ",") {
			t.Errorf("ServicesOf = %v, want %v", svc, tt.services)
		}
	}
	if _, err := Scopes([]string{"photos"}, false); err == nil {
		t.Error("unknown service accepted")
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

// TestLoadClientRefusesOpenFiles: the OAuth client holds a secret; one others can read is refused.
func TestLoadClientRefusesOpenFiles(t *testing.T) {
	dir := privateDir(t)
	path := filepath.Join(dir, "client.json")
	body := `{"installed":{"client_id":"cid","client_secret":"s"}}`
	for _, tt := range []struct {
		mode    os.FileMode
		wantErr string
	}{{0o600, ""}, {0o400, ""}, {0o640, "run chmod 600 " + path}, {0o644, "run chmod 600 " + path}} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, tt.mode); err != nil {
			t.Fatal(err)
		}
		conf, err := LoadClient(path)
		switch {
		case tt.wantErr == "" && (err != nil || conf.ClientID != "cid"):
			t.Errorf("mode %o: %v", tt.mode, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("mode %o: %v, want an error with %q", tt.mode, err, tt.wantErr)
		}
		_ = os.Remove(path)
	}
}

func TestCommandUsageAndMissingClient(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MCP_GOOGLE_TOKEN_FILE": filepath.Join(dir, "token.json")}
	cmd := Command(CommandOptions{Server: "gmail", Getenv: func(k string) string { return env[k] }})
	var out, errb bytes.Buffer
	if code := cmd(t.Context(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"gmail auth login    sign in to Google", "gmail auth status   show the sign-in", "gmail auth logout   revoke the grant"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, out.String())
		}
	}
	tests := []struct {
		name, clientFile, want string
	}{
		{"beside the token", "", filepath.Join(dir, "client.json")},
		{"from the environment", filepath.Join(dir, "sub", "mine.json"), filepath.Join(dir, "sub", "mine.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env["MCP_GOOGLE_CLIENT_FILE"] = tt.clientFile
			errb.Reset()
			if code := cmd(t.Context(), []string{"login"}, io.Discard, &errb); code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, errb.String())
			}
			for _, want := range []string{
				"gmail auth login: no Google OAuth client file at " + tt.want + ".",
				"--google-client-file or $MCP_GOOGLE_CLIENT_FILE",
				"https://console.cloud.google.com/apis/credentials",
				"Desktop app",
				"docs/google.md",
			} {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("message lacks %q:\n%s", want, errb.String())
				}
			}
		})
	}
}
