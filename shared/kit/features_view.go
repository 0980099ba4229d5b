package kit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// featureLists answers the list methods of resources and prompts with what the request's view
// allows; ok is false for any other method.
func (s *Server) featureLists(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (res mcp.Result, err error, ok bool) {
	switch method {
	case "resources/list":
		list, _ := req.(*mcp.ListResourcesRequest)
		if list == nil {
			return nil, nil, false
		}
		res, err := s.listResources(ctx, list)
		return res, err, true
	case "resources/templates/list":
		res, err := next(ctx, method, req)
		if list, isList := res.(*mcp.ListResourceTemplatesResult); isList && err == nil {
			view := s.viewOf(ctx)
			cp := *list
			cp.ResourceTemplates = slices.DeleteFunc(slices.Clone(list.ResourceTemplates), func(rt *mcp.ResourceTemplate) bool {
				i := slices.IndexFunc(s.features.templates, func(t *template) bool { return t.Template.URITemplate == rt.URITemplate })
				return i < 0 || !view.Allows(s.features.templates[i].Tool)
			})
			return &cp, nil, true
		}
		return res, err, true
	case "prompts/list":
		res, err := next(ctx, method, req)
		if list, isList := res.(*mcp.ListPromptsResult); isList && err == nil {
			view := s.viewOf(ctx)
			cp := *list
			cp.Prompts = slices.DeleteFunc(slices.Clone(list.Prompts), func(p *mcp.Prompt) bool {
				fp, known := s.features.prompts[p.Name]
				return !known || !view.Allows(fp.Tool)
			})
			return &cp, nil, true
		}
		return res, err, true
	}
	return nil, nil, false
}

// completes reports whether anything of the server completes: without, the completions
// capability the kit's handler makes the go-sdk announce is taken back.
func (s *Server) completes() bool {
	for _, p := range s.features.prompts {
		if p.Complete != nil {
			return true
		}
	}
	return slices.ContainsFunc(s.features.templates, func(t *template) bool { return t.Complete != nil })
}

// withoutUnused takes back the completions capability of a server that completes nothing.
func (s *Server) withoutUnused(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if caps == nil || caps.Completions == nil || s.completes() {
		return caps
	}
	cp := *caps
	cp.Completions = nil
	return &cp
}

// listResources answers resources/list from the templates' List, one template's page per
// answer; the cursor is the template's position and its own cursor ("2:abc").
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	from, inner := 0, ""
	if req.Params != nil && req.Params.Cursor != "" {
		i, rest, ok := strings.Cut(req.Params.Cursor, ":")
		n, err := strconv.Atoi(i)
		if !ok || err != nil || n < 0 || n >= len(s.features.templates) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %q: pass the nextCursor of the previous answer", req.Params.Cursor)}
		}
		from, inner = n, rest
	}
	view := s.viewOf(ctx)
	lists := func(t *template) bool { return t.List != nil && view.Allows(t.Tool) }
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	for i := from; i < len(s.features.templates); i, inner = i+1, "" {
		t := s.features.templates[i]
		if !lists(t) {
			continue
		}
		page, next, err := t.List(ctx, inner)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", t.Template.Name, err)
		}
		res.Resources = append(res.Resources, page...)
		if next != "" {
			res.NextCursor = strconv.Itoa(i) + ":" + next
			return res, nil
		}
		if len(page) > 0 && slices.ContainsFunc(s.features.templates[i+1:], lists) {
			res.NextCursor = strconv.Itoa(i+1) + ":"
			return res, nil
		}
	}
	return res, nil
}
