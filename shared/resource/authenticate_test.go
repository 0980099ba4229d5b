package resource_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/resource/issuertest"
)

// TestAuthenticate: a token's check, as the gate reads it: who calls, whether only to read, and
// which answer a refusal gets, with the check's own words.
func TestAuthenticate(t *testing.T) {
	is := issuertest.Start(t)
	r := newResource(is)
	aud := public + "/mcp"
	c, err := r.Authenticate(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read", ClientID: "https://app.example.com/client.json"}))
	if err != nil || c.Label != "oauth:https://app.example.com/client.json" || !c.ReadOnly || c.Subject != "owner" || !slices.Equal(c.Scopes, []string{"gmail:read"}) {
		t.Errorf("a read token: %+v %v", c, err)
	}
	if c, err := r.Authenticate(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:write"})); err != nil || c.ReadOnly {
		t.Errorf("a write token: %+v %v", c, err)
	}
	for _, tc := range []struct {
		name  string
		tok   string
		kind  error
		words string
	}{
		{"another server's", is.Mint(t, issuertest.Token{Audience: "https://drive.example.com/mcp", Scope: "gmail:write"}), guard.ErrInvalidToken, "not this server"},
		{"not a JWT", "opaque", guard.ErrInvalidToken, "not a signed JWT"},
		{"no scope of this server", is.Mint(t, issuertest.Token{Audience: aud, Scope: "drive:read"}), guard.ErrInsufficientScope, "neither gmail:read nor gmail:write"},
	} {
		if _, err := r.Authenticate(t.Context(), tc.tok); !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v, want %v with %q", tc.name, err, tc.kind, tc.words)
		}
	}
	is.SetDown(true)
	if _, err := newResource(is).Authenticate(t.Context(), is.Mint(t, issuertest.Token{Audience: aud, Scope: "gmail:read"})); !errors.Is(err, guard.ErrUnavailable) {
		t.Errorf("issuer down: %v, want guard.ErrUnavailable", err)
	}
	w := httptest.NewRecorder()
	r.At("/mcp/x/read").Challenge(w, http.StatusUnauthorized, "invalid_token", `bad "token"`)
	want := `Bearer resource_metadata="https://gmail.example.com/.well-known/oauth-protected-resource/mcp/x/read", scope="gmail:read gmail:write", error="invalid_token", error_description="bad 'token'"`
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("challenge: %d %q\nwant %q", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
}
