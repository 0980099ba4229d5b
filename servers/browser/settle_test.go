package main

import (
	"testing"
	"time"
)

// TestStirDOM checks that a DOM report counts from the change it covers, as the observer says,
// at most domReportHold back and never in the future, and wakes the waiters.
func TestStirDOM(t *testing.T) {
	tests := []struct {
		age, want time.Duration
	}{
		{0, 0},
		{7 * time.Millisecond, 7 * time.Millisecond},
		{domReportHold, domReportHold},
		{time.Second, domReportHold},
		{-time.Second, 0},
	}
	for _, tt := range tests {
		tb := newTab("t1")
		woke := tb.woke
		before := time.Now()
		tb.mu.Lock()
		tb.stirDOM(tt.age)
		tb.mu.Unlock()
		after := time.Now()
		if tb.lastDOM.Before(before.Add(-tt.want)) || tb.lastDOM.After(after.Add(-tt.want)) {
			t.Errorf("age %v: the change is counted %v before the report, want %v", tt.age, after.Sub(tb.lastDOM), tt.want)
		}
		select {
		case <-woke:
		default:
			t.Errorf("age %v: the waiters were not woken", tt.age)
		}
		if tb.seq != 1 {
			t.Errorf("age %v: seq %d, want 1", tt.age, tb.seq)
		}
	}
}
