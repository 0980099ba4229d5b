package netguard

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ParseHost turns a URL host into an IP address when it is one, in any spelling a browser
// accepts: dotted IPv4, a single decimal number (2130706433), hex and octal parts (0x7f.1,
// 0177.0.0.1), bracketed IPv6 and IPv4-mapped IPv6 (::ffff:127.0.0.1, returned unmapped).
// An IPv6 zone (fe80::1%eth0) is kept, so Classify refuses it. It reports false for a host name.
func ParseHost(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
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

// rangeKind says what a listed range means for the addresses in it.
type rangeKind int

const (
	refuse      rangeKind = iota // never reachable
	embeds4At2                   // 6to4: judge the IPv4 address in bytes 2..5
	embeds4At12                  // NAT64: judge the IPv4 address in bytes 12..15
)

// specialRange is an address range with a rule and the reason given when it refuses.
type specialRange struct {
	prefix netip.Prefix
	kind   rangeKind
	reason string
}

func ranges(list []struct{ cidr, reason string }, kinds map[string]rangeKind) []specialRange {
	out := make([]specialRange, len(list))
	for i, e := range list {
		out[i] = specialRange{netip.MustParsePrefix(e.cidr), kinds[e.cidr], e.reason}
	}
	return out
}

// special4 lists the IPv4 ranges that are not global unicast (IANA IPv4 Special-Purpose
// Address Registry, plus multicast, reserved and broadcast). Every IPv4 address outside them
// is global unicast.
var special4 = ranges([]struct{ cidr, reason string }{
	{"0.0.0.0/8", "an unspecified (this-network) address"},
	{"10.0.0.0/8", "a private address"},
	{"100.64.0.0/10", "a carrier-grade NAT (shared) address"},
	{"127.0.0.0/8", "a loopback address"},
	{"169.254.0.0/16", "a link-local or cloud metadata address"},
	{"172.16.0.0/12", "a private address"},
	{"192.0.0.0/24", "an IETF protocol address"},
	{"192.0.2.0/24", "a documentation address"},
	{"192.88.99.0/24", "a 6to4 relay anycast address"},
	{"192.168.0.0/16", "a private address"},
	{"198.18.0.0/15", "a benchmarking address"},
	{"198.51.100.0/24", "a documentation address"},
	{"203.0.113.0/24", "a documentation address"},
	{"224.0.0.0/4", "a multicast address"},
	{"255.255.255.255/32", "the broadcast address"},
	{"240.0.0.0/4", "a reserved address"},
}, nil)

// special6 lists the IPv6 ranges with a rule of their own, most specific first. Addresses
// outside 2000::/3 that are not listed are refused too: only 2000::/3 is global unicast.
var special6 = ranges([]struct{ cidr, reason string }{
	{"::/128", "an unspecified address"},
	{"::1/128", "a loopback address"},
	{"::/96", "an IPv4-compatible IPv6 address (deprecated)"},
	{"::ffff:0:0:0/96", "an IPv4-translated IPv6 address"},
	{"64:ff9b::/96", "a NAT64 address"},
	{"64:ff9b:1::/48", "a local-use NAT64 address"},
	{"100::/64", "a discard-only address"},
	{"fc00::/7", "a unique-local (private) address"},
	{"fe80::/10", "a link-local address"},
	{"fec0::/10", "a site-local address"},
	{"ff00::/8", "a multicast address"},
	{"2001::/32", "a Teredo address"},
	{"2001::/23", "an IETF protocol address (benchmarking, ORCHID and the like)"},
	{"2001:db8::/32", "a documentation address"},
	{"2002::/16", "a 6to4 address"},
	{"3fff::/20", "a documentation address"},
}, map[string]rangeKind{"64:ff9b::/96": embeds4At12, "2002::/16": embeds4At2})

var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Classify reports why ip may not be reached, or "" when it is a global unicast address.
// It fails closed: an IPv4 address is allowed only outside every special-purpose range, an
// IPv6 address only inside 2000::/3 and outside the special ranges there, and an address with
// a zone (fe80::1%eth0) never. IPv6 forms that carry an IPv4 address are judged by that
// address when the packet really goes to it (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96,
// 6to4 2002::/16) and refused outright otherwise (IPv4-compatible ::a.b.c.d, IPv4-translated
// ::ffff:0:a.b.c.d, local-use NAT64 64:ff9b:1::/48, Teredo 2001::/32).
func Classify(ip netip.Addr) string {
	switch {
	case !ip.IsValid():
		return "not an IP address"
	case ip.Zone() != "":
		return "a scoped (zoned) address"
	case ip.Is4In6():
		if r := classify4(ip.Unmap()); r != "" {
			return r + " (IPv4-mapped)"
		}
		return ""
	case ip.Is4():
		return classify4(ip)
	}
	return classify6(ip)
}

func classify4(ip netip.Addr) string {
	for _, r := range special4 {
		if r.prefix.Contains(ip) {
			return r.reason
		}
	}
	if !ip.IsGlobalUnicast() {
		return "not a global unicast address"
	}
	return ""
}

func classify6(ip netip.Addr) string {
	b := ip.As16()
	for _, r := range special6 {
		if !r.prefix.Contains(ip) {
			continue
		}
		var v4 netip.Addr
		switch r.kind {
		case embeds4At2:
			v4 = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		case embeds4At12:
			v4 = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		default:
			return r.reason
		}
		if inner := classify4(v4); inner != "" {
			return fmt.Sprintf("%s for %s, %s", r.reason, v4, inner)
		}
		return ""
	}
	if !globalUnicast6.Contains(ip) || !ip.IsGlobalUnicast() {
		return "not a global unicast address"
	}
	return ""
}
