package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/resource"
)

// publicRoutes are the auth server's routes a stranger reaches by design, each with why it is
// safe; TestTunnelShape refuses a route that is neither here nor under /console.
var publicRoutes = map[string]string{
	"/.well-known/oauth-authorization-server": "RFC 8414 metadata: where to sign in",
	"/authorize":                    "the OAuth entry; it leads to the passkey sign-in",
	"/authorize/callback":           "mints a code only for the browser whose consent it bound",
	"/token":                        "needs a code with its PKCE verifier, or a refresh token",
	"/revoke":                       "needs the token it revokes",
	"/keys":                         "the public keys that check access tokens",
	"/register":                     "RFC 7591 registration, open by design and rate limited",
	loginPath:                       "the passkey sign-in of an OAuth flow",
	loginBeginPath:                  "needs this browser's sign-in page",
	loginFinishPath:                 "needs the owner's passkey",
	consentPath:                     "needs this browser's passkey sign-in",
	enrolPath:                       "needs the one-time code auth enroll prints",
	enrolBeginPath:                  "needs the one-time code",
	enrolFinishPath:                 "needs the one-time code",
	scriptPath:                      "the sign-in pages' script",
	consoleSignInPath:               "the console's passkey sign-in page",
	consoleSignInBeginPath:          "needs this browser's sign-in page",
	consoleSignInEndPath:            "needs the owner's passkey",
	"/healthz":                      "for probes: the summary only, without its checks, to a request from elsewhere",
	resource.MetadataPath + "/mcp":  "RFC 9728 metadata of the front door: where to sign in",
	resource.MetadataPath + "/mcp/": "RFC 9728 metadata of the front door's narrowed URLs",
}

// tunnelShape is what a request through the tunnel carries: the public host and the proxy's
// headers.
var tunnelShape = map[string]string{"Host": "mcp-auth.example.com", "Cf-Connecting-Ip": "203.0.113.9",
	"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "Cf-Ray": "8a1b2c3d4e5f-AMS"}

// TestTunnelShape tries every route of the auth server (the patterns its mux was given, so a
// route added later is tried too; one this test does not know fails it) as a stranger through
// the tunnel: every console page, action and JSON route without a session, with a forged
// session cookie, with an OAuth access token for a server, with the console token, and with
// the owner's session but without the CSRF token or from another origin. None is served and
// nothing changes; the public OAuth and sign-in routes start no session; /metrics is refused.
// The servers' own routes (/mcp, REST, /admin/) are tried by every server's TestTunnel.
func TestTunnelShape(t *testing.T) {
	// The front door on too, before alpha and beta: its /mcp is on this server's mux.
	door := func(s *settings) {
		for _, n := range []string{"alpha", "beta"} {
			s.Door = append(s.Door, doorServer{Name: n, Base: strings.TrimSuffix(s.Fleet.byName[n], "/mcp")})
		}
	}
	e := startFleet(t, withConsole(t), withLAN("http://192.168.1.110"), door)
	access, _ := e.tokenFor(t, "alpha", e.Alpha)
	strangers := map[string]struct{ cookie, auth string }{
		"no credential":              {},
		"a forged session cookie":    {cookie: "forged-0123456789abcdef0123456789abcdef"},
		"a token for a server":       {auth: "Bearer " + access},
		"a server's token as cookie": {cookie: access},
		"the console token":          {auth: "Bearer " + consoleToken},
	}
	form := url.Values{"kind": {"read_only"}, "to": {"off"}, "grant": {"x"}, "server": {"alpha"}, "name": {"alpha_write"}}
	if len(e.app.routes) == 0 {
		t.Fatal("the auth server lists no route")
	}
	var tried int
	for _, pattern := range e.app.routes {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "", pattern
		}
		methods := []string{http.MethodGet, http.MethodPost}
		if method != "" {
			methods = []string{method}
		}
		for _, m := range methods {
			for who, s := range strangers {
				h := map[string]string{}
				for k, v := range tunnelShape {
					h[k] = v
				}
				if s.auth != "" {
					h["Authorization"] = s.auth
				}
				var body url.Values
				if m == http.MethodPost {
					body = url.Values{"csrf": {csrfFor(s.cookie)}}
					for k, v := range form {
						body[k] = v
					}
				}
				if strings.HasPrefix(path, "/mcp") { // an MCP client's request
					h["Content-Type"], h["Accept"], h["Mcp-Protocol-Version"] = "application/json", "application/json, text/event-stream", "2025-11-25"
					body = nil
				}
				status, page, loc, cookies := e.tunnelReq(t, m, probePath(path), s.cookie, body, h)
				tried++
				what := m + " " + path + " with " + who
				if strings.Contains(cookies, sessionCookie) {
					t.Errorf("%s started a session", what)
				}
				switch {
				case path == "/" || path == consolePath+"/":
					if status != http.StatusNotFound {
						t.Errorf("%s: %d, want 404", what, status)
					}
				case path == "/metrics":
					if status != http.StatusForbidden {
						t.Errorf("%s: %d, want 403", what, status)
					}
				case path == "/healthz":
					if strings.Contains(page, `"checks"`) {
						t.Errorf("%s shows the checks: %.300s", what, page)
					}
				case publicRoutes[path] != "":
				case path == "/mcp" || path == "/mcp/":
					// The front door: an MCP request needs an access token for the door.
					refused := status == http.StatusUnauthorized || status == http.StatusForbidden || (m == http.MethodGet && status == http.StatusMethodNotAllowed)
					if !refused {
						t.Errorf("%s: %d %.200s — served to a stranger", what, status, page)
					}
				case path == consolePath || strings.HasPrefix(path, consolePath+"/"):
					if !consoleRefused(status, loc) {
						t.Errorf("%s: %d %q %.200s — served to a stranger", what, status, loc, page)
					}
				default:
					t.Errorf("route %q is unknown to TestTunnelShape: add it to publicRoutes with why a stranger may reach it, or under /console", pattern)
				}
			}
		}
	}

	// The owner's session without the CSRF token, or from another site, changes nothing.
	cookie := e.consoleSession(t)
	for _, pattern := range e.app.routes {
		method, path, ok := strings.Cut(pattern, " ")
		if (ok && method != http.MethodPost) || !strings.HasPrefix(path, consolePath) || publicRoutes[path] != "" {
			continue
		}
		for what, c := range map[string]struct {
			csrf   string
			origin string
		}{"no CSRF token": {}, "another session's CSRF token": {csrf: csrfFor("another")}, "another origin": {csrf: csrfFor(cookie), origin: "https://evil.example"}} {
			body := url.Values{"csrf": {c.csrf}}
			for k, v := range form {
				body[k] = v
			}
			h := map[string]string{}
			for k, v := range tunnelShape {
				h[k] = v
			}
			if c.origin != "" {
				h["Origin"] = c.origin
			}
			status, page, loc, _ := e.tunnelReq(t, http.MethodPost, probePath(path), cookie, body, h)
			tried++
			if status < 400 {
				t.Errorf("POST %s with the owner's session and %s: %d %q %.200s, want it refused", path, what, status, loc, page)
			}
		}
	}
	if f, err := (&console{db: e.app.db}).switches(t.Context()); err != nil || f.Version != 0 {
		t.Errorf("after the strangers the switches are %+v (%v), want none", f, err)
	}
	devs, err := (&console{db: e.app.db}).devices(t.Context())
	if err != nil || len(devs) != 1 || !devs[0].Revoked.IsZero() {
		t.Errorf("after the strangers the grants are %+v (%v), want alpha's, not revoked", devs, err)
	}
	if status, _, _, _ := e.tunnelReq(t, http.MethodGet, consolePath, cookie, nil, tunnelShape); status != http.StatusOK {
		t.Errorf("the owner's session after the refusals: %d, want the fleet page", status)
	}
	t.Logf("%d requests over %d routes", tried, len(e.app.routes))
}

// consoleRefused: a console route answered a stranger by sending it to sign in, or with an
// error; never a page, a file or a redirect elsewhere.
func consoleRefused(status int, loc string) bool {
	switch status {
	case http.StatusSeeOther:
		return strings.HasPrefix(loc, consoleSignInPath)
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// probePath is a concrete path for a pattern: a catch-all gets a name under it.
func probePath(path string) string {
	if path == "/mcp/" {
		return "/mcp/x/alpha" // the front door narrowed to one server
	}
	if strings.HasSuffix(path, "/") {
		return path + "probe"
	}
	if path == consoleClientsDownloadPath {
		return path + "?network=tunnel&client=claude-code"
	}
	return path
}

// tunnelReq sends a request like consoleReq (a "Host" header sets the request's host, and a
// JSON content type without a form sends a tools/list) and also returns the cookies the answer
// sets.
func (e *fleetEnv) tunnelReq(t *testing.T, method, path, cookie string, form url.Values, header map[string]string) (int, string, string, string) {
	t.Helper()
	body := strings.NewReader("")
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else if header["Content-Type"] == "application/json" {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	}
	req, _ := http.NewRequest(method, e.Issuer+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
	}
	resp, err := e.noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return resp.StatusCode, string(b), resp.Header.Get("Location"), strings.Join(resp.Header.Values("Set-Cookie"), "; ")
}
