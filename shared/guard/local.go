package guard

import (
	"net"
	"net/http"
	"strings"

	"github.com/jck411/mcp-servers/shared/config"
)

// IsLocal reports whether a request surely comes from this machine and not through a proxy:
// both ends of its connection are loopback addresses, the Host names loopback, and no header a
// proxy or tunnel adds is present. cloudflared connects from 127.0.0.1, so the peer alone
// proves nothing: a tunnelled request carries the public Host (or, with httpHostHeader,
// X-Forwarded-Host) and Cloudflare's Cf-* and X-Forwarded-* headers. Anything it cannot tell
// apart counts as remote, and so does a request whose connection's local address is unknown.
func IsLocal(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || !loopbackAddr(local.String()) || !loopbackAddr(r.RemoteAddr) {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "" || !config.IsLoopback(host) {
		return false
	}
	return !Proxied(r)
}

// Proxied reports whether a request carries a header that a proxy, CDN or tunnel adds
// (Cf-*, X-Forwarded-*, Forwarded, Via, …): cloudflared adds them to every request it passes on.
func Proxied(r *http.Request) bool {
	for name := range r.Header {
		if forwarded(name) {
			return true
		}
	}
	return false
}

// loopbackAddr reports whether a host:port names a loopback IP address.
func loopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// forwarded reports whether a (canonical) header name is one a proxy, CDN or tunnel adds.
func forwarded(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "cf-"), // Cf-Connecting-Ip, Cf-Ray, Cf-Visitor, Cf-Ipcountry, Cf-Warp-Tag-Id, ...
		strings.HasPrefix(n, "x-forwarded-"), // X-Forwarded-For, -Host, -Proto, -Port
		strings.HasPrefix(n, "x-real-"),      // X-Real-Ip
		strings.HasPrefix(n, "x-original-"),  // X-Original-Forwarded-For, X-Original-Host
		strings.HasPrefix(n, "x-client-"),    // X-Client-Ip
		n == "forwarded", n == "via", n == "true-client-ip", n == "cdn-loop", n == "x-cluster-client-ip":
		return true
	}
	return false
}
