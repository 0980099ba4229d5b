package kit

import (
	"context"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Codes of the calls the request's view refuses, in logs and metrics.
const (
	codeNotOffered = "not_offered"        // the configuration leaves the tool out
	codeScope      = "insufficient_scope" // the token allows only the tools that change nothing
	codeNarrowed   = "narrowed"           // outside the request's narrowing
	// CodeDisabled is the code of a call to a tool a run-time switch turns off (the owner's
	// console): a tool error that says so, in logs and in mcp_tool_calls_disabled_total.
	CodeDisabled = "disabled"
)

// viewOf is what a request may see and call: over HTTP the view its route worked out (the
// offered tools within its credential's scope and its narrowing); over stdio every offered tool.
func (s *Server) viewOf(ctx context.Context) inventory.View {
	if r := routedFrom(ctx); r != nil {
		return r.view
	}
	return s.inv.View(inventory.Narrowing{}, inventory.Scope{})
}

// viewMiddleware applies the request's view to the MCP layer: tools/list (and the lists of
// resources and prompts) show only what it allows, the instructions name only the toolsets it shows, and tools/call refuses the rest.
func (s *Server) viewMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if res, err, ok := s.featureLists(ctx, method, req, next); ok {
			return res, err
		}
		switch method {
		case "tools/list":
			return s.listFor(ctx, method, req, next)
		case "initialize", "server/discover":
			return s.withInstructions(ctx, method, req, next)
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				if res, err, refused := s.refuseCall(ctx, call); refused {
					return res, err
				}
			}
		}
		return next(ctx, method, req)
	}
}

// refuseCall answers a call the request's view does not allow. A tool the configuration
// leaves out gets a tool error that says which flag does; one a run-time switch turns off, a
// tool error that says which switch (code disabled); one that changes something, called
// with a read-only token, a tool error that says how to get the write scope; one outside the
// request's narrowing the go-sdk's answer to a tool it does not have. A name the server never
// had is left to the go-sdk.
func (s *Server) refuseCall(ctx context.Context, call *mcp.CallToolRequest) (res mcp.Result, err error, refused bool) {
	name := call.Params.Name
	var code string
	view := s.viewOf(ctx)
	switch view.Verdict(name) {
	case inventory.NotOffered:
		code, res = codeNotOffered, errorResult(s.inv.NotOffered(name))
	case inventory.Disabled:
		code, res = CodeDisabled, errorResult(CodeDisabled+": "+view.Disabled(name))
		s.metrics.ObserveDisabled(name)
	case inventory.NeedsWrite:
		// The HTTP layer answers 403 first; this holds even if a request got past it.
		code, res = codeScope, errorResult(fmt.Sprintf("%s changes something, and this token allows only the read-only tools; sign in again granting %s:write", name, s.spec.Name))
	case inventory.Narrowed:
		code, err = codeNarrowed, unknownTool(name)
	default:
		return nil, nil, false
	}
	if st := stateFrom(ctx); st != nil {
		st.code = code
	}
	return res, err, true
}

// unknownTool is the go-sdk's answer to a call of a tool it does not have, which a call outside
// the request's narrowing gets too.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// listFor answers tools/list with the tools the request's view allows.
func (s *Server) listFor(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	list, ok := res.(*mcp.ListToolsResult)
	if !ok {
		return res, err
	}
	view := s.viewOf(ctx)
	kept := make([]*mcp.Tool, 0, len(list.Tools))
	for _, t := range list.Tools {
		if view.Allows(t.Name) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(list.Tools) {
		return res, nil
	}
	filtered := *list
	filtered.Tools = kept
	return &filtered, nil
}

// withInstructions answers initialize and server/discover with the instructions of the
// toolsets the request's view shows.
func (s *Server) withInstructions(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	text := s.instructions(s.viewOf(ctx).Allows)
	switch r := res.(type) {
	case *mcp.InitializeResult:
		cp := *r
		cp.Instructions, cp.Capabilities = text, s.withoutUnused(r.Capabilities)
		return &cp, nil
	case *mcp.DiscoverResult:
		cp := *r
		cp.Instructions, cp.Capabilities = text, s.withoutUnused(r.Capabilities)
		return &cp, nil
	}
	return res, nil
}

// instructions assembles the server's instructions from its own, its common arguments', its
// shared arguments' and those of the toolsets that have a tool shown.
func (s *Server) instructions(shown func(tool string) bool) string {
	parts := []string{s.spec.Instructions}
	for _, c := range s.common {
		if c.Instructions != "" {
			parts = append(parts, c.Instructions)
		}
	}
	if len(s.spec.SharedArgs) > 0 {
		args := make([]string, len(s.spec.SharedArgs))
		for i, a := range s.spec.SharedArgs {
			args[i] = a.Name + ": " + a.Meaning
		}
		parts = append(parts, "Arguments several tools take: "+strings.Join(args, "; ")+".")
	}
	parts = append(parts, s.inv.Instructions(shown)...)
	return strings.TrimSpace(strings.Join(parts, " "))
}
