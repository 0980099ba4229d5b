package kit

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// Why a call's context ended before its timeout, as StopCause reports it.
var (
	// ErrClientGone: the client closed the request's response stream (how a 2026-07-28 client
	// cancels over HTTP, and what a client that went away looks like).
	ErrClientGone = errors.New("the client closed the request")
	// ErrCancelled: the client sent notifications/cancelled for the call.
	ErrCancelled = errors.New("the client cancelled the call")
	// ErrShutdown: the server is stopping and the call did not finish within ShutdownDrain.
	ErrShutdown = errors.New("the server is shutting down")
)

// ShutdownDrain is how long calls in flight at SIGTERM may run on before their contexts are
// cancelled (ErrShutdown); the server then waits up to ShutdownGrace for them to return.
const ShutdownDrain = time.Second

// StopCause says why the context of a tool call ended: nil while it runs,
// context.DeadlineExceeded at its timeout, or ErrClientGone, ErrCancelled or ErrShutdown.
// Tools put it in their audit logs.
func StopCause(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) { // the go-sdk's own cancellation: notifications/cancelled over stdio
		return ErrCancelled
	}
	return cause
}

// inflight is the calls running over HTTP by caller and JSON-RPC id, so that a
// notifications/cancelled, which a stateless server receives in a request of its own, finds
// the call it names. Without sessions the id alone is ambiguous, so it names a call only
// within its caller's, and only when exactly one of that caller's calls has it.
type inflight struct {
	mu    sync.Mutex
	calls map[string][]*context.CancelCauseFunc
}

func inflightKey(caller string, id any) (string, bool) {
	if id == nil {
		return "", false
	}
	b, err := json.Marshal(id) // 7 and 7.0 are the same id, "7" is not
	if err != nil {
		return "", false
	}
	return caller + "\x00" + string(b), true
}

// add records a call; the returned func forgets it.
func (f *inflight) add(caller string, id any, cancel context.CancelCauseFunc) func() {
	k, ok := inflightKey(caller, id)
	if !ok {
		return func() {}
	}
	p := &cancel
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string][]*context.CancelCauseFunc{}
	}
	f.calls[k] = append(f.calls[k], p)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		list := f.calls[k]
		for i, q := range list {
			if q == p {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(f.calls, k)
		} else {
			f.calls[k] = list
		}
	}
}

// cancel cancels caller's one call with id; it reports whether there was exactly one.
func (f *inflight) cancel(caller string, id any) bool {
	k, ok := inflightKey(caller, id)
	if !ok {
		return false
	}
	f.mu.Lock()
	list := f.calls[k]
	f.mu.Unlock()
	if len(list) != 1 {
		return false
	}
	(*list[0])(ErrCancelled)
	return true
}
