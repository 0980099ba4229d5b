package resource_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/resource"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
)

// serveResource serves r's metadata and, behind the gate with r as its credential scheme, an
// endpoint that answers 200.
func serveResource(t *testing.T, r *resource.Resource, path string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(r.MetadataPath(), r.MetadataHandler())
	mux.Handle(path, guard.NewGate(true, false, nil).Require(r, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "through")
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// call posts a tools/call of tool to url with the bearer token (none when empty).
func call(t *testing.T, url, token, tool string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// TestReadOnlyURL: a read-only URL's metadata and challenges ask for the read scope alone, and
// a token whose audience is a read-only URL is read-only whatever scope it carries.
func TestReadOnlyURL(t *testing.T) {
	is := issuertest.Start(t)
	base := newResource(is)
	for _, path := range []string{"/mcp/readonly", "/mcp/x/mail/readonly"} {
		t.Run(path, func(t *testing.T) {
			r := base.At(path)
			srv := serveResource(t, r, path)
			resp, err := http.Get(srv.URL + r.MetadataPath())
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Resource string   `json:"resource"`
				Scopes   []string `json:"scopes_supported"`
			}
			err = json.NewDecoder(resp.Body).Decode(&meta)
			resp.Body.Close()
			if err != nil || meta.Resource != public+path || !slices.Equal(meta.Scopes, []string{"gmail:read"}) {
				t.Errorf("metadata: %+v %v", meta, err)
			}
			st, www := call(t, srv.URL+path, "", "gmail_list")
			want := `Bearer resource_metadata="` + public + `/.well-known/oauth-protected-resource` + path + `", scope="gmail:read"`
			if st != http.StatusUnauthorized || www != want {
				t.Errorf("no token: %d %q, want 401 %q", st, www, want)
			}
			// An issuer that put the write scope in a token for the read-only URL: still read-only.
			tok := is.Mint(t, issuertest.Token{Audience: public + path, Scope: "gmail:read gmail:write"})
			g, err := r.Verify(t.Context(), tok)
			if err != nil || g.Write {
				t.Fatalf("verify: %+v %v", g, err)
			}
			if c, err := r.Authenticate(t.Context(), tok); err != nil || !c.ReadOnly {
				t.Errorf("authenticate: %+v %v, want a read-only caller", c, err)
			}
			// Which tool such a caller may call is the kit's view (shared/kit TestOAuthReadOnlyURLs).
			if st, _ := call(t, srv.URL+path, tok, "gmail_list"); st != http.StatusOK {
				t.Errorf("read tool: %d", st)
			}
			w := httptest.NewRecorder()
			r.Challenge(w, http.StatusForbidden, "insufficient_scope", "gmail_send changes something")
			if www := w.Header().Get("WWW-Authenticate"); !strings.Contains(www, `error="insufficient_scope"`) || !strings.Contains(www, `scope="gmail:read"`) {
				t.Errorf("a 403 challenge here: %q", www)
			}
		})
	}
	t.Run("the whole endpoint still asks for both", func(t *testing.T) {
		srv := serveResource(t, base, "/mcp")
		if st, www := call(t, srv.URL+"/mcp", "", "gmail_list"); st != http.StatusUnauthorized || !strings.HasSuffix(www, `scope="gmail:read gmail:write"`) {
			t.Errorf("%d %q", st, www)
		}
	})
}

// TestExpiryAnswers: every 401 carries WWW-Authenticate. A token past its expiry by less than
// the leeway is still taken; one past the leeway is refused by the verifier, with the challenge
// and what is wrong.
func TestExpiryAnswers(t *testing.T) {
	is := issuertest.Start(t)
	r := newResource(is)
	srv := serveResource(t, r, "/mcp")
	aud := public + "/mcp"
	cases := []struct {
		name   string
		ttl    time.Duration
		status int
		words  string // in WWW-Authenticate
	}{
		{"valid", 5 * time.Minute, http.StatusOK, ""},
		{"expired 5 s ago", -5 * time.Second, http.StatusOK, ""},
		{"expired 50 s ago", -50 * time.Second, http.StatusOK, ""},
		{"expired 70 s ago", -70 * time.Second, http.StatusUnauthorized, "the token has expired"},
		{"expired an hour ago", -time.Hour, http.StatusUnauthorized, "the token has expired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, www := call(t, srv.URL+"/mcp", is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read", TTL: tc.ttl}), "gmail_list")
			if st != tc.status {
				t.Fatalf("%d %q, want %d", st, www, tc.status)
			}
			if st == http.StatusUnauthorized && (!strings.HasPrefix(www, `Bearer resource_metadata="`) || !strings.Contains(www, `error="invalid_token"`) || !strings.Contains(www, tc.words)) {
				t.Errorf("challenge %q", www)
			}
		})
	}
}
