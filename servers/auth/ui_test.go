package main

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCookies: over https the page cookies are Secure with the __Host- prefix; always HttpOnly
// and SameSite=Lax.
func TestCookies(t *testing.T) {
	for _, secure := range []bool{true, false} {
		w := httptest.NewRecorder()
		(&ui{secure: secure}).setCookie(w, "mcp-auth", "v")
		c := w.Header().Get("Set-Cookie")
		want := []string{"mcp-auth=v", "Path=/", "HttpOnly", "SameSite=Lax"}
		if secure {
			want = append(want, "__Host-mcp-auth=v", "Secure")
		}
		for _, s := range want {
			if !strings.Contains(c, s) {
				t.Errorf("secure=%v: %q lacks %q", secure, c, s)
			}
		}
		if !secure && strings.Contains(c, "Secure") {
			t.Errorf("a Secure cookie over http: %q", c)
		}
	}
}
