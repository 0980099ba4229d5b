package oauth

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newTestSource(p *Provider, f *fakeProvider, files Files, service string) *Source {
	return NewSource(p, SourceOptions{Files: files, Fix: "gmail auth login", Service: service, HTTPClient: f.srv.Client()})
}

// TestSourceRefreshPersists: a token inside the early-refresh window is refreshed once, the new
// token is saved 0600 (with a rotated refresh token replacing the old, and none keeping it), and
// the next call takes it from the cache.
func TestSourceRefreshPersists(t *testing.T) {
	for _, tt := range []struct {
		name        string
		rotate      bool
		wantRefresh string
	}{{"google keeps the refresh token", false, "refresh-1"}, {"spotify rotates it", true, "refresh-2"}} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.rotate = tt.rotate
			p := f.google()
			if tt.rotate {
				p = f.spotify()
			}
			files := signedIn(t, p, time.Now().Add(2*time.Minute), "refresh-1")
			src := newTestSource(p, f, files, "")
			tok, err := src.Token()
			if err != nil || tok.AccessToken != "access-1" {
				t.Fatalf("Token = %v, %v; want the refreshed access-1", tok, err)
			}
			rec, err := ReadRecord(files.Token)
			if err != nil {
				t.Fatal(err)
			}
			if rec.AccessToken != "access-1" || rec.RefreshToken != tt.wantRefresh || rec.Refreshed.IsZero() || rec.Account != "ada@example.com" {
				t.Errorf("persisted %+v", rec)
			}
			if info, _ := os.Stat(files.Token); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %o", info.Mode().Perm())
			}
			if _, err := src.Token(); err != nil || f.refreshes.Load() != 1 {
				t.Errorf("second Token: err %v, %d refreshes; want the cached token", err, f.refreshes.Load())
			}
		})
	}
}

// TestSourceRevokedThenNewLogin: invalid_grant becomes one clear message on every call, the
// provider is asked once, and a new sign-in written to the file is picked up without a restart.
func TestSourceRevokedThenNewLogin(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    func(f *fakeProvider) *Provider
		want string
	}{
		{"google", (*fakeProvider).google, "Google sign-in for ada@example.com was revoked or expired: run `gmail auth login`"},
		{"spotify", (*fakeProvider).spotify, "Spotify sign-in for ada@example.com was revoked or expired (Spotify ends sign-ins six months after consent): run `gmail auth login`"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.failWith = "invalid_grant"
			p := tt.p(f)
			files := signedIn(t, p, time.Now().Add(-time.Minute), "refresh-1")
			src := newTestSource(p, f, files, "")
			for range 3 {
				_, err := src.Token()
				var se *SignInError
				if !errors.As(err, &se) || se.State != StateRevoked || err.Error() != tt.want {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
			}
			if n := f.refreshes.Load(); n != 1 {
				t.Errorf("%d refresh attempts, want 1 (no retry loop)", n)
			}
			if st := src.Status(); st.State != StateRevoked || st.Detail() != "revoked: "+tt.want {
				t.Errorf("status %q %q", st.State, st.Detail())
			}
			f.set(func(f *fakeProvider) { f.failWith = "" })
			time.Sleep(10 * time.Millisecond)
			signedInAt(t, files.Token, time.Now().Add(time.Hour))
			if tok, err := src.Token(); err != nil || tok.AccessToken != "access-0" {
				t.Fatalf("after a new login: %v, %v", tok, err)
			}
			if st := src.Status(); st.State != StateOK {
				t.Errorf("status %q %q", st.State, st.Message)
			}
		})
	}
}

// signedInAt replaces the token file with a fresh sign-in, as `auth login` would.
func signedInAt(t *testing.T, path string, expiry time.Time) {
	t.Helper()
	rec := &Record{Account: "ada@example.com", Scopes: []string{googleScope + "gmail.modify", googleScope + "gmail.settings.basic"},
		AccessToken: "access-0", RefreshToken: "refresh-1", Expiry: expiry, SignedIn: time.Now()}
	if err := SaveRecord(path, rec); err != nil {
		t.Fatal(err)
	}
}

func TestSourceStates(t *testing.T) {
	f := newFake(t)
	g := f.google()
	hour := time.Now().Add(time.Hour)
	tests := []struct {
		name    string
		p       *Provider
		setup   func(t *testing.T, files Files)
		service string
		state   string
		message string
	}{
		{"missing", g, func(t *testing.T, fs Files) { _ = os.Remove(fs.Token) }, "gmail", StateMissing, "Google sign-in missing: run `gmail auth login`"},
		{"no client file", g, func(t *testing.T, fs Files) { _ = os.Remove(fs.Client) }, "gmail", StateMissing,
			"no Google OAuth client file at "},
		{"no client file and no sign-in", g, func(t *testing.T, fs Files) { _ = os.Remove(fs.Client); _ = os.Remove(fs.Token) }, "gmail", StateMissing,
			"OAuth client file at "},
		{"client unreadable", g, func(t *testing.T, fs Files) { _ = os.Chmod(fs.Client, 0o644) }, "gmail", StateMissing,
			"Google sign-in for ada@example.com: no OAuth client (read the Google OAuth client: "},
		{"lacks the scopes", g, func(*testing.T, Files) {}, "calendar", StateMissing,
			"Google sign-in for ada@example.com: it does not grant calendar access: run `gmail auth login`"},
		{"garbage", g, func(t *testing.T, fs Files) { _ = os.WriteFile(fs.Token, []byte("{"), 0o600) }, "gmail", StateMissing, "token file unreadable"},
		{"readable by others", g, func(t *testing.T, fs Files) { _ = os.Chmod(fs.Token, 0o644) }, "gmail", StateMissing,
			"is open to every user (mode 0644): run chmod 600 "},
		{"in a folder others can read", g, func(t *testing.T, fs Files) { _ = os.Chmod(filepath.Dir(fs.Token), 0o755) }, "gmail", StateMissing,
			"(mode 0755): run chmod 700 "},
		{"expired without refresh token", g, func(t *testing.T, fs Files) {
			_ = SaveRecord(fs.Token, &Record{Account: "ada@example.com", AccessToken: "a", Expiry: time.Now().Add(-time.Hour)})
		}, "", StateExpired, "Google sign-in for ada@example.com expired: run `gmail auth login`"},
		{"google ended the grant", g, func(t *testing.T, fs Files) {
			_ = SaveRecord(fs.Token, &Record{AccessToken: "a", RefreshToken: "r", Expiry: hour, RefreshExpiry: time.Now().Add(-time.Minute)})
		}, "", StateExpired, "Google sign-in expired: run `gmail auth login`"},
		{"google ends it within a day", g, func(t *testing.T, fs Files) {
			_ = SaveRecord(fs.Token, &Record{AccessToken: "a", RefreshToken: "r", Expiry: hour, RefreshExpiry: time.Now().Add(3 * time.Hour)})
		}, "", StateExpiring, "(Google ends it: the OAuth app is in Testing; publish it, docs/google.md): run `gmail auth login` before then"},
		{"spotify's six months are nearly over", f.spotify(), func(t *testing.T, fs Files) {
			_ = SaveRecord(fs.Token, &Record{AccessToken: "a", RefreshToken: "r", Expiry: hour, SignedIn: time.Now().Add(-180 * 24 * time.Hour)})
		}, "", StateExpiring, "(Spotify ends sign-ins six months after consent): run `gmail auth login` before then"},
		{"spotify fresh", f.spotify(), func(*testing.T, Files) {}, "", StateOK, ""},
		{"ok", g, func(*testing.T, Files) {}, "gmail", StateOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := signedIn(t, tt.p, hour, "refresh-1")
			tt.setup(t, files)
			st := newTestSource(tt.p, f, files, tt.service).Status()
			if st.State != tt.state || !strings.Contains(st.Message, tt.message) {
				t.Errorf("status %q %q, want %q containing %q", st.State, st.Message, tt.state, tt.message)
			}
			if st.TokenFile != files.Token || st.ClientFile != files.Client {
				t.Errorf("status names %s, %s", st.TokenFile, st.ClientFile)
			}
		})
	}
}

func TestStatusDetail(t *testing.T) {
	f := newFake(t)
	files := signedIn(t, f.google(), time.Now().Add(time.Hour), "refresh-1")
	if d := newTestSource(f.google(), f, files, "gmail").Status().Detail(); d != "ok: ada@example.com (gmail.modify, gmail.settings.basic)" {
		t.Errorf("google detail %q", d)
	}
	files = signedIn(t, f.spotify(), time.Now().Add(time.Hour), "refresh-1")
	if d := newTestSource(f.spotify(), f, files, "").Status().Detail(); d != "ok: ada@example.com" {
		t.Errorf("spotify detail %q", d)
	}
}

// TestConcurrentRefreshes has several sources — as several servers would — refresh the same
// expired token at once: the provider is asked once, the file is written once and stays valid.
func TestConcurrentRefreshes(t *testing.T) {
	f := newFake(t)
	f.delay = 50 * time.Millisecond
	p := f.google()
	files := signedIn(t, p, time.Now().Add(-time.Minute), "refresh-1")
	const n = 8
	var wg sync.WaitGroup
	tokens := make([]string, n)
	for i := range n {
		src := newTestSource(p, f, files, "gmail")
		wg.Go(func() {
			tok, err := src.TokenContext(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			tokens[i] = tok.AccessToken
		})
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
	if rec, err := ReadRecord(files.Token); err != nil || rec.AccessToken != "access-1" {
		t.Errorf("file holds %+v, %v", rec, err)
	}
}

// TestHTTPClientSignsAndRetries: API calls carry the token, Google's 429 and rate-limit 403 are
// retried, and without a sign-in the request never leaves.
func TestHTTPClientSignsAndRetries(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1")
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
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"errors":[{"reason":"userRateLimitExceeded"}]}}`)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	defer api.Close()
	client := newTestSource(p, f, files, "gmail").HTTPClient(0, api.Client().Transport)
	resp, err := client.Get(api.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" || calls.Load() != 3 {
		t.Errorf("status %d %q after %d calls", resp.StatusCode, body, calls.Load())
	}
	if err := (Files{Token: files.Token}).remove(); err != nil {
		t.Fatal(err)
	}
	resp, err = client.Get(api.URL)
	if err == nil {
		resp.Body.Close()
	}
	var se *SignInError
	if !errors.As(err, &se) || se.State != StateMissing || calls.Load() != 3 {
		t.Errorf("err %v after %d calls", err, calls.Load())
	}
}

// TestRefreshFailureIsRetriedNextCall: a token endpoint that is down is an error naming the
// provider, and the next call tries again (it is not remembered like invalid_grant).
func TestRefreshFailureIsRetriedNextCall(t *testing.T) {
	f := newFake(t)
	f.failWith = "server_error"
	p := f.spotify()
	files := signedIn(t, p, time.Now().Add(-time.Minute), "refresh-1")
	src := newTestSource(p, f, files, "")
	for i := range 2 {
		_, err := src.Token()
		if err == nil || !strings.Contains(err.Error(), "refreshing the Spotify token failed (tried again on the next call)") {
			t.Fatalf("call %d: err = %v", i, err)
		}
	}
	if n := f.refreshes.Load(); n != 2 {
		t.Errorf("%d refreshes, want 2", n)
	}
	if st := src.Status(); st.State != StateOK {
		t.Errorf("a transient failure changed the state: %q", st.State)
	}
}

// TestTokenWithoutClientFile: a tool call with neither client file nor sign-in is told to save
// the client file, the step `auth login` needs first, not to sign in.
func TestTokenWithoutClientFile(t *testing.T) {
	f := newFake(t)
	files := signedIn(t, f.google(), time.Now().Add(time.Hour), "refresh-1")
	_ = os.Remove(files.Client)
	_ = os.Remove(files.Token)
	_, err := newTestSource(f.google(), f, files, "gmail").Token()
	var se *SignInError
	if !errors.As(err, &se) || se.Client == nil || !errors.Is(err, fs.ErrNotExist) ||
		!strings.HasPrefix(err.Error(), "no Google OAuth client file at "+files.Client+": ") ||
		!strings.HasSuffix(err.Error(), "; then run `gmail auth login`") {
		t.Errorf("Token() = %v, want the missing client file", err)
	}
}
