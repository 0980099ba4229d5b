package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-webauthn/webauthn/webauthn"
)

// signInStatus opens an authorization URL, presses "Sign in with passkey" and returns what the
// page then says: the refusal of a passkey the server does not take.
func (b *browser) signInStatus(authURL string) (string, error) {
	if err := b.run(chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.ID("signin")), chromedp.Click(chromedp.ID("signin"))); err != nil {
		return "", err
	}
	return b.value(chromedp.Poll[string](`document.getElementById("status").textContent`, chromedp.WithPollingTimeout(15*time.Second)))
}

// TestPasskeyLifecycle signs in with a real (virtual) passkey and then takes it away the two
// ways the owner's credentials can go wrong: a copied passkey (its signature counter goes
// backwards) is refused with the reason, now and after; and `auth passkeys remove` retires a
// passkey — its grants end, its browser session ends, it signs in no more — until a new one
// is enrolled.
func TestPasskeyLifecycle(t *testing.T) {
	e := startFleet(t)
	b := newBrowser(t)
	b.enrol(e)
	redirect := e.callbackURL
	client := e.register(t, redirect)
	authURL := func(p pkce) string {
		return e.Issuer + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"s"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}, "scope": {"alpha:read"}}.Encode()
	}
	signIn := func() map[string]any {
		t.Helper()
		p := newPKCE()
		if err := b.signIn(authURL(p), nil, "allow"); err != nil {
			t.Fatalf("sign-in: %v", err)
		}
		var code string
		select {
		case q := <-e.callbackHits:
			code = q.Get("code")
		case <-time.After(20 * time.Second):
			t.Fatal("no callback")
		}
		st, tok := e.exchange(t, client, redirect, code, p.verifier, nil)
		if st != 200 {
			t.Fatalf("exchange: %d %v", st, tok)
		}
		return tok
	}
	tok := signIn()
	list, err := e.app.passkeys.list(t.Context())
	if err != nil || len(list) != 1 || list[0].Sessions != 1 || list[0].Grants != 1 || list[0].LastUsed.IsZero() {
		t.Fatalf("after a sign-in: %+v %v", list, err)
	}
	pk := list[0].ID

	t.Run("a passkey whose counter goes backwards is refused, and stays refused", func(t *testing.T) {
		// What a copy that signed in elsewhere leaves behind: the server has seen a higher count.
		var raw string
		if err := e.app.db.sql.QueryRow("SELECT credential FROM passkeys").Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var c webauthn.Credential
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatal(err)
		}
		saved := c
		c.Authenticator.SignCount = 1 << 30
		b2, _ := json.Marshal(c)
		if _, err := e.app.db.sql.Exec("UPDATE passkeys SET credential = ?", string(b2)); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second try meets the recorded warning, whatever the counter says
			status, err := b.signInStatus(authURL(newPKCE()))
			if err != nil || !strings.Contains(status, "signature counter went backwards") || !strings.Contains(status, "auth passkeys remove") {
				t.Fatalf("%v %q", err, status)
			}
		}
		if code, out := runCmd(t, nil, "passkeys", "list", "--state-dir", e.app.StateDir); code != 0 || !strings.Contains(out, "REFUSED") {
			t.Errorf("passkeys list: %d %s", code, out)
		}
		// Put the record back as it was, so the rest of the test signs in.
		b3, _ := json.Marshal(saved)
		if _, err := e.app.db.sql.Exec("UPDATE passkeys SET credential = ?", string(b3)); err != nil {
			t.Fatal(err)
		}
		signIn()
	})

	t.Run("auth passkeys remove ends what the passkey made", func(t *testing.T) {
		// Another device's passkey stays enrolled, so the sign-in page still offers to sign in.
		if err := e.app.passkeys.add(t.Context(), &webauthn.Credential{ID: []byte("another-device")}); err != nil {
			t.Fatal(err)
		}
		code, out := runCmd(t, nil, "passkeys", "remove", pk, "--state-dir", e.app.StateDir)
		if code != 0 || !strings.Contains(out, "Signed out 1 browser(s)") || !strings.Contains(out, "revoked 2 grant(s)") {
			t.Fatalf("remove: %d %s", code, out)
		}
		if st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok["refresh_token"].(string)}}); st != 400 {
			t.Errorf("its grant refreshes: %d %v", st, body)
		}
		var n int
		if err := e.app.db.sql.QueryRow("SELECT count(*) FROM sessions").Scan(&n); err != nil || n != 0 {
			t.Errorf("sessions left: %d %v", n, err)
		}
		// The device still holds the passkey; the server no longer takes it.
		status, err := b.signInStatus(authURL(newPKCE()))
		if err != nil || !strings.Contains(status, "was not accepted") {
			t.Errorf("signing in with the removed passkey: %v %q", err, status)
		}
		b.enrol(e)
		signIn()
	})
}
