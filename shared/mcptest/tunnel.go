package mcptest

import (
	"cmp"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
)

// TunnelHost is the public name CheckTunnel's server is reached at, as through the tunnel.
const TunnelHost = "mcp-tunnel.example.com"

// TunnelHeaders are what the tunnel adds to every request it forwards.
var TunnelHeaders = map[string]string{
	"Cf-Connecting-Ip": "203.0.113.9", "Cf-Ray": "8a1b2c3d4e5f-AMS", "Cf-Visitor": `{"scheme":"https"}`,
	"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https",
}

// tunnelConsoleToken is the console token CheckTunnel's server takes on its admin surface.
const tunnelConsoleToken = "tunnel-console-0123456789abcdef0123456789"

// tunnelRequest is one request a stranger sends to a route.
type tunnelRequest struct {
	method, path, body string
}

// CheckTunnel tries every route the server serves (kit.Server.Routes: a route added later is
// tried too, and one this check does not know fails it) as a stranger would through the
// tunnel: the tunnel's Host and headers, with no credential, a wrong token, an OAuth token for
// another server, an OAuth token of this server's read scope at a write tool, and the console
// token. The server runs with every credential scheme (a tokens file, OAuth, the admin
// surface). None of it may be served: the MCP and REST routes and /metrics answer 401 or 403,
// the admin surface 403 (it never answers through a tunnel, the console token included),
// "/" 404; /healthz answers its summary without the checks, and the OAuth metadata is public
// by design. The same requests with the right credential are served, so the refusals are the
// credential's doing.
func CheckTunnel(t *testing.T, spec func() kit.Spec, args ...string) {
	t.Helper()
	is := issuertest.Start(t)
	public := "https://" + TunnelHost
	tokens := filepath.Join(t.TempDir(), "auth-tokens")
	if err := os.WriteFile(tokens, []byte("backend:"+trustToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sp := spec()
	h := Start(t, sp, append(slices.Clone(args), "--auth-tokens-file", tokens, "--oauth-issuer", is.URL, "--public-url", public,
		"--allowed-hosts", TunnelHost, "--admin-token-sha256", admin.HashToken(tunnelConsoleToken))...)
	write, read := "", ""
	tools, err := h.Server.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			read = cmp.Or(read, tool.Name)
		} else {
			write = cmp.Or(write, tool.Name)
		}
	}
	tool := cmp.Or(write, read)
	scopes := sp.Name + ":read " + sp.Name + ":write"
	strangers := map[string]string{
		"no credential":                  "",
		"a wrong token":                  "Bearer wrong-0123456789abcdef0123456789",
		"a token for another server":     "Bearer " + is.Mint(t, issuertest.Token{Audience: "https://mcp-other.example.com/mcp", Scope: "other:read other:write"}),
		"a token for another server URL": "Bearer " + is.Mint(t, issuertest.Token{Audience: "https://mcp-other.example.com/mcp", Scope: scopes}),
		"the console token":              "Bearer " + tunnelConsoleToken,
	}
	if write != "" {
		// Read scope only: refused at a write tool's call, 403 insufficient_scope.
		strangers["a read-only token at a write tool"] = "Bearer " + is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: sp.Name + ":read"})
	}
	routes := h.Server.Routes()
	if len(routes) == 0 {
		t.Fatal("the server lists no route")
	}
	for _, pattern := range routes {
		reqs, want, ok := tunnelRoute(pattern, tool)
		if !ok {
			t.Errorf("route %q is unknown to mcptest.CheckTunnel: add how a stranger must be refused there (tunnelRoute)", pattern)
			continue
		}
		for _, rq := range reqs {
			for who, auth := range strangers {
				if who == "a read-only token at a write tool" && !strings.Contains(rq.path, "/tools/") {
					continue
				}
				headers := tunnelHeaders(auth)
				code, body := tunnelDo(t, h, rq, headers)
				served := !want(code, body)
				if who == "a read-only token at a write tool" {
					// A valid token of this server: refused for its scope, or the tool is not
					// offered at that URL.
					served = code != http.StatusForbidden && code != http.StatusNotFound
				}
				if served {
					t.Errorf("%s %s through the tunnel with %s: %d %s — served to a stranger", rq.method, rq.path, who, code, clip(body, 300))
				}
			}
		}
	}

	// The same requests with the right credential are served: the refusals above are the
	// credential's doing, not a broken request.
	owner := tunnelHeaders("Bearer " + trustToken)
	for _, rq := range []tunnelRequest{{http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, {http.MethodGet, "/openapi.json", ""}, {http.MethodGet, "/metrics", ""}} {
		if code, body := tunnelDo(t, h, rq, owner); code != http.StatusOK {
			t.Errorf("%s %s through the tunnel with the owner's token: %d %s, want 200", rq.method, rq.path, code, clip(body, 300))
		}
	}
	oauth := tunnelHeaders("Bearer " + is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: scopes}))
	if code, body := tunnelDo(t, h, tunnelRequest{http.MethodGet, "/openapi.json", ""}, oauth); code != http.StatusOK {
		t.Errorf("GET /openapi.json through the tunnel with an OAuth token for this server: %d %s, want 200", code, clip(body, 300))
	}
	direct := map[string]string{"Authorization": "Bearer " + tunnelConsoleToken}
	if code, body := tunnelDo(t, h, tunnelRequest{http.MethodGet, admin.PathStatus, ""}, direct); code != http.StatusOK {
		t.Errorf("GET %s from this machine with the console token: %d %s, want 200", admin.PathStatus, code, clip(body, 300))
	}
}

// tunnelRoute says what a stranger sends to pattern and what must come back; ok is false for a
// pattern it does not know.
func tunnelRoute(pattern, tool string) (reqs []tunnelRequest, want func(code int, body string) bool, ok bool) {
	refused := func(code int, _ string) bool { return code == http.StatusUnauthorized || code == http.StatusForbidden }
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	method, path, hasMethod := strings.Cut(pattern, " ")
	if !hasMethod {
		method, path = "", pattern
	}
	switch {
	case strings.HasPrefix(path, "/admin/"):
		if method == "" {
			return []tunnelRequest{{http.MethodGet, "/admin/unknown", ""}, {http.MethodPost, path, "{}"}}, func(code int, _ string) bool { return code == http.StatusForbidden }, true
		}
		return []tunnelRequest{{method, path, "{}"}}, func(code int, _ string) bool { return code == http.StatusForbidden }, true
	case path == "/mcp" || path == "/mcp/readonly" || strings.HasPrefix(path, "/mcp/x/"):
		return []tunnelRequest{{http.MethodPost, path, list}, {http.MethodGet, path, ""}}, refused, true
	case path == "/mcp/":
		return []tunnelRequest{{http.MethodPost, "/mcp/unknown", list}}, refused, true
	case strings.HasSuffix(path, "/tools/{name}"):
		p := strings.TrimSuffix(path, "{name}")
		return []tunnelRequest{{http.MethodPost, p + tool, "{}"}, {http.MethodPost, p + "no_such_tool", "{}"}}, refused, true
	case strings.HasSuffix(path, "/openapi.json"):
		return []tunnelRequest{{http.MethodGet, path, ""}}, refused, true
	case path == "/x/":
		return []tunnelRequest{{http.MethodGet, "/x/unknown/openapi.json", ""}, {http.MethodPost, "/x/unknown/tools/" + tool, "{}"}}, refused, true
	case path == "/metrics":
		return []tunnelRequest{{http.MethodGet, path, ""}}, refused, true
	case path == "/":
		return []tunnelRequest{{http.MethodGet, "/unknown", ""}, {http.MethodPost, "/unknown", "{}"}}, func(code int, _ string) bool { return code == http.StatusNotFound }, true
	case path == "/healthz":
		// Public for probes; through the tunnel without the owner's token, the summary only.
		return []tunnelRequest{{http.MethodGet, path, ""}}, func(_ int, body string) bool { return !strings.Contains(body, `"checks"`) }, true
	case strings.HasPrefix(path, "/.well-known/oauth-protected-resource"):
		// RFC 9728 metadata is public by design: where to sign in, nothing more.
		return []tunnelRequest{{http.MethodGet, path, ""}}, func(_ int, body string) bool {
			return !strings.Contains(body, trustToken) && !strings.Contains(body, tunnelConsoleToken)
		}, true
	}
	return nil, nil, false
}

func tunnelHeaders(auth string) map[string]string {
	h := map[string]string{"Host": TunnelHost}
	for k, v := range TunnelHeaders {
		h[k] = v
	}
	if auth != "" {
		h["Authorization"] = auth
	}
	return h
}

// tunnelDo sends one request and returns the status and the body.
func tunnelDo(t *testing.T, h *Harness, rq tunnelRequest, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), rq.method, h.URL+rq.path, strings.NewReader(rq.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", rq.method, rq.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", rq.method, rq.path, err)
	}
	return resp.StatusCode, string(b)
}
