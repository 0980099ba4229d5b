// Package memtrim hands an idle server's memory back to the system: free heap pages and the
// pages of its own executable it is not using, once at start and after every quiet spell.
package memtrim

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Period is how long a server must go without a request before it hands the heap's free
// memory back to the system.
//
// With GOGC at 800 (the kit's default) a server's heap goal is several times its live heap, so the garbage
// of start-up, or of a burst of calls, would otherwise stay resident for as long as the server is
// idle — and an always-on server is idle most of the time. Returning it costs one collection
// (about a millisecond for a live heap of a few MB) once per quiet spell.
const Period = 30 * time.Second

// heapSlack is how much the heap may grow during a quiet spell (background work such as a sync
// loop) before the trimmer releases it again.
const heapSlack = 2 << 20

// Trimmer returns free memory to the system once at start, after every spell of requests
// followed by a quiet period, and during a long quiet spell whenever background work has grown
// the heap by heapSlack since the last release.
type Trimmer struct {
	last    atomic.Int64 // when the latest request came, in Unix nanoseconds; 0 before any
	release func()       // debug.FreeOSMemory and trimCode outside tests
	heap    func() int64 // the heap's objects and retained free memory in bytes
}

// New returns a trimmer that logs at debug level what it could not do.
func New(log *slog.Logger) *Trimmer {
	return &Trimmer{
		release: func() {
			debug.FreeOSMemory()
			if err := trimCode(); err != nil {
				log.Debug("code pages not trimmed", "error", err.Error())
			}
		},
		heap: heapHeld,
	}
}

// heapHeld reads the heap's live and dead objects and its free memory not yet returned.
func heapHeld() int64 {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(samples)
	var n int64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += int64(s.Value.Uint64())
		}
	}
	return n
}

// Track notes the time of each request that passes through next.
func (m *Trimmer) Track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.last.Store(time.Now().UnixNano())
		next.ServeHTTP(w, r)
	})
}

// Run releases memory now (start-up's garbage), then, looking four times a period until ctx is
// done, whenever no request has come for a whole period and either requests came since the last
// release or the heap has grown by heapSlack since. A quiet spell after requests is so trimmed
// between one and one and a quarter periods after its last request.
func (m *Trimmer) Run(ctx context.Context, period time.Duration) {
	m.release()
	trimmed, base := time.Now().UnixNano(), m.heap()
	t := time.NewTicker(period / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			last := m.last.Load()
			if now.UnixNano()-last < int64(period) {
				continue
			}
			if last > trimmed || m.heap() > base+heapSlack {
				m.release()
				trimmed, base = now.UnixNano(), m.heap()
			}
		}
	}
}
