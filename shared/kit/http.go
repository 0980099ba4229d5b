package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/kit/envelope"
	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/jck411/mcp-servers/shared/resource"
	"github.com/jck411/mcp-servers/shared/routes"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler is the whole HTTP surface, guards in order: body limit, Host/Origin, the gate (who
// is calling: a credential, or a request provably from this machine), then the route. /mcp,
// its narrowed URLs, their REST counterparts (rest.go) and /metrics are behind the gate; /healthz answers everyone, with details
// only for a trusted request; the OAuth metadata is public.
func (s *Server) Handler() (http.Handler, error) {
	creds, err := s.credentials()
	if err != nil {
		return nil, err
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true, // guard.Hosts does this, allowing configured tunnel hosts
		MaxRequestBodyBytes:        s.cfg.MaxBodyBytes,
		Logger:                     s.sdkLog,
	})
	gate := guard.NewGate(config.IsLoopback(s.cfg.Host), s.cfg.InsecureNoAuth, s.metrics.Refused)
	mux := routes.New()
	// /mcp and the narrowed URLs for clients that take only a URL (/mcp/x/{toolset}[/readonly],
	// /mcp/readonly): the same endpoint, behind the same guards, offering less.
	for path, n := range s.mcpRoutes() {
		auth := creds.at(path)
		mux.Handle(path, gate.Require(auth, s.mcpRoute(path, n, auth, mcpHandler)))
	}
	// Plain REST for the same tools, each route behind the gate of its MCP URL (rest.go).
	s.restRoutes(mux, gate, creds)
	mux.Handle("/metrics", gate.Require(creds.at("/mcp"), s.metrics.Handler()))
	// A request may see /healthz's details when it surely comes from this machine or carries a
	// valid static token. A wrong token gets the summary, not a 401, so that probes keep working.
	var static guard.Authenticator
	if creds.tokens != nil {
		static = creds.tokens
	}
	mux.Handle("/healthz", s.health.Handler(func(r *http.Request) bool { return gate.Trusted(r, static) }))
	mux.Handle("/", http.NotFoundHandler())
	mux.Handle("/mcp/", gate.Require(creds.at("/mcp"), s.unknownNarrowing()))
	if creds.oauth != nil {
		// The metadata of /mcp and of each narrowed URL, and a 404 naming it at the bare path.
		mux.Handle(resource.MetadataPath, creds.oauth.RootMetadataHandler())
		for path := range s.mcpRoutes() {
			at := creds.oauth.At(path)
			mux.Handle(at.MetadataPath(), at.MetadataHandler())
		}
	}
	hosts := guard.NewHosts(s.cfg.Host, s.cfg.AllowedHosts, s.cfg.AllowedOrigins)
	hosts.Refused = s.metrics.Refused
	guarded, public := hosts.Middleware(mux), hosts.HostMiddleware(mux)
	adminMux := routes.New()
	adminSurface := s.adminHandler(adminMux)
	s.routes = slices.Concat(mux.Patterns(), adminMux.Patterns())
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The OAuth metadata is public (CORS *): browser-based clients on any origin read it.
		if creds.oauth != nil && strings.HasPrefix(r.URL.Path, resource.MetadataPath) {
			public.ServeHTTP(w, r)
			return
		}
		// The admin surface has a credential and refusals of its own (adminGate).
		if strings.HasPrefix(r.URL.Path, "/admin/") {
			adminSurface.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
	return s.quiet.Track(restErrors(guard.LimitBody(s.cfg.MaxBodyBytes, "--max-body-bytes", route))), nil
}

// credentials are the server's credential schemes, read once from its configuration: static
// tokens (--auth-tokens-file), OAuth access tokens (--oauth-issuer), both, or neither.
type credentials struct {
	tokens *guard.Tokens
	oauth  *resource.Resource
}

// credentials reads the tokens file, a bad one stopping the server before it listens, and sets
// up the OAuth resource.
func (s *Server) credentials() (credentials, error) {
	var c credentials
	if s.cfg.AuthTokensFile != "" {
		var err error
		if c.tokens, err = guard.LoadTokens(s.cfg.AuthTokensFile); err != nil {
			return c, err
		}
	}
	if s.cfg.OAuthIssuer != "" {
		c.oauth = resource.New(resource.Options{Issuer: s.cfg.OAuthIssuer, IssuerURL: s.cfg.OAuthIssuerURL, PublicURL: s.cfg.PublicURL, Server: s.spec.Name})
	}
	return c, nil
}

// at is the credential scheme of the route at path, nil when the server has none. Each narrowed
// URL is an OAuth resource of its own (RFC 9728 path-derived metadata): a token for it works
// there and at the URLs that narrow it, never at a wider one; a token for /mcp works everywhere.
// Static tokens work everywhere and are tried first.
func (c credentials) at(path string) guard.Authenticator {
	switch {
	case c.oauth != nil && c.tokens != nil:
		return guard.Either(c.tokens, c.oauth.At(path))
	case c.oauth != nil:
		return c.oauth.At(path)
	case c.tokens != nil:
		return c.tokens
	}
	return nil
}

// mcpRoute is the MCP endpoint at path behind the gate, narrowed by its URL (n). It reads the request
// once: the narrowing headers (an unknown name is a 400) and the body's JSON-RPC envelope, which
// it puts in the request's context with the request's view for the MCP layer, and with the
// request's own context, whose end cancels the calls it carries. A notifications/cancelled in
// the body cancels the call it names (see inflight). A tool call the
// view refuses for want of the write scope is answered here, 403 insufficient_scope with auth's
// challenge, before the MCP layer.
func (s *Server) mcpRoute(path string, n pathNarrowing, auth guard.Authenticator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		narrowing, err := s.inv.FromHeader(r.Header)
		if err != nil {
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		env, err := envelope.Read(r)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			http.Error(w, guard.TooLarge(tooLarge.Limit, "--max-body-bytes"), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		caller, _ := guard.CallerFrom(r.Context())
		for _, id := range env.Cancelled() {
			s.inflight.cancel(caller.Label, id)
		}
		view := s.inv.View(n.apply(narrowing), inventory.Scope{ReadOnly: caller.ReadOnly})
		for _, name := range env.Calls() {
			if view.Verdict(name) == inventory.NeedsWrite && auth != nil {
				scopes := resource.ScopesFor(s.spec.Name)
				msg := fmt.Sprintf("%s changes something and needs the %s scope; this token has only %s", name, scopes.Write, scopes.Read)
				if n.readOnly {
					msg = fmt.Sprintf("%s changes something, and %s offers only the read-only tools", name, path)
				}
				s.metrics.Refused(guard.ReasonInsufficientScope)
				auth.Challenge(w, http.StatusForbidden, "insufficient_scope", msg)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(withRouted(r.Context(), &routed{env: env, view: view, request: r.Context()})))
	})
}

// routed is what an HTTP route learned of a request before the MCP layer: the body's envelope
// and the request's view. It travels in the request's context (withRouted); over stdio and
// in-process there is none.
type routed struct {
	env  *envelope.Envelope
	view inventory.View
	// request is the HTTP request's own context: it ends when the client closes the request,
	// which the go-sdk does not pass on to a stateless call (it does so only for 2026-07-28
	// calls, with StreamableHTTPOptions.PropagateRequestCancellation).
	request context.Context
}

type routedKey struct{}

func withRouted(ctx context.Context, r *routed) context.Context {
	return context.WithValue(ctx, routedKey{}, r)
}

func routedFrom(ctx context.Context) *routed {
	r, _ := ctx.Value(routedKey{}).(*routed)
	return r
}

// pathNarrowing is what a URL chooses: a toolset ("" for all) and whether only the tools that
// change nothing.
type pathNarrowing struct {
	set      inventory.ToolsetID
	readOnly bool
}

// apply narrows n further by the URL's choice.
func (p pathNarrowing) apply(n inventory.Narrowing) inventory.Narrowing {
	if p.set != "" {
		n = n.Keep([]inventory.ToolsetID{p.set}, nil)
	}
	if p.readOnly {
		n = n.ReadOnly()
	}
	return n
}

// mcpRoutes are the MCP endpoint's URLs: /mcp, and for clients that take only a URL
// /mcp/readonly, /mcp/x/{toolset} and /mcp/x/{toolset}/readonly for each toolset (and "all").
func (s *Server) mcpRoutes() map[string]pathNarrowing {
	routes := map[string]pathNarrowing{"/mcp": {}, "/mcp/readonly": {"", true}}
	for _, id := range append(s.inv.ToolsetIDs(), inventory.All) {
		routes["/mcp/x/"+string(id)] = pathNarrowing{id, false}
		routes["/mcp/x/"+string(id)+"/readonly"] = pathNarrowing{id, true}
	}
	return routes
}

// unknownNarrowing answers a path under /mcp/ that is no narrowed URL with a 404 that lists the
// ones there are, as an unknown X-MCP-Toolsets header is answered.
func (s *Server) unknownNarrowing() http.Handler {
	ids := make([]string, 0, len(s.inv.ToolsetIDs())+1)
	for _, id := range append(s.inv.ToolsetIDs(), inventory.All) {
		ids = append(ids, string(id))
	}
	msg := fmt.Sprintf("404 page not found: %s serves MCP at /mcp, /mcp/readonly, /mcp/x/TOOLSET and /mcp/x/TOOLSET/readonly, TOOLSET one of %s", s.spec.Name, strings.Join(ids, ", "))
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, msg, http.StatusNotFound)
	})
}
