package kit

import (
	"net/http"
	"strings"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/jck411/mcp-servers/shared/resource"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler is the whole HTTP surface, guards in order: body limit, Host/Origin, auth, MCP.
// /healthz answers everyone, with details only for a trusted request (see trusted); /metrics
// needs a token when tokens are configured and otherwise answers only local requests.
func (s *Server) Handler() (http.Handler, error) {
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		DisableLocalhostProtection: true, // guard.Hosts does this, allowing configured tunnel hosts
		MaxRequestBodyBytes:        s.cfg.MaxBodyBytes,
		Logger:                     s.sdkLog,
	})
	var tokens *guard.Tokens
	metricsRoute := s.localOnly(s.metrics.Handler())
	// protect puts the MCP endpoint at path (/mcp or a narrowed URL) behind the server's auth.
	protect := func(_ string, h http.Handler) http.Handler { return h }
	if s.cfg.AuthTokensFile != "" {
		var err error
		if tokens, err = guard.LoadTokens(s.cfg.AuthTokensFile); err != nil {
			return nil, err
		}
		tokens.Refused = s.metrics.Refused
		protect, metricsRoute = func(_ string, h http.Handler) http.Handler { return tokens.Middleware(h) }, tokens.Middleware(s.metrics.Handler())
	}
	mux := http.NewServeMux()
	if s.cfg.OAuthIssuer != "" {
		// OAuth access tokens for this server, and the static tokens beside them. Each narrowed
		// URL is a resource of its own (RFC 9728 path-derived metadata): a client that takes
		// only that URL discovers metadata naming it, and a token for it works there and at the
		// URLs that narrow it, never at a wider one; a token for /mcp works everywhere.
		res := resource.New(resource.Options{Issuer: s.cfg.OAuthIssuer, IssuerURL: s.cfg.OAuthIssuerURL, PublicURL: s.cfg.PublicURL, Server: s.spec.Name})
		var static resource.Static
		if tokens != nil {
			static = tokens
		}
		protect = func(path string, h http.Handler) http.Handler {
			at := res
			if path != "/mcp" {
				at = res.At(path)
				mux.Handle(at.MetadataPath(), at.MetadataHandler())
			}
			return at.Middleware(static, s.toolInfo, s.metrics.Refused, h)
		}
		mux.Handle(resource.MetadataPath, res.RootMetadataHandler())
		mux.Handle(resource.MetadataPath+"/mcp", res.MetadataHandler())
	}
	mcpRoute := protect("/mcp", s.narrowed("", false, mcpHandler))
	// The narrowed URLs for clients that take only a URL (/mcp/x/{toolset}[/readonly],
	// /mcp/readonly): the same endpoint, behind the same guards, offering less.
	for path, n := range s.pathRoutes() {
		mux.Handle(path, protect(path, s.narrowed(n.set, n.readOnly, mcpHandler)))
	}
	// A request may see /healthz's details when it surely comes from this machine (not through
	// the tunnel, which connects from loopback too) or carries a valid token. A wrong token
	// gets the summary, not a 401, so that probes keep working.
	trusted := func(r *http.Request) bool {
		if guard.IsLocal(r) {
			return true
		}
		if tokens == nil {
			return false
		}
		_, ok := tokens.FromRequest(r)
		return ok
	}
	mux.Handle("/mcp", mcpRoute) // without tokens only as config allows: loopback or --insecure-no-auth
	mux.Handle("/healthz", s.health.Handler(trusted))
	mux.Handle("/metrics", metricsRoute)
	mux.Handle("/", http.NotFoundHandler())
	hosts := guard.NewHosts(s.cfg.Host, s.cfg.AllowedHosts, s.cfg.AllowedOrigins)
	hosts.Refused = s.metrics.Refused
	guarded, public := hosts.Middleware(mux), hosts.HostMiddleware(mux)
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The OAuth metadata is public (CORS *): browser-based clients on any origin read it.
		if s.cfg.OAuthIssuer != "" && strings.HasPrefix(r.URL.Path, resource.MetadataPath) {
			public.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
	return s.quiet.Track(guard.LimitBody(s.cfg.MaxBodyBytes, route)), nil
}

// toolInfo reports whether a tool is offered and whether it changes nothing.
func (s *Server) toolInfo(name string) (known, readOnly bool) {
	t, ok := s.tools[name]
	return ok, t.ReadOnly
}

// localOnly answers 403 to a request that is not surely from this machine (guard.IsLocal).
func (s *Server) localOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !guard.IsLocal(r) {
			s.metrics.Refused(guard.ReasonNotLocal)
			http.Error(w, "Forbidden: without --auth-tokens-file this is served only to requests from this machine", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// narrowed wraps the MCP handler for one route: it reads the request's narrowing headers,
// refusing unknown names (400), adds the route's own narrowing (a toolset, "" for none, and
// whether only the tools that change nothing) and passes the narrowing on in the request's
// context, where the MCP layer's view reads it.
func (s *Server) narrowed(set inventory.ToolsetID, readOnly bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := s.inv.FromHeader(r.Header)
		if err != nil {
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if set != "" {
			n = n.Keep([]inventory.ToolsetID{set}, nil)
		}
		if readOnly {
			n = n.ReadOnly()
		}
		next.ServeHTTP(w, r.WithContext(inventory.WithNarrowing(r.Context(), n)))
	})
}

// pathNarrowing is what a narrowed URL chooses: a toolset ("" for all) and whether only the
// tools that change nothing.
type pathNarrowing struct {
	set      inventory.ToolsetID
	readOnly bool
}

// pathRoutes are the MCP endpoint's narrowed URLs for clients that take only a URL: /mcp/readonly,
// /mcp/x/{toolset} and /mcp/x/{toolset}/readonly for each toolset (and "all").
func (s *Server) pathRoutes() map[string]pathNarrowing {
	routes := map[string]pathNarrowing{"/mcp/readonly": {"", true}}
	for _, id := range append(s.inv.ToolsetIDs(), inventory.All) {
		routes["/mcp/x/"+string(id)] = pathNarrowing{id, false}
		routes["/mcp/x/"+string(id)+"/readonly"] = pathNarrowing{id, true}
	}
	return routes
}
