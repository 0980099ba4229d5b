// Package resource makes a server an OAuth 2.1 protected resource as the MCP authorization
// specification describes: it publishes its Protected Resource Metadata (RFC 9728), answers a
// request without a usable token with a challenge that names that metadata, and accepts only
// JWT access tokens (RFC 9068) that its issuer signed for this server (RFC 8707 audience).
package resource

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is the well-known prefix of Protected Resource Metadata. The one protected
// resource, the MCP endpoint PublicURL/mcp, has its metadata at MetadataPath + "/mcp"
// (RFC 9728 §3.1); the bare MetadataPath would describe PublicURL itself, which is not a
// protected resource, so it answers 404 with a pointer (see RootMetadataHandler).
const MetadataPath = "/.well-known/oauth-protected-resource"

// leeway is the clock difference tolerated on exp, nbf and iat.
const leeway = time.Minute

// Options configure a protected resource.
type Options struct {
	Issuer string // the authorization server whose tokens are accepted, exactly as its tokens' iss
	// IssuerURL is where this host fetches the issuer's metadata and keys when the issuer's
	// public URL is out of reach from here (a unit with IPAddressDeny=any, say), e.g.
	// http://127.0.0.1:9002 for the fleet's auth server on the same host; "" means Issuer.
	IssuerURL string
	PublicURL string       // the server's base URL as clients reach it; the resource is PublicURL + "/mcp"
	Server    string       // the server's name: its scopes are NAME:read and NAME:write
	Client    *http.Client // fetches the issuer's metadata and keys; nil means a client with a 10 s timeout
	Now       func() time.Time
}

// Resource validates access tokens for one server.
type Resource struct {
	issuer   string
	public   string   // the server's base URL
	resource string   // the URL clients reach this resource at: PUBLIC/mcp, or a narrowed URL (At)
	accept   []string // the audiences a token may name here: the resource and the URLs it narrows
	scopes   Scopes
	readOnly bool // a read-only URL (…/readonly): it asks for and grants the read scope alone
	keys     *keySet
	now      func() time.Time
	metadata *oauthex.ProtectedResourceMetadata
}

// Scopes are a server's two scopes: read lets a client list and call the tools that change
// nothing; write lets it call every tool.
type Scopes struct {
	Read, Write string
}

// ScopesFor returns the scopes of the named server.
func ScopesFor(server string) Scopes {
	return Scopes{Read: server + ":read", Write: server + ":write"}
}

// New returns the protected resource that opts describe; it contacts the issuer only when the
// first token arrives.
func New(opts Options) *Resource {
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	r := &Resource{
		issuer:   opts.Issuer,
		public:   opts.PublicURL,
		resource: opts.PublicURL + "/mcp",
		accept:   []string{opts.PublicURL + "/mcp"},
		scopes:   ScopesFor(opts.Server),
		keys:     newKeySet(opts.Issuer, opts.IssuerURL, client, now),
		now:      now,
	}
	r.metadata = &oauthex.ProtectedResourceMetadata{
		Resource:               r.resource,
		AuthorizationServers:   []string{opts.Issuer},
		ScopesSupported:        r.asked(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "mcp-servers " + opts.Server,
	}
	return r
}

// URL is the canonical resource identifier: the MCP endpoint (or the narrowed URL of At), which
// tokens must name as audience.
func (r *Resource) URL() string { return r.resource }

// MetadataURL is where clients find the resource's metadata: the path-derived address of RFC 9728
// §3.1, e.g. PUBLIC/.well-known/oauth-protected-resource/mcp.
func (r *Resource) MetadataURL() string {
	return r.public + r.MetadataPath()
}

// MetadataPath is the path of MetadataURL on the server.
func (r *Resource) MetadataPath() string {
	return MetadataPath + strings.TrimPrefix(r.resource, r.public)
}

// At is the resource as clients reach it at path, a narrowed URL of the MCP endpoint such as
// /mcp/x/read or /mcp/x/read/readonly (the kit's per-toolset URLs): its metadata names that URL
// as the resource, its challenges name that metadata, and it accepts a token for that URL, for
// a URL it narrows (/mcp/x/read at /mcp/x/read/readonly) or for the whole endpoint; a token
// for a narrowed URL is never accepted at a wider one. A read-only URL (ending in /readonly)
// lists and asks for the read scope alone in its metadata and challenges.
func (r *Resource) At(path string) *Resource {
	c := *r
	c.resource = r.public + path
	c.accept = []string{r.public + "/mcp", c.resource}
	wider, readOnly := strings.CutSuffix(path, "/readonly")
	if readOnly && wider != "/mcp" {
		c.accept = append(c.accept, r.public+wider)
	}
	c.readOnly = readOnly
	md := *r.metadata
	md.Resource = c.resource
	md.ScopesSupported = c.asked()
	c.metadata = &md
	return &c
}

// asked is the scopes the resource's metadata and challenges ask for: read and write, or read
// alone at a read-only URL.
func (r *Resource) asked() []string {
	if r.readOnly {
		return []string{r.scopes.Read}
	}
	return []string{r.scopes.Read, r.scopes.Write}
}

// readOnlyAudience reports whether every audience a token names is a read-only URL: such a
// token is read-only whatever scope it carries.
func readOnlyAudience(aud []string) bool {
	for _, a := range aud {
		if !strings.HasSuffix(strings.TrimSuffix(a, "/"), "/readonly") {
			return false
		}
	}
	return len(aud) > 0
}

// Scopes returns the server's scopes.
func (r *Resource) Scopes() Scopes { return r.scopes }

// MetadataHandler serves the Protected Resource Metadata of the MCP endpoint at
// MetadataPath + "/mcp" (public, CORS-enabled, GET only). It names no
// resource_signing_alg_values_supported: that lists the algorithms the resource signs its own
// responses with (RFC 9728 §2), and this one signs none.
func (r *Resource) MetadataHandler() http.Handler {
	body, err := json.Marshal(r.metadata)
	if err != nil {
		panic("resource metadata: " + err.Error()) // strings and slices of strings always encode
	}
	return PublicMetadata(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	}))
}

// RootMetadataHandler answers MetadataPath without a suffix: 404, since metadata there would
// describe the server's base URL, which is not a protected resource, and RFC 9728 §3.3 forbids
// a client to use metadata whose resource differs from the URL it derived it from. The body
// names the MCP endpoint's metadata, which the 401 challenge points clients at too.
func (r *Resource) RootMetadataHandler() http.Handler {
	msg := "Not Found: the protected resource here is " + r.resource + "; its metadata is at " + r.MetadataURL() + "\n"
	return PublicMetadata(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(msg))
	}))
}

// Grant is what a valid token allows.
type Grant struct {
	Subject string    // the token's sub: the person who consented
	Client  string    // the client it was issued to (client_id or azp), or the subject
	Write   bool      // the token carries the write scope, not only read
	Scopes  []string  // every scope the token carries
	Expiry  time.Time // when it stops working
}

// Errors a token check returns; the middleware maps them to HTTP answers.
var (
	// ErrInvalidToken: the token is malformed, badly signed, expired, or not for this resource.
	ErrInvalidToken = errors.New("invalid_token")
	// ErrInsufficientScope: the token is valid but carries neither of this server's scopes.
	ErrInsufficientScope = errors.New("insufficient_scope")
	// ErrIssuerUnavailable: the issuer's metadata or keys cannot be fetched, so no token can be checked.
	ErrIssuerUnavailable = errors.New("issuer unavailable")
)

// hasScope reports whether scopes holds s.
func hasScope(scopes []string, s string) bool { return slices.Contains(scopes, s) }
