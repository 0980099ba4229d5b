package main

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// checkRedirectURI accepts an https URL, or http on a loopback host (127.0.0.1, [::1],
// localhost) as native apps use, without fragment or user info, with an ASCII host (an
// internationalized name in its punycode form, so the consent page shows the host the browser
// will go to) and a port, when given, of 1 to 65535.
func checkRedirectURI(raw string) error {
	if len(raw) > maxRedirectURIBytes {
		return fmt.Errorf("redirect URI %.60q… is longer than %d bytes", raw, maxRedirectURIBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("redirect URI %q is not a URL: %w", raw, err)
	}
	switch {
	case strings.Contains(raw, "#") || u.User != nil:
		return fmt.Errorf("redirect URI %q: give it without fragment or user info", raw)
	case !asciiHost(u.Host):
		return fmt.Errorf("redirect URI %q: the host has characters outside ASCII (or an escape); give an internationalized name in its punycode form (xn--…)", raw)
	case !validPort(u.Port()):
		return fmt.Errorf("redirect URI %q: the port must be 1 to 65535", raw)
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopbackHost(u.Hostname()):
		return nil
	}
	return fmt.Errorf("redirect URI %q refused: use https, or http on 127.0.0.1, [::1] or localhost", raw)
}

// asciiHost reports whether a URL's host (as url.Parse unescaped it) is printable ASCII
// without a percent sign: no look-alike letters from other scripts, no IPv6 zone.
func asciiHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= ' ' || c >= 0x7f || c == '%' {
			return false
		}
	}
	return true
}

// validPort reports whether a URL's port is absent or 1 to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// redirectRegistered reports whether uri may receive a code for a client that registered
// the given URIs: the same string, or, for a loopback one, the same scheme, host, path and
// query on any valid port (RFC 8252 §7.3). No user info and no fragment, ever.
func redirectRegistered(registered []string, uri string) bool {
	if strings.Contains(uri, "#") {
		return false
	}
	u, err := url.Parse(uri)
	if err != nil || u.User != nil || !validPort(u.Port()) {
		return false
	}
	if slices.Contains(registered, uri) {
		return true
	}
	if u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
		return false
	}
	for _, r := range registered {
		ru, err := url.Parse(r)
		if err != nil || ru.Scheme != u.Scheme || !isLoopbackHost(ru.Hostname()) {
			continue
		}
		if ru.Hostname() == u.Hostname() && ru.Path == u.Path && ru.RawQuery == u.RawQuery && ru.ForceQuery == u.ForceQuery {
			return true
		}
	}
	return false
}

// isLoopbackHost reports whether h is one of the three loopback hosts a native app's redirect
// may name (RFC 8252 §7.3, §8.3), spelled exactly so: 127.0.0.1, ::1 (from [::1]) or
// localhost. Other spellings of a loopback address (127.0.0.2, [::ffff:127.0.0.1],
// [0:0:0:0:0:0:0:1], LOCALHOST) are refused rather than normalised: the redirect URI at
// /authorize is compared with the registered one by host name, so one spelling each keeps
// that comparison exact.
func isLoopbackHost(h string) bool {
	return h == "127.0.0.1" || h == "::1" || h == "localhost"
}
