package guard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// fakeOAuth stands in for an OAuth resource: "ro" is a read-only grant, "scope" lacks this
// server's scopes, "down" finds the issuer unreachable, anything else is invalid.
type fakeOAuth struct{}

func (fakeOAuth) Authenticate(_ context.Context, token string) (Caller, error) {
	switch token {
	case "ro":
		return Caller{Label: "oauth:app", ReadOnly: true, Scopes: []string{"kit:read"}}, nil
	case "scope":
		return Caller{}, fmt.Errorf("%w: the token has none of kit's scopes", ErrInsufficientScope)
	case "down":
		return Caller{}, fmt.Errorf("%w: the issuer's keys cannot be fetched", ErrUnavailable)
	}
	return Caller{}, fmt.Errorf("%w: not signed by the issuer", ErrInvalidToken)
}

func (fakeOAuth) Challenge(w http.ResponseWriter, status int, code, msg string) {
	v := `Bearer resource_metadata="https://kit.example.com/.well-known/oauth-protected-resource/mcp"`
	if code != "" {
		v += `, error="` + code + `"`
	}
	w.Header().Set("WWW-Authenticate", v)
	http.Error(w, msg, status)
}

// proxyHeaders are the headers that make a request from loopback count as remote.
var proxyHeaders = map[string]string{
	"Cf-Connecting-Ip": "203.0.113.9", "Cf-Ray": "8a1b2c3d4e5f-AMS", "X-Forwarded-For": "203.0.113.9",
	"X-Forwarded-Host": "mcp.example.com", "X-Forwarded-Proto": "https", "X-Real-Ip": "203.0.113.9",
	"Forwarded": "for=203.0.113.9", "True-Client-Ip": "203.0.113.9", "Via": "1.1 proxy",
}

func TestGate(t *testing.T) {
	t.Parallel()
	tokens, err := parseTokens("tokens", strings.NewReader("laptop:0123456789abcdef0123456789abcdef\n"))
	if err != nil {
		t.Fatal(err)
	}
	const good = "0123456789abcdef0123456789abcdef"
	type want struct {
		code   int
		caller string // the label next sees; "" when refused
		reason string // the refusal counted; "" when admitted
	}
	type request struct {
		name    string
		host    string // "" for 127.0.0.1:9003
		peer    string // "" for 127.0.0.1:50000
		token   string
		headers map[string]string
	}
	local := request{name: "local"}
	tunnel := request{name: "tunnel Host", host: "mcp.example.com"}
	lan := request{name: "LAN peer", host: "192.168.1.110:9003", peer: "192.168.1.20:50000"}
	gates := []struct {
		name     string
		gate     *Gate
		auth     Authenticator
		requests map[*request]want
	}{
		{"loopback, no credentials", nil, nil, map[*request]want{
			&local:  {http.StatusNoContent, CallerLocal, ""},
			&tunnel: {http.StatusUnauthorized, "", ReasonNotLocal},
			&lan:    {http.StatusUnauthorized, "", ReasonNotLocal},
			{name: "local with a token it cannot check", token: good}: {http.StatusNoContent, CallerLocal, ""},
		}},
		{"not loopback, no credentials, --insecure-no-auth", NewGate(false, true, nil), nil, map[*request]want{
			&local:  {http.StatusNoContent, CallerAnonymous, ""},
			&tunnel: {http.StatusNoContent, CallerAnonymous, ""},
			&lan:    {http.StatusNoContent, CallerAnonymous, ""},
		}},
		{"tokens", nil, tokens, map[*request]want{
			&local:                                   {http.StatusUnauthorized, "", ReasonMissingToken},
			{name: "local, good token", token: good}: {http.StatusNoContent, "laptop", ""},
			{name: "tunnel, good token", host: "mcp.example.com", token: good}:      {http.StatusNoContent, "laptop", ""},
			{name: "local, wrong token", token: "0123456789abcdef0123456789abcdee"}: {http.StatusUnauthorized, "", ReasonInvalidToken},
			&tunnel: {http.StatusUnauthorized, "", ReasonMissingToken},
		}},
		{"tokens and OAuth", nil, Either(tokens, fakeOAuth{}), map[*request]want{
			{name: "static token", token: good}:          {http.StatusNoContent, "laptop", ""},
			{name: "read-only OAuth token", token: "ro"}: {http.StatusNoContent, "oauth:app", ""},
			{name: "no scope", token: "scope"}:           {http.StatusForbidden, "", ReasonInsufficientScope},
			{name: "issuer down", token: "down"}:         {http.StatusServiceUnavailable, "", ReasonIssuerUnavailable},
			{name: "bad token", token: "forged"}:         {http.StatusUnauthorized, "", ReasonInvalidToken},
			&local:                                       {http.StatusUnauthorized, "", ReasonMissingToken},
		}},
	}
	for _, g := range gates {
		var reasons []string
		gate := g.gate
		if gate == nil {
			gate = NewGate(true, false, nil)
		}
		gate.refused = func(r string) { reasons = append(reasons, r) }
		var seen Caller
		h := gate.Require(g.auth, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen, _ = CallerFrom(r.Context())
			w.WriteHeader(http.StatusNoContent)
		}))
		for req, want := range g.requests {
			t.Run(g.name+"/"+req.name, func(t *testing.T) {
				reasons, seen = nil, Caller{}
				r := onLoopback(httptest.NewRequest(http.MethodPost, "/mcp", nil))
				r.RemoteAddr, r.Host = "127.0.0.1:50000", "127.0.0.1:9003"
				if req.peer != "" {
					r.RemoteAddr = req.peer
				}
				if req.host != "" {
					r.Host = req.host
				}
				if req.token != "" {
					r.Header.Set("Authorization", "Bearer "+req.token)
				}
				for k, v := range req.headers {
					r.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code != want.code || seen.Label != want.caller {
					t.Errorf("status %d caller %q, want %d %q; body %s", rec.Code, seen.Label, want.code, want.caller, rec.Body)
				}
				if rec.Code == http.StatusUnauthorized && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer ") {
					t.Errorf("401 without a Bearer challenge: %q", rec.Header().Get("WWW-Authenticate"))
				}
				if wantReasons := slices.DeleteFunc([]string{want.reason}, func(s string) bool { return s == "" }); !slices.Equal(reasons, wantReasons) {
					t.Errorf("refusals counted %v, want %v", reasons, wantReasons)
				}
			})
		}
	}
}

// TestGateProxyHeaders: on a loopback server without credentials, a request from loopback with
// any one header a proxy or tunnel adds is not local, so it is refused.
func TestGateProxyHeaders(t *testing.T) {
	t.Parallel()
	h := NewGate(true, false, nil).Require(nil, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for name, value := range proxyHeaders {
		r := onLoopback(httptest.NewRequest(http.MethodPost, "/mcp", nil))
		r.RemoteAddr, r.Host = "127.0.0.1:50000", "localhost:9003"
		r.Header.Set(name, value)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, rec.Code)
		}
	}
}

func TestGateTrusted(t *testing.T) {
	t.Parallel()
	tokens, err := parseTokens("tokens", strings.NewReader("laptop:0123456789abcdef0123456789abcdef\n"))
	if err != nil {
		t.Fatal(err)
	}
	req := func(host, token string) *http.Request {
		r := onLoopback(httptest.NewRequest(http.MethodGet, "/healthz", nil))
		r.RemoteAddr, r.Host = "127.0.0.1:50000", host
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	for _, tc := range []struct {
		name string
		gate *Gate
		auth Authenticator
		r    *http.Request
		want bool
	}{
		{"local", NewGate(true, false, nil), tokens, req("localhost:9003", ""), true},
		{"local, but the server is not bound to loopback", NewGate(false, true, nil), nil, req("localhost:9003", ""), false},
		{"tunnel without a token", NewGate(true, false, nil), tokens, req("mcp.example.com", ""), false},
		{"tunnel with a token", NewGate(true, false, nil), tokens, req("mcp.example.com", "0123456789abcdef0123456789abcdef"), true},
		{"tunnel with a wrong token", NewGate(true, false, nil), tokens, req("mcp.example.com", "0123456789abcdef0123456789abcdee"), false},
		{"tunnel with a token and no scheme", NewGate(true, false, nil), nil, req("mcp.example.com", "0123456789abcdef0123456789abcdef"), false},
	} {
		if got := tc.gate.Trusted(tc.r, tc.auth); got != tc.want {
			t.Errorf("%s: Trusted %v, want %v", tc.name, got, tc.want)
		}
	}
}
