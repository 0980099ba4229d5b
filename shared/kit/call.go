package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callState carries what the typed handler learned back to the middleware.
type callState struct {
	called bool
	code   string
	asked  bool // answered with an input request (the owner's confirmation)
}

type stateKey struct{}
type callerKey struct{}

func stateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

// Caller returns the label of who the current tool call came from: a token's label,
// "oauth:CLIENT", "local" (provably from this machine, without a credential), "anonymous" (with
// --insecure-no-auth) or "stdio".
func Caller(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(string); ok {
		return c
	}
	return guard.CallerLocal
}

type callReturn struct {
	res mcp.Result
	err error
}

// toolMiddleware wraps every tools/call: timeout, panic recovery, one log line, metrics.
func (s *Server) toolMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		timeout := DefaultTimeout
		if t, ok := s.tools[name]; ok {
			timeout = t.Timeout
		}
		caller := s.callerLabel(ctx)
		ctx = context.WithValue(ctx, callerKey{}, caller)
		st := &callState{}
		ctx = context.WithValue(ctx, stateKey{}, st)
		ctx, stop := context.WithCancelCause(ctx)
		defer stop(nil)
		defer s.watch(ctx, stop, caller, name)()
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ctx = s.asker.Bind(ctx, caller, s.cfg.Transport == config.TransportStdio)
		if tok := call.Params.GetProgressToken(); tok != nil && call.Session != nil {
			rep := progress.Start(ctx, tok, call.Session.NotifyProgress)
			defer rep.Close() // before the answer goes out: no notification may follow it
			ctx = progress.With(ctx, rep)
		}

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
			if cause := StopCause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
				msg, code = fmt.Sprintf("%s was cancelled (%v) but did not stop; it may still complete in the background", name, cause), CodeCancelled
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
				outcome, code = "error", cmp.Or(st.code, "protocol") // e.g. an unknown tool: a JSON-RPC error, not a tool result
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
		if code == CodeCancelled {
			attrs = append(attrs, slog.String("cause", StopCause(ctx).Error()))
		}
		if st.asked {
			attrs = append(attrs, slog.Bool("input_required", true))
		}
		s.log.LogAttrs(context.Background(), level, "tool call", attrs...)
		s.recordCall(name, caller, outcome, code, start, d)
		reportOutcome(ctx, code)
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

// cancelledMessage is the answer of a tool that stopped because its call was cancelled (cause):
// the client that cancelled will not read it, but a server stopping may still deliver it.
func cancelledMessage(tool string, readOnly bool, cause, err error) string {
	msg := fmt.Sprintf("%s was cancelled before finishing (%v): %v", tool, cause, err)
	if !readOnly {
		return msg + " — it may have done part of its work: check before retrying"
	}
	return msg
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

// watch ties a call's context to what can end it before its timeout: the client closing the
// HTTP request, a notifications/cancelled naming it (HTTP: see inflight; stdio: the go-sdk
// cancels the handler's context itself) and the server's shutdown. It returns the func that
// stops watching.
func (s *Server) watch(ctx context.Context, stop context.CancelCauseFunc, caller, tool string) func() {
	stops := []func() bool{context.AfterFunc(s.life, func() { stop(context.Cause(s.life)) })}
	forget := func() {}
	if rt := routedFrom(ctx); rt != nil {
		if rt.request != nil {
			stops = append(stops, context.AfterFunc(rt.request, func() { stop(ErrClientGone) }))
		}
		if rt.env != nil {
			if m, ok := rt.env.Call(tool); ok {
				forget = s.inflight.add(caller, m.ID, stop)
			}
		}
	}
	return func() {
		for _, f := range stops {
			f()
		}
		forget()
	}
}

// callerLabel names who a call came from: the caller the gate admitted over HTTP (a token's
// label, "oauth:CLIENT", "local" or "anonymous"), "stdio", or "local" in-process.
func (s *Server) callerLabel(ctx context.Context) string {
	if c, ok := guard.CallerFrom(ctx); ok {
		return c.Label
	}
	if s.cfg.Transport == config.TransportStdio {
		return "stdio"
	}
	return guard.CallerLocal
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
