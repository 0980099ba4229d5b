package googleserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/oauth"
)

const consoleToken = "console-token-0123456789abcdef0123456789"

// TestConsoleSignIn: a Google server's sign-ins on its admin surface, behind the console's
// token: the accounts' state, and a sign-in started and finished against a token endpoint
// over real HTTP that checks the PKCE verifier, saved beside the default account where every
// Google server reads it.
func TestConsoleSignIn(t *testing.T) {
	var challenge string
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		if r.FormValue("code") != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "new-access", "refresh_token": "new-refresh", "expires_in": 3600,
			"token_type": "Bearer", "scope": "openid email " + driveScope})
	}))
	t.Cleanup(tokens.Close)
	args := googletest.SignIn(t, tokens.URL, time.Now().Add(time.Hour), driveScope)
	s, acct := openServer(t, "http://127.0.0.1:1/", append(args, "--admin-token-sha256", admin.HashToken(consoleToken)))
	h, err := s.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"another token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"from a browser", map[string]string{"Authorization": "Bearer " + consoleToken, "Origin": "https://evil.example"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+admin.PathAccountsStart, nil)
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}

	c := &admin.Client{Base: srv.URL, Token: consoleToken}
	got, err := c.Accounts(t.Context())
	if err != nil || got.Provider != "google" || got.Service != "drive" || len(got.Accounts) != 1 || got.Accounts[0].Account != "ada@example.com" {
		t.Fatalf("accounts = %+v, %v", got, err)
	}
	started, err := c.StartSignIn(t.Context(), admin.SignInStart{Label: "work"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(started.ConsentURL)
	challenge = u.Query().Get("code_challenge")
	if _, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: started.Redirect + "?code=the-code&state=" + u.Query().Get("state")}); err != nil {
		t.Fatal(err)
	}
	eventually(func() bool { l, _ := acct.Accounts(); return slices.Contains(l, "work") })
	if l, _ := acct.Accounts(); !slices.Equal(l, []string{oauth.DefaultAccount, "work"}) {
		t.Errorf("the server's accounts after the console's sign-in: %v", l)
	}
	if _, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: started.Redirect + "?code=the-code&state=" + u.Query().Get("state")}); err == nil {
		t.Error("the same sign-in finished twice")
	} else if ae := (*admin.Error)(nil); !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		t.Errorf("a second finish: %v", err)
	}
}
