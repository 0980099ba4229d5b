package kit

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeNotOffered marks, in logs and metrics, a call to a tool the configuration leaves out.
const codeNotOffered = "not_offered"

// refuseNotOffered answers a call to a tool the server has but its configuration leaves out
// (--read-only, --toolsets, --tools, --disable-tools) with a tool error that says why, where the
// go-sdk would answer only "unknown tool". A name the server never had stays the SDK's
// protocol error.
func (s *Server) refuseNotOffered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if _, offered := s.tools[name]; offered || !s.declared[name] {
			return next(ctx, method, req)
		}
		if st := stateFrom(ctx); st != nil {
			st.code = codeNotOffered
		}
		return errorResult(s.notOfferedMessage(name)), nil
	}
}

// notOfferedMessage says which flag leaves out a declared tool, checked in the order declare
// drops tools: a tool kept by --read-only, by --toolsets or --tools and not in --disable-tools is
// left out only because it changes something.
func (s *Server) notOfferedMessage(name string) string {
	switch {
	case slices.Contains(s.cfg.DisableTools, name):
		return fmt.Sprintf("%s is turned off on this server (--disable-tools): it cannot be called here", name)
	case !s.selected(name) && s.optional(name):
		set := s.toolsetOf[name]
		return fmt.Sprintf("%s is in the %s toolset, which is off by default: the server offers it when started with --toolsets %s,%s", name, set, ToolsetDefault, set)
	case !s.selected(name):
		return fmt.Sprintf("%s is not among the tools this server offers (--toolsets, --tools): it cannot be called here", name)
	default:
		return fmt.Sprintf("%s changes something, and this server runs with --read-only, which offers only the tools that change nothing: it cannot be called here", name)
	}
}
