package netguard

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

// TestClassifySpellings runs every host through ParseHost and Classify, the way the URL check
// does, and names what each spelling is.
func TestClassifySpellings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host   string
		reason string // substring of the refusal; "" = allowed
	}{
		// Global unicast is allowed.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"192.0.1.1", ""},
		{"198.20.0.1", ""},
		{"223.255.255.255", ""},
		{"[2606:4700::1111]", ""},
		{"2a00:1450:4001::200e", ""},
		{"[::ffff:8.8.8.8]", ""},
		{"64:ff9b::808:808", ""},
		{"2002:0808:0808::1", ""},
		{"2620:4f:8000::1", ""},
		{"134744072", ""}, // 8.8.8.8 as one number

		// Loopback in every spelling.
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"2130706433", "loopback"},
		{"0x7f000001", "loopback"},
		{"0x7f.1", "loopback"},
		{"0x7F.0X0.0.01", "loopback"},
		{"0177.0.0.1", "loopback"},
		{"0177.1", "loopback"},
		{"017700000001", "loopback"},
		{"127.1", "loopback"},
		{"127.0.1", "loopback"},
		{"127.0.0.1.", "loopback"},
		{"[::1]", "loopback"},
		{"::1", "loopback"},
		{"0:0:0:0:0:0:0:1", "loopback"},
		{"[::ffff:127.0.0.1]", "loopback"},
		{"[::ffff:7f00:1]", "loopback"},
		{"[0:0:0:0:0:ffff:127.0.0.1]", "loopback"},

		// Unspecified.
		{"0.0.0.0", "unspecified"},
		{"0", "unspecified"},
		{"0x0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"[::]", "unspecified"},
		{"[::ffff:0.0.0.0]", "unspecified"},

		// Private, shared, link-local, metadata.
		{"10.0.0.1", "private"},
		{"10.1.1", "private"},
		{"012.0.0.1", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"3232235777", "private"},
		{"0xc0.0xa8.1.1", "private"},
		{"[::ffff:192.168.0.1]", "private"},
		{"[::ffff:c0a8:1]", "private"},
		{"100.64.0.1", "carrier-grade"},
		{"100.127.255.255", "carrier-grade"},
		{"169.254.169.254", "link-local"},
		{"0xA9.0xFE.0xA9.0xFE", "link-local"},
		{"169.254.43518", "link-local"},
		{"2852039166", "link-local"},
		{"[fd00:ec2::254]", "unique-local"},
		{"fc00::1", "unique-local"},
		{"fd12:3456::1", "unique-local"},
		{"fe80::1", "link-local"},
		{"febf:ffff::1", "link-local"},
		{"[fe80::1%25eth0]", "zoned"},
		{"fe80::1%eth0", "zoned"},
		{"2606:4700::1111%eth0", "zoned"},
		{"fec0::1", "site-local"},

		// Special-purpose IPv4.
		{"192.0.0.1", "IETF"},
		{"192.0.0.9", "IETF"},
		{"192.0.2.1", "documentation"},
		{"198.51.100.7", "documentation"},
		{"203.0.113.9", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"192.88.99.1", "6to4 relay"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.254", "reserved"},
		{"255.255.255.255", "broadcast"},
		{"4294967295", "broadcast"},

		// IPv6 forms that carry an IPv4 address.
		{"[::127.0.0.1]", "IPv4-compatible"},
		{"[::8.8.8.8]", "IPv4-compatible"},
		{"::7f00:1", "IPv4-compatible"},
		{"[::ffff:0:127.0.0.1]", "IPv4-translated"},
		{"[::ffff:0:8.8.8.8]", "IPv4-translated"},
		{"[64:ff9b::127.0.0.1]", "NAT64 address for 127.0.0.1"},
		{"64:ff9b::a9fe:a9fe", "NAT64 address for 169.254.169.254"},
		{"64:ff9b::10.0.0.1", "private"},
		{"64:ff9b:1::8.8.8.8", "local-use NAT64"},
		{"64:ff9b:1:ffff::1", "local-use NAT64"},
		{"2002:c0a8:0101::1", "6to4 address for 192.168.1.1"},
		{"2002:7f00:1::", "loopback"},
		{"2002:a9fe:a9fe::1", "link-local"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"},
		{"2001::1", "Teredo"},

		// Other IPv6 special ranges and everything outside 2000::/3.
		{"100::1", "discard"},
		{"2001:2::1", "IETF"},
		{"2001:10::1", "IETF"},
		{"2001:20::1", "IETF"},
		{"2001:db8::1", "documentation"},
		{"3fff::1", "documentation"},
		{"ff02::1", "multicast"},
		{"ff05::1:3", "multicast"},
		{"4000::1", "not a global unicast"},
		{"5f00::1", "not a global unicast"},
		{"1::1", "not a global unicast"},
		{"e000::1", "not a global unicast"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			ip, ok := ParseHost(tt.host)
			if !ok {
				t.Fatalf("ParseHost(%q) did not see an IP", tt.host)
			}
			got := Classify(ip)
			switch {
			case tt.reason == "" && got != "":
				t.Fatalf("Classify(%s from %q) = %q, want allowed", ip, tt.host, got)
			case tt.reason != "" && !strings.Contains(got, tt.reason):
				t.Fatalf("Classify(%s from %q) = %q, want a refusal naming %q", ip, tt.host, got, tt.reason)
			}
		})
	}
	if got := Classify(netip.Addr{}); got == "" {
		t.Error("the zero Addr is allowed")
	}
}

// refAllowed is an independent, plain statement of the rule over the 16-byte form: IPv4 (as
// ::ffff:a.b.c.d) outside the special-purpose ranges; IPv6 in 2000::/3 outside 2001::/23,
// 2001:db8::/32 and 3fff::/20; NAT64 64:ff9b::/96 and 6to4 2002::/16 by their IPv4 address.
func refAllowed(b [16]byte) bool {
	zero := func(s []byte) bool {
		for _, c := range s {
			if c != 0 {
				return false
			}
		}
		return true
	}
	if zero(b[:10]) && b[10] == 0xff && b[11] == 0xff {
		return refAllowed4(b[12], b[13], b[14], b[15])
	}
	if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && zero(b[4:12]) {
		return refAllowed4(b[12], b[13], b[14], b[15])
	}
	if b[0]&0xe0 != 0x20 {
		return false
	}
	switch {
	case b[0] == 0x20 && b[1] == 0x01 && b[2] <= 0x01:
		return false
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8:
		return false
	case b[0] == 0x3f && b[1] == 0xff && b[2] < 0x10:
		return false
	case b[0] == 0x20 && b[1] == 0x02:
		return refAllowed4(b[2], b[3], b[4], b[5])
	}
	return true
}

func refAllowed4(a, b, c, _ byte) bool {
	switch {
	case a == 0, a == 10, a == 127, a >= 224:
		return false
	case a == 100 && b >= 64 && b < 128:
		return false
	case a == 169 && b == 254:
		return false
	case a == 172 && b >= 16 && b < 32:
		return false
	case a == 192 && b == 0 && (c == 0 || c == 2):
		return false
	case a == 192 && b == 88 && c == 99:
		return false
	case a == 192 && b == 168:
		return false
	case a == 198 && (b == 18 || b == 19):
		return false
	case a == 198 && b == 51 && c == 100:
		return false
	case a == 203 && b == 0 && c == 113:
		return false
	}
	return true
}

// interesting are prefixes (as leading bytes of the 16-byte form) near the rule's edges;
// random addresses are drawn under them to compare Classify with refAllowed.
var interesting = [][]byte{
	{}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0}, {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0},
	{0, 0x64, 0xff, 0x9b, 0, 1}, {0x20, 0x01, 0}, {0x20, 0x01, 1}, {0x20, 0x01, 2},
	{0x20, 0x01, 0x0d, 0xb8}, {0x20, 0x02}, {0x3f, 0xff}, {0x3f, 0xff, 0x10}, {0x1f}, {0x40},
	{0xfc}, {0xfe, 0x80}, {0xfe, 0xc0}, {0xff}, {0x01, 0x00, 0, 0, 0, 0, 0, 0},
}

func TestClassifyMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		var b [16]byte
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		copy(b[:], interesting[i%len(interesting)])
		// Bias the embedded IPv4 bytes towards the special ranges' first octets.
		if r.IntN(2) == 0 {
			firsts := []byte{0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255, 8}
			b[12] = firsts[r.IntN(len(firsts))]
			if b[0] == 0x20 && b[1] == 0x02 {
				b[2] = b[12]
			}
		}
		checkAgainstReference(t, b)
	}
}

func checkAgainstReference(t *testing.T, b [16]byte) {
	t.Helper()
	ip := netip.AddrFrom16(b)
	want := refAllowed(b)
	if got := Classify(ip) == ""; got != want {
		t.Fatalf("Classify(%s) allowed=%v, reference says %v (%q)", ip, got, want, Classify(ip))
	}
	if ip.Is4In6() {
		if got := Classify(ip.Unmap()) == ""; got != want {
			t.Fatalf("Classify(%s) allowed=%v, reference says %v", ip.Unmap(), got, want)
		}
	}
	if want && ip.Is6() && !ip.Is4In6() {
		if Classify(ip.WithZone("eth0")) == "" {
			t.Fatalf("zoned %s allowed", ip.WithZone("eth0"))
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, p := range interesting {
		var b [16]byte
		copy(b[:], p)
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var b [16]byte
		copy(b[:], raw)
		checkAgainstReference(t, b)
		// The same address written out and parsed back gets the same verdict.
		ip := netip.AddrFrom16(b)
		back, ok := ParseHost("[" + ip.String() + "]")
		if !ok || (Classify(back) == "") != refAllowed(b) {
			t.Fatalf("%s parsed back as %v, %v: verdict differs", ip, back, ok)
		}
	})
}

func TestCheckHostRefusesMalformedIPv6(t *testing.T) {
	t.Parallel()
	p, _ := NewPolicy(false, nil)
	for _, h := range []string{"[::1", "1:2", "::ffff:127.0.0.1:80", "fe80::1%"} {
		if err := p.CheckHost(t.Context(), h); err == nil {
			t.Errorf("CheckHost(%q) passed", h)
		}
	}
}
