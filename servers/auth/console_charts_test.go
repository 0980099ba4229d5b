package main

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/metrics"
)

func TestSeries(t *testing.T) {
	from := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	bounds := []float64{0.1, 0.5, 2}
	at := func(min int, boot string, calls, errors uint64, buckets ...uint64) sample {
		return sample{At: from.Add(time.Duration(min)*time.Minute + 30*time.Second), Boot: boot,
			Totals: metrics.Totals{Calls: calls, Errors: errors, Bounds: bounds, Buckets: buckets}}
	}
	tests := []struct {
		name    string
		samples []sample
		want    []point
	}{
		{"steady calls: the differences",
			[]sample{at(-1, "a", 10, 1, 10, 10, 10), at(0, "a", 30, 1, 30, 30, 30), at(1, "a", 40, 3, 39, 40, 40), at(2, "a", 40, 3, 39, 40, 40)},
			[]point{{20, 0, 0.1, true}, {10, 2, 0.5, true}, {0, 0, 0, true}}}, // 9 of 10 within 0.1 s: the 10th is the 95th percentile
		{"the 95th percentile in a slower bucket",
			[]sample{at(-1, "a", 0, 0, 0, 0, 0), at(0, "a", 100, 0, 90, 96, 100)},
			[]point{{100, 0, 0.5, true}, {}, {}}},
		{"beyond the last bound",
			[]sample{at(-1, "a", 0, 0, 0, 0, 0), at(0, "a", 100, 0, 10, 20, 50)},
			[]point{{100, 0, math.Inf(1), true}, {}, {}}},
		{"a restart (new boot) counts from zero",
			[]sample{at(-1, "a", 500, 5, 500, 500, 500), at(0, "b", 4, 1, 4, 4, 4)},
			[]point{{4, 1, 0.1, true}, {}, {}}},
		{"counts that went down count from zero",
			[]sample{at(-1, "a", 500, 5, 500, 500, 500), at(0, "a", 7, 0, 7, 7, 7)},
			[]point{{7, 0, 0.1, true}, {}, {}}},
		{"an interval without a sample is not seen",
			[]sample{at(-1, "a", 0, 0, 0, 0, 0), at(2, "a", 6, 0, 6, 6, 6)},
			[]point{{}, {}, {6, 0, 0.1, true}}},
		{"samples outside the range are left out",
			[]sample{at(-3, "a", 0, 0, 0, 0, 0), at(-2, "a", 9, 0, 9, 9, 9), at(3, "a", 20, 0, 20, 20, 20)},
			[]point{{}, {}, {}}},
		{"no samples", nil, []point{{}, {}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := series(tt.samples, from, time.Minute, 3)
			if len(got) != len(tt.want) {
				t.Fatalf("%d points, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("point %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestDrawChart(t *testing.T) {
	c := drawChart("calls", []float64{0, 5, 10}, []bool{true, false, true}, func(v float64) string { return formatSeconds(v) })
	if c.Points != "0.0,48.0 120.0,48.0 240.0,2.0" {
		t.Errorf("points %q", c.Points)
	}
	if c.Gaps != "M120.0 48 v-3" {
		t.Errorf("gaps %q: the unseen middle interval is marked", c.Gaps)
	}
	if c.Top != "10s" || c.Last != "10s" {
		t.Errorf("top %q, last %q", c.Top, c.Last)
	}
	slow := drawChart("p95", []float64{0.25, math.Inf(1)}, []bool{true, true}, formatSeconds)
	if slow.Top != "250ms" || slow.Last != "> longest bucket" || !strings.HasSuffix(slow.Points, "240.0,2.0") {
		t.Errorf("beyond the last bound: %+v", slow)
	}
}

// TestChartsPage samples a running fleet, makes calls, samples again, and reads the charts.
func TestChartsPage(t *testing.T) {
	e := startFleet(t, withConsole(t))
	tok, _ := e.tokenFor(t, "alpha", e.Alpha)
	cookie := e.consoleSession(t)
	e.app.console.sampleOnce(t.Context())
	for range 3 {
		if status, _, body := callTool(t, e.Alpha, tok, "alpha_read"); status != http.StatusOK {
			t.Fatalf("alpha_read: %d %s", status, body)
		}
	}
	e.app.console.sampleOnce(t.Context())

	status, page, _ := e.consoleReq(t, http.MethodGet, consoleChartsPath, cookie, nil, nil)
	if status != http.StatusOK {
		t.Fatalf("charts page: %d %s", status, text(page))
	}
	for _, want := range []string{`id="charts-alpha"`, `id="charts-beta"`, `id="charts-gamma"`, "<polyline", "calls per minute: last 3", "errors per minute: last 0", "p95 latency: last"} {
		if !strings.Contains(page, want) {
			t.Errorf("the charts page lacks %q", want)
		}
	}
	if status, page, _ := e.consoleReq(t, http.MethodGet, consoleChartsPath+"?range=day", cookie, nil, nil); status != http.StatusOK || !strings.Contains(page, "calls per 15 minutes: last 3") {
		t.Errorf("the day's charts: %d %s", status, text(page))
	}
	if status, _, _ := e.consoleReq(t, http.MethodGet, consoleChartsPath+"?range=week", cookie, nil, nil); status != http.StatusBadRequest {
		t.Errorf("range=week: %d, want 400", status)
	}
	var n int
	if err := e.app.db.sql.QueryRow("SELECT count(*) FROM console_samples WHERE server = 'gamma'").Scan(&n); err != nil || n != 0 {
		t.Errorf("samples of gamma (not running): %d, %v; want none", n, err)
	}
}
