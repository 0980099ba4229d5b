package mcptest

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

// ProxyHeaders are headers a proxy, CDN or tunnel adds, one value each: a request from loopback
// that carries any of them does not come from this machine.
var ProxyHeaders = map[string]string{
	"Cf-Connecting-Ip": "203.0.113.9", "Cf-Ray": "8a1b2c3d4e5f-AMS", "Cf-Visitor": `{"scheme":"https"}`,
	"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Host": "mcp.example.com", "X-Forwarded-Proto": "https",
	"X-Real-Ip": "203.0.113.9", "Forwarded": "for=203.0.113.9;proto=https", "True-Client-Ip": "203.0.113.9",
	"Via": "1.1 proxy.example.com",
}

// trustToken is the token CheckTrust's tokens file gives the label "backend".
const trustToken = "trust-0123456789abcdef0123456789"

// CheckTrust holds a server to who may call it without a credential, over real HTTP with the
// server's own flags (args are the ones every start gets, such as a temporary --state-dir):
//   - started with --allowed-hosts naming a tunnel host, or on a LAN address, and no credential
//     scheme, the command refuses to start with exit code 2, naming what to add;
//   - on loopback without a scheme, a request with any one proxy header gets 401 at /mcp,
//     /mcp/readonly, every /mcp/x/{toolset}, /metrics and the REST routes of each (openapi.json,
//     a tool's call), and one without is served as "local";
//   - with a tokens file and a tunnel host, a request without a token gets 401 at every one of
//     those, through the tunnel (its Host, its headers) or from this machine, and one with the
//     token is served and logged under the token's label, never as "local".
func CheckTrust(t *testing.T, spec func() kit.Spec, args ...string) {
	t.Helper()
	const tunnel = "mcp-trust.example.com"
	for _, refused := range [][]string{{"--allowed-hosts", tunnel}, {"--allowed-hosts", "192.168.1.110"}, {"--host", "192.0.2.10"}} {
		var stdout, stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		code := kit.Run(ctx, spec(), append(slices.Clone(args), refused...), func(string) string { return "" }, &stdout, &stderr)
		cancel()
		if code != 2 || !strings.Contains(stderr.String(), "without authentication") || !strings.Contains(stderr.String(), "--auth-tokens-file") {
			t.Errorf("%v without a credential scheme: exit %d, want 2 and a message naming --auth-tokens-file:\n%s", refused, code, stderr.String())
		}
	}

	open := Start(t, spec(), args...)
	paths := trustPaths(open)
	for _, path := range paths {
		for name, value := range ProxyHeaders {
			if code := trustGet(t, open, path, map[string]string{name: value}); code != http.StatusUnauthorized {
				t.Errorf("no credential scheme, %s with %s: %d, want 401", path, name, code)
			}
		}
	}
	if code := trustGet(t, open, "/mcp", nil); code != http.StatusOK {
		t.Errorf("no credential scheme, /mcp from this machine: %d, want 200", code)
	}

	dir := t.TempDir()
	tokens := filepath.Join(dir, "auth-tokens")
	if err := os.WriteFile(tokens, []byte("backend:"+trustToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	guarded := Start(t, spec(), append(slices.Clone(args), "--auth-tokens-file", tokens, "--allowed-hosts", tunnel)...)
	for _, path := range paths {
		requests := map[string]map[string]string{"tunnel Host": {"Host": tunnel}, "from this machine": nil}
		for name, value := range ProxyHeaders {
			requests[name] = map[string]string{name: value}
		}
		for what, headers := range requests {
			if code := trustGet(t, guarded, path, headers); code != http.StatusUnauthorized {
				t.Errorf("tokens file, %s %s without a token: %d, want 401", path, what, code)
			}
		}
	}
	withToken := map[string]string{"Host": tunnel, "Cf-Connecting-Ip": "203.0.113.9", "Authorization": "Bearer " + trustToken}
	for _, path := range paths {
		code := trustGet(t, guarded, path, withToken)
		// A REST call with empty arguments may fail for them, never for want of a credential.
		if strings.Contains(path, "/tools/") {
			if code == http.StatusUnauthorized || code == http.StatusForbidden {
				t.Errorf("tokens file, %s through the tunnel with the token: %d, want it served", path, code)
			}
			continue
		}
		if code != http.StatusOK {
			t.Errorf("tokens file, %s through the tunnel with the token: %d, want 200", path, code)
		}
	}
	tool := guarded.Server.ToolNames()[0]
	// An argument no tool takes: the call is refused before its handler, and logged.
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"trust_check_unknown_argument":1}}}`
	if code := trustPost(t, guarded, "/mcp", call, withToken); code != http.StatusOK {
		t.Errorf("tokens file, a call through the tunnel with the token: %d, want 200", code)
	}
	logs := guarded.Logs()
	if !strings.Contains(logs, `"tool":"`+tool+`","caller":"backend"`) || strings.Contains(logs, `"caller":"local"`) {
		t.Errorf("the tunnelled call is not logged as caller backend, or something is logged as local:\n%s", logs)
	}
}

// trustPaths are the routes behind the gate: /mcp, its narrowed URLs, /metrics, and the REST
// routes of each (openapi.json, and a call of a read tool).
func trustPaths(h *Harness) []string {
	prefixes := []string{"", "/readonly", "/x/all"}
	for _, ts := range h.Server.Toolsets() {
		prefixes = append(prefixes, "/x/"+ts.Name, "/x/"+ts.Name+"/readonly")
	}
	paths := []string{"/metrics"}
	tool := readTool(h)
	for _, p := range prefixes {
		paths = append(paths, "/mcp"+p, p+"/openapi.json")
		if tool != "" && (p == "" || p == "/readonly" || p == "/x/all") {
			paths = append(paths, p+"/tools/"+tool)
		}
	}
	return paths
}

// readTool is the name of a tool the server offers that changes nothing, "" if none.
func readTool(h *Harness) string {
	tools, err := h.Server.ListTools(context.Background())
	if err != nil {
		return ""
	}
	for _, tool := range tools {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			return tool.Name
		}
	}
	return ""
}

// trustGet asks path as a client would (tools/list for the MCP routes, GET for /metrics and
// openapi.json, a call with empty arguments for a REST tool) and returns the status.
func trustGet(t *testing.T, h *Harness, path string, headers map[string]string) int {
	t.Helper()
	switch {
	case path == "/metrics" || strings.HasSuffix(path, "/openapi.json"):
		return trustDo(t, h, http.MethodGet, path, "", headers)
	case strings.Contains(path, "/tools/"):
		return trustPost(t, h, path, "{}", headers)
	}
	return trustPost(t, h, path, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers)
}

func trustPost(t *testing.T, h *Harness, path, body string, headers map[string]string) int {
	t.Helper()
	return trustDo(t, h, http.MethodPost, path, body, headers)
}

// trustDo sends one request and returns its status; a "Host" entry sets the Host header.
func trustDo(t *testing.T, h *Harness, method, path, body string, headers map[string]string) int {
	t.Helper()
	status, _ := tunnelDo(t, h, tunnelRequest{method: method, path: path, body: body}, headers)
	return status
}
