package main

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/oauth"
)

// TestConsoleSignIn: the owner's console signs the server in and out through its admin
// surface: the consent URL names the registered loopback redirect, the pasted address is
// exchanged against the fake's token endpoint with the PKCE verifier the server kept, the token
// lands in the server's own file and the next tool call uses it; sign-out deletes it.
func TestConsoleSignIn(t *testing.T) {
	t.Parallel()
	const token = "console-token-0123456789abcdef0123456789"
	e := startGranted(t, false, oauth.Spotify.Services["spotify"].Full, "--admin-token-sha256", admin.HashToken(token))
	c := &admin.Client{Base: e.h.URL, Token: token}
	got, err := c.Accounts(t.Context())
	if err != nil || got.Provider != "spotify" || got.MultiAccount || len(got.Accounts) != 0 || got.ClientError != "" {
		t.Fatalf("accounts before = %+v, %v", got, err)
	}
	started, err := c.StartSignIn(t.Context(), admin.SignInStart{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(started.ConsentURL)
	if err != nil || !strings.HasPrefix(started.ConsentURL, e.fake.srv.URL+"/authorize?") || u.Query().Get("redirect_uri") != "http://127.0.0.1:8888/callback" {
		t.Fatalf("consent URL %q: %v", started.ConsentURL, err)
	}
	e.fake.mu.Lock()
	e.fake.challenge = u.Query().Get("code_challenge")
	e.fake.mu.Unlock()
	done, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: started.Redirect + "?code=good-code&state=" + u.Query().Get("state")})
	if err != nil || done.Label != oauth.DefaultAccount || time.Until(done.Ends) < 180*24*time.Hour {
		t.Fatalf("finish = %+v, %v", done, err)
	}
	rec, err := oauth.ReadRecord(e.token)
	if err != nil || rec.RefreshToken != "refresh-0" || rec.AccessToken != "access-0" {
		t.Fatalf("token file = %+v, %v", rec, err)
	}
	mcptest.Call(t, e.cs, "get_playback", map[string]any{})
	if got, err = c.Accounts(t.Context()); err != nil || len(got.Accounts) != 1 || got.Accounts[0].State != oauth.StateOK {
		t.Errorf("accounts after = %+v, %v", got, err)
	}

	if _, err := c.SignOut(t.Context(), admin.SignOut{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.token); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file after sign-out: %v", err)
	}
	if msg := mcptest.CallError(t, e.cs, "get_playback", map[string]any{}); !strings.Contains(msg, "spotify auth login") {
		t.Errorf("a call after sign-out: %q", msg)
	}
}
