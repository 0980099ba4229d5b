package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want string // "" = not an IP
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0177.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"10.1.1", "10.1.0.1"},
		{"0xA9.0xFE.0xA9.0xFE", "169.254.169.254"},
		{"169.254.43518", "169.254.169.254"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"192.168.1.1.", "192.168.1.1"},
		{"[::1]", "::1"},
		{"[::ffff:127.0.0.1]", "127.0.0.1"},
		{"::ffff:7f00:1", "127.0.0.1"},
		{"[fe80::1%25eth0]", "fe80::1%25eth0"},
		{"fe80::1%eth0", "fe80::1%eth0"},
		{"[::127.0.0.1]", "::7f00:1"},
		{"[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1"},
		{"::ffff:0:127.0.0.1", "::ffff:0:7f00:1"},
		{"[::1", ""},
		{"1:2", ""},
		{"example.com", ""},
		{"1.2.3.4.5", ""},
		{"256.1.1.1", ""},
		{"1.2.3.256", ""},
		{"4294967296", ""},
		{"08.1.1.1", ""},
		{"0xg.1", ""},
		{"", ""},
		{"1..1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			got, ok := ParseHost(tt.host)
			if tt.want == "" {
				if ok {
					t.Fatalf("ParseHost(%q) = %v, want not an IP", tt.host, got)
				}
				return
			}
			if !ok || got.String() != tt.want {
				t.Fatalf("ParseHost(%q) = %v, %v; want %s", tt.host, got, ok, tt.want)
			}
		})
	}
}

func TestPolicyAllowList(t *testing.T) {
	t.Parallel()
	p, err := NewPolicy(false, []string{"127.0.0.1/32", "10.1.0.0/16", "intranet.local", "fd00::5"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		ip   string
		ok   bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"127.0.0.2", "127.0.0.2", false},
		{"10.1.2.3", "10.1.2.3", true},
		{"10.2.0.1", "10.2.0.1", false},
		{"fd00::5", "fd00::5", true},
		{"x", "192.168.1.1", false},
		{"x", "93.184.216.34", true},
	}
	for _, tt := range tests {
		err := p.CheckIP(tt.host, netip.MustParseAddr(tt.ip))
		if (err == nil) != tt.ok {
			t.Errorf("CheckIP(%s, %s) = %v, want ok=%v", tt.host, tt.ip, err, tt.ok)
		}
	}
	if !p.hostAllowed("Intranet.Local.") {
		t.Error("intranet.local should be allowed by name")
	}
	if _, err := NewPolicy(false, []string{"not a host!"}); err == nil {
		t.Error("bad allow entry accepted")
	}
	open, _ := NewPolicy(true, nil)
	if err := open.CheckIP("", netip.MustParseAddr("192.168.1.1")); err != nil {
		t.Errorf("allowPrivate policy refused: %v", err)
	}
}

func TestCheckHostSpellings(t *testing.T) {
	t.Parallel()
	p, _ := NewPolicy(false, nil)
	for _, h := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "[::ffff:127.0.0.1]", "localhost", "169.254.169.254", "[::1]"} {
		err := p.CheckHost(context.Background(), h)
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Errorf("CheckHost(%q) = %v, want a BlockedError", h, err)
		}
	}
}

func TestDialRefusesPrivate(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	p, _ := NewPolicy(false, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		c, err := p.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
		var be *BlockedError
		if !errors.As(err, &be) {
			if c != nil {
				_ = c.Close()
			}
			t.Errorf("dial %s: %v, want a BlockedError", host, err)
		}
	}
	allow, _ := NewPolicy(false, []string{"127.0.0.0/8"})
	c, err := allow.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("allowlisted dial failed: %v", err)
	}
	_ = c.Close()
}

func TestProxy(t *testing.T) {
	t.Parallel()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello from "+r.URL.Path)
	}))
	defer target.Close()

	tests := []struct {
		name      string
		allow     []string
		wantCode  int
		wantBody  string
		wantBlock bool
	}{
		{"refused by default", nil, http.StatusForbidden, "loopback", true},
		{"allowed by CIDR", []string{"127.0.0.1/32"}, http.StatusOK, "hello from /x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, _ := NewPolicy(false, tt.allow)
			px := startTestProxy(t, pol)
			pu, _ := url.Parse("http://" + px.Addr())
			client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 10 * time.Second}
			resp, err := client.Get(target.URL + "/x")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tt.wantCode || !strings.Contains(string(body), tt.wantBody) {
				t.Fatalf("got %d %q, want %d containing %q", resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
			if got := resp.Header.Get(BlockedHeader) != ""; got != tt.wantBlock {
				t.Errorf("blocked header present = %v, want %v", got, tt.wantBlock)
			}
			if got := len(px.BlocksSince(0)) > 0; got != tt.wantBlock {
				t.Errorf("block recorded = %v, want %v", got, tt.wantBlock)
			}
		})
	}
}

func TestProxyConnectRefused(t *testing.T) {
	t.Parallel()
	pol, _ := NewPolicy(false, nil)
	px := startTestProxy(t, pol)
	c, err := net.Dial("tcp", px.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _ = io.WriteString(c, "CONNECT 10.0.0.1:443 HTTP/1.1\r\nHost: 10.0.0.1:443\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 403") {
		t.Fatalf("CONNECT to a private address answered %q, want 403", buf[:n])
	}
}

func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0177.0.0.1", "::ffff:127.0.0.1", "[::1]", "example.com", "1.2.3.4.5", "0x", "0.0.0.0.",
		"[64:ff9b::10.0.0.1]", "2002:c0a8:101::1", "[fe80::1%25eth0]", "::127.0.0.1", "134744072"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, ok := ParseHost(s)
		if !ok {
			return
		}
		if !ip.IsValid() || ip.Is4In6() {
			t.Fatalf("ParseHost(%q) = %v: invalid or still mapped", s, ip)
		}
		// A dotted-quad rendering of a parsed IPv4 address parses back to itself.
		if ip.Is4() {
			again, ok := ParseHost(ip.String())
			if !ok || again != ip {
				t.Fatalf("round trip of %q: %v -> %v", s, ip, again)
			}
		}
		// Every loopback spelling is classified as blocked.
		if ip.IsLoopback() && Classify(ip) == "" {
			t.Fatalf("loopback %v from %q not blocked", ip, s)
		}
		// Whatever the spelling, the verdict is the reference's for the address (a zone: refused).
		want := ip.Zone() == "" && refAllowed(ip.As16())
		if got := Classify(ip) == ""; got != want {
			t.Fatalf("%q is %v: allowed=%v, reference says %v", s, ip, got, want)
		}
	})
}
