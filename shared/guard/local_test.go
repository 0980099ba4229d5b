package guard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestIsLocal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		peer   string
		host   string
		header map[string]string
		want   bool
	}{
		{"curl on the host", "127.0.0.1:50000", "127.0.0.1:9003", nil, true},
		{"localhost name", "127.0.0.1:50000", "localhost:9003", nil, true},
		{"ipv6 loopback", "[::1]:50000", "[::1]:9003", nil, true},
		{"host without port", "127.0.0.1:50000", "localhost", nil, true},
		{"other loopback address", "127.0.0.2:50000", "127.0.0.1:9003", nil, true},
		{"LAN peer", "192.168.1.20:50000", "127.0.0.1:9003", nil, false},
		{"LAN peer, LAN host", "192.168.1.20:50000", "192.168.1.110:9003", nil, false},
		{"tunnel with public Host", "127.0.0.1:50000", "mcp-calc.example.com", nil, false},
		{"tunnel with rewritten Host", "127.0.0.1:50000", "127.0.0.1:9003", map[string]string{"X-Forwarded-Host": "mcp-calc.example.com"}, false},
		{"Cf-Connecting-Ip", "127.0.0.1:50000", "localhost:9003", map[string]string{"Cf-Connecting-Ip": "203.0.113.9"}, false},
		{"Cf-Ray alone", "127.0.0.1:50000", "localhost:9003", map[string]string{"Cf-Ray": "8a1b2c3d4e5f-AMS"}, false},
		{"X-Forwarded-For", "127.0.0.1:50000", "localhost:9003", map[string]string{"X-Forwarded-For": "203.0.113.9"}, false},
		{"Forwarded", "127.0.0.1:50000", "localhost:9003", map[string]string{"Forwarded": "for=203.0.113.9"}, false},
		{"X-Real-Ip", "127.0.0.1:50000", "localhost:9003", map[string]string{"X-Real-Ip": "203.0.113.9"}, false},
		{"Via", "127.0.0.1:50000", "localhost:9003", map[string]string{"Via": "1.1 proxy"}, false},
		{"lower-case header name", "127.0.0.1:50000", "localhost:9003", map[string]string{"cf-connecting-ip": "203.0.113.9"}, false},
		{"empty Host", "127.0.0.1:50000", "", nil, false},
		{"Host that only starts with localhost", "127.0.0.1:50000", "localhost.evil.example", nil, false},
		{"unparsable peer", "pipe", "localhost:9003", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/healthz", nil)
			r = onLoopback(r)
			r.RemoteAddr, r.Host = tt.peer, tt.host
			for k, v := range tt.header {
				r.Header[k] = []string{v} // as sent, not canonicalized
			}
			if got := IsLocal(r); got != tt.want {
				t.Errorf("IsLocal = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestIsLocalNeedsALoopbackConnection: a loopback peer and Host are not enough when the
// connection came in on another address, or on none known.
func TestIsLocalNeedsALoopbackConnection(t *testing.T) {
	t.Parallel()
	lan := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	lan = lan.WithContext(context.WithValue(lan.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.MustParseAddrPort("192.168.1.110:9003"))))
	unknown := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	for name, r := range map[string]*http.Request{"a LAN address": lan, "no address": unknown} {
		r.RemoteAddr, r.Host = "127.0.0.1:50000", "localhost:9003"
		if IsLocal(r) {
			t.Errorf("%s: IsLocal", name)
		}
	}
}

// onLoopback is r as a server listening on 127.0.0.1:9003 receives it.
func onLoopback(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:9003"))))
}

func TestTokensAuthenticate(t *testing.T) {
	t.Parallel()
	tok, err := parseTokens("tokens", strings.NewReader("laptop:0123456789abcdef0123456789abcdef\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := tok.Authenticate(t.Context(), "0123456789abcdef0123456789abcdef"); err != nil || c.Label != "laptop" || c.ReadOnly {
		t.Errorf("a known token: %+v %v", c, err)
	}
	for _, bad := range []string{"0123456789abcdef0123456789abcdee", "", "laptop"} {
		if _, err := tok.Authenticate(t.Context(), bad); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%q: %v, want ErrInvalidToken", bad, err)
		}
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		header, want string
		ok           bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"Basic abc", "", false},
		{"Bearer ", "", false},
		{"", "", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		if got, ok := BearerToken(r); got != tt.want || ok != tt.ok {
			t.Errorf("%q: %q %v", tt.header, got, ok)
		}
	}
}
