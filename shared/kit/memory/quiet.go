package memory

import (
	"context"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// QuietPeriod is how long a server goes without a request, after some came, before it hands
// the free heap back to the system.
//
// Go releases the garbage of a burst of calls only after its next collection, which an idle
// server reaches when the runtime forces one: two to three minutes later. Measured with
// `make memcheck` (5 s of 16 clients, then quiet), calendar, drive and notes still held
// 10.2-12.1 MiB of anonymous memory 2m40s after the burst without this, and every server
// 4.7-7.8 MiB two minutes after it with it (docs/performance.md). It costs one collection per
// quiet spell.
const QuietPeriod = 30 * time.Second

// QuietRelease returns the free heap to the system once per quiet spell that follows requests.
type QuietRelease struct {
	last    atomic.Int64 // when the latest request came, in Unix nanoseconds; 0 before any
	release func()       // debug.FreeOSMemory outside tests
}

// NewQuietRelease returns a QuietRelease that hands the heap back with debug.FreeOSMemory.
func NewQuietRelease() *QuietRelease { return &QuietRelease{release: debug.FreeOSMemory} }

// Track notes the time of each request that passes through next.
func (q *QuietRelease) Track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.last.Store(time.Now().UnixNano())
		next.ServeHTTP(w, r)
	})
}

// Run looks four times a period, until ctx is done, for a quiet spell of a whole period after
// requests that came since the last release, and then releases: between one and one and a
// quarter periods after the spell's last request.
func (q *QuietRelease) Run(ctx context.Context, period time.Duration) {
	var released int64
	t := time.NewTicker(period / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			last := q.last.Load()
			if last > released && now.UnixNano()-last >= int64(period) {
				q.release()
				released = last
			}
		}
	}
}
