// Package progress sends a tool call's notifications/progress. The kit starts a Reporter for
// every call whose request carries a progress token and puts it in the call's context; a tool
// reads it with From and reports in its own units (bytes, items, phases). A tool that reports
// nothing gets a heartbeat instead: the elapsed time, a second into the call and then every
// few seconds, so that a client that resets its timeout on progress keeps waiting and the
// response headers leave early (a tunnel such as Cloudflare's cuts a response that sends
// nothing for 100 s). Notifications are rate-limited and sent off the tool's goroutine, so
// reporting never slows a tool down; every method is a no-op on a nil Reporter.
package progress

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Timing of the notifications.
const (
	// MinInterval is the least time between two notifications: at most four a second.
	MinInterval = 250 * time.Millisecond
	// HeartbeatAfter is when the first heartbeat goes out for a tool that reports nothing.
	HeartbeatAfter = time.Second
	// HeartbeatEvery is the time between heartbeats after the first.
	HeartbeatEvery = 2 * time.Second
	// closeWait bounds how long Close waits for a notification being written.
	closeWait = time.Second
)

// Send delivers one notification to the client; the kit passes the call's session's.
type Send func(ctx context.Context, p *mcp.ProgressNotificationParams) error

// Reporter reports one call's progress. Its progress value only ever increases, as the
// protocol requires: a report that does not move it forward is dropped.
type Reporter struct {
	token any
	send  Send
	start time.Time

	mu       sync.Mutex
	pending  *mcp.ProgressNotificationParams // the latest report not yet sent
	last     float64                         // the progress of the last notification sent
	sent     bool                            // a notification went out
	own      bool                            // the tool reports in its own units: no more heartbeats
	base     float64                         // the heartbeats' progress before the tool's first report
	status   func() string                   // what the heartbeat says, when set
	wake     chan struct{}
	stop     context.CancelFunc
	finished chan struct{}
}

// Start starts reporting for a call whose request carries token, sending through send with
// ctx (the call's context, which says which request the notifications belong to). The caller
// must Close it when the call ends.
func Start(ctx context.Context, token any, send Send) *Reporter {
	ctx, stop := context.WithCancel(ctx)
	r := &Reporter{
		token: token, send: send, start: time.Now(),
		wake: make(chan struct{}, 1), stop: stop, finished: make(chan struct{}),
	}
	go r.run(ctx)
	return r
}

// Close stops the reporter: nothing more is sent once it returns, and a notification being
// written is waited for (briefly) so that it reaches the client before the call's answer.
func (r *Reporter) Close() {
	if r == nil {
		return
	}
	r.stop()
	select {
	case <-r.finished:
	case <-time.After(closeWait):
	}
}

type key struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Reporter) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the reporter of the call ctx belongs to, nil when the caller asked for no
// progress (every method of a nil Reporter does nothing).
func From(ctx context.Context) *Reporter {
	r, _ := ctx.Value(key{}).(*Reporter)
	return r
}

// Report reports progress in the tool's own units out of total (0: unknown), with a message
// for the person watching. The first report ends the heartbeat; when heartbeats went out
// before it, the tool's progress and total are counted on from the last of them.
func (r *Reporter) Report(progress, total float64, message string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.own && r.sent {
		// Heartbeats went out in seconds before the tool's first report: count the tool's
		// units on from there, since progress may never go back.
		r.base = r.last
	}
	r.own = true
	progress += r.base
	if total > 0 {
		total += r.base
	}
	if (r.pending != nil && progress <= r.pending.Progress) || (r.sent && progress <= r.last) {
		r.mu.Unlock()
		return // not forward of what was reported already
	}
	r.pending = &mcp.ProgressNotificationParams{ProgressToken: r.token, Progress: progress, Total: total, Message: message}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Bytes reports a transfer: done bytes of total (0 or less: unknown).
func (r *Reporter) Bytes(done, total int64) {
	if r == nil {
		return
	}
	msg := Size(done)
	if total > 0 {
		msg += " of " + Size(total)
	}
	r.Report(float64(done), float64(max(total, 0)), msg)
}

// Items reports a batch: done of total things, what naming them ("events", "files").
func (r *Reporter) Items(done, total int, what string) {
	if r == nil {
		return
	}
	msg := fmt.Sprintf("%d %s", done, what)
	if total > 0 {
		msg = fmt.Sprintf("%d of %d %s", done, total, what)
	}
	r.Report(float64(done), float64(max(total, 0)), msg)
}

// Phase reports the step of a process made of n steps the call is at (counted from 1).
func (r *Reporter) Phase(step, n int, name string) {
	if r == nil {
		return
	}
	r.Report(float64(step), float64(n), fmt.Sprintf("%s (step %d of %d)", name, step, n))
}

// Status keeps the heartbeat going and makes it say what status returns ("3.2 KiB of output")
// beside the elapsed time: for work measured best in time, such as a command.
func (r *Reporter) Status(status func() string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
}

// run sends the reports, at most one per MinInterval, and the heartbeat while the tool
// reports nothing of its own.
func (r *Reporter) run(ctx context.Context) {
	defer close(r.finished)
	beat := time.NewTimer(HeartbeatAfter)
	defer beat.Stop()
	var lastSend time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-beat.C:
			beat.Reset(HeartbeatEvery)
			r.heartbeat()
		}
		if wait := MinInterval - time.Since(lastSend); !lastSend.IsZero() && wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		if p := r.next(); p != nil {
			_ = r.send(ctx, p) // a client that went away: the call's context ends next
			lastSend = time.Now()
		}
	}
}

// heartbeat queues the elapsed time as progress, unless the tool reports its own.
func (r *Reporter) heartbeat() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.own {
		return
	}
	elapsed := time.Since(r.start).Round(100 * time.Millisecond)
	msg := "running for " + elapsed.String()
	if r.status != nil {
		if s := r.status(); s != "" {
			msg += ", " + s
		}
	}
	r.pending = &mcp.ProgressNotificationParams{ProgressToken: r.token, Progress: elapsed.Seconds(), Message: msg}
}

// next takes the report to send, nil when there is none or it would not move progress forward.
func (r *Reporter) next() *mcp.ProgressNotificationParams {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	if p == nil || (r.sent && p.Progress <= r.last) {
		return nil
	}
	r.sent, r.last = true, p.Progress
	return p
}

// Size renders a byte count for people: 512 B, 3.2 KiB, 41.0 MiB.
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
