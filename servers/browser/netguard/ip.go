package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// ParseHost turns a URL host into an IP address when it is one, in any spelling a browser
// accepts: dotted IPv4, a single decimal number (2130706433), hex and octal parts (0x7f.1,
// 0177.0.0.1), bracketed IPv6 and IPv4-mapped IPv6 (::ffff:127.0.0.1, returned unmapped).
// It reports false for a host name.
func ParseHost(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if i := strings.IndexByte(h, '%'); i >= 0 { // zone
		h = h[:i]
	}
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil {
			return netip.Addr{}, false
		}
		return a.Unmap(), true
	}
	return parseIPv4(h)
}

// parseIPv4 follows the WHATWG URL standard's IPv4 parser: one to four parts separated by dots,
// each decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes.
func parseIPv4(h string) (netip.Addr, bool) {
	if h == "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}

// blockedRange is an address range the browser may not reach by default, with why.
type blockedRange struct {
	prefix netip.Prefix
	reason string
}

var blockedRanges = func() []blockedRange {
	list := []struct{ cidr, reason string }{
		{"0.0.0.0/8", "an unspecified (this-host) address"},
		{"10.0.0.0/8", "a private address"},
		{"100.64.0.0/10", "a carrier-grade NAT address"},
		{"127.0.0.0/8", "a loopback address"},
		{"169.254.0.0/16", "a link-local or cloud metadata address"},
		{"172.16.0.0/12", "a private address"},
		{"192.0.0.0/24", "an IETF protocol address"},
		{"192.168.0.0/16", "a private address"},
		{"198.18.0.0/15", "a benchmarking address"},
		{"224.0.0.0/4", "a multicast address"},
		{"240.0.0.0/4", "a reserved address"},
		{"::/128", "an unspecified address"},
		{"::1/128", "a loopback address"},
		{"fc00::/7", "a unique-local (private) address"},
		{"fe80::/10", "a link-local address"},
		{"ff00::/8", "a multicast address"},
	}
	out := make([]blockedRange, len(list))
	for i, e := range list {
		out[i] = blockedRange{netip.MustParsePrefix(e.cidr), e.reason}
	}
	return out
}()

// Classify reports why ip is not a public address, or "" when it is. IPv4 addresses embedded
// in IPv6 (mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address.
func Classify(ip netip.Addr) string {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		switch {
		case netip.MustParsePrefix("64:ff9b::/96").Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case netip.MustParsePrefix("2002::/16").Contains(ip):
			return Classify(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	return ""
}
