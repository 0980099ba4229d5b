package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// fullChromium is Debian's full Chromium, which has a back/forward cache (the headless shell
// has none).
const fullChromium = "/usr/lib/chromium/chromium"

// TestHistoryAnswersQuickly goes back and forward over a page restored from the back/forward
// cache, a single-page app's history entries and a fragment, and checks each answer comes
// within two seconds with the page it went to (before, a page that fires no load event made
// browser_navigate wait 30 s and answer "the page did not answer in time").
func TestHistoryAnswersQuickly(t *testing.T) {
	if _, err := os.Stat(fullChromium); err != nil {
		t.Fatalf("this test needs Debian's chromium package (%s), for its back/forward cache: apt-get install -y chromium", fullChromium)
	}
	s := newSite(t)
	_, cs := startServer(t, "--chromium-path", fullChromium)
	call := func(name string, args map[string]any, want ...string) string {
		t.Helper()
		start := time.Now()
		got := callTool(t, cs, name, args)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s %v took %s", name, args, took.Round(time.Millisecond))
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: the answer lacks %q:\n%s", name, args, w, got)
			}
		}
		return got
	}
	back := map[string]any{"url": "back"}
	forward := map[string]any{"url": "forward"}

	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/history.html"})
	if !strings.Contains(snap, "Loaded from the network") {
		t.Fatalf("the page should say how it was shown:\n%s", snap)
	}
	callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `link "Next page"`)})
	call("browser_navigate", back, "Page: "+s.URL+"/history.html", `h1 "History"`, "Restored from the back/forward cache")
	call("browser_navigate", forward, "Related article 1")
	call("browser_navigate", map[string]any{"url": "back", "no_snapshot": true}, "Page: "+s.URL+"/history.html")
	call("browser_snapshot", map[string]any{}, "Restored from the back/forward cache")

	// A single-page app's entries are the same document: no load at all.
	snap = call("browser_navigate", map[string]any{"url": s.URL + "/app"}, "Order 1012")
	call("browser_click", map[string]any{"ref": ref(t, snap, `link "Order 1003"`)}, "Ships to: 24 Harbour Street")
	call("browser_navigate", back, "Order 1012")
	call("browser_navigate", forward, "Ships to: 24 Harbour Street")
	call("browser_navigate", map[string]any{"url": "reload"}, "Ships to: 24 Harbour Street")

	// So is a fragment.
	call("browser_navigate", map[string]any{"url": s.URL + "/article.html"}, "A year in the kitchen garden")
	call("browser_navigate", map[string]any{"url": s.URL + "/article.html#s3"}, "Page: "+s.URL+"/article.html#s3")
	call("browser_navigate", back, "Page: "+s.URL+"/article.html\n")

	// A new session has nowhere to go back to.
	res := callToolErr(t, cs, "browser_navigate", map[string]any{"url": "back", "session": "fresh"})
	if !strings.Contains(res, "there is no page to go back to") {
		t.Errorf("going back in a new tab: %s", res)
	}
}
