package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jck411/mcp-servers/shared/metrics"
)

// The console's charts. Every minute the auth server asks each managed server for its totals
// (calls, errors and the latency histogram, counted since the server started) and keeps them 25
// hours in auth.db. A chart shows the differences between successive samples: calls, errors
// and the 95th percentile of latency per minute for the last hour, per 15 minutes for the last
// day. A server that restarted (another boot id, or counts that went down) counts from zero.

const (
	sampleEvery = time.Minute
	sampleKeep  = 25 * time.Hour
)

// chartRanges are the ranges a chart covers: how far back, and the width of one bar.
var chartRanges = map[string]struct {
	span, step time.Duration
	per        string
}{
	"hour": {time.Hour, time.Minute, "minute"},
	"day":  {24 * time.Hour, 15 * time.Minute, "15 minutes"},
}

// sample is one server's totals at one moment.
type sample struct {
	At     time.Time
	Boot   string
	Totals metrics.Totals
}

// point is one interval of a chart.
type point struct {
	Calls, Errors uint64
	P95           float64 // seconds; +Inf when beyond the histogram's last bound, 0 without calls
	Seen          bool    // a sample ended in this interval (else the server was not seen)
}

// sampler samples the servers every minute until ctx ends.
func (c *console) sampler(ctx context.Context) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		c.sampleOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sampleOnce asks every server for its totals at once and keeps what answered.
func (c *console) sampleOnce(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range c.servers {
		wg.Go(func() {
			st, err := s.client.Status(ctx)
			if err != nil {
				return // the fleet page says why; the chart shows the gap
			}
			b, err := json.Marshal(st.Totals)
			if err == nil {
				_, err = c.db.sql.ExecContext(ctx, "INSERT INTO console_samples (server, at, boot, totals) VALUES (?, ?, ?, ?)",
					s.Name, c.db.now().UnixMilli(), st.Boot, string(b))
			}
			if err != nil && ctx.Err() == nil {
				c.log.Warn("console: a chart sample was not kept", "server", s.Name, "error", err.Error())
			}
		})
	}
	wg.Wait()
}

// samples returns a server's samples taken since since, oldest first.
func (c *console) samples(ctx context.Context, server string, since time.Time) ([]sample, error) {
	rows, err := c.db.sql.QueryContext(ctx, "SELECT at, boot, totals FROM console_samples WHERE server = ? AND at >= ? ORDER BY at",
		server, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("read the chart samples of %s: %w", server, err)
	}
	defer rows.Close()
	var out []sample
	for rows.Next() {
		var s sample
		var at int64
		var totals string
		if err := rows.Scan(&at, &s.Boot, &totals); err != nil {
			return nil, fmt.Errorf("read the chart samples of %s: %w", server, err)
		}
		if err := json.Unmarshal([]byte(totals), &s.Totals); err != nil {
			return nil, fmt.Errorf("read the chart samples of %s: %w", server, err)
		}
		s.At = time.UnixMilli(at)
		out = append(out, s)
	}
	return out, rows.Err()
}

// series turns samples (oldest first) into n intervals of width step from from: each sample's
// difference from the one before it goes to the interval the sample falls in.
func series(samples []sample, from time.Time, step time.Duration, n int) []point {
	out := make([]point, n)
	type acc struct {
		calls, errors uint64
		bounds        []float64
		buckets       []uint64
	}
	sums := make([]acc, n)
	for i := 1; i < len(samples); i++ {
		prev, cur := samples[i-1].Totals, samples[i].Totals
		k := int(samples[i].At.Sub(from) / step)
		if samples[i].At.Before(from) || k >= n {
			continue
		}
		d := cur
		restarted := samples[i].Boot != samples[i-1].Boot || cur.Calls < prev.Calls || len(cur.Buckets) != len(prev.Buckets)
		if !restarted {
			d.Calls, d.Errors = cur.Calls-prev.Calls, cur.Errors-prev.Errors
			d.Buckets = make([]uint64, len(cur.Buckets))
			for j := range cur.Buckets {
				d.Buckets[j] = cur.Buckets[j] - min(prev.Buckets[j], cur.Buckets[j])
			}
		}
		a := &sums[k]
		a.calls += d.Calls
		a.errors += d.Errors
		if a.buckets == nil || len(a.buckets) != len(d.Buckets) {
			a.bounds, a.buckets = d.Bounds, make([]uint64, len(d.Buckets))
		}
		for j := range d.Buckets {
			a.buckets[j] += d.Buckets[j]
		}
		out[k].Seen = true
	}
	for k, a := range sums {
		out[k].Calls, out[k].Errors = a.calls, a.errors
		out[k].P95 = p95(a.bounds, a.buckets, a.calls)
	}
	return out
}

// p95 is the upper bound of the histogram bucket that holds the 95th percentile call (buckets
// are cumulative); +Inf when it took longer than the last bound, 0 without calls.
func p95(bounds []float64, buckets []uint64, calls uint64) float64 {
	if calls == 0 {
		return 0
	}
	want := uint64(math.Ceil(0.95 * float64(calls)))
	for i, n := range buckets {
		if n >= want && i < len(bounds) {
			return bounds[i]
		}
	}
	return math.Inf(1)
}

// chart is one small SVG chart as the template draws it.
type chart struct {
	Label  string // what it shows
	Top    string // the value at the top of the chart
	Last   string // the value of the last interval seen
	Points string // the polyline, in the viewBox's units (width chartW, height chartH)
	Gaps   string // the intervals no sample fell in, as a path of small ticks
}

const chartW, chartH = 240, 48

// drawChart draws values (one per interval) scaled to their maximum; seen marks the intervals
// with a sample. format writes a value for the labels.
func drawChart(label string, values []float64, seen []bool, format func(float64) string) chart {
	top := 0.0
	last := -1
	for i, v := range values {
		if seen[i] {
			last = i
			if !math.IsInf(v, 1) {
				top = max(top, v)
			}
		}
	}
	c := chart{Label: label, Top: format(top), Last: "-"}
	if last < 0 {
		c.Top = "-"
	}
	if top == 0 {
		top = 1 // a flat line at the bottom
	}
	if last >= 0 {
		c.Last = format(values[last])
	}
	var pts, gaps strings.Builder
	dx := float64(chartW) / float64(max(len(values)-1, 1))
	for i, v := range values {
		x := float64(i) * dx
		if !seen[i] {
			fmt.Fprintf(&gaps, "M%.1f %d v-3 ", x, chartH)
			v = 0
		}
		y := float64(chartH) - min(v, top)/top*float64(chartH-2)
		fmt.Fprintf(&pts, "%.1f,%.1f ", x, y)
	}
	c.Points, c.Gaps = strings.TrimSpace(pts.String()), strings.TrimSpace(gaps.String())
	return c
}

// serverCharts is one server's three charts.
type serverCharts struct {
	Name   string
	Charts []chart
	Error  string
}

// charts draws every server's calls, errors and p95 latency over the range (hour or day).
func (c *console) charts(ctx context.Context, rng string) []serverCharts {
	r := chartRanges[rng]
	n := int(r.span / r.step)
	end := c.db.now().Truncate(r.step).Add(r.step)
	from := end.Add(-r.span)
	out := make([]serverCharts, len(c.servers))
	for i, s := range c.servers {
		out[i].Name = s.Name
		samples, err := c.samples(ctx, s.Name, from.Add(-2*sampleEvery))
		if err != nil {
			out[i].Error = err.Error()
			continue
		}
		pts := series(samples, from, r.step, n)
		calls, errs, lat := make([]float64, n), make([]float64, n), make([]float64, n)
		seen := make([]bool, n)
		for k, p := range pts {
			calls[k], errs[k], lat[k], seen[k] = float64(p.Calls), float64(p.Errors), p.P95, p.Seen
		}
		count := func(v float64) string { return fmt.Sprintf("%.0f", v) }
		out[i].Charts = []chart{
			drawChart("calls per "+r.per, calls, seen, count),
			drawChart("errors per "+r.per, errs, seen, count),
			drawChart("p95 latency", lat, seen, formatSeconds),
		}
	}
	return out
}

// formatSeconds writes a latency bound short: 250ms, 2.5s, >10s.
func formatSeconds(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "> longest bucket"
	case v < 1:
		return fmt.Sprintf("%.0fms", v*1000)
	default:
		return fmt.Sprintf("%gs", v)
	}
}

// chartsPage shows every server's charts for the last hour (the default) or day (?range=day).
func (cu *consoleUI) chartsPage(w http.ResponseWriter, r *http.Request, o *owner) {
	rng := r.URL.Query().Get("range")
	if rng == "" {
		rng = "hour"
	}
	if _, ok := chartRanges[rng]; !ok {
		cu.message(w, http.StatusBadRequest, "No such range", "range: give hour or day.")
		return
	}
	ctx, cancel := timeout(r)
	defer cancel()
	cu.show(w, http.StatusOK, consoleData{Page: "charts", Title: "Charts", Owner: o, Range: rng, Charts: cu.c.charts(ctx, rng)})
}
