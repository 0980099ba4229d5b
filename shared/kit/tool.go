package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/jck411/mcp-servers/shared/kit/schema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool timeouts. The Cloudflare edge cuts a response at 100 s, so nothing may run longer than
// MaxTimeout (plus stopGrace).
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 89 * time.Second
)

// stopGrace is how long past its timeout a handler has to return after its context ends before
// the call is abandoned.
const stopGrace = 500 * time.Millisecond

// Tool describes one tool: its name, what it is for, what it may do, and how long it may run.
type Tool struct {
	Name        string        // snake_case, unique across the fleet
	Toolset     ToolsetID     // the toolset it belongs to, one of the Spec's Toolsets
	Title       string        // short human title
	Description string        // one line that tells a model when to use it
	ReadOnly    bool          // changes nothing anywhere; kept by --read-only
	Destructive bool          // may delete, overwrite or send something that cannot be taken back
	Idempotent  bool          // calling twice with the same input has no further effect
	OpenWorld   bool          // reaches beyond the server (the internet, a third-party API)
	Timeout     time.Duration // 0 means DefaultTimeout; at most MaxTimeout
}

// AddTool registers a typed tool unless the configuration drops it (--read-only,
// --enable-tools, --disable-tools). Its input and output schemas are inferred from In and Out;
// arguments are validated against the input schema before h runs. The handler returns a nil
// result for the usual case (structured output plus its text rendering) or a result of its own
// (images, embedded resources), which is sent as it is, with the output attached.
func AddTool[In, Out any](s *Server, t Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.Timeout == 0 {
		t.Timeout = DefaultTimeout
	}
	if t.Timeout > MaxTimeout {
		panic(fmt.Sprintf("kit.AddTool %s: timeout %s over the %s maximum", t.Name, t.Timeout, MaxTimeout))
	}
	if t.Description == "" {
		panic(fmt.Sprintf("kit.AddTool %s: a description is required", t.Name))
	}
	if !s.declare(t) {
		return
	}
	in, err := schema.NewArgs[In]()
	if err != nil {
		panic(fmt.Sprintf("kit.AddTool %s: input schema: %v", t.Name, err))
	}
	outResolved, ok := s.outputs[reflect.TypeFor[Out]()]
	if !ok {
		out, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("kit.AddTool %s: output schema: %v", t.Name, err))
		}
		if outResolved, err = out.Resolve(nil); err != nil {
			panic(fmt.Sprintf("kit.AddTool %s: output schema: %v", t.Name, err))
		}
		s.outputs[reflect.TypeFor[Out]()] = outResolved
	}
	unshown := unshownOf[Out]()
	destructive := t.Destructive && !t.ReadOnly
	openWorld := t.OpenWorld
	common := s.common
	pull := commonNames(common)
	if len(common) > 0 {
		in.ShowAs(withCommon(t.Name, in.Schema(), common, false))
	}
	listing := func() (*jsonschema.Schema, error) {
		return s.listed(t.Name, schema.Lean(withCommon(t.Name, in.Schema(), common, true)))
	}
	inSchema, err := listing()
	if err != nil {
		s.setupErr = append(s.setupErr, err)
	}
	var relist func() (*jsonschema.Schema, error)
	if listsLive(common) {
		relist = listing
	}
	// The listing carries no output schema: the clients in use send a model only the name, the
	// description and the input schema, and every tools/list would carry the output schemas
	// (38% of the fleet's list) for nothing. The output is still checked against its schema
	// below and sent as structured content beside its text.
	tool := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: inSchema,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Idempotent || t.ReadOnly,
			OpenWorldHint:   &openWorld,
		},
	}
	s.addToSDK(tool, relist, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, given, err := decodeArgs(ctx, in, t.Name, req.Params.Arguments, pull)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		if ctx, err = bindCommon(ctx, common, given); err != nil {
			return errorResult(err.Error()), nil
		}
		st := stateFrom(ctx)
		if st != nil {
			st.called = true
		}
		res, out, err := h(ctx, req, args)
		if err != nil {
			var wire *jsonrpc.Error
			if errors.As(err, &wire) {
				return nil, wire
			}
			var asked *confirm.InputRequired
			if errors.As(err, &asked) {
				if st != nil {
					st.asked = true
				}
				return asked.Result, nil
			}
			code, msg := codeTool, err.Error()
			var te *Error
			switch {
			case errors.Is(ctx.Err(), context.Canceled):
				code, msg = CodeCancelled, cancelledMessage(t.Name, t.ReadOnly, StopCause(ctx), err)
			case errors.Is(err, confirm.ErrDeclined):
				code = CodeDeclined
			case errors.As(err, &te):
				code = te.Code
			case errors.Is(err, context.DeadlineExceeded):
				code = CodeTimeout
				if errors.Is(ctx.Err(), context.DeadlineExceeded) { // the kit's deadline, not one of the tool's own
					msg = stoppedMessage(t.Name, t.Timeout, t.ReadOnly, err)
				}
			}
			if st != nil {
				st.code = code
			}
			return errorResult(msg), nil
		}
		structured, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: encoding output: %w", t.Name, err)
		}
		// As the go-sdk does: an output that breaks its own schema is a bug, reported as one
		// rather than sent to a client that trusts the schema.
		var generic any
		if err := json.Unmarshal(structured, &generic); err != nil {
			return nil, fmt.Errorf("%s: validating tool output: %w", t.Name, err)
		}
		if err := outResolved.Validate(generic); err != nil {
			return nil, fmt.Errorf("%s: validating tool output: %w", t.Name, err)
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		res.StructuredContent = json.RawMessage(structured)
		res.Content = s.render(t.Name, res.Content, out, structured, generic, string(req.Params.Arguments), unshown)
		res.Content = append(res.Content, s.links(ctx, out)...)
		return res, nil
	})
}

// listed gives the top-level properties that Spec.SharedArgs explains in the instructions
// their short description (schema is the listing's own copy), and refuses a listing with an
// argument that says nothing of itself: many clients give a model the input schema without
// the instructions, so a model fills each argument from the schema alone.
func (s *Server) listed(tool string, in *jsonschema.Schema) (*jsonschema.Schema, error) {
	for _, a := range s.spec.SharedArgs {
		if p, ok := in.Properties[a.Name]; ok {
			p.Description = a.Short
		}
	}
	if bare := schema.Undescribed(in); len(bare) > 0 {
		return in, fmt.Errorf("tool %s lists %s without a description: describe each in its struct tag, SharedArg.Short or CommonArg.Show (a few words are enough), unless its name is self-explaining (schema.SelfExplaining)", tool, strings.Join(bare, ", "))
	}
	return in, nil
}

// decodeArgs decodes a call's arguments: from the request's envelope, which read them with the
// body, when there is one to take them from (a request over HTTP with one call of this tool),
// else from raw, the go-sdk's copy.
func decodeArgs[In any](ctx context.Context, in *schema.Args[In], tool string, raw json.RawMessage, pull []string) (In, map[string]any, error) {
	if r := routedFrom(ctx); r != nil {
		if m, ok := r.env.Call(tool); ok && (m.HasArguments || len(bytes.TrimSpace(raw)) == 0) {
			return in.DecodeParsed(m.Arguments, raw, pull)
		}
	}
	return in.DecodeWith(raw, pull)
}
