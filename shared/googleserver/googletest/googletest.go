// Package googletest signs a test server in to a fake Google: an OAuth client file and a live
// token with the given scopes, in a temporary folder.
package googletest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/oauth"
)

// SignIn writes a client whose token endpoint is tokenURL and a token for ada@example.com that
// expires at expiry, and returns the flags that point a Google server at them and at a fresh
// state folder.
func SignIn(t testing.TB, tokenURL string, expiry time.Time, scopes ...string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // a token folder must be private; TempDir makes it 0755
		t.Fatal(err)
	}
	client := filepath.Join(dir, "client.json")
	body := `{"installed":{"client_id":"cid","client_secret":"s","token_uri":"` + tokenURL + `"}}`
	if err := os.WriteFile(client, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token.json")
	rec := &oauth.Record{Account: "ada@example.com", AccessToken: "live-token", TokenType: "Bearer", RefreshToken: "refresh-1",
		Expiry: expiry, Scopes: append([]string{"openid", "email"}, scopes...)}
	if err := oauth.SaveRecord(token, rec); err != nil {
		t.Fatal(err)
	}
	return []string{"--google-client-file", client, "--google-token-file", token, "--state-dir", dir}
}

// AddAccount signs another account in beside the sign-in whose flags SignIn returned: label's
// token file (token-LABEL.json) for email, with the access token access valid until expiry.
// A refreshEnds in the past makes it an expired sign-in.
func AddAccount(t testing.TB, args []string, label, email, access string, expiry, refreshEnds time.Time, scopes ...string) {
	t.Helper()
	i := slices.Index(args, "--google-token-file")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("AddAccount: no --google-token-file in %v", args)
	}
	rec := &oauth.Record{Account: email, AccessToken: access, TokenType: "Bearer", RefreshToken: "refresh-" + label,
		Expiry: expiry, RefreshExpiry: refreshEnds, Scopes: append([]string{"openid", "email"}, scopes...)}
	if err := oauth.SaveRecord(oauth.AccountFile(args[i+1], label), rec); err != nil {
		t.Fatal(err)
	}
}
