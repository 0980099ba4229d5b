package kit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Headers that narrow the tools one request sees, as github-mcp-server's remote server reads
// them. They only ever narrow: a tool the flags or the token leave out stays out.
const (
	HeaderToolsets = "X-MCP-Toolsets" // comma-separated toolsets ("all" for every one, "default" for those on by default)
	HeaderTools    = "X-MCP-Tools"    // comma-separated single tools, besides HeaderToolsets
	HeaderReadonly = "X-MCP-Readonly" // true: only the tools that change nothing
	// headerPath carries the narrowing of the URL path (/mcp/x/{toolset}, …/readonly,
	// /mcp/readonly) to the MCP layer; the kit sets it and drops one a client sent.
	headerPath = "X-Mcp-Kit-Path"
)

// narrowing is what one request's headers and path leave of the offered tools.
type narrowing struct {
	sets, tools  []string // from the headers; both empty: no narrowing by name
	readOnly     bool     // X-MCP-Readonly
	pathSet      string   // from the path; "" none
	pathReadOnly bool     // the path ends in /readonly
}

// parseList splits every value of a comma-separated header.
func parseList(h http.Header, key string) []string {
	var out []string
	for _, v := range h.Values(key) {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// truthy reads X-MCP-Readonly as github-mcp-server does: absent, empty, false, f, no, n, 0 and
// off are false; anything else is true.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "f", "no", "n", "0", "off":
		return false
	}
	return true
}

func narrowingOf(h http.Header) narrowing {
	if h == nil {
		return narrowing{}
	}
	n := narrowing{sets: parseList(h, HeaderToolsets), tools: parseList(h, HeaderTools), readOnly: truthy(h.Get(HeaderReadonly))}
	if p := h.Get(headerPath); p != "" {
		set, ro, _ := strings.Cut(p, "/")
		n.pathSet, n.pathReadOnly = set, ro == "readonly"
	}
	return n
}

// allows reports whether the narrowing keeps the tool; optional: its toolset is off by default.
func (n narrowing) allows(name, toolset string, readOnly, optional bool) bool {
	if (n.readOnly || n.pathReadOnly) && !readOnly {
		return false
	}
	if n.pathSet != "" && n.pathSet != ToolsetAll && n.pathSet != toolset {
		return false
	}
	if len(n.sets) == 0 && len(n.tools) == 0 {
		return true
	}
	return slices.Contains(n.sets, ToolsetAll) || slices.Contains(n.sets, toolset) ||
		slices.Contains(n.sets, ToolsetDefault) && !optional || slices.Contains(n.tools, name)
}

// visible reports whether a request may see and call an offered tool: the one place that
// applies a read-only token and the request's narrowing (--read-only, --toolsets and --tools
// decided at registration whether the tool is offered at all).
func (s *Server) visible(req mcp.Request, name string) bool {
	t, ok := s.tools[name]
	if !ok {
		return false
	}
	if readOnlyCaller(req) && !t.ReadOnly {
		return false
	}
	var h http.Header
	if extra := req.GetExtra(); extra != nil {
		h = extra.Header
	}
	return narrowingOf(h).allows(name, s.toolsetOf[name], t.ReadOnly, s.optional(name))
}

// checkNarrowing refuses a request whose narrowing names a toolset or tool the server does not
// have, before it reaches MCP: a typo would otherwise leave the client without tools and
// without a reason.
func (s *Server) checkNarrowing(h http.Header) error {
	for _, n := range parseList(h, HeaderToolsets) {
		if n != ToolsetAll && n != ToolsetDefault && !slices.Contains(s.toolsetNames(), n) {
			return fmt.Errorf("unknown toolset %q in %s; %s has: %s", n, HeaderToolsets, s.spec.Name, strings.Join(s.toolsetNames(), ", "))
		}
	}
	for _, n := range parseList(h, HeaderTools) {
		if !s.declared[n] {
			return fmt.Errorf("unknown tool %q in %s; %s has: %s", n, HeaderTools, s.spec.Name, strings.Join(s.declaredNames(), ", "))
		}
	}
	return nil
}

// narrowed wraps the MCP handler: it refuses unknown names in the narrowing headers (400) and
// passes the narrowing of the path (set, "" for none; readOnly) on in headerPath.
func (s *Server) narrowed(set string, readOnly bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(headerPath)
		if err := s.checkNarrowing(r.Header); err != nil {
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if set != "" || readOnly {
			v := set
			if readOnly {
				v += "/readonly"
			}
			r.Header.Set(headerPath, v)
		}
		next.ServeHTTP(w, r)
	})
}

// pathRoutes are the MCP endpoint's narrowed URLs for clients that take only a URL: /mcp/readonly,
// /mcp/x/{toolset} and /mcp/x/{toolset}/readonly for each toolset (and "all").
func (s *Server) pathRoutes() map[string]pathNarrowing {
	routes := map[string]pathNarrowing{"/mcp/readonly": {"", true}}
	for _, n := range append(s.toolsetNames(), ToolsetAll) {
		routes["/mcp/x/"+n] = pathNarrowing{n, false}
		routes["/mcp/x/"+n+"/readonly"] = pathNarrowing{n, true}
	}
	return routes
}

// pathNarrowing is what a narrowed URL chooses: a toolset ("" for all) and whether only the
// tools that change nothing.
type pathNarrowing struct {
	set      string
	readOnly bool
}

// unknownTool is the go-sdk's answer to a call of a tool it does not have, which a call outside
// the request's narrowing gets too.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}
