package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/kit"
)

// toolInput is the one argument of the test servers' tools.
type toolInput struct {
	Text string `json:"text" jsonschema:"any text; it comes back"`
}

type toolOutput struct {
	Echo   string `json:"echo"`
	Caller string `json:"caller"`
}

// mcpSpec is a tiny MCP server NAME with a read tool NAME_read and a write tool NAME_write.
func mcpSpec(name string) kit.Spec {
	return kit.Spec{
		Name: name, Title: name, Port: 9999, Instructions: "test server",
		Setup: func(s *kit.Server) error {
			for _, ro := range []bool{true, false} {
				tool := name + "_write"
				if ro {
					tool = name + "_read"
				}
				kit.AddTool(s, kit.Tool{Name: tool, Description: "Echo the text.", ReadOnly: ro, Idempotent: ro},
					func(ctx context.Context, _ *mcp.CallToolRequest, in toolInput) (*mcp.CallToolResult, toolOutput, error) {
						return nil, toolOutput{Echo: in.Text, Caller: kit.Caller(ctx)}, nil
					})
			}
			return nil
		},
	}
}

// listen reserves a loopback port, so a URL can be known before its server starts.
func listen(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln, fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// serveOn serves h on ln until the test ends.
func serveOn(t *testing.T, ln net.Listener, h http.Handler) {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
}

// startMCP serves the test server NAME at base as a protected resource of issuer.
func startMCP(t *testing.T, name string, ln net.Listener, base, issuer string, extra ...string) {
	t.Helper()
	cfg, err := config.Parse(name, 9999, append([]string{"--oauth-issuer", issuer, "--public-url", base, "--state-dir", t.TempDir()}, extra...), func(string) string { return "" }, io.Discard, nil)
	if err != nil {
		t.Fatalf("config %s: %v", name, err)
	}
	s, err := kit.New(mcpSpec(name), cfg, io.Discard)
	if err != nil {
		t.Fatalf("server %s: %v", name, err)
	}
	h, err := s.Handler()
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln, h)
	t.Cleanup(s.Close)
}

// fleetEnv is an auth server with two MCP servers, alpha and beta, all on loopback.
type fleetEnv struct {
	Issuer       string // http://localhost:PORT (a host name: WebAuthn refuses IP addresses as RP ID)
	Alpha, Beta  string // http://127.0.0.1:PORT
	app          *app
	noRedirect   *http.Client
	callbackURL  string
	callbackHits chan url.Values
}

type envOption func(*settings)

// startFleet starts the auth server (DCR and CIMD on) and alpha and beta.
func startFleet(t *testing.T, opts ...envOption) *fleetEnv {
	t.Helper()
	lnAuth, pAuth := listen(t)
	lnA, pA := listen(t)
	lnB, pB := listen(t)
	e := &fleetEnv{Issuer: "http://localhost:" + pAuth, Alpha: "http://127.0.0.1:" + pA, Beta: "http://127.0.0.1:" + pB}
	f, err := parseResources("alpha=" + e.Alpha + "/mcp,beta=" + e.Beta + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	s := settings{Issuer: e.Issuer, Fleet: f, CIMD: true, DCR: true, StateDir: t.TempDir(), KeyLifetime: 24 * time.Hour, Limits: limits{PerIP: 10000, Global: 10000}}
	for _, o := range opts {
		o(&s)
	}
	a, err := newApp(s)
	if err != nil {
		t.Fatalf("auth: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	e.app = a
	serveOn(t, lnAuth, a.handler)
	var extra []string
	for _, c := range s.Console { // withConsole: alpha and beta take the console's token
		extra = []string{"--admin-token-sha256", admin.HashToken(c.client.Token)}
		switch c.Name {
		case "alpha":
			c.client.Base = e.Alpha
		case "beta":
			c.client.Base = e.Beta
		}
	}
	startMCP(t, "alpha", lnA, e.Alpha, e.Issuer, extra...)
	startMCP(t, "beta", lnB, e.Beta, e.Issuer, extra...)
	e.noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}

	// The client's redirect target: hands each callback's query to the test.
	lnCB, pCB := listen(t)
	e.callbackURL = "http://127.0.0.1:" + pCB + "/callback"
	e.callbackHits = make(chan url.Values, 4)
	serveOn(t, lnCB, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser's favicon request
			return
		}
		e.callbackHits <- r.URL.Query()
		_, _ = io.WriteString(w, "<html><body id=done>You can close this window.</body></html>")
	}))
	return e
}

// register registers a public client by DCR and returns its id.
func (e *fleetEnv) register(t *testing.T, redirect string) string {
	t.Helper()
	status, body := e.postJSON(t, "/register", map[string]any{"redirect_uris": []string{redirect}, "client_name": "Test App",
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, body)
	}
	return body["client_id"].(string)
}

func (e *fleetEnv) postJSON(t *testing.T, path string, v any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(v)
	resp, err := e.noRedirect.Post(e.Issuer+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// postForm posts to the token or revocation endpoint.
func (e *fleetEnv) postForm(t *testing.T, path string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := e.noRedirect.PostForm(e.Issuer+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = map[string]any{"body": string(b)}
	}
	return resp.StatusCode, out
}

// authorize sends an authorization request and returns the redirect's location (or the status
// and body when there is none).
func (e *fleetEnv) authorize(t *testing.T, q url.Values) (*url.URL, int, string) {
	t.Helper()
	resp, err := e.noRedirect.Get(e.Issuer + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	loc, _ := resp.Location()
	return loc, resp.StatusCode, string(b)
}

// pkce is a verifier and its S256 challenge.
type pkce struct{ verifier, challenge string }

func newPKCE() pkce {
	v := randomToken(32)
	return pkce{verifier: v, challenge: oauth2.S256ChallengeFromVerifier(v)}
}

// codeFor runs the authorization request to the login page, then signs in and consents as
// the browser would (in the store, without a passkey) and returns the code from the callback.
func (e *fleetEnv) codeFor(t *testing.T, clientID, redirect, resource, scope string, p pkce) string {
	t.Helper()
	return e.codeWith(t, clientID, redirect, resource, scope, p, "")
}

// codeWith is codeFor with the sign-in made by the passkey whose id (base64url) is given.
func (e *fleetEnv) codeWith(t *testing.T, clientID, redirect, resource, scope string, p pkce, passkey string) string {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "scope": {scope}}
	if resource != "" {
		q.Set("resource", resource)
	}
	loc, status, body := e.authorize(t, q)
	if loc == nil || loc.Path != loginPath {
		t.Fatalf("authorize: %d %v %s", status, loc, body)
	}
	id := loc.Query().Get("id")
	a, err := e.app.store.authRequest(t.Context(), "id", id)
	if err != nil {
		t.Fatal(err)
	}
	browser := randomToken(24) // the cookie the sign-in page would have set
	a.Subject, a.AuthTime, a.Consented, a.Binding, a.Passkey = ownerSubject, time.Now(), true, hashToken(browser), passkey
	if err := e.app.store.saveAuthRequest(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, e.Issuer+"/authorize/callback?id="+url.QueryEscape(id), nil)
	req.AddCookie(&http.Cookie{Name: "mcp-auth", Value: browser})
	resp, err := e.noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cb, err := resp.Location()
	if err != nil {
		t.Fatalf("callback: %d, no redirect", resp.StatusCode)
	}
	code := cb.Query().Get("code")
	if code == "" || cb.Query().Get("state") != "st" {
		t.Fatalf("callback redirect %s", cb)
	}
	return code
}

// tokens exchanges a code.
func (e *fleetEnv) exchange(t *testing.T, clientID, redirect, code, verifier string, extra url.Values) (int, map[string]any) {
	t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "code": {code}, "code_verifier": {verifier}}
	for k, v := range extra {
		form[k] = v
	}
	return e.postForm(t, "/token", form)
}

// callTool calls a tool over MCP with a bearer token, returning the HTTP status of the call
// and the WWW-Authenticate header (raw JSON-RPC, so 401 and 403 are visible).
func callTool(t *testing.T, base, token, tool string) (int, string, string) {
	t.Helper()
	return callToolAt(t, base+"/mcp", token, tool)
}

// callToolAt is callTool at an MCP endpoint's full URL (a narrowed one such as …/mcp/readonly).
func callToolAt(t *testing.T, endpoint, token, tool string) (int, string, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{"text":"hi"}}}`, tool)
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}
