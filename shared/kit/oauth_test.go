package kit_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOAuthResource drives a server started with --oauth-issuer over real HTTP as an MCP client
// would: discovery from the 401, the metadata, per-scope tool lists and calls, tokens for
// another server, and the static tokens that keep working beside OAuth.
func TestOAuthResource(t *testing.T) {
	is := issuertest.Start(t)
	const public = "https://kittest.example.com"
	aud := public + "/mcp"
	h := mcptest.Start(t, testSpec(nil), "--oauth-issuer", is.URL, "--public-url", public+"/", "--auth-tokens-file", writeTokens(t))

	t.Run("challenge", func(t *testing.T) {
		code, hdr, _ := post(t, h.URL+"/mcp", initBody, nil)
		want := `Bearer resource_metadata="https://kittest.example.com/.well-known/oauth-protected-resource/mcp", scope="kittest:read kittest:write"`
		if code != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") != want {
			t.Fatalf("no token: %d %q, want 401 %q", code, hdr.Get("WWW-Authenticate"), want)
		}
		code, hdr, _ = post(t, h.URL+"/mcp", initBody, map[string]string{"Authorization": "Bearer " + is.Mint(t, issuertest.Token{Audience: "https://drive.example.com/mcp", Scope: "kittest:write"})})
		if code != http.StatusUnauthorized || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Fatalf("another server's token: %d %q", code, hdr.Get("WWW-Authenticate"))
		}
		code, hdr, _ = post(t, h.URL+"/mcp", initBody, map[string]string{"Authorization": "Bearer " + is.Mint(t, issuertest.Token{Audience: aud, Scope: "other:read"})})
		if code != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
			t.Fatalf("a token without this server's scopes: %d %q", code, hdr.Get("WWW-Authenticate"))
		}
	})

	t.Run("metadata", func(t *testing.T) {
		resp, err := http.Get(h.URL + "/.well-known/oauth-protected-resource/mcp")
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		err = json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || meta["resource"] != aud || !slices.Equal(anyStrings(meta["authorization_servers"]), []string{is.URL}) ||
			!slices.Equal(anyStrings(meta["scopes_supported"]), []string{"kittest:read", "kittest:write"}) || !slices.Equal(anyStrings(meta["bearer_methods_supported"]), []string{"header"}) ||
			resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("metadata: %d %v %v %v", resp.StatusCode, meta, resp.Header, err)
		}
		// RFC 9728 §2: the algorithms the resource signs its responses with; it signs none.
		if _, ok := meta["resource_signing_alg_values_supported"]; ok {
			t.Errorf("metadata names resource signing algorithms: %v", meta["resource_signing_alg_values_supported"])
		}
	})

	t.Run("root metadata is not the endpoint's", func(t *testing.T) {
		// RFC 9728 §3.3: metadata at the root would have to name the base URL as its resource,
		// which is not protected; the 404 names the metadata of the one resource there is.
		resp, err := http.Get(h.URL + "/.well-known/oauth-protected-resource")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), public+"/.well-known/oauth-protected-resource/mcp") {
			t.Errorf("root: %d %s", resp.StatusCode, b)
		}
	})

	t.Run("CORS preflight", func(t *testing.T) {
		for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			req, _ := http.NewRequest(http.MethodOptions, h.URL+path, nil)
			req.Header.Set("Origin", "https://inspector.example")
			req.Header.Set("Access-Control-Request-Method", "GET")
			req.Header.Set("Access-Control-Request-Headers", "mcp-protocol-version")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
				!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "GET") ||
				!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "mcp-protocol-version") {
				t.Errorf("%s: %d %v", path, resp.StatusCode, resp.Header)
			}
		}
	})

	t.Run("read scope: batches and repeated keys", func(t *testing.T) {
		// The HTTP layer reads a message as the MCP layer does (exact keys, batches under the
		// 2025-03-26 protocol) and refuses what decoders could read two ways.
		tok := is.Mint(t, issuertest.Token{Audience: aud, Scope: "kittest:read"})
		call := func(params string) string {
			return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":` + params + `}`
		}
		cases := []struct {
			name, body string
			version    string
			status     int
		}{
			{"a batch with a write call", "[" + call(`{"name":"echo","arguments":{"text":"a"}}`) + "," + call(`{"name":"write_thing","arguments":{}}`) + "]", "2025-03-26", http.StatusForbidden},
			{"a batch with spaces before it", " \n[" + call(`{"name":"write_thing","arguments":{}}`) + "]", "2025-03-26", http.StatusForbidden},
			{"name twice", call(`{"name":"write_thing","name":"echo","arguments":{}}`), "2025-11-25", http.StatusBadRequest},
			{"name in two cases", call(`{"name":"write_thing","NAME":"echo","arguments":{}}`), "2025-11-25", http.StatusBadRequest},
			{"method in two cases", `{"jsonrpc":"2.0","id":3,"Method":"ping","method":"tools/call","params":{"name":"write_thing"}}`, "2025-11-25", http.StatusBadRequest},
			{"a Kelvin sign", call(`{"name":"write_thing","\u212Aey":1,"key":2}`), "2025-11-25", http.StatusBadRequest},
			{"only another case", call(`{"Name":"write_thing","arguments":{}}`), "2025-11-25", http.StatusOK},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				code, hdr, msg := post(t, h.URL+"/mcp", tc.body, map[string]string{"Authorization": "Bearer " + tok, "MCP-Protocol-Version": tc.version})
				if code != tc.status {
					t.Errorf("%d %q %s, want %d", code, hdr.Get("WWW-Authenticate"), msg, tc.status)
				}
				if tc.status == http.StatusOK && !strings.Contains(msg, `"error"`) {
					t.Errorf("the MCP layer ran a call without a name: %s", msg)
				}
			})
		}
	})

	t.Run("read scope", func(t *testing.T) {
		tok := is.Mint(t, issuertest.Token{Audience: aud, Scope: "kittest:read", ClientID: "https://app.example.com/client.json"})
		cs, err := h.TryConnect(t.Context(), tok)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if names := toolNames(t, cs); slices.Contains(names, "write_thing") || !slices.Contains(names, "echo") {
			t.Errorf("a read-only token lists %v", names)
		}
		out, _ := mcptest.CallFor[echoOut](t, cs, "echo", map[string]any{"text": "hi"})
		if out.Caller != "oauth:https://app.example.com/client.json" {
			t.Errorf("caller %q", out.Caller)
		}
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_thing","arguments":{}}}`
		code, hdr, msg := post(t, h.URL+"/mcp", body, map[string]string{"Authorization": "Bearer " + tok})
		if code != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) || !strings.Contains(msg, "kittest:write") {
			t.Errorf("a write call with a read token: %d %q %s", code, hdr.Get("WWW-Authenticate"), msg)
		}
	})

	t.Run("write scope", func(t *testing.T) {
		cs, err := h.TryConnect(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "kittest:write"}))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if names := toolNames(t, cs); !slices.Contains(names, "write_thing") {
			t.Errorf("a write token lists %v", names)
		}
		if res := mcptest.Call(t, cs, "write_thing", map[string]any{}); res.IsError {
			t.Errorf("write_thing: %s", mcptest.Text(res))
		}
	})

	t.Run("static token beside OAuth", func(t *testing.T) {
		cs, err := h.TryConnect(t.Context(), "0123456789abcdef0123456789abcdef")
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		out, _ := mcptest.CallFor[echoOut](t, cs, "echo", map[string]any{"text": "hi"})
		if out.Caller != "laptop" || !slices.Contains(toolNames(t, cs), "write_thing") {
			t.Errorf("static token: caller %q", out.Caller)
		}
	})

	t.Run("issuer down", func(t *testing.T) {
		h2 := mcptest.Start(t, testSpec(nil), "--oauth-issuer", is.URL, "--public-url", public)
		tok := is.Mint(t, issuertest.Token{Audience: aud, Scope: "kittest:read"})
		is.SetDown(true)
		defer is.SetDown(false)
		code, hdr, _ := post(t, h2.URL+"/mcp", initBody, map[string]string{"Authorization": "Bearer " + tok})
		if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
			t.Errorf("issuer down: %d", code)
		}
	})
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// anyStrings converts a decoded JSON list of strings.
func anyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestOAuthNarrowedURLs: each narrowed URL is a protected resource of its own, discovered from
// its 401 at its path-derived metadata; a token for it works there and at narrower URLs, never
// at a wider one, and a token for the whole endpoint works at every narrowed URL.
func TestOAuthNarrowedURLs(t *testing.T) {
	is := issuertest.Start(t)
	const public = "https://kittest.example.com"
	h := mcptest.Start(t, toolsetSpec(), "--oauth-issuer", is.URL, "--public-url", public)

	code, hdr, _ := post(t, h.URL+"/mcp/x/talk", initBody, nil)
	want := `Bearer resource_metadata="https://kittest.example.com/.well-known/oauth-protected-resource/mcp/x/talk", scope="kittest:read kittest:write"`
	if code != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") != want {
		t.Fatalf("no token at /mcp/x/talk: %d %q, want 401 %q", code, hdr.Get("WWW-Authenticate"), want)
	}
	resp, err := http.Get(h.URL + "/.well-known/oauth-protected-resource/mcp/x/talk")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource string `json:"resource"`
	}
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || meta.Resource != public+"/mcp/x/talk" {
		t.Fatalf("metadata of /mcp/x/talk: %+v %v", meta, err)
	}

	narrow := is.Mint(t, issuertest.Token{Audience: public + "/mcp/x/talk", Scope: "kittest:write"})
	whole := is.Mint(t, issuertest.Token{Audience: public + "/mcp", Scope: "kittest:write"})
	for _, tc := range []struct {
		path, token string
		want        []string // nil: refused
	}{
		{"/mcp/x/talk", narrow, []string{"echo"}},
		{"/mcp/x/talk/readonly", narrow, []string{"echo"}},
		{"/mcp", narrow, nil},
		{"/mcp/x/change", narrow, nil},
		{"/mcp/readonly", narrow, nil},
		{"/mcp/x/talk", whole, []string{"echo"}},
		{"/mcp/x/change", whole, []string{"write_thing"}},
	} {
		cs, err := h.TryConnectTo(t.Context(), tc.path, tc.token, nil)
		if tc.want == nil {
			if err == nil {
				cs.Close()
				t.Errorf("%s accepted a token for a narrower URL", tc.path)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if got := toolNames(t, cs); !slices.Equal(got, tc.want) {
			t.Errorf("%s lists %v, want %v", tc.path, got, tc.want)
		}
		cs.Close()
	}
}

// TestOAuthReadOnlyURLs: a read-only URL asks for the read scope alone, and a token for it is
// read-only whatever scope it carries: a call of a tool that changes something is refused 403
// insufficient_scope before the MCP layer, saying the URL offers only the read-only tools.
func TestOAuthReadOnlyURLs(t *testing.T) {
	is := issuertest.Start(t)
	const public = "https://kittest.example.com"
	h := mcptest.Start(t, toolsetSpec(), "--oauth-issuer", is.URL, "--public-url", public)
	for _, path := range []string{"/mcp/readonly", "/mcp/x/change/readonly"} {
		tok := is.Mint(t, issuertest.Token{Audience: public + path, Scope: "kittest:read kittest:write"})
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_thing","arguments":{}}}`
		code, hdr, msg := post(t, h.URL+path, body, map[string]string{"Authorization": "Bearer " + tok})
		if code != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
			!strings.Contains(hdr.Get("WWW-Authenticate"), `scope="kittest:read"`) || !strings.Contains(msg, "offers only the read-only tools") {
			t.Errorf("%s: a write call: %d %q %s", path, code, hdr.Get("WWW-Authenticate"), msg)
		}
		code, hdr, _ = post(t, h.URL+path, initBody, nil)
		if code != http.StatusUnauthorized || !strings.HasSuffix(hdr.Get("WWW-Authenticate"), `scope="kittest:read"`) {
			t.Errorf("%s without a token: %d %q", path, code, hdr.Get("WWW-Authenticate"))
		}
	}
}
