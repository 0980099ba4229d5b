package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// findChromium returns the browser the end-to-end test drives: $MCP_TEST_CHROMIUM, else
// Debian's chromium or chromium-headless-shell (what scripts/test-deps.sh installs).
func findChromium() (string, error) {
	if p := os.Getenv("MCP_TEST_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	const shell = "/usr/lib/chromium/chromium-headless-shell"
	if _, err := os.Stat(shell); err == nil {
		return shell, nil
	}
	return "", errors.New("no chromium or chromium-headless-shell: apt-get install -y chromium")
}

// browser is a headless Chromium tab with a virtual passkey authenticator (CTAP2, internal,
// resident keys, user verification that succeeds).
type browser struct {
	ctx     context.Context
	t       *testing.T
	consent string // the text of the last consent page
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := findChromium()
	mcptest.Require(t, "Chromium", err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
			Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal,
			HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
		}})
		return err
	}))
	if err != nil {
		t.Fatalf("start chromium with a virtual authenticator: %v", err)
	}
	return &browser{ctx: ctx, t: t}
}

// run runs actions with a deadline.
func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// text reads an element's text (or, with poll, waits until a script's value is not empty).
func (b *browser) value(a chromedp.Action[string]) (string, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// enrol enrols the browser's passkey with a code as `auth enroll` prints it.
func (b *browser) enrol(e *fleetEnv) {
	b.t.Helper()
	var out strings.Builder
	if code := run(b.t.Context(), []string{"enroll", "--state-dir", e.app.StateDir}, func(string) string { return "" }, &out, &out); code != 0 {
		b.t.Fatalf("auth enroll: %d %s", code, out.String())
	}
	var enrolCode string
	for _, line := range strings.Split(out.String(), "\n") {
		if l := strings.TrimSpace(line); strings.Count(l, "-") == 3 && len(l) == 23 {
			enrolCode = l
		}
	}
	if enrolCode == "" {
		b.t.Fatalf("no code in %q", out.String())
	}
	err := b.run(chromedp.Navigate(e.Issuer+enrolPath), chromedp.SendKeys(chromedp.ID("code"), enrolCode), chromedp.Click(chromedp.ID("enroll")),
		chromedp.WaitVisible(chromedp.CSS(`body[data-enrolled="yes"]`)))
	var status string
	if err == nil {
		status, err = b.value(chromedp.Text(chromedp.ID("status")))
	}
	if err != nil || !strings.Contains(status, "enrolled") {
		b.t.Fatalf("enrol: %v %q", err, status)
	}
}

// signIn opens an authorization URL, signs in with the passkey, unticks the scopes named in
// untick, and presses button (allow or deny) on the consent page.
func (b *browser) signIn(authURL string, untick []string, button string) error {
	return b.signInUntil(authURL, untick, button, chromedp.WaitVisible(chromedp.ID("done")))
}

// signInUntil is signIn for a client whose redirect page is not the test's: done waits for it.
func (b *browser) signInUntil(authURL string, untick []string, button string, done chromedp.Action[chromedp.Void]) error {
	actions := []chromedp.Action[chromedp.Void]{chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.ID("signin")), chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("allow")),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			var err error
			b.consent, err = chromedp.Text(chromedp.CSS("form"))(ctx, tg)
			return err
		})}
	for _, s := range untick {
		actions = append(actions, chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[value=%q]`, s))))
	}
	// Both answers end at the client's redirect page; waiting for it keeps the next navigation
	// from cutting this one short.
	actions = append(actions, chromedp.Click(chromedp.ID(button)), done)
	return b.run(actions...)
}

// fetcher is the go-sdk client's AuthorizationCodeFetcher: the browser signs in and allows,
// and the code arrives at the client's loopback redirect.
func (b *browser) fetcher(e *fleetEnv, untick ...string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if err := b.signIn(args.URL, untick, "allow"); err != nil {
			return nil, fmt.Errorf("browser: %w", err)
		}
		select {
		case q := <-e.callbackHits:
			if q.Get("error") != "" {
				return nil, fmt.Errorf("authorization refused: %s: %s", q.Get("error"), q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		case <-time.After(20 * time.Second):
			return nil, errors.New("no callback")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// connect connects the go-sdk client to an MCP server through OAuth.
func connect(t *testing.T, base string, h auth.OAuthHandler) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", OAuthHandler: h, MaxRetries: -1}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	return client.Connect(ctx, tr, nil)
}

// TestEndToEnd plays real MCP clients: the go-sdk client discovers the authorization server
// from alpha's 401, registers (DCR, then a client ID metadata document), opens the
// authorization URL in headless Chromium, where the owner (after enrolling a passkey with the
// code `auth enroll` printed) signs in with a virtual authenticator and consents; the client
// exchanges the code and calls tools.
func TestEndToEnd(t *testing.T) {
	// The client ID metadata document is served over TLS; the auth server trusts this test
	// server's certificate and, for this test only, its loopback address.
	var cimdURL string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": cimdURL, "client_name": "Metadata Client",
			"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_method": "none"})
	}))
	t.Cleanup(docs.Close)
	cimdURL = docs.URL + "/client.json"
	e := startFleet(t, func(s *settings) { s.CIMDClient = docs.Client() })
	b := newBrowser(t)

	t.Run("sign-in before enrolment says to enrol", func(t *testing.T) {
		p := newPKCE()
		id := e.register(t, e.callbackURL)
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {e.callbackURL}, "state": {"s"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
		err := b.run(chromedp.Navigate(e.Issuer + "/authorize?" + q.Encode()))
		var text string
		if err == nil {
			text, err = b.value(chromedp.Text(chromedp.CSS("body")))
		}
		if err != nil || !strings.Contains(text, "auth enroll") {
			t.Fatalf("%v %q", err, text)
		}
	})
	b.enrol(e)

	t.Run("a wrong enrolment code is refused", func(t *testing.T) {
		err := b.run(chromedp.Navigate(e.Issuer+enrolPath), chromedp.SendKeys(chromedp.ID("code"), "aaaaa-bbbbb-ccccc-ddddd"), chromedp.Click(chromedp.ID("enroll")))
		var status string
		if err == nil {
			status, err = b.value(chromedp.Poll[string](`document.getElementById("status").textContent`, chromedp.WithPollingTimeout(10*time.Second)))
		}
		if err != nil || !strings.Contains(status, "code is wrong") {
			t.Fatalf("%v %q", err, status)
		}
	})

	var dcr *auth.AuthorizationCodeHandler
	t.Run("DCR client: discover, register, sign in, consent, call", func(t *testing.T) {
		var err error
		dcr, err = auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
			DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{e.callbackURL}, ClientName: "E2E DCR Client", TokenEndpointAuthMethod: "none",
				GrantTypes: []string{"authorization_code", "refresh_token"}}},
			RedirectURL:              e.callbackURL,
			AuthorizationCodeFetcher: b.fetcher(e),
			RequestRefreshToken:      true,
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := connect(t, e.Alpha, dcr)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer cs.Close()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "alpha_write", Arguments: map[string]any{"text": "hello"}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
		// The consent page named the client, where the answer goes, the server and its scopes.
		for _, want := range []string{"E2E DCR Client", "registered itself", strings.TrimPrefix(e.callbackURL[:strings.LastIndex(e.callbackURL, "/")], "http://"), "alpha", "alpha:read", "alpha:write"} {
			if !strings.Contains(b.consent, want) {
				t.Errorf("consent page lacks %q: %s", want, b.consent)
			}
		}
		out, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(out), `"echo":"hello"`) || !strings.Contains(string(out), `"caller":"oauth:dcr-`) {
			t.Errorf("output %s", out)
		}
	})
	if dcr == nil {
		t.FailNow()
	}
	ts, err := dcr.TokenSource(t.Context())
	if err != nil || ts == nil {
		t.Fatalf("token source: %v", err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("the token is for alpha only", func(t *testing.T) {
		if st, _, _ := callTool(t, e.Alpha, tok.AccessToken, "alpha_read"); st != 200 {
			t.Errorf("alpha: %d", st)
		}
		if st, www, _ := callTool(t, e.Beta, tok.AccessToken, "beta_read"); st != 401 || !strings.Contains(www, "invalid_token") {
			t.Errorf("beta: %d %s", st, www)
		}
	})
	t.Run("refresh rotates; reusing the old refresh token revokes the grant", func(t *testing.T) {
		client := clientIDOf(t, tok.AccessToken)
		st, body := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.RefreshToken}})
		if st != 200 || body["refresh_token"] == tok.RefreshToken {
			t.Fatalf("refresh: %d %v", st, body)
		}
		if st, _, _ := callTool(t, e.Alpha, body["access_token"].(string), "alpha_write"); st != 200 {
			t.Errorf("refreshed token: %d", st)
		}
		st, body2 := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.RefreshToken}})
		if st != 400 || body2["error"] != "invalid_grant" {
			t.Fatalf("reuse: %d %v", st, body2)
		}
		st, body2 = e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {body["refresh_token"].(string)}})
		if st != 400 || body2["error"] != "invalid_grant" {
			t.Errorf("the rotated token after reuse: %d %v", st, body2)
		}
	})

	t.Run("CIMD client, consent narrowed to read", func(t *testing.T) {
		h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
			ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: cimdURL},
			RedirectURL:                    e.callbackURL,
			AuthorizationCodeFetcher:       b.fetcher(e, "beta:write"),
		})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := connect(t, e.Beta, h)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer cs.Close()
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "beta_read" {
			t.Fatalf("a read grant lists only the read tool: %v %+v", err, tools)
		}
		ts, _ := h.TokenSource(t.Context())
		tok, err := ts.Token()
		if err != nil {
			t.Fatal(err)
		}
		if _, c := jwtParts(t, tok.AccessToken); c["scope"] != "beta:read" || c["client_id"] != cimdURL {
			t.Errorf("claims %v", c)
		}
		if st, www, _ := callTool(t, e.Beta, tok.AccessToken, "beta_write"); st != 403 || !strings.Contains(www, "insufficient_scope") {
			t.Errorf("write tool: %d %s", st, www)
		}
		if st, _, _ := callTool(t, e.Beta, tok.AccessToken, "beta_read"); st != 200 {
			t.Errorf("read tool: %d", st)
		}
	})

	t.Run("deny sends access_denied", func(t *testing.T) {
		id := e.register(t, e.callbackURL)
		p := newPKCE()
		q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {e.callbackURL}, "state": {"d"},
			"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}, "scope": {"alpha:read"}}
		if err := b.signIn(e.Issuer+"/authorize?"+q.Encode(), nil, "deny"); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-e.callbackHits:
			if got.Get("error") != "access_denied" || got.Get("state") != "d" || got.Get("code") != "" {
				t.Errorf("callback %v", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no callback")
		}
	})

	t.Run("revocation", func(t *testing.T) {
		client := clientIDOf(t, tok.AccessToken)
		p := newPKCE()
		code := e.codeFor(t, client, e.callbackURL, e.Alpha+"/mcp", "alpha:read", p)
		_, body := e.exchange(t, client, e.callbackURL, code, p.verifier, nil)
		if st, b := e.postForm(t, "/revoke", url.Values{"client_id": {client}, "token": {body["refresh_token"].(string)}}); st != 200 {
			t.Fatalf("revoke: %d %v", st, b)
		}
		st, b := e.postForm(t, "/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {body["refresh_token"].(string)}})
		if st != 400 || b["error"] != "invalid_grant" {
			t.Errorf("after revocation: %d %v", st, b)
		}
	})
}

func clientIDOf(t *testing.T, at string) string {
	t.Helper()
	_, c := jwtParts(t, at)
	id, _ := c["client_id"].(string)
	if id == "" {
		t.Fatalf("no client_id in %v", c)
	}
	return id
}

// TestSignInSaysHowLongToWait: when the sign-in step is rate-limited, the page tells the
// owner in words how long to wait (the script reads the status before the body).
func TestSignInSaysHowLongToWait(t *testing.T) {
	e := startFleet(t, func(s *settings) { s.Limits = limits{PerIP: 2, Global: 1000} })
	b := newBrowser(t)
	b.enrol(e)
	id := e.register(t, e.callbackURL)
	p := newPKCE()
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {e.callbackURL}, "state": {"s"},
		"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
	if err := b.run(chromedp.Navigate(e.Issuer+"/authorize?"+q.Encode()), chromedp.WaitVisible(chromedp.ID("signin"))); err != nil {
		t.Fatal(err)
	}
	for range 2 { // this address's budget for the passkey step, used up elsewhere
		resp, err := http.Post(e.Issuer+loginBeginPath, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	status, err := "", b.run(chromedp.Click(chromedp.ID("signin")))
	if err == nil {
		status, err = b.value(chromedp.Poll[string](`document.getElementById("status").textContent`, chromedp.WithPollingTimeout(10*time.Second)))
	}
	if err != nil || !strings.HasPrefix(status, "Too many attempts: wait ") || !strings.Contains(status, "seconds and try again") {
		t.Fatalf("%v %q", err, status)
	}
}
