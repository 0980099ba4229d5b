package kit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Resources, resource templates and prompts each stand beside one of the server's tools (their
// Tool): they are offered, listed, read, got and completed exactly when the request may call
// that tool. So --toolsets, --tools, --read-only, the run-time switches, a read-only token and
// every narrowing (/mcp/x/{toolset}, /mcp/readonly, X-MCP-Toolsets, X-MCP-Tools) decide them as
// they decide the tool, in one place (the request's inventory.View).

// ResourceTemplate is a family of resources a client reads by URI, for example notes://{+path}.
type ResourceTemplate struct {
	Tool     string                // the tool whose data it shows: the template goes where the tool goes
	Template *mcp.ResourceTemplate // as listed; its URITemplate is RFC 6570
	// Read answers resources/read of a URI the template matches; vars are the template's
	// variables as the URI gives them. An error wrapping ErrResourceNotFound is answered as
	// the protocol's resource-not-found.
	Read func(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error)
	// List, when set, lists the template's resources for resources/list a page at a time:
	// cursor "" asks for the first page, next "" says it was the last.
	List func(ctx context.Context, cursor string) (page []*mcp.Resource, next string, err error)
	// Complete, when set, completes the template's variables (completion/complete).
	Complete Completer
}

// Prompt is a prompt a user runs (a slash command in most clients).
type Prompt struct {
	Tool     string      // the tool the prompt leads to: the prompt goes where the tool goes
	Prompt   *mcp.Prompt // as listed
	Get      func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error)
	Complete Completer // completes the prompt's arguments, when set
}

// Completer returns values for the argument (a prompt's argument or a template's variable)
// named arg that start with or match value, best first; given holds the arguments the client
// already resolved. The kit sends at most maxCompletions of them.
type Completer func(ctx context.Context, arg, value string, given map[string]string) ([]string, error)

// maxCompletions is the protocol's bound on the values one completion/complete answers.
const maxCompletions = 100

// ErrResourceNotFound is what a Read wraps for a URI that names nothing.
var ErrResourceNotFound = errors.New("resource not found")

// features are the server's resource templates and prompts, in the order registered.
type features struct {
	templates []*template
	prompts   map[string]Prompt
}

// template is a registered ResourceTemplate with its parsed URI template and its handler.
type template struct {
	ResourceTemplate
	parsed  *uritemplate.Template
	handler mcp.ResourceHandler
}

// AddResourceTemplate registers a resource template unless the configuration leaves out its
// tool. A template whose tool the server does not declare, or whose URI template is not
// RFC 6570, fails New.
func (s *Server) AddResourceTemplate(rt ResourceTemplate) {
	if !s.standsBeside("resource template "+rt.Template.URITemplate, rt.Tool) {
		return
	}
	parsed, err := uritemplate.New(rt.Template.URITemplate)
	if err != nil {
		s.setupErr = append(s.setupErr, fmt.Errorf("resource template %q: %w", rt.Template.URITemplate, err))
		return
	}
	t := &template{ResourceTemplate: rt, parsed: parsed}
	t.handler = func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		if !s.viewOf(ctx).Allows(rt.Tool) {
			return nil, mcp.ResourceNotFoundError(uri) // as if the server had no such resource
		}
		ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
		res, err := rt.Read(ctx, uri, values(parsed.Match(uri)))
		if err != nil {
			s.log.Info("resource read failed", "uri", uri, "caller", s.callerLabel(ctx), "error", err.Error())
			if errors.Is(err, ErrResourceNotFound) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()} // the code of the go-sdk's ResourceNotFoundError, with our reason
			}
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		return res, nil
	}
	s.features.templates = append(s.features.templates, t)
	s.mcp.AddResourceTemplate(rt.Template, t.handler)
}

// AddPrompt registers a prompt unless the configuration leaves out its tool. A prompt whose
// tool the server does not declare, or registered twice, fails New.
func (s *Server) AddPrompt(p Prompt) {
	if !s.standsBeside("prompt "+p.Prompt.Name, p.Tool) {
		return
	}
	if _, dup := s.features.prompts[p.Prompt.Name]; dup {
		s.setupErr = append(s.setupErr, fmt.Errorf("prompt %q registered twice", p.Prompt.Name))
		return
	}
	if s.features.prompts == nil {
		s.features.prompts = map[string]Prompt{}
	}
	s.features.prompts[p.Prompt.Name] = p
	s.mcp.AddPrompt(p.Prompt, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if !s.viewOf(ctx).Allows(p.Tool) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", p.Prompt.Name)}
		}
		args := req.Params.Arguments
		for _, a := range p.Prompt.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs the argument %s: %s", p.Prompt.Name, a.Name, a.Description)}
			}
		}
		ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
		return p.Get(ctx, args)
	})
}

// standsBeside reports whether a feature standing beside tool is offered: a tool the server
// does not declare is a setup error.
func (s *Server) standsBeside(what, tool string) bool {
	if _, ok := s.inv.Lookup(tool); !ok {
		s.setupErr = append(s.setupErr, fmt.Errorf("%s stands beside tool %q, which %s does not declare (declare the tool first)", what, tool, s.spec.Name))
		return false
	}
	return s.inv.Offered(tool)
}

// ResourcesChanged tells the clients that listen (stdio sessions, and 2026-07-28 clients
// through subscriptions/listen) that the list of resources changed: the go-sdk sends
// notifications/resources/list_changed when a template is registered again, debounced.
func (s *Server) ResourcesChanged() {
	if len(s.features.templates) == 0 {
		return
	}
	t := s.features.templates[0]
	s.mcp.AddResourceTemplate(t.Template, t.handler)
}

// ResourceUpdated tells the clients subscribed to uri that it changed.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	_ = s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}) // it fails for no subscriber
}

// templateFor returns the registered template that matches uri, nil for none.
func (s *Server) templateFor(uri string) *template {
	for _, t := range s.features.templates {
		if t.parsed.Regexp().MatchString(uri) {
			return t
		}
	}
	return nil
}

// ExpandURI fills an RFC 6570 URI template (a ResourceTemplate's) with vars, encoding them as
// the template says; a template that does not parse gives "".
func ExpandURI(uriTemplate string, vars map[string]string) string {
	t, err := uritemplate.New(uriTemplate)
	if err != nil {
		return ""
	}
	v := uritemplate.Values{}
	for name, val := range vars {
		v.Set(name, uritemplate.String(val))
	}
	uri, err := t.Expand(v)
	if err != nil {
		return ""
	}
	return uri
}

// ResourceLink returns a resource_link content for uri, for a tool's answer.
func ResourceLink(uri, name, title, mimeType string) *mcp.ResourceLink {
	return &mcp.ResourceLink{URI: uri, Name: name, Title: title, MIMEType: mimeType}
}

// Linker is an output that names resources the client can read: the kit adds them to the
// tool's answer as resource_link contents, those the request may read.
type Linker interface {
	ResourceLinks() []*mcp.ResourceLink
}

// links returns the resource links of out that the request may read.
func (s *Server) links(ctx context.Context, out any) []mcp.Content {
	l, ok := out.(Linker)
	if !ok {
		return nil
	}
	view := s.viewOf(ctx)
	var kept []mcp.Content
	for _, link := range l.ResourceLinks() {
		if t := s.templateFor(link.URI); t != nil && view.Allows(t.Tool) {
			kept = append(kept, link)
		}
	}
	return kept
}

// subscribe accepts a subscription to a resource the request may read.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if t := s.templateFor(req.Params.URI); t == nil || !s.viewOf(ctx).Allows(t.Tool) {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

// complete answers completion/complete for the prompts' arguments and the templates'
// variables the request may see; anything else completes to nothing.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var (
		fn   Completer
		tool string
	)
	switch ref := req.Params.Ref; ref.Type {
	case "ref/prompt":
		if p, ok := s.features.prompts[ref.Name]; ok {
			fn, tool = p.Complete, p.Tool
		}
	case "ref/resource":
		for _, t := range s.features.templates {
			if t.Template.URITemplate == ref.URI {
				fn, tool = t.Complete, t.Tool
			}
		}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if fn == nil || !s.viewOf(ctx).Allows(tool) {
		return res, nil
	}
	var given map[string]string
	if req.Params.Context != nil {
		given = req.Params.Context.Arguments
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	values, err := fn(ctx, req.Params.Argument.Name, req.Params.Argument.Value, given)
	if err != nil {
		return nil, fmt.Errorf("completing %s: %w", req.Params.Argument.Name, err)
	}
	if len(values) > maxCompletions {
		values, res.Completion.HasMore = values[:maxCompletions], true
	}
	if values != nil {
		res.Completion.Values = values
	}
	return res, nil
}

// values flattens a URI template match into its variables' values.
func values(v uritemplate.Values) map[string]string {
	out := make(map[string]string, len(v))
	for name, val := range v {
		out[name] = val.String()
	}
	return out
}
