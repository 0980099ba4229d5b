package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
)

// consoleToken is the console token of the tests' fleets.
const consoleToken = "test-console-token-0123456789abcdef"

// withConsole turns the console on for alpha and beta (startFleet gives them the token's
// hash and fills in their addresses) and for gamma, a server that is not running.
func withConsole(t *testing.T) envOption {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gamma := "http://" + ln.Addr().String()
	ln.Close()
	return func(s *settings) {
		for _, name := range []string{"alpha", "beta", "gamma"} {
			c := &admin.Client{Token: consoleToken}
			if name == "gamma" {
				c.Base = gamma
			}
			s.Console = append(s.Console, consoleServer{Name: name, client: c})
		}
	}
}

// consoleSession signs the owner's browser in to the console in the store, as a passkey
// sign-in would (TestConsoleInBrowser makes the real one), and returns the session cookie.
func (e *fleetEnv) consoleSession(t *testing.T) string {
	t.Helper()
	v, err := (&sessions{db: e.app.db}).create(t.Context(), "test-passkey")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// consoleReq sends a console request with the session cookie (none for ""), a form for POST,
// and extra headers; it returns the status, the body and the redirect's location.
func (e *fleetEnv) consoleReq(t *testing.T, method, path, cookie string, form url.Values, header map[string]string) (int, string, string) {
	t.Helper()
	status, body, location, _ := e.tunnelReq(t, method, path, cookie, form, header)
	return status, body, location
}

func (e *fleetEnv) switchTo(t *testing.T, cookie, kind, server, name, to string) {
	t.Helper()
	form := url.Values{"csrf": {csrfFor(cookie)}, "kind": {kind}, "server": {server}, "name": {name}, "to": {to}}
	status, body, loc := e.consoleReq(t, http.MethodPost, consoleSwitchesPath, cookie, form, nil)
	if status != http.StatusSeeOther || loc != consoleSwitchesPath {
		t.Fatalf("switch %s %s %s %s: %d %s %s", kind, server, name, to, status, loc, body)
	}
}

// tokenFor signs in for a server's read and write scopes and returns the access and refresh tokens.
func (e *fleetEnv) tokenFor(t *testing.T, server, base string) (string, string) {
	t.Helper()
	redirect := "http://127.0.0.1:1/cb"
	id := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, id, redirect, base+"/mcp", server+":read "+server+":write offline_access", p)
	status, tok := e.exchange(t, id, redirect, code, p.verifier, nil)
	if status != http.StatusOK {
		t.Fatalf("token: %d %v", status, tok)
	}
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// listTools lists a server's tools over MCP with a bearer token.
func listTools(t *testing.T, base, token string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	raw := string(b)
	if i := strings.Index(raw, "data: "); i >= 0 { // an event stream: the one message
		raw = strings.TrimSpace(raw[i+len("data: "):])
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("tools/list: %d %s", resp.StatusCode, b)
	}
	var names []string
	for _, tl := range out.Result.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestConsoleRefusesWithoutSession: no console page, form or JSON route answers a browser
// without a session, on the LAN or in the tunnel's shape (a public Host and proxy headers);
// a session does not change anything without its CSRF token, from another origin, or when
// its passkey sign-in is older than consoleFresh.
func TestConsoleRefusesWithoutSession(t *testing.T) {
	e := startFleet(t, withConsole(t))
	tunnel := map[string]string{"X-Forwarded-For": "203.0.113.9", "Cf-Connecting-Ip": "203.0.113.9", "X-Forwarded-Proto": "https"}
	for _, h := range []map[string]string{nil, tunnel} {
		for _, p := range []string{consolePath, consoleSwitchesPath, consoleActivityPath, consoleDevicesPath, consoleChartsPath, consoleAccountsPath} {
			status, _, loc := e.consoleReq(t, http.MethodGet, p, "", nil, h)
			if status != http.StatusSeeOther || !strings.HasPrefix(loc, consoleSignInPath) {
				t.Errorf("GET %s (headers %v) without a session: %d %q, want a redirect to sign in", p, h, status, loc)
			}
		}
		for _, p := range []string{consoleFleetAPIPath, consoleActivityAPIPath, consoleAccountsAPIPath} {
			if status, body, _ := e.consoleReq(t, http.MethodGet, p, "", nil, h); status != http.StatusUnauthorized || strings.Contains(body, "alpha") {
				t.Errorf("GET %s without a session: %d %s", p, status, body)
			}
		}
		for _, p := range []string{consoleSwitchesPath, consoleRevokePath, consoleSignOutPath, consoleAccountStart, consoleAccountFinish, consoleAccountSignOut} {
			form := url.Values{"csrf": {csrfFor("")}, "kind": {"read_only"}, "to": {"off"}}
			if status, _, _ := e.consoleReq(t, http.MethodPost, p, "", form, h); status != http.StatusForbidden {
				t.Errorf("POST %s without a session: %d, want 403", p, status)
			}
		}
		if status, _, _ := e.consoleReq(t, http.MethodGet, consolePath, "forged-cookie", nil, h); status != http.StatusSeeOther {
			t.Errorf("GET %s with an unknown cookie: %d, want 303", consolePath, status)
		}
	}

	cookie := e.consoleSession(t)
	off := url.Values{"kind": {"read_only"}, "to": {"off"}}
	for _, tc := range []struct {
		name   string
		csrf   string
		header map[string]string
	}{
		{"no CSRF token", "", nil},
		{"another session's CSRF token", csrfFor("another-cookie"), nil},
		{"another origin", csrfFor(cookie), map[string]string{"Origin": "https://evil.example"}},
	} {
		form := url.Values{"csrf": {tc.csrf}}
		for k, v := range off {
			form[k] = v
		}
		if status, _, _ := e.consoleReq(t, http.MethodPost, consoleSwitchesPath, cookie, form, tc.header); status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, status)
		}
	}
	// A session signed in more than consoleFresh ago may look but not change anything.
	if _, err := e.app.db.sql.Exec("UPDATE sessions SET created = ?", time.Now().Add(-consoleFresh-time.Minute).Unix()); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := e.consoleReq(t, http.MethodGet, consolePath, cookie, nil, nil); status != http.StatusOK {
		t.Errorf("stale session, GET: %d, want 200", status)
	}
	off.Set("csrf", csrfFor(cookie))
	if status, body, _ := e.consoleReq(t, http.MethodPost, consoleSwitchesPath, cookie, off, nil); status != http.StatusForbidden || !strings.Contains(body, "Sign in again") {
		t.Errorf("stale session, POST: %d %s", status, body)
	}
	for _, p := range []string{consoleAccountStart, consoleAccountFinish, consoleAccountSignOut} {
		form := url.Values{"csrf": {csrfFor(cookie)}, "server": {"alpha"}}
		if status, body, _ := e.consoleReq(t, http.MethodPost, p, cookie, form, nil); status != http.StatusForbidden || !strings.Contains(body, "Sign in again") {
			t.Errorf("stale session, POST %s: %d %s", p, status, body)
		}
	}
	f, err := (&console{db: e.app.db}).switches(t.Context())
	if err != nil || f.Version != 0 {
		t.Errorf("after refused changes the switches are %+v (%v), want none", f, err)
	}
}

// TestConsoleOff: without --console-servers no console route exists.
func TestConsoleOff(t *testing.T) {
	e := startFleet(t)
	for _, p := range []string{consolePath, consoleSignInPath, consoleFleetAPIPath} {
		if status, _, _ := e.consoleReq(t, http.MethodGet, p, "", nil, nil); status != http.StatusNotFound {
			t.Errorf("GET %s with the console off: %d, want 404", p, status)
		}
	}
}

var tagRE = regexp.MustCompile(`<[^>]+>`)

// text is a page's text without its tags, spaces collapsed.
func text(html string) string {
	return strings.Join(strings.Fields(tagRE.ReplaceAllString(html, " ")), " ")
}

func TestConsoleFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("token", consoleToken+"\n", 0o600)
	cases := []struct {
		name, servers, token, err string
		want                      []string
	}{
		{"off", "", "", "", nil},
		{"on", "gmail=http://127.0.0.1:9005, notes=http://notes:9008/", good, "", []string{"gmail http://127.0.0.1:9005", "notes http://notes:9008"}},
		{"servers alone", "gmail=http://127.0.0.1:9005", "", "go together", nil},
		{"token alone", "", good, "go together", nil},
		{"missing token file", "a=http://h:1", filepath.Join(dir, "none"), "no such file", nil},
		{"token others can read", "a=http://h:1", write("open", consoleToken, 0o644), "chmod 600", nil},
		{"short token", "a=http://h:1", write("short", "abc", 0o600), "at least 32", nil},
		{"token of two lines", "a=http://h:1", write("two", consoleToken+"\n"+consoleToken, 0o600), "one line", nil},
		{"no name", "=http://h:1", good, "NAME=URL", nil},
		{"a path", "a=http://h:1/mcp", good, "base address", nil},
		{"not http", "a=ftp://h:1", good, "NAME=URL", nil},
		{"twice", "a=http://h:1,a=http://h:2", good, "named twice", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := consoleFlags(tc.servers, tc.token)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name+" "+c.client.Base)
				if c.client.Token != consoleToken {
					t.Errorf("%s has token %q", c.Name, c.client.Token)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("servers %v, want %v", names, tc.want)
			}
		})
	}
}
