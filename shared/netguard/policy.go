package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Policy says which addresses may be reached. The zero value refuses every non-public address.
type Policy struct {
	allowPrivate bool
	prefixes     []netip.Prefix
	hosts        map[string]bool
	resolver     *net.Resolver
}

// NewPolicy builds a policy. allowPrivate lets every address through; allow lists CIDRs
// ("10.0.0.0/8"), single IPs and host names ("intranet.local") that may be reached even when
// they are private.
func NewPolicy(allowPrivate bool, allow []string) (*Policy, error) {
	p := &Policy{allowPrivate: allowPrivate, hosts: map[string]bool{}, resolver: net.DefaultResolver}
	for _, raw := range allow {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		if pr, err := netip.ParsePrefix(e); err == nil {
			p.prefixes = append(p.prefixes, pr.Masked())
			continue
		}
		if ip, ok := ParseHost(e); ok {
			p.prefixes = append(p.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		h := strings.TrimSuffix(strings.ToLower(e), ".")
		if !validHostname(h) {
			return nil, fmt.Errorf("allow-hosts entry %q is neither a CIDR, an IP nor a host name", raw)
		}
		p.hosts[h] = true
	}
	return p, nil
}

func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			default:
				return false
			}
		}
	}
	return true
}

// BlockedError is a refusal: the host resolved to an address the policy does not allow.
type BlockedError struct {
	Host   string
	IP     netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	if e.Host != "" && e.Host != e.IP.String() {
		return fmt.Sprintf("%s resolves to %s, %s", e.Host, e.IP, e.Reason)
	}
	return fmt.Sprintf("%s is %s", e.IP, e.Reason)
}

// CheckIP returns a *BlockedError when ip may not be reached.
func (p *Policy) CheckIP(host string, ip netip.Addr) error {
	ip = ip.Unmap()
	if p.allowPrivate {
		return nil
	}
	for _, pr := range p.prefixes {
		if pr.Contains(ip) {
			return nil
		}
	}
	if reason := Classify(ip); reason != "" {
		return &BlockedError{Host: host, IP: ip, Reason: reason}
	}
	return nil
}

// hostAllowed reports whether host is on the allowlist by name.
func (p *Policy) hostAllowed(host string) bool {
	return p.hosts[strings.TrimSuffix(strings.ToLower(host), ".")]
}

// CheckHost resolves host (unless it is an IP in any spelling) and checks every address.
// It is the early check that gives a clear error; DialContext is the enforcement.
func (p *Policy) CheckHost(ctx context.Context, host string) error {
	if p.allowPrivate || p.hostAllowed(host) {
		return nil
	}
	if ip, ok := ParseHost(host); ok {
		return p.CheckIP(host, ip)
	}
	if strings.ContainsAny(host, ":[]%") {
		return fmt.Errorf("host %q is neither a valid IP address nor a host name; write IPv6 as [2001:db8::1]", host)
	}
	addrs, err := p.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if err := p.CheckIP(host, a); err != nil {
			return err
		}
	}
	return nil
}

// DialContext connects like net.Dialer.DialContext, checking each address it is about to
// connect to (after DNS resolution, in the dialer's Control hook), so the address checked is
// the address used.
func (p *Policy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	if !p.allowPrivate && !p.hostAllowed(host) {
		if ip, ok := ParseHost(host); ok {
			if err := p.CheckIP(host, ip); err != nil {
				return nil, err
			}
		}
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("netguard: unexpected dial address %q", address)
			}
			return p.CheckIP(host, ap.Addr())
		}
	}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		var be *BlockedError
		if errors.As(err, &be) {
			return nil, be
		}
		return nil, err
	}
	return c, nil
}
