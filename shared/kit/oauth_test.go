package kit_test

import (
	"encoding/json"
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
		for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
			resp, err := http.Get(h.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				ScopesSupported      []string `json:"scopes_supported"`
				BearerMethods        []string `json:"bearer_methods_supported"`
			}
			err = json.NewDecoder(resp.Body).Decode(&meta)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || meta.Resource != aud || !slices.Equal(meta.AuthorizationServers, []string{is.URL}) ||
				!slices.Equal(meta.ScopesSupported, []string{"kittest:read", "kittest:write"}) || !slices.Equal(meta.BearerMethods, []string{"header"}) {
				t.Errorf("%s: %d %+v %v", path, resp.StatusCode, meta, err)
			}
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
