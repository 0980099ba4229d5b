package kit

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/admin"
)

// TestRecentCallsRing: the ring keeps the last n calls in order, numbers them from 1, and says
// how many a reader that fell behind lost.
func TestRecentCallsRing(t *testing.T) {
	t.Parallel()
	r := newRecentCalls(4)
	if calls, lost := r.after(0, 10); len(calls) != 0 || lost != 0 || r.last() != 0 {
		t.Fatalf("empty: %v %d", calls, lost)
	}
	for i := range 6 {
		out := "ok"
		if i%2 == 1 {
			out = "error"
		}
		if seq := r.add(admin.Call{Tool: string(rune('a' + i)), Outcome: out}); seq != int64(i+1) {
			t.Fatalf("seq %d", seq)
		}
	}
	for _, tc := range []struct {
		after, limit int
		want         string
		lost         int64
	}{
		{0, 10, "cdef", 2},
		{1, 10, "cdef", 1},
		{2, 10, "cdef", 0},
		{4, 10, "ef", 0},
		{6, 10, "", 0},
		{2, 2, "cd", 0},
	} {
		calls, lost := r.after(int64(tc.after), tc.limit)
		got := ""
		for _, c := range calls {
			got += c.Tool
		}
		if got != tc.want || lost != tc.lost {
			t.Errorf("after(%d, %d) = %q lost %d, want %q lost %d", tc.after, tc.limit, got, lost, tc.want, tc.lost)
		}
	}
	if errs := r.errors(5); len(errs) != 2 || errs[0].Tool != "f" || errs[1].Tool != "d" {
		t.Errorf("errors %+v", errs)
	}
}
