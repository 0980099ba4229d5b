package main

import (
	"context"
	"crypto/tls"
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
)

// TestCIMDFetchErrors: every way fetching a client metadata document can fail answers the
// unauthenticated /authorize with what is wrong with the document, or that it could not be
// fetched from a public address — never a resolver, an address, a port, a dial or TLS detail.
func TestCIMDFetchErrors(t *testing.T) {
	// Each host name of a client id reaches one of these servers, whatever DNS says.
	serve := func(h http.HandlerFunc) string {
		ts := httptest.NewTLSServer(h)
		t.Cleanup(ts.Close)
		return ts.Listener.Addr().String()
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	plain := httptest.NewServer(http.NotFoundHandler()) // speaks HTTP where TLS is expected
	t.Cleanup(plain.Close)
	reset, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reset.Close() })
	certs := httptest.NewTLSServer(nil) // lends its certificate
	t.Cleanup(certs.Close)
	resetTLS := tls.NewListener(reset, certs.TLS)
	go func() { // promises a body it never sends, then hangs up
		for {
			c, err := resetTLS.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = c.Read(buf)
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"client_id\":")
			c.Close()
		}
	}()
	routes := map[string]string{
		"refused.example.test": closedAddr,
		"notls.example.test":   plain.Listener.Addr().String(),
		"reset.example.test":   reset.Addr().String(),
		"redirect.example.test": serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://127.0.0.1:1/x.json", http.StatusFound)
		}),
		"gone.example.test": serve(http.NotFound),
		"huge.example.test": serve(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, strings.Repeat(" ", maxMetadataBytes+10))
		}),
		"other.example.test": serve(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"client_id":"https://evil.example.test/c.json","redirect_uris":["https://a.example/cb"]}`)
		}),
	}
	fetch := newCIMDClient()
	fetch.Transport = &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // test servers' own certificate
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			to, ok := routes[host]
			if !ok {
				return nil, fmt.Errorf("no route to %s", addr)
			}
			return (&net.Dialer{}).DialContext(ctx, network, to)
		},
	}
	e := startFleet(t, func(s *settings) { s.CIMDClient = fetch })
	real := startFleet(t) // the production fetcher, with the host's resolver
	unreachable := "could not be fetched from a public address"
	cases := []struct {
		env   *fleetEnv
		host  string
		words string
	}{
		{e, "refused.example.test", unreachable},
		{e, "notls.example.test", unreachable},
		{e, "reset.example.test", unreachable},
		{e, "redirect.example.test", unreachable},
		{e, "gone.example.test", "its server answered HTTP 404"},
		{e, "huge.example.test", "larger than 65536 bytes"},
		{e, "other.example.test", "is not its own URL"},
		{real, "no-such-host.invalid", unreachable},
		{real, "localhost", unreachable},
	}
	p := newPKCE()
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			id := "https://" + tc.host + "/client.json"
			q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1/cb"}, "state": {"s"},
				"code_challenge": {p.challenge}, "code_challenge_method": {"S256"}, "resource": {tc.env.Alpha + "/mcp"}}
			loc, st, body := tc.env.authorize(t, q)
			var answer struct {
				Desc string `json:"error_description"`
			}
			_ = json.Unmarshal([]byte(body), &answer)
			if loc != nil || st != http.StatusBadRequest || !strings.Contains(answer.Desc, tc.words) {
				t.Fatalf("%d %v %s", st, loc, body)
			}
			rest := strings.ReplaceAll(answer.Desc, id, "")
			for _, leak := range []string{"127.0.0.1", "::1", "lookup", "dial", "tls", "x509", "certificate", "EOF", "redirect", "resolv", ":53", "no such host"} {
				if strings.Contains(strings.ToLower(rest), strings.ToLower(leak)) {
					t.Errorf("the answer tells %q: %s", leak, answer.Desc)
				}
			}
			for _, addr := range routes {
				if _, port, _ := net.SplitHostPort(addr); strings.Contains(rest, port) {
					t.Errorf("the answer names the port %s: %s", port, answer.Desc)
				}
			}
		})
	}
}

// TestRegistrationBounds: /register reads JSON only (415 otherwise), and what one
// registration may store is bounded: each redirect URI, all of them together, and the body.
func TestRegistrationBounds(t *testing.T) {
	e := startFleet(t)
	post := func(contentType, body string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, e.Issuer+"/register", strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := e.noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	valid := `{"redirect_uris":["http://127.0.0.1:5555/cb"],"token_endpoint_auth_method":"none"}`
	uris := func(n, size int) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf("https://app.example.com/%d/%s", i, strings.Repeat("a", size)))
		}
		b, _ := json.Marshal(map[string]any{"redirect_uris": l, "token_endpoint_auth_method": "none"})
		return string(b)
	}
	cases := []struct {
		name, contentType, body string
		status                  int
		err                     string
	}{
		{"JSON", "application/json", valid, 201, ""},
		{"JSON with a charset", "application/json; charset=utf-8", valid, 201, ""},
		{"text/plain", "text/plain", valid, 415, "application/json"},
		{"a form", "application/x-www-form-urlencoded", valid, 415, "application/json"},
		{"no content type", "", valid, 415, "application/json"},
		{"a redirect URI over 1 KiB", "application/json", uris(1, 1010), 400, "invalid_redirect_uri"},
		{"URIs over 4 KiB together", "application/json", uris(5, 900), 400, "longer than 4096 bytes together"},
		{"a body over 16 KiB", "application/json", `{"client_name":"` + strings.Repeat("x", 17<<10) + `"}`, 413, "invalid_client_metadata"},
		{"a look-alike host", "application/json", `{"redirect_uris":["https://аррӏе.com/cb"],"token_endpoint_auth_method":"none"}`, 400, "invalid_redirect_uri"},
		{"its punycode", "application/json", `{"redirect_uris":["https://xn--80ak6aa92e.com/cb"],"token_endpoint_auth_method":"none"}`, 201, ""},
		{"port 0", "application/json", `{"redirect_uris":["http://127.0.0.1:0/cb"],"token_endpoint_auth_method":"none"}`, 400, "invalid_redirect_uri"},
		{"port 99999", "application/json", `{"redirect_uris":["http://127.0.0.1:99999/cb"],"token_endpoint_auth_method":"none"}`, 400, "invalid_redirect_uri"},
		{"127.0.0.2", "application/json", `{"redirect_uris":["http://127.0.0.2/cb"],"token_endpoint_auth_method":"none"}`, 400, "invalid_redirect_uri"},
		{"IPv4-mapped loopback", "application/json", `{"redirect_uris":["http://[::ffff:127.0.0.1]/cb"],"token_endpoint_auth_method":"none"}`, 400, "invalid_redirect_uri"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, body := post(tc.contentType, tc.body)
			if st != tc.status || (tc.err != "" && body["error"] != tc.err && !strings.Contains(fmt.Sprint(body["error_description"]), tc.err)) {
				t.Errorf("%d %v", st, body)
			}
		})
	}
}

// TestRegistrationCORS: a page on the browser's own loopback (the MCP Inspector) may register
// from the browser; a page of any other origin gets no CORS answer, so its browser sends no
// registration and reads none.
func TestRegistrationCORS(t *testing.T) {
	e := startFleet(t)
	cases := []struct {
		origin string
		open   bool
	}{
		{"http://localhost:6274", true},
		{"http://127.0.0.1:6274", true},
		{"http://[::1]:6274", true},
		{"https://evil.example.com", false},
		{"http://localhost.evil.example.com", false},
		{"http://127.0.0.2:6274", false},
		{"null", false},
	}
	for _, tc := range cases {
		t.Run(tc.origin, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodOptions, e.Issuer+"/register", nil)
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type")
			resp, err := e.noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			allow := resp.Header.Get("Access-Control-Allow-Origin")
			if tc.open && (allow != tc.origin || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Content-Type")) {
				t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
			}
			if !tc.open && (allow != "" || resp.Header.Get("Access-Control-Allow-Methods") != "") {
				t.Errorf("preflight answered with CORS: %v", resp.Header)
			}
			req, _ = http.NewRequest(http.MethodPost, e.Issuer+"/register", strings.NewReader(`{"redirect_uris":["http://127.0.0.1:5555/cb"],"token_endpoint_auth_method":"none"}`))
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Content-Type", "application/json")
			resp, err = e.noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); (got == tc.origin) != tc.open || (!tc.open && got != "") {
				t.Errorf("POST: %d Access-Control-Allow-Origin %q", resp.StatusCode, got)
			}
		})
	}
}

// TestUnusedClientsBounded: past the cap, each registration evicts the oldest client that never
// got tokens, never a used one; the janitor deletes unused clients a day after they registered.
func TestUnusedClientsBounded(t *testing.T) {
	e := startFleet(t)
	e.app.store.clients.maxUnused = 20
	redirect := "http://127.0.0.1:5555/cb"
	used := e.register(t, redirect)
	p := newPKCE()
	code := e.codeFor(t, used, redirect, e.Alpha+"/mcp", "alpha:read", p)
	if st, body := e.exchange(t, used, redirect, code, p.verifier, nil); st != 200 {
		t.Fatalf("%d %v", st, body)
	}
	var ids []string
	for range 30 {
		ids = append(ids, e.register(t, redirect))
	}
	exists := func(id string) bool {
		var n int
		if err := e.app.db.sql.QueryRow("SELECT count(*) FROM clients WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	var total int
	if err := e.app.db.sql.QueryRow("SELECT count(*) FROM clients").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 21 || !exists(used) {
		t.Errorf("%d clients kept (want the used one and 20), the used one kept: %v", total, exists(used))
	}
	for i, id := range ids {
		if want := i >= 10; exists(id) != want {
			t.Errorf("client %d (of 30): kept %v, want %v", i, !want, want)
		}
	}
	// An evicted client is unknown at /authorize: the app registers again.
	q := url.Values{"response_type": {"code"}, "client_id": {ids[0]}, "redirect_uri": {redirect}, "code_challenge": {p.challenge},
		"code_challenge_method": {"S256"}, "resource": {e.Alpha + "/mcp"}}
	if _, st, body := e.authorize(t, q); st != 400 || !strings.Contains(body, "register it first") {
		t.Errorf("an evicted client: %d %s", st, body)
	}
	e.app.db.now = func() time.Time { return time.Now().Add(unusedClientLifetime + time.Minute) }
	if err := e.app.db.gc(t.Context()); err != nil {
		t.Fatal(err)
	}
	if exists(ids[29]) || !exists(used) {
		t.Errorf("after a day: the newest unused client kept %v, the used one kept %v", exists(ids[29]), exists(used))
	}
}
