// Package guard holds the HTTP checks that run before any MCP message is read: the request size
// limit, the Host and Origin check against DNS rebinding and cross-site calls, and the gate that
// decides who a request comes from (a credential an Authenticator accepts, such as the bearer
// tokens file, or a request provably from this machine) for every route it guards.
package guard

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/config"
)

// Reasons a guard refuses a request, as Refused hooks receive them.
const (
	ReasonMissingToken = "missing_token" // no Authorization: Bearer header
	ReasonInvalidToken = "invalid_token" // a bearer token not in the tokens file
	ReasonHost         = "host"          // a Host header the server does not answer to
	ReasonOrigin       = "origin"        // a browser Origin that is not allowed
	ReasonNotLocal     = "not_local"     // a local-only route asked from off this machine (IsLocal)

	ReasonInsufficientScope = "insufficient_scope" // an OAuth token without the scope a call needs
	ReasonIssuerUnavailable = "issuer_unavailable" // the OAuth issuer's keys cannot be fetched to check a token
)

// Hosts decides which Host and Origin headers a server accepts.
type Hosts struct {
	hosts   map[string]bool // lower-case host names or host:port values
	origins map[string]bool // lower-case scheme://host[:port]
	// Refused, when set, is told why Middleware refused a request: ReasonHost or ReasonOrigin.
	Refused func(reason string)
}

// NewHosts accepts loopback names, the bind address, and the allowed hosts and origins.
// An allowed host matches on any port (a tunnel sends :443 or nothing).
func NewHosts(bindHost string, allowedHosts, allowedOrigins []string) *Hosts {
	h := &Hosts{hosts: map[string]bool{}, origins: map[string]bool{}}
	if bindHost != "" && bindHost != "0.0.0.0" && bindHost != "::" {
		h.hosts[strings.ToLower(strings.Trim(bindHost, "[]"))] = true
	}
	for _, a := range allowedHosts {
		h.hosts[strings.ToLower(a)] = true
	}
	for _, o := range allowedOrigins {
		h.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	return h
}

// HostAllowed reports whether a request's Host header names this server.
func (h *Hosts) HostAllowed(hostHeader string) bool {
	hostHeader = strings.ToLower(hostHeader)
	if hostHeader == "" {
		return false
	}
	if h.hosts[hostHeader] {
		return true
	}
	name, _, err := net.SplitHostPort(hostHeader)
	if err != nil {
		name = strings.Trim(hostHeader, "[]")
	}
	if config.IsLoopback(name) {
		return true
	}
	return h.hosts[name]
}

// OriginAllowed reports whether a browser Origin may call this server: loopback origins
// and listed ones. An absent Origin (every non-browser MCP client) is allowed.
func (h *Hosts) OriginAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	o := strings.ToLower(strings.TrimSuffix(origin, "/"))
	if h.origins[o] {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return config.IsLoopback(u.Hostname())
}

// Middleware answers 403 to a request whose Host or Origin is not allowed.
func (h *Hosts) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.HostAllowed(r.Host) {
			h.refuse(ReasonHost)
			http.Error(w, "Forbidden: Host "+strconv.Quote(r.Host)+" is not allowed; start the server with --allowed-hosts "+hostOnly(r.Host)+" to accept it", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); !h.OriginAllowed(o) {
			h.refuse(ReasonOrigin)
			http.Error(w, "Forbidden: Origin "+strconv.Quote(o)+" is not allowed; start the server with --allowed-origins to accept it", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// HostMiddleware answers 403 to a request whose Host is not allowed, whatever its Origin: for
// public documents any web page may read (OAuth metadata), where Middleware's Origin check
// would only break browser-based clients' discovery.
func (h *Hosts) HostMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.HostAllowed(r.Host) {
			h.refuse(ReasonHost)
			http.Error(w, "Forbidden: Host "+strconv.Quote(r.Host)+" is not allowed; start the server with --allowed-hosts "+hostOnly(r.Host)+" to accept it", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Hosts) refuse(reason string) {
	if h.Refused != nil {
		h.Refused(reason)
	}
}

func hostOnly(hostHeader string) string {
	if name, _, err := net.SplitHostPort(hostHeader); err == nil {
		return name
	}
	return hostHeader
}

// LimitBody answers 413 to a request whose declared body is larger than max and cuts off
// any body that grows past it while being read. setting, when not "", names what sets max
// (a flag), and the answer says it.
func LimitBody(max int64, setting string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, TooLarge(max, setting), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// TooLarge is the text of a 413 for a body over max bytes, naming the setting that sets max
// when there is one.
func TooLarge(max int64, setting string) string {
	msg := "Request Entity Too Large: body over " + strconv.FormatInt(max, 10) + " bytes"
	if setting != "" {
		msg += " (the server's " + setting + ")"
	}
	return msg
}
