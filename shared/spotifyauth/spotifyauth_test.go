package spotifyauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// fakeAccounts is Spotify's token endpoint: it rotates the refresh token on every refresh and
// answers invalid_grant for a revoked one.
type fakeAccounts struct {
	mu        sync.Mutex
	refreshes atomic.Int32
	revoked   map[string]bool
	rotate    bool
	verifier  string
	forms     []url.Values
}

func (f *fakeAccounts) handler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/token" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.forms = append(f.forms, r.PostForm)
		w.Header().Set("Content-Type", "application/json")
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			if r.PostForm.Get("code") != "the-code" || r.PostForm.Get("code_verifier") == "" {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Invalid authorization code"}`)
				return
			}
			f.verifier = r.PostForm.Get("code_verifier")
			_, _ = io.WriteString(w, `{"access_token":"access-1","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-1","scope":"user-read-playback-state user-modify-playback-state"}`)
		case "refresh_token":
			rt := r.PostForm.Get("refresh_token")
			if f.revoked[rt] {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Refresh token revoked"}`)
				return
			}
			n := f.refreshes.Add(1)
			body := map[string]any{"access_token": "access-r" + itoa(n), "token_type": "Bearer", "expires_in": 3600, "scope": "user-read-playback-state"}
			if f.rotate {
				body["refresh_token"] = "refresh-r" + itoa(n)
			}
			_ = json.NewEncoder(w).Encode(body)
		default:
			t.Errorf("unexpected grant %q", r.PostForm.Get("grant_type"))
			w.WriteHeader(http.StatusBadRequest)
		}
	})
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func testClient(t *testing.T, f *fakeAccounts) (*oauth2.Config, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(f.handler(t))
	t.Cleanup(srv.Close)
	conf, err := ParseClient([]byte(`{"client_id":"cid"}`), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return conf, srv
}

func writeRecord(t *testing.T, path string, rec *Record) {
	t.Helper()
	if err := SaveRecord(path, rec); err != nil {
		t.Fatal(err)
	}
}

func TestRefreshRotatesAndPersists(t *testing.T) {
	f := &fakeAccounts{rotate: true}
	conf, _ := testClient(t, f)
	path := filepath.Join(privateDir(t), "token.json")
	signed := time.Now().Add(-time.Hour)
	writeRecord(t, path, &Record{Account: "me", RefreshToken: "refresh-0", AccessToken: "old", Expiry: time.Now().Add(-time.Minute), SignedIn: signed})
	src := NewSource(SourceOptions{TokenFile: path, Client: conf, FixCommand: "spotify auth login"})

	tok, err := src.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "access-r1" || tok.RefreshToken != "refresh-r1" {
		t.Fatalf("token = %+v", tok)
	}
	rec, err := ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.RefreshToken != "refresh-r1" || rec.AccessToken != "access-r1" || rec.Refreshed.IsZero() || !rec.SignedIn.Equal(signed) || rec.Account != "me" {
		t.Fatalf("persisted record = %+v", rec)
	}
	if f.forms[0].Get("client_id") != "cid" || f.forms[0].Get("refresh_token") != "refresh-0" {
		t.Errorf("refresh form = %v", f.forms[0])
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", info.Mode())
	}
	// A valid access token is reused without calling Spotify.
	if _, err := src.Token(); err != nil || f.refreshes.Load() != 1 {
		t.Fatalf("second Token: err %v, refreshes %d", err, f.refreshes.Load())
	}
}

func TestRefreshWithoutNewRefreshTokenKeepsOld(t *testing.T) {
	f := &fakeAccounts{}
	conf, _ := testClient(t, f)
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, &Record{RefreshToken: "refresh-0", SignedIn: time.Now()})
	src := NewSource(SourceOptions{TokenFile: path, Client: conf, FixCommand: "spotify auth login"})
	if _, err := src.Token(); err != nil {
		t.Fatal(err)
	}
	rec, _ := ReadRecord(path)
	if rec.RefreshToken != "refresh-0" || rec.AccessToken != "access-r1" {
		t.Fatalf("record = %+v", rec)
	}
}

func TestInvalidGrantIsRevokedUntilFileChanges(t *testing.T) {
	f := &fakeAccounts{revoked: map[string]bool{"dead": true}, rotate: true}
	conf, _ := testClient(t, f)
	path := filepath.Join(privateDir(t), "token.json")
	writeRecord(t, path, &Record{RefreshToken: "dead", SignedIn: time.Now()})
	src := NewSource(SourceOptions{TokenFile: path, Client: conf, FixCommand: "spotify auth login"})
	for range 3 {
		_, err := src.Token()
		var se *SignInError
		if !errors.As(err, &se) || se.State != StateRevoked || !strings.Contains(err.Error(), "re-authorize with `spotify auth login`") {
			t.Fatalf("err = %v", err)
		}
	}
	f.mu.Lock()
	calls := len(f.forms)
	f.mu.Unlock()
	if calls != 1 {
		t.Errorf("token endpoint called %d times, want 1 (no retry loop)", calls)
	}
	if st := src.Status(); st.State != StateRevoked {
		t.Errorf("status = %+v", st)
	}
	// A new sign-in (the file replaced) is picked up without a restart.
	writeRecord(t, path, &Record{RefreshToken: "fresh", SignedIn: time.Now()})
	if tok, err := src.Token(); err != nil || tok.AccessToken != "access-r1" {
		t.Fatalf("after new sign-in: %v %v", tok, err)
	}
}

func TestStatus(t *testing.T) {
	conf, _ := testClient(t, &fakeAccounts{})
	dir := privateDir(t)
	now := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	missing := NewSource(SourceOptions{TokenFile: filepath.Join(dir, "none.json"), Client: conf, FixCommand: "spotify auth login"})
	if st := missing.Status(); st.State != StateMissing || !strings.Contains(st.Message, "run `spotify auth login`") {
		t.Errorf("missing: %+v", st)
	}
	path := filepath.Join(dir, "token.json")
	writeRecord(t, path, &Record{RefreshToken: "r", SignedIn: now.Add(-RefreshLifetime + 3*24*time.Hour), Account: "me"})
	src := NewSource(SourceOptions{TokenFile: path, Client: conf, FixCommand: "spotify auth login", Now: func() time.Time { return now }})
	if st := src.Status(); st.State != StateExpiring || !strings.Contains(st.Message, "six months") {
		t.Errorf("expiring: %+v", st)
	}
	noClient := NewSource(SourceOptions{TokenFile: path, ClientErr: errors.New("no file"), FixCommand: "spotify auth login"})
	if st := noClient.Status(); st.State != StateMissing || !strings.Contains(st.Message, "no file") {
		t.Errorf("no client: %+v", st)
	}
}

func TestLoginPaste(t *testing.T) {
	f := &fakeAccounts{}
	conf, _ := testClient(t, f)
	pr, pw := io.Pipe()
	var out syncBuffer
	done := make(chan struct{})
	var rec *Record
	var err error
	go func() {
		defer close(done)
		rec, err = Login(t.Context(), LoginOptions{Client: conf, In: pr, Out: &out})
	}()
	authURL := waitFor(t, &out, conf.Endpoint.AuthURL, "\n")
	u, perr := url.Parse(strings.TrimSpace(authURL))
	if perr != nil {
		t.Fatal(perr)
	}
	q := u.Query()
	if u.Path != "/authorize" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("client_id") != "cid" ||
		!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || !strings.Contains(q.Get("scope"), "user-modify-playback-state") {
		t.Fatalf("auth URL = %s", u)
	}
	redirect := q.Get("redirect_uri") + "?code=the-code&state=wrong"
	_, _ = io.WriteString(pw, "garbage\n"+redirect+"\n")
	waitFor(t, &out, "does not match", "\n")
	_, _ = io.WriteString(pw, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state"))+"\n")
	<-done
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if rec.RefreshToken != "refresh-1" || rec.AccessToken != "access-1" || rec.SignedIn.IsZero() || f.verifier == "" {
		t.Fatalf("record = %+v verifier %q", rec, f.verifier)
	}
}

func TestLoginRefusesNonLoopback(t *testing.T) {
	conf, _ := testClient(t, &fakeAccounts{})
	_, err := Login(context.Background(), LoginOptions{Client: conf, ListenAddr: "localhost:8888", Out: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "loopback IP") {
		t.Fatalf("err = %v", err)
	}
}

func TestCommandStatusAndLogout(t *testing.T) {
	dir := privateDir(t)
	token := filepath.Join(dir, "token.json")
	if err := os.WriteFile(filepath.Join(dir, "client.json"), []byte(`{"client_id":"cid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MCP_SPOTIFY_TOKEN_FILE": token}
	cmd := Command(CommandOptions{Server: "spotify", Getenv: func(k string) string { return env[k] }})
	var out, errb bytes.Buffer
	if code := cmd(t.Context(), []string{"status"}, &out, &errb); code != 1 || !strings.Contains(out.String(), "missing") {
		t.Fatalf("status without token: %d %q %q", code, out.String(), errb.String())
	}
	writeRecord(t, token, &Record{RefreshToken: "r", AccessToken: "a", Expiry: time.Now().Add(time.Hour), SignedIn: time.Now(), Account: "dj"})
	out.Reset()
	if code := cmd(t.Context(), []string{"status", "--json"}, &out, &errb); code != 0 || !strings.Contains(out.String(), `"state": "ok"`) {
		t.Fatalf("status: %d %q", code, out.String())
	}
	out.Reset()
	if code := cmd(t.Context(), []string{"logout"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Signed out") {
		t.Fatalf("logout: %d %q", code, out.String())
	}
	if _, err := os.Stat(token); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token still there: %v", err)
	}
	if code := cmd(t.Context(), []string{"bogus"}, &out, &errb); code != 2 {
		t.Errorf("bogus: %d", code)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// waitFor waits until out holds start, and returns the text from start to the next end.
func waitFor(t *testing.T, out *syncBuffer, start, end string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s := out.String()
		if i := strings.Index(s, start); i >= 0 {
			if j := strings.Index(s[i:], end); j >= 0 {
				return s[i : i+j]
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never saw %q in %q", start, out.String())
	return ""
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

// TestLoadClientRefusesOpenFiles: a client file others can read, or whose folder others can
// write, is refused with the fix.
func TestLoadClientRefusesOpenFiles(t *testing.T) {
	for _, tt := range []struct {
		dirMode, mode os.FileMode
		wantErr       string
	}{{0o700, 0o600, ""}, {0o755, 0o600, ""}, {0o700, 0o644, "run chmod 600"}, {0o777, 0o600, "run chmod 700"}} {
		dir := privateDir(t)
		path := filepath.Join(dir, "client.json")
		if err := os.WriteFile(path, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, tt.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tt.dirMode); err != nil {
			t.Fatal(err)
		}
		conf, err := LoadClient(path, "https://accounts.example")
		switch {
		case tt.wantErr == "" && (err != nil || conf.ClientID != "cid"):
			t.Errorf("folder %o, file %o: %v", tt.dirMode, tt.mode, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("folder %o, file %o: %v, want an error with %q", tt.dirMode, tt.mode, err, tt.wantErr)
		}
	}
}

func TestCommandUsageAndMissingClient(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"MCP_SPOTIFY_TOKEN_FILE": filepath.Join(dir, "token.json")}
	cmd := Command(CommandOptions{Server: "spotify", Getenv: func(k string) string { return env[k] }})
	var out, errb bytes.Buffer
	if code := cmd(t.Context(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"spotify auth login    sign in", "spotify auth status   show", "spotify auth logout   delete the token file"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, out.String())
		}
	}
	tests := []struct {
		name, clientFile string
		args             []string
		want             []string
	}{
		{"beside the token", "", []string{"login"}, []string{
			"spotify auth login: no Spotify OAuth client file at " + filepath.Join(dir, "client.json") + ".",
			"--spotify-client-file or $MCP_SPOTIFY_CLIENT_FILE",
			"https://developer.spotify.com/dashboard",
			"http://127.0.0.1:8888/callback",
			"docs/spotify.md",
		}},
		{"from the environment, other port", filepath.Join(dir, "elsewhere.json"), []string{"login", "--port", "9999"}, []string{
			"no Spotify OAuth client file at " + filepath.Join(dir, "elsewhere.json") + ".",
			"http://127.0.0.1:9999/callback",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env["MCP_SPOTIFY_CLIENT_FILE"] = tt.clientFile
			errb.Reset()
			if code := cmd(t.Context(), tt.args, io.Discard, &errb); code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, errb.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("message lacks %q:\n%s", want, errb.String())
				}
			}
		})
	}
}
