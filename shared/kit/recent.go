package kit

import (
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/metrics"
)

// recentCallsKept is how many finished calls the server keeps for the console's activity page;
// the console fetches them every few seconds, so a burst larger than this between two fetches
// is reported as lost, never silently.
const recentCallsKept = 1000

// recentCalls is the server's audit ring: the last finished tool calls, each as its log line
// has it (tool, caller, outcome, code, duration), never its arguments or its result.
type recentCalls struct {
	mu   sync.Mutex
	ring []admin.Call // grows as calls come, up to size; once full, ring[next%size] is the oldest
	size int          // the most calls kept; the ring is not allocated up front, so an idle server holds none
	next int64        // the next call's sequence number minus one: calls are numbered from 1
}

func newRecentCalls(n int) *recentCalls { return &recentCalls{size: n} }

// add records a finished call and returns its sequence number.
func (r *recentCalls) add(c admin.Call) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	c.Seq = r.next
	if len(r.ring) < r.size {
		r.ring = append(r.ring, c)
	} else {
		r.ring[(r.next-1)%int64(r.size)] = c
	}
	return c.Seq
}

// after returns the calls numbered above seq that the ring still holds, oldest first, at most
// limit of them, and how many above seq it no longer holds.
func (r *recentCalls) after(seq int64, limit int) (calls []admin.Call, lost int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.next - int64(len(r.ring)) + 1 // the oldest call kept
	if seq < first-1 {
		lost = first - 1 - seq
		seq = first - 1
	}
	for n := seq + 1; n <= r.next && len(calls) < limit; n++ {
		calls = append(calls, r.ring[(n-1)%int64(r.size)])
	}
	return calls, lost
}

// last returns the last call's sequence number, 0 before any.
func (r *recentCalls) last() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// errors returns the last n calls that failed, newest first.
func (r *recentCalls) errors(n int) []admin.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []admin.Call
	for i := r.next; i > r.next-int64(len(r.ring)) && len(out) < n; i-- {
		if c := r.ring[(i-1)%int64(r.size)]; c.Outcome != "ok" {
			out = append(out, c)
		}
	}
	return out
}

// recordCall adds a finished call to the ring.
// A name the server never declared comes from the client and is kept as "unknown", as the
// metrics keep it.
func (s *Server) recordCall(tool, caller, outcome, code string, at time.Time, d time.Duration) {
	if _, ok := s.inv.Lookup(tool); !ok {
		tool = metrics.UnknownTool
	}
	s.recent.add(admin.Call{At: at.UTC(), Tool: tool, Caller: caller, Outcome: outcome, Code: code, DurationMS: float64(d.Microseconds()) / 1000})
}
