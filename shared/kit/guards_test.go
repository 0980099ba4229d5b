package kit_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestGuards(t *testing.T) {
	t.Parallel()
	tokens := writeTokens(t)
	h := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens, "--allowed-hosts", "mcp-kit.example.com",
		"--allowed-origins", "https://app.example.com", "--max-body-bytes", "4096")
	good := "Bearer 0123456789abcdef0123456789abcdef"
	tests := []struct {
		name    string
		path    string
		body    string
		headers map[string]string
		want    int
	}{
		{"no token", "/mcp", initBody, nil, http.StatusUnauthorized},
		{"wrong token", "/mcp", initBody, map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdee"}, http.StatusUnauthorized},
		{"not bearer", "/mcp", initBody, map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, http.StatusUnauthorized},
		{"right token", "/mcp", initBody, map[string]string{"Authorization": good}, http.StatusOK},
		{"evil host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "evil.example"}, http.StatusForbidden},
		{"evil origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"evil origin without token is still 403", "/mcp", initBody, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"tunnel host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "mcp-kit.example.com"}, http.StatusOK},
		{"tunnel host with https port", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "mcp-kit.example.com:443"}, http.StatusOK},
		{"localhost host", "/mcp", initBody, map[string]string{"Authorization": good, "Host": "localhost:9999"}, http.StatusOK},
		{"loopback origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "http://localhost:9999"}, http.StatusOK},
		{"listed origin", "/mcp", initBody, map[string]string{"Authorization": good, "Origin": "https://app.example.com"}, http.StatusOK},
		{"oversized body", "/mcp", strings.Repeat(" ", 5000) + initBody, map[string]string{"Authorization": good}, http.StatusRequestEntityTooLarge},
		{"healthz needs no token", "/healthz", "", nil, http.StatusMethodNotAllowed},
		{"metrics need a token", "/metrics", "", nil, http.StatusUnauthorized},
		{"unknown path", "/nope", "", map[string]string{"Authorization": good}, http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := post(t, h.URL+tt.path, tt.body, tt.headers)
			if code != tt.want {
				t.Fatalf("status %d, want %d; body %q", code, tt.want, body)
			}
			if code == http.StatusUnauthorized && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer (got %q)", hdr.Get("WWW-Authenticate"))
			}
		})
	}
	// Every refusal above is counted by its reason; the oversized body is not an auth failure.
	for reason, want := range map[string]uint64{
		guard.ReasonMissingToken: 3, guard.ReasonInvalidToken: 1, guard.ReasonHost: 1, guard.ReasonOrigin: 2, guard.ReasonNotLocal: 0,
	} {
		if got := h.Server.Metrics().Failures(reason); got != want {
			t.Errorf("auth failures %s = %d, want %d", reason, got, want)
		}
	}
}

func TestOversizedChunkedBody(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, testSpec(nil), "--max-body-bytes", "2048")
	// A body without Content-Length is cut off while it is read.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`))
		_ = pw.Close()
	}()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.URL+"/mcp", pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "body over 2048 bytes (the server's --max-body-bytes)") {
		t.Fatalf("status %d %s, want 413 naming --max-body-bytes", resp.StatusCode, body)
	}
}

// TestHealthzDisclosure runs /healthz over real HTTP as each kind of caller: only a request
// from this machine (not through a tunnel) or one with a valid token sees the checks.
func TestHealthzDisclosure(t *testing.T) {
	t.Parallel()
	secret := map[string]health.Result{"google token": {Status: health.Warn, Detail: "alice@example.com, scopes gmail.modify, /var/lib/mcp-servers/google/token.json"}}
	summary := []string{"name", "status", "version"}
	full := []string{"checks", "name", "status", "tools", "uptime_seconds", "version"}
	const good, wrong = "Bearer 0123456789abcdef0123456789abcdef", "Bearer 0123456789abcdef0123456789abcdee"
	tunnel := "mcp-kit.example.com"
	tests := []struct {
		name    string
		tokens  bool
		headers map[string]string
		want    []string
	}{
		{"loopback, no token", true, nil, full},
		{"localhost name, no token", true, map[string]string{"Host": "localhost"}, full},
		{"tunnel host, no token", true, map[string]string{"Host": tunnel}, summary},
		{"tunnel with rewritten host", true, map[string]string{"X-Forwarded-Host": tunnel}, summary},
		{"Cf-Connecting-Ip", true, map[string]string{"Cf-Connecting-Ip": "203.0.113.7", "Cf-Ray": "8a1b2c3d4e5f-AMS"}, summary},
		{"X-Forwarded-For", true, map[string]string{"X-Forwarded-For": "203.0.113.7"}, summary},
		{"Forwarded", true, map[string]string{"Forwarded": "for=203.0.113.7;proto=https"}, summary},
		{"tunnel host, valid token", true, map[string]string{"Host": tunnel, "Authorization": good}, full},
		{"forwarded, valid token", true, map[string]string{"Cf-Connecting-Ip": "203.0.113.7", "Authorization": good}, full},
		{"tunnel host, wrong token", true, map[string]string{"Host": tunnel, "Authorization": wrong}, summary},
		{"no tokens configured (--insecure-no-auth), loopback", false, nil, full},
		{"no tokens configured (--insecure-no-auth), tunnel host", false, map[string]string{"Host": tunnel}, summary},
		{"no tokens configured (--insecure-no-auth), tunnel host with a token", false, map[string]string{"Host": tunnel, "Authorization": good}, summary},
	}
	tokens := writeTokens(t)
	withTokens := mcptest.Start(t, testSpec(secret), "--auth-tokens-file", tokens, "--allowed-hosts", tunnel)
	without := mcptest.Start(t, testSpec(secret), "--allowed-hosts", tunnel, "--insecure-no-auth")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := without
			if tt.tokens {
				h = withTokens
			}
			code, body := get(t, h.URL+"/healthz", tt.headers)
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200 (a wrong token must not turn a probe into a 401); body %s", code, body)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tt.want) {
				t.Errorf("fields = %v, want %v; body %s", keys, tt.want, body)
			}
			if got["status"] != "degraded" || got["name"] != "kittest" || got["version"] == "" {
				t.Errorf("body = %s", body)
			}
			if leaked := strings.Contains(body, "alice@") || strings.Contains(body, "/var/lib"); leaked != slices.Equal(tt.want, full) {
				t.Errorf("check details present = %v: %s", leaked, body)
			}
		})
	}
	t.Run("a failing check is 503 in the summary too", func(t *testing.T) {
		h := mcptest.Start(t, testSpec(map[string]health.Result{"vault": {Status: health.Fail, Detail: "/home/alice/notes missing"}}), "--allowed-hosts", tunnel, "--insecure-no-auth")
		code, body := get(t, h.URL+"/healthz", map[string]string{"Host": tunnel})
		if code != http.StatusServiceUnavailable || strings.Contains(body, "alice") || !strings.Contains(body, `"status":"unavailable"`) {
			t.Errorf("got %d %s, want 503 with the bare status", code, body)
		}
	})
}

// TestMetricsAccess: /metrics names the tools and versions, so it is not for the tunnel: it is
// behind the same gate as /mcp.
func TestMetricsAccess(t *testing.T) {
	t.Parallel()
	tunnel := "mcp-kit.example.com"
	tokens := writeTokens(t)
	withTokens := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens, "--allowed-hosts", tunnel)
	without := mcptest.Start(t, testSpec(nil))
	open := mcptest.Start(t, testSpec(nil), "--allowed-hosts", tunnel, "--insecure-no-auth")
	tests := []struct {
		name    string
		h       *mcptest.Harness
		headers map[string]string
		want    int
	}{
		{"tokens: none sent", withTokens, nil, http.StatusUnauthorized},
		{"tokens: wrong one", withTokens, map[string]string{"Authorization": "Bearer 0123456789abcdef0123456789abcdee"}, http.StatusUnauthorized},
		{"tokens: valid one through the tunnel", withTokens, map[string]string{"Host": tunnel, "Authorization": "Bearer 0123456789abcdef0123456789abcdef"}, http.StatusOK},
		{"no tokens: loopback", without, nil, http.StatusOK},
		{"no tokens: forwarded", without, map[string]string{"Cf-Connecting-Ip": "203.0.113.7"}, http.StatusUnauthorized},
		{"no tokens: X-Forwarded-Host", without, map[string]string{"X-Forwarded-Host": tunnel}, http.StatusUnauthorized},
		{"--insecure-no-auth: tunnel host", open, map[string]string{"Host": tunnel}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, tt.h.URL+"/metrics", tt.headers)
			if code != tt.want {
				t.Fatalf("status %d, want %d; body %s", code, tt.want, body)
			}
			if code != http.StatusOK && strings.Contains(body, "mcp_") {
				t.Errorf("refused, yet the body holds metrics: %s", body)
			}
		})
	}
	for _, c := range []struct {
		h      *mcptest.Harness
		reason string
		want   uint64
	}{
		{withTokens, guard.ReasonMissingToken, 1}, {withTokens, guard.ReasonInvalidToken, 1},
		{without, guard.ReasonNotLocal, 2}, {without, guard.ReasonMissingToken, 0},
	} {
		if got := c.h.Server.Metrics().Failures(c.reason); got != c.want {
			t.Errorf("auth failures %s = %d, want %d", c.reason, got, c.want)
		}
	}
}

// TestTrust: a request is served without a credential only when it provably comes from this
// machine, on every route behind the gate (mcptest.CheckTrust).
func TestTrust(t *testing.T) {
	t.Parallel()
	mcptest.CheckTrust(t, func() kit.Spec { return testSpec(nil) })
	mcptest.CheckTrust(t, toolsetSpec)
}
