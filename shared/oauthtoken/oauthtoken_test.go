package oauthtoken

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

type rec struct {
	AccessToken  string    `json:"access_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes"`
}

func parse(data []byte) (*rec, error) {
	return Parse(data, func(r *rec) bool { return r.AccessToken != "" || r.RefreshToken != "" })
}

func TestRecordFile(t *testing.T) {
	path := filepath.Join(privateDir(t), "token.json")
	if _, err := Read(path, parse); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read missing: %v", err)
	}
	if err := Save(path, &rec{RefreshToken: "r"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "{\n  \"refresh_token\": \"r\",\n  \"scopes\": null\n}\n" {
		t.Errorf("file = %q", data)
	}
	r, err := Read(path, parse)
	if err != nil || r.RefreshToken != "r" {
		t.Fatalf("read: %+v %v", r, err)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := parse([]byte("{")); err == nil || !strings.HasPrefix(err.Error(), "token file is not valid JSON") {
		t.Errorf("bad JSON: %v", err)
	}
	if _, err := parse([]byte("{}")); err == nil || err.Error() != "token file holds no token" {
		t.Errorf("no token: %v", err)
	}
}

func TestApplyAndAccessValid(t *testing.T) {
	r := rec{RefreshToken: "old", Scopes: []string{"a"}}
	f := Fields{AccessToken: &r.AccessToken, TokenType: &r.TokenType, RefreshToken: &r.RefreshToken, Expiry: &r.Expiry, Scopes: &r.Scopes}
	exp := time.Now().Add(time.Hour)
	f.Apply(&oauth2.Token{AccessToken: "a1", TokenType: "Bearer", Expiry: exp})
	if r.AccessToken != "a1" || r.RefreshToken != "old" || !r.Expiry.Equal(exp) || r.Scopes[0] != "a" {
		t.Errorf("after a refresh without rotation: %+v", r)
	}
	f.Apply((&oauth2.Token{AccessToken: "a2", RefreshToken: "new"}).WithExtra(map[string]any{"scope": "x y"}))
	if r.RefreshToken != "new" || strings.Join(r.Scopes, ",") != "x,y" {
		t.Errorf("after a rotation: %+v", r)
	}
	now := time.Now()
	if !AccessValid("a", time.Time{}, now, time.Hour) || AccessValid("", time.Time{}, now, 0) ||
		AccessValid("a", now.Add(time.Minute), now, 5*time.Minute) || !AccessValid("a", now.Add(time.Hour), now, 5*time.Minute) {
		t.Error("AccessValid")
	}
}

func TestCacheReload(t *testing.T) {
	path := filepath.Join(privateDir(t), "token.json")
	c := Cache[rec]{File: tokenstore.File{Path: path}, Parse: parse}
	c.Reload()
	if c.Rec != nil || c.LoadErr != nil {
		t.Fatalf("missing file: %+v", c)
	}
	if err := Save(path, &rec{RefreshToken: "r1"}); err != nil {
		t.Fatal(err)
	}
	c.Reload()
	if c.Rec == nil || c.Rec.RefreshToken != "r1" {
		t.Fatalf("after save: %+v", c)
	}
	c.Revoked = "invalid_grant"
	c.Reload()
	if c.Revoked == "" {
		t.Error("an unchanged file forgot the revocation")
	}
	if err := os.WriteFile(path+".tmp", []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	c.Reload()
	if c.Rec != nil || c.LoadErr == nil || c.Revoked != "" {
		t.Errorf("after a bad file: %+v", c)
	}
	_ = Remove(path)
	c.Reload()
	if c.Rec != nil || c.LoadErr != nil {
		t.Errorf("after removal: %+v", c)
	}
}

// tokenEndpoint answers refreshes: invalid_grant for "revoked", a server error for "broken".
func tokenEndpoint(t *testing.T, n *atomic.Int32) *oauth2.Config {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch r.FormValue("refresh_token") {
		case "revoked":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Token has been revoked."}`)
		case "broken":
			w.WriteHeader(http.StatusInternalServerError)
		default:
			_, _ = fmt.Fprintf(w, `{"access_token":"fresh-%d","token_type":"Bearer","expires_in":3600}`, n.Load())
		}
	}))
	t.Cleanup(srv.Close)
	return &oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{TokenURL: srv.URL, AuthStyle: oauth2.AuthStyleInParams}}
}

func TestRefresh(t *testing.T) {
	var n atomic.Int32
	conf := tokenEndpoint(t, &n)
	tok, revoked, err := Refresh(t.Context(), conf, nil, "good")
	if err != nil || revoked != "" || tok.AccessToken != "fresh-1" {
		t.Errorf("good: %v %q %v", tok, revoked, err)
	}
	if _, revoked, err := Refresh(t.Context(), conf, http.DefaultClient, "revoked"); err != nil || revoked != "invalid_grant: Token has been revoked." {
		t.Errorf("revoked: %q %v", revoked, err)
	}
	if _, revoked, err := Refresh(t.Context(), conf, nil, "broken"); err == nil || revoked != "" {
		t.Errorf("broken: %q %v", revoked, err)
	}
}

// testSource is a minimal provider over Source.
func testSource(path string, conf *oauth2.Config) (*Source[rec], *error) {
	var usable error
	var cache *Cache[rec]
	s := NewSource(tokenstore.File{Path: path}, parse, func(c *Cache[rec]) Flow[rec] {
		cache = c
		return Flow[rec]{
			Usable: func() error {
				if cache.Rec == nil {
					return errors.New("not signed in")
				}
				return usable
			},
			Fresh:    func(r *rec) bool { return AccessValid(r.AccessToken, r.Expiry, time.Now(), 5*time.Minute) },
			Token:    func(r *rec) *oauth2.Token { return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType} },
			NoClient: func() error { return nil },
			Refresh: func(ctx context.Context) error {
				return cache.Update(func(cur *rec) ([]byte, error) {
					if cur != nil && AccessValid(cur.AccessToken, cur.Expiry, time.Now(), 5*time.Minute) {
						cache.Rec = cur
						return nil, nil
					}
					tok, _, err := Refresh(ctx, conf, nil, cache.Rec.RefreshToken)
					if err != nil {
						return nil, err
					}
					next := *cache.Rec
					Fields{&next.AccessToken, &next.TokenType, &next.RefreshToken, &next.Expiry, &next.Scopes}.Apply(tok)
					cache.Rec = &next
					return Marshal(&next)
				})
			},
		}
	})
	return s, &usable
}

func TestSource(t *testing.T) {
	var n atomic.Int32
	conf := tokenEndpoint(t, &n)
	path := filepath.Join(privateDir(t), "token.json")
	src, usable := testSource(path, conf)
	if _, err := src.Token(); err == nil || err.Error() != "not signed in" {
		t.Fatalf("no file: %v", err)
	}
	if err := Save(path, &rec{AccessToken: "stale", RefreshToken: "good", Expiry: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	tok, err := src.Token()
	if err != nil || tok.AccessToken != "fresh-1" {
		t.Fatalf("refresh: %v %v", tok, err)
	}
	if tok, err := src.TokenContext(t.Context()); err != nil || tok.AccessToken != "fresh-1" || n.Load() != 1 {
		t.Errorf("cached: %v %v, %d refreshes", tok, err, n.Load())
	}
	r, _ := Read(path, parse)
	if r.AccessToken != "fresh-1" {
		t.Errorf("file not updated: %+v", r)
	}
	*usable = errors.New("revoked")
	if _, err := src.Token(); err == nil || err.Error() != "revoked" {
		t.Errorf("unusable: %v", err)
	}
	var seen *rec
	Locked(src, func() { seen = r })
	if seen == nil {
		t.Error("Locked did not run fn")
	}
}

func TestHTTPClient(t *testing.T) {
	var calls atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer api.Close()
	src := staticSource{tok: &oauth2.Token{AccessToken: "t", TokenType: "Bearer"}}
	hc := NewHTTPClient(src, ClientOptions{Concurrent: 1, BaseDelay: time.Millisecond})
	resp, err := hc.Get(api.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "Bearer t" || calls.Load() != 2 {
		t.Errorf("body %q after %d calls", body, calls.Load())
	}
	failing := NewHTTPClient(staticSource{err: errors.New("sign in first")}, ClientOptions{Concurrent: 1})
	req, _ := http.NewRequest(http.MethodPost, api.URL, strings.NewReader("x"))
	resp, err = failing.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "sign in first") || calls.Load() != 2 {
		t.Errorf("token error: %v (%d calls)", err, calls.Load())
	}
}

type staticSource struct {
	tok *oauth2.Token
	err error
}

func (s staticSource) TokenContext(context.Context) (*oauth2.Token, error) { return s.tok, s.err }

func TestPaths(t *testing.T) {
	dir := privateDir(t)
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	if got := StateHome(getenv); got != "/home/u/.local/state" {
		t.Errorf("StateHome = %q", got)
	}
	env["XDG_STATE_HOME"] = "/xdg"
	if got := StateHome(getenv); got != "/xdg" {
		t.Errorf("StateHome = %q", got)
	}
	if !IsDir(dir) || IsDir(filepath.Join(dir, "none")) {
		t.Error("IsDir")
	}
	l := ClientLocations{Env: "X_CLIENT", Credential: "x_client.json", System: filepath.Join(dir, "system.json")}
	if got := ClientFile(getenv, l, "/s/token.json"); got != "/s/client.json" {
		t.Errorf("beside the token: %q", got)
	}
	if err := os.WriteFile(l.System, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ClientFile(getenv, l, "/s/token.json"); got != l.System {
		t.Errorf("system: %q", got)
	}
	env["CREDENTIALS_DIRECTORY"] = dir
	if err := os.WriteFile(filepath.Join(dir, "x_client.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ClientFile(getenv, l, "/s/token.json"); got != filepath.Join(dir, "x_client.json") {
		t.Errorf("credential: %q", got)
	}
	env["X_CLIENT"] = "/env.json"
	if got := ClientFile(getenv, l, "/s/token.json"); got != "/env.json" {
		t.Errorf("env: %q", got)
	}
	if ErrText(nil) != "not configured" || ErrText(errors.New("e")) != "e" {
		t.Error("ErrText")
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
