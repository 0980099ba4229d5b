package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// TestPasskeysRemove: `auth passkeys list` shows each passkey with its sessions and grants;
// `auth passkeys remove` retires one and everything its sign-ins left: the browsers signed in
// with it, sign-ins in progress, and its grants (the app's refresh token stops at once).
// The other passkey and its grants are untouched.
func TestPasskeysRemove(t *testing.T) {
	e := startFleet(t)
	dir := e.app.StateDir
	lost := &webauthn.Credential{ID: []byte("the-lost-phone"), Flags: webauthn.CredentialFlags{BackupEligible: true},
		Transport: []protocol.AuthenticatorTransport{protocol.Internal, protocol.Hybrid}}
	kept := &webauthn.Credential{ID: []byte("the-laptop")}
	for _, c := range []*webauthn.Credential{lost, kept} {
		if err := e.app.passkeys.add(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	lostID, keptID := passkeyID(lost.ID), passkeyID(kept.ID)
	sess := &sessions{db: e.app.db}
	lostSession, err := sess.create(t.Context(), lostID)
	if err != nil {
		t.Fatal(err)
	}
	keptSession, err := sess.create(t.Context(), keptID)
	if err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1:5555/cb"
	client := e.register(t, redirect)
	grant := func(passkey string) string {
		p := newPKCE()
		code := e.codeWith(t, client, redirect, e.Alpha+"/mcp", "alpha:read", p, passkey)
		st, tok := e.exchange(t, client, redirect, code, p.verifier, nil)
		if st != 200 {
			t.Fatalf("exchange: %d %v", st, tok)
		}
		return tok["refresh_token"].(string)
	}
	lostRefresh, keptRefresh := grant(lostID), grant(keptID)
	// A sign-in the lost passkey made, consented but not yet turned into a code.
	pending, cookie := e.signedIn(t, client, redirect)
	a, err := e.app.store.authRequest(t.Context(), "id", pending)
	if err != nil {
		t.Fatal(err)
	}
	a.Passkey = lostID
	if err := e.app.store.saveAuthRequest(t.Context(), a); err != nil {
		t.Fatal(err)
	}

	if code, out := runCmd(t, nil, "grants", "list", "--state-dir", dir); code != 0 || !strings.Contains(out, "PASSKEY") || !strings.Contains(out, lostID) || !strings.Contains(out, keptID) {
		t.Errorf("grants list names no passkey: %d %s", code, out)
	}
	code, out := runCmd(t, nil, "passkeys", "list", "--state-dir", dir)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 3 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("passkeys list: %d %s", code, out)
	}
	if f := strings.Fields(lines[1]); f[0] != lostID || !strings.Contains(lines[1], "synced (internal,hybrid)") || f[len(f)-3] != "1" || f[len(f)-2] != "1" || f[len(f)-1] != "ok" {
		t.Errorf("the lost passkey's line: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != keptID || !strings.Contains(lines[2], "device-bound") {
		t.Errorf("the kept passkey's line: %q", lines[2])
	}

	code, out = runCmd(t, nil, "passkeys", "remove", lostID, "--state-dir", dir)
	if code != 0 || !strings.Contains(out, "Signed out 1 browser(s), dropped 1 sign-in(s) in progress, revoked 1 grant(s)") || strings.Contains(out, "No passkey is left") {
		t.Fatalf("passkeys remove: %d %s", code, out)
	}
	if st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {lostRefresh}}); st != 400 || body["error"] != "invalid_grant" {
		t.Errorf("the removed passkey's grant still refreshes: %d %v", st, body)
	}
	if st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {keptRefresh}}); st != 200 {
		t.Errorf("the other passkey's grant: %d %v", st, body)
	}
	if _, err := sess.passkey(t.Context(), lostSession); err == nil {
		t.Error("the removed passkey's session lives on")
	}
	if p, err := sess.passkey(t.Context(), keptSession); err != nil || p != keptID {
		t.Errorf("the other session: %q %v", p, err)
	}
	if st, _, body := e.get(t, "/authorize/callback?id="+url.QueryEscape(pending), cookie); st != http.StatusForbidden {
		t.Errorf("the sign-in the removed passkey made still mints a code: %d %s", st, body)
	}
	owner, err := e.app.passkeys.owner(t.Context())
	if err != nil || len(owner.creds) != 1 || passkeyID(owner.creds[0].ID) != keptID {
		t.Errorf("passkeys left: %+v %v", owner, err)
	}
	var why string
	if err := e.app.db.sql.QueryRow("SELECT revoked_why FROM grants WHERE passkey = ?", lostID).Scan(&why); err != nil || why != "passkey removed" {
		t.Errorf("the grant's record: %q %v", why, err)
	}

	for _, bad := range []string{lostID, "not base64!", ""} {
		if code, out := runCmd(t, nil, "passkeys", "remove", bad, "--state-dir", dir); code != 1 || !strings.Contains(out, "no such passkey") {
			t.Errorf("remove %q: %d %s", bad, code, out)
		}
	}
	if code, out := runCmd(t, nil, "passkeys", "remove", keptID, "--state-dir", dir); code != 0 || !strings.Contains(out, "No passkey is left") {
		t.Errorf("removing the last one: %d %s", code, out)
	}
	if code, out := runCmd(t, nil, "passkeys", "list", "--state-dir", dir); code != 0 || !strings.Contains(out, "No passkey is enrolled") {
		t.Errorf("list with none: %d %s", code, out)
	}
	if code, out := runCmd(t, nil, "passkeys", "rename", "x", "--state-dir", dir); code != 2 || !strings.Contains(out, "usage: auth passkeys list") {
		t.Errorf("a wrong subcommand: %d %s", code, out)
	}
}

// TestPasskeysListFlagsClones: a passkey whose counter went backwards is listed as refused.
func TestPasskeysListFlagsClones(t *testing.T) {
	e := startFleet(t)
	c := &webauthn.Credential{ID: []byte("copied"), Authenticator: webauthn.Authenticator{SignCount: 40, CloneWarning: true}}
	if err := e.app.passkeys.add(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if code, out := runCmd(t, nil, "passkeys", "list", "--state-dir", e.app.StateDir); code != 0 || !strings.Contains(out, "REFUSED: its signature counter went backwards") {
		t.Errorf("%d %s", code, out)
	}
}

// TestSignInNamesNoCredential: starting a sign-in (which anyone with a request id can do)
// gets WebAuthn options that name no credential: the browser offers the passkeys it holds for
// this site, and a stranger learns no credential id.
func TestSignInNamesNoCredential(t *testing.T) {
	e := startFleet(t)
	cred := &webauthn.Credential{ID: []byte("the-owners-passkey-id")}
	if err := e.app.passkeys.add(t.Context(), cred); err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1:5555/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	loc, st, body := e.authorize(t, url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}})
	if loc == nil {
		t.Fatalf("authorize: %d %s", st, body)
	}
	jar, _ := cookiejar.New(nil)
	stranger := &http.Client{Jar: jar, CheckRedirect: e.noRedirect.CheckRedirect, Timeout: 10 * time.Second}
	resp, err := stranger.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`data-csrf="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token: %s", page)
	}
	req, _ := http.NewRequest(http.MethodPost, e.Issuer+loginBeginPath+"?id="+url.QueryEscape(loc.Query().Get("id")), strings.NewReader("{}"))
	req.Header.Set("X-CSRF-Token", string(m[1]))
	resp, err = stranger.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var opts struct {
		PublicKey struct {
			Challenge        string           `json:"challenge"`
			AllowCredentials []map[string]any `json:"allowCredentials"`
			UserVerification string           `json:"userVerification"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(raw, &opts); err != nil || resp.StatusCode != 200 || opts.PublicKey.Challenge == "" {
		t.Fatalf("%d %s %v", resp.StatusCode, raw, err)
	}
	if len(opts.PublicKey.AllowCredentials) != 0 || strings.Contains(string(raw), passkeyID(cred.ID)) || opts.PublicKey.UserVerification != "required" {
		t.Errorf("the options name a credential or do not require verification: %s", raw)
	}
}
