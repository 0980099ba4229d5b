package oauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
)

// consoleSignIns serves si's admin routes over real HTTP and returns the console's client.
func consoleSignIns(t *testing.T, si *SignIns) *admin.Client {
	t.Helper()
	srv := httptest.NewServer(si.Handler())
	t.Cleanup(srv.Close)
	return &admin.Client{Base: srv.URL, Token: "unused: the kit's gate checks it"}
}

// TestSignInsGoogle: the console's Google sign-in over real HTTP: the consent URL carries PKCE
// and the loopback redirect (the verifier stays on the server); a pasted address that is no
// redirect, or one of another sign-in, is refused without quoting it; the real one is
// exchanged and saved beside the default account as `auth login --account work` saves it,
// and finishes only once; sign-out revokes the grant and deletes the file.
func TestSignInsGoogle(t *testing.T) {
	f := newFake(t)
	p := f.google()
	files := signedIn(t, p, time.Now().Add(time.Hour), "refresh-1")
	si := NewSignIns(p, "calendar", files, "", f.srv.Client())
	c := consoleSignIns(t, si)

	got, err := c.Accounts(t.Context())
	if err != nil || got.Provider != "google" || !got.MultiAccount || len(got.Accounts) != 1 || got.Accounts[0].Label != DefaultAccount ||
		got.Accounts[0].State != StateOK || got.Accounts[0].Account != "ada@example.com" || got.ClientError != "" {
		t.Fatalf("accounts before = %+v, %v", got, err)
	}
	started, err := c.StartSignIn(t.Context(), admin.SignInStart{Label: "work", Services: []string{"calendar", "gmail"}})
	if err != nil {
		t.Fatal(err)
	}
	if started.Label != "work" || started.Redirect != "http://127.0.0.1:8085/callback" || strings.Join(started.Services, ",") != "calendar,gmail" {
		t.Errorf("started = %+v", started)
	}
	u, _ := url.Parse(started.ConsentURL)
	for k, want := range map[string]string{"access_type": "offline", "prompt": "consent", "code_challenge_method": "S256", "redirect_uri": started.Redirect} {
		if u.Query().Get(k) != want {
			t.Errorf("consent URL %s = %q, want %q", k, u.Query().Get(k), want)
		}
	}
	redirect := f.consent(t, started.ConsentURL, "")
	for _, tc := range []struct{ name, pasted, want string }{
		{"not a redirect", "hello secret-words", "paste the whole address"},
		{"another sign-in's", strings.Replace(redirect, "state=", "state=x", 1), "belongs to no open sign-in"},
	} {
		_, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: tc.pasted})
		var ae *admin.Error
		if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || !strings.Contains(ae.Msg, tc.want) || strings.Contains(ae.Msg, "secret-words") || strings.Contains(ae.Msg, "good-code") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	done, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: "  " + redirect + "\n"})
	if err != nil || done.Label != "work" || done.Account != "ada@example.com" {
		t.Fatalf("finish = %+v, %v", done, err)
	}
	work := AccountFile(files.Token, "work")
	rec, err := ReadRecord(work)
	if err != nil || rec.RefreshToken != "refresh-1" || !p.covers(rec.Scopes, "calendar", false) || !p.covers(rec.Scopes, "gmail", false) {
		t.Fatalf("saved record = %+v, %v", rec, err)
	}
	if info, err := os.Stat(work); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file mode: %v %v", info.Mode(), err)
	}
	if _, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: redirect}); err == nil || !strings.Contains(err.Error(), "finished already") {
		t.Errorf("a second finish: %v", err)
	}
	got, err = c.Accounts(t.Context())
	if err != nil || len(got.Accounts) != 2 || got.Accounts[1].Label != "work" || got.Accounts[1].State != StateOK || strings.Join(got.Accounts[1].Services, ",") != "calendar,gmail" {
		t.Errorf("accounts after = %+v, %v", got, err)
	}

	revokes := f.revokes.Load()
	got, err = c.SignOut(t.Context(), admin.SignOut{Label: "work"})
	if err != nil || len(got.Accounts) != 1 || f.revokes.Load() != revokes+1 {
		t.Errorf("sign-out = %+v, %v; revokes %d", got, err, f.revokes.Load()-revokes)
	}
	if _, err := os.Stat(work); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file after sign-out: %v", err)
	}
	if _, err := c.SignOut(t.Context(), admin.SignOut{Label: "work"}); err != nil {
		t.Errorf("signing out an account not signed in: %v", err)
	}
}

// TestSignInsRefusals: what the console may not do, each with a message that says what to do.
func TestSignInsRefusals(t *testing.T) {
	f := newFake(t)
	g := f.google()
	files := signedIn(t, g, time.Now().Add(time.Hour), "refresh-1")
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	t.Cleanup(down.Close)
	noRevoke := *g
	noRevoke.RevokeURL = down.URL
	c := consoleSignIns(t, NewSignIns(&noRevoke, "gmail", files, "", f.srv.Client()))
	sp := consoleSignIns(t, NewSignIns(f.spotify(), "spotify", signedIn(t, f.spotify(), time.Now().Add(time.Hour), "refresh-1"), "", nil))
	noClient := consoleSignIns(t, NewSignIns(g, "gmail", Files{Token: files.Token, Client: files.Client + ".missing"}, "", nil))

	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"bad label", func() error { _, err := c.StartSignIn(t.Context(), admin.SignInStart{Label: "Work!"}); return err }, "give 1 to 32 of a-z"},
		{"unknown service", func() error {
			_, err := c.StartSignIn(t.Context(), admin.SignInStart{Services: []string{"photos"}})
			return err
		}, `unknown service "photos"`},
		{"spotify has one account", func() error { _, err := sp.StartSignIn(t.Context(), admin.SignInStart{Label: "work"}); return err }, "one account here"},
		{"no client", func() error { _, err := noClient.StartSignIn(t.Context(), admin.SignInStart{}); return err }, "no Google OAuth client file"},
		{"empty paste", func() error { _, err := c.FinishSignIn(t.Context(), admin.SignInFinish{}); return err }, "paste the whole address"},
		{"refused by the provider", func() error {
			st, err := c.StartSignIn(t.Context(), admin.SignInStart{})
			if err != nil {
				return err
			}
			u, _ := url.Parse(st.ConsentURL)
			_, err = c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: st.Redirect + "?error=access_denied&state=" + u.Query().Get("state")})
			return err
		}, "sign-in refused by Google: access_denied"},
		{"revocation fails", func() error { _, err := c.SignOut(t.Context(), admin.SignOut{}); return err }, "the token file is kept"},
	} {
		if err := tc.do(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(files.Token); err != nil {
		t.Errorf("the default account's file after a failed revocation: %v", err)
	}
}

// TestSignInsSpotify: Spotify's sign-in: the registered redirect, show_dialog, the account
// named by the Web API and the end of the sign-in six months after consent.
func TestSignInsSpotify(t *testing.T) {
	f := newFake(t)
	p := f.spotify()
	dir := privateDir(t)
	files := Files{Token: dir + "/token.json", Client: dir + "/client.json"}
	if err := os.WriteFile(files.Client, []byte(`{"client_id":"cid"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	si := NewSignIns(p, "spotify", files, "", nil)
	c := consoleSignIns(t, si)
	got, err := c.Accounts(t.Context())
	if err != nil || got.MultiAccount || len(got.Accounts) != 0 {
		t.Fatalf("accounts before = %+v, %v", got, err)
	}
	started, err := c.StartSignIn(t.Context(), admin.SignInStart{ReadOnly: true, Dialog: true})
	if err != nil || started.Redirect != "http://127.0.0.1:8888/callback" || !strings.Contains(started.ConsentURL, "show_dialog=true") {
		t.Fatalf("started = %+v, %v", started, err)
	}
	done, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: f.consent(t, started.ConsentURL, "")})
	if err != nil || done.Label != DefaultAccount || done.Account != "Ada (me)" || time.Until(done.Ends) < 180*24*time.Hour {
		t.Fatalf("finish = %+v, %v", done, err)
	}
	got, err = c.Accounts(t.Context())
	if err != nil || len(got.Accounts) != 1 || !got.Accounts[0].ReadOnly || got.Accounts[0].Ends.IsZero() {
		t.Errorf("accounts after = %+v, %v", got, err)
	}
	// A started sign-in lapses.
	started, _ = c.StartSignIn(t.Context(), admin.SignInStart{})
	si.now = func() time.Time { return time.Now().Add(signInLifetime + time.Minute) }
	if _, err := c.FinishSignIn(t.Context(), admin.SignInFinish{Redirect: f.consent(t, started.ConsentURL, "")}); err == nil || !strings.Contains(err.Error(), "older than") {
		t.Errorf("a lapsed sign-in: %v", err)
	}
}
