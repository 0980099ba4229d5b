package kit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/kit/nextcall"
	"github.com/jck411/mcp-servers/shared/resource"
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
	Title       string        // short human title
	Description string        // one line that tells a model when to use it
	ReadOnly    bool          // changes nothing anywhere; kept by --read-only
	Destructive bool          // may delete, overwrite or send something that cannot be taken back
	Idempotent  bool          // calling twice with the same input has no further effect
	OpenWorld   bool          // reaches beyond the server (the internet, a third-party API)
	Timeout     time.Duration // 0 means DefaultTimeout; at most MaxTimeout
}

// Texter is implemented by tool outputs that render themselves as a short text for the model;
// without it the text content is the output's JSON. Whatever a Texter leaves out of the
// output's next-call fields (package nextcall: ids, handles, hashes, offsets, page tokens,
// counts, exit status, truncation) the kit appends to its text as one line of compact JSON;
// fields inside lists it cannot place, so the rendering must show them (tests check).
type Texter interface {
	Text() string
}

// Unshown is implemented by tool outputs whose text leaves out some next-call fields on
// purpose. It maps each field's path, list indexes left out ("processes[].owner"), to why the
// model does not need it; the kit neither appends those fields nor reports them missing.
type Unshown interface {
	Unshown() map[string]string
}

// Error codes carried by tool errors into logs and metrics.
const (
	CodeInvalidInput = "invalid_input" // the arguments are wrong; the message says how to fix them
	CodeNotFound     = "not_found"     // the thing named does not exist
	CodeUnavailable  = "unavailable"   // a dependency (token, upstream, browser) cannot be used now
	CodeLimit        = "limit"         // a size, count or time limit was hit
	CodeTimeout      = "timeout"       // the call outlived its timeout
	CodeInternal     = "internal"      // a bug: a panic or an impossible state
	codeTool         = "tool_error"    // an error without a code
	codeArguments    = "invalid_arguments"
)

// Error is a tool error with a code for logs and metrics; the model sees only the message.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a tool error with a code; %w wraps as in fmt.Errorf.
func Errorf(code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
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
	in, err := newArgs[In]()
	if err != nil {
		panic(fmt.Sprintf("kit.AddTool %s: input schema: %v", t.Name, err))
	}
	outResolved, ok := s.outputs[reflect.TypeFor[Out]()]
	if !ok {
		schema, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("kit.AddTool %s: output schema: %v", t.Name, err))
		}
		if outResolved, err = schema.Resolve(nil); err != nil {
			panic(fmt.Sprintf("kit.AddTool %s: output schema: %v", t.Name, err))
		}
		s.outputs[reflect.TypeFor[Out]()] = outResolved
	}
	var unshown map[string]string
	if u, ok := any(*new(Out)).(Unshown); ok {
		unshown = u.Unshown()
	}
	destructive := t.Destructive && !t.ReadOnly
	openWorld := t.OpenWorld
	common := s.common
	pull := commonNames(common)
	if len(common) > 0 {
		in.listed = withCommon(t.Name, in.schema, common)
	}
	// The listing carries no output schema: the clients in use send a model only the name, the
	// description and the input schema, and every tools/list would carry the output schemas
	// (38% of the fleet's list) for nothing. The output is still checked against its schema
	// below and sent as structured content beside its text.
	tool := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: s.shared(leanSchema(cmp.Or(in.listed, in.schema))),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Idempotent || t.ReadOnly,
			OpenWorldHint:   &openWorld,
		},
	}
	s.mcp.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, given, err := in.decodeWith(req.Params.Arguments, pull)
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
			code, msg := codeTool, err.Error()
			var te *Error
			switch {
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
		if res.Content == nil {
			text := string(structured)
			if tx, ok := any(out).(Texter); ok {
				text = nextcall.Complete(tx.Text(), string(req.Params.Arguments), generic, unshown)
			}
			res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
		} else {
			res.Content = completeContent(res.Content, string(req.Params.Arguments), generic, unshown)
		}
		if s.textCheck != nil {
			text := contentText(res.Content)
			if missing := nextcall.Missing(text, string(req.Params.Arguments), generic, unshown); len(missing) > 0 {
				s.textCheck(t.Name, missing, text)
			}
		}
		return res, nil
	})
}

// readOnlyCaller reports whether the request came with an OAuth token without the write scope.
func readOnlyCaller(req mcp.Request) bool {
	extra := req.GetExtra()
	return extra != nil && resource.ReadOnly(extra.TokenInfo)
}

// listFor answers tools/list with the tools this request may see (visible): without those
// that change something for a read-only token, and within the request's narrowing.
func (s *Server) listFor(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	list, ok := res.(*mcp.ListToolsResult)
	if !ok {
		return res, err
	}
	kept := make([]*mcp.Tool, 0, len(list.Tools))
	for _, t := range list.Tools {
		if s.visible(req, t.Name) {
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
// toolsets this request may see.
func (s *Server) withInstructions(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := next(ctx, method, req)
	if err != nil {
		return res, err
	}
	text := s.instructions(func(name string) bool { return s.visible(req, name) })
	switch r := res.(type) {
	case *mcp.InitializeResult:
		cp := *r
		cp.Instructions = text
		return &cp, nil
	case *mcp.DiscoverResult:
		cp := *r
		cp.Instructions = text
		return &cp, nil
	}
	return res, nil
}

// callState carries what the typed handler learned back to the middleware.
type callState struct {
	called bool
	code   string
}

type stateKey struct{}
type callerKey struct{}

func stateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// Caller returns the label of the token the current tool call came with ("local" without auth).
func Caller(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(string); ok {
		return c
	}
	return "local"
}

type callReturn struct {
	res mcp.Result
	err error
}

// toolMiddleware wraps every tools/call: timeout, panic recovery, one log line, metrics.
func (s *Server) toolMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			return s.listFor(ctx, method, req, next)
		case "initialize", "server/discover":
			return s.withInstructions(ctx, method, req, next)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if t, ok := s.tools[name]; ok && !s.visible(req, name) {
			if !t.ReadOnly && readOnlyCaller(req) {
				// The HTTP layer answers 403 first; this holds even if a request got past it.
				return errorResult(fmt.Sprintf("%s changes something, and this token allows only the read-only tools; sign in again granting %s:write", name, s.spec.Name)), nil
			}
			// Outside the request's narrowing: as if the server had no such tool.
			s.metrics.ObserveCall(name, "error", 0)
			return nil, unknownTool(name)
		}
		timeout := DefaultTimeout
		if t, ok := s.tools[name]; ok {
			timeout = t.Timeout
		}
		caller := s.callerLabel(call)
		ctx = context.WithValue(ctx, callerKey{}, caller)
		st := &callState{}
		ctx = context.WithValue(ctx, stateKey{}, st)
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()

		start := time.Now()
		done := make(chan callReturn, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					s.log.Error("tool panicked", "tool", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					st.code = CodeInternal
					done <- callReturn{res: errorResult(fmt.Sprintf("%s failed with an internal error (the server recovered and logged it); try again or report it", name))}
				}
			}()
			res, err := next(ctx, method, req)
			done <- callReturn{res, err}
		}()

		var r callReturn
		outcome, code := "ok", ""
		abandoned := false
		select {
		case r = <-done:
		case <-ctx.Done():
			// A handler that honours its context returns right after; then its answer stands.
			grace := time.NewTimer(stopGrace)
			select {
			case r = <-done:
			case <-grace.C:
				abandoned = true
			}
			grace.Stop()
		}
		if abandoned {
			outcome, code = "error", CodeTimeout
			msg := abandonedMessage(name, timeout, s.tools[name].ReadOnly)
			if ctx.Err() == context.Canceled {
				msg, code = name+" was cancelled by the client; it may still complete in the background", "cancelled"
			}
			r = callReturn{res: errorResult(msg)}
			s.metrics.ObserveAbandoned(name)
			go s.logLateFinish(name, start, done)
		} else {
			if tr, ok := r.res.(*mcp.CallToolResult); ok && tr != nil && tr.IsError {
				outcome, code = "error", st.code
				if code == "" {
					code = codeArguments
					if st.called {
						code = codeTool
					}
				}
			}
			if r.err != nil {
				outcome, code = "error", "protocol" // e.g. an unknown tool: a JSON-RPC error, not a tool result
			}
		}
		d := time.Since(start)
		s.metrics.ObserveCall(name, outcome, d)
		level := slog.LevelInfo
		if code == CodeInternal {
			level = slog.LevelError
		}
		attrs := []slog.Attr{
			slog.String("tool", name), slog.String("caller", caller),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("outcome", outcome),
		}
		if code != "" {
			attrs = append(attrs, slog.String("code", code))
		}
		s.log.LogAttrs(context.Background(), level, "tool call", attrs...)
		return r.res, r.err
	}
}

// abandonedMessage tells the model the truth about a call the kit stopped waiting for: its
// handler may still be running, and one that can change things may yet do so.
func abandonedMessage(tool string, timeout time.Duration, readOnly bool) string {
	msg := fmt.Sprintf("%s was abandoned after %s: it did not answer in time and may still complete in the background", tool, timeout)
	if !readOnly {
		return msg + " — it may still have changed things: check before retrying"
	}
	return msg + "; ask for less at once (smaller range, fewer items) and try again"
}

// stoppedMessage is the answer of a tool that gave up at its timeout: it stopped, but one that
// can change things may have done part of its work.
func stoppedMessage(tool string, timeout time.Duration, readOnly bool, err error) string {
	msg := fmt.Sprintf("%s stopped at its %s timeout before finishing (%v)", tool, timeout, err)
	if !readOnly {
		return msg + " — it may have done part of its work: check before retrying"
	}
	return msg + "; ask for less at once (smaller range, fewer items) and try again"
}

// logLateFinish waits for an abandoned handler and logs when it finally returns.
func (s *Server) logLateFinish(tool string, start time.Time, done <-chan callReturn) {
	r := <-done
	outcome := "ok"
	if tr, ok := r.res.(*mcp.CallToolResult); r.err != nil || (ok && tr != nil && tr.IsError) {
		outcome = "error"
	}
	s.log.Warn("abandoned tool call finished", "tool", tool, "outcome", outcome,
		"duration_ms", float64(time.Since(start).Microseconds())/1000)
}

func (s *Server) callerLabel(call *mcp.CallToolRequest) string {
	if call.Extra != nil && call.Extra.TokenInfo != nil && call.Extra.TokenInfo.UserID != "" {
		return call.Extra.TokenInfo.UserID
	}
	if s.cfg.Transport == "stdio" {
		return "stdio"
	}
	return "local"
}

// completeContent appends to a handler's own content the top-level next-call fields its text
// leaves out: to its last text, or as a text of their own after images and resources.
func completeContent(content []mcp.Content, args string, v any, unshown map[string]string) []mcp.Content {
	last := -1
	for i, c := range content {
		if _, ok := c.(*mcp.TextContent); ok {
			last = i
		}
	}
	text := contentText(content)
	done := nextcall.Complete(text, args, v, unshown)
	if done == text {
		return content
	}
	extra := strings.TrimPrefix(done[len(strings.TrimRight(text, "\n")):], "\n")
	if last < 0 {
		return append(content, &mcp.TextContent{Text: extra})
	}
	tc := *content[last].(*mcp.TextContent)
	tc.Text = strings.TrimRight(tc.Text, "\n") + "\n" + extra
	content = slices.Clone(content)
	content[last] = &tc
	return content
}

// contentText joins the text contents of a result, as a client that shows only text sees it.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CheckTexts makes every successful tool call report the next-call fields (package nextcall)
// its text content does not carry, by their paths, with the text; tests set it (mcptest.Start
// does) so that a rendering that hides an id, an offset or a page token fails.
func (s *Server) CheckTexts(report func(tool string, missing []string, text string)) {
	s.textCheck = report
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
