package metrics

import (
	"slices"
	"sync/atomic"
	"time"
)

// Totals are a server's tool calls since it started, all tools together, as the owner's
// console charts them: it takes the difference of two Totals to get the calls, errors and
// latency of the time between them.
type Totals struct {
	Calls    uint64    `json:"calls"`
	Errors   uint64    `json:"errors"`
	Disabled uint64    `json:"disabled"` // refused by a run-time switch; counted in Errors too
	Bounds   []float64 `json:"bounds"`   // Buckets: the upper bounds, in seconds
	// Buckets[i] counts the calls that took at most Bounds[i] (cumulative, as Prometheus
	// histograms count); the calls that took longer are Calls minus the last.
	Buckets []uint64 `json:"buckets"`
}

// totals keeps Totals with atomic counters beside the labelled metrics.
type totals struct {
	calls, errors, disabled atomic.Uint64
	buckets                 [len(bucketBounds)]atomic.Uint64 // per bucket, not cumulative
}

// bucketBounds is Buckets as an array, so totals can size its counters by it.
var bucketBounds = [...]float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 90}

func (t *totals) observe(failed bool, d time.Duration) {
	t.calls.Add(1)
	if failed {
		t.errors.Add(1)
	}
	s := d.Seconds()
	for i, b := range bucketBounds {
		if s <= b {
			t.buckets[i].Add(1)
			return
		}
	}
}

// Totals returns the calls so far.
func (r *Registry) Totals() Totals {
	t := &r.totals
	out := Totals{Calls: t.calls.Load(), Errors: t.errors.Load(), Disabled: t.disabled.Load(),
		Bounds: slices.Clone(bucketBounds[:]), Buckets: make([]uint64, len(bucketBounds))}
	var sum uint64
	for i := range t.buckets {
		sum += t.buckets[i].Load()
		out.Buckets[i] = sum
	}
	return out
}
