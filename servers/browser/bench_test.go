package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// benchPages are the browser benchmark's pages, with the smaller peer's snapshot of a comparable
// page (Playwright MCP 0.0.83 and chrome-devtools-mcp; issues 5 and 25), the budget of 60% of it,
// and what a complete snapshot of the page shows: its last section, footer links and help text.
var benchPages = []struct {
	page     string
	peer     int
	budget   int
	complete []string
}{
	{"login.html", 1000, 600, []string{`h1 "Sign in to Acme"`, `button "Sign in" [`, `link "Forgot your password?" [`}},
	{"article.html", 28900, 17340, []string{`h2 "10. On planning"`, `h2 "Related"`, `link "Drip irrigation on a budget" [`,
		`link "About" [`, `link "Contact" [`, `link "Privacy" [`, "© Garden Notes."}},
	{"dashboard.html", 41593, 24956, []string{"hotel-199 | running | 71% | 1760 MB |", `link "Details" [`,
		"Type part of a host name to narrow the table. CPU is the average over the last five minutes; a degraded host failed a health check in the last hour.",
		"Figures refresh every 30 seconds. Need help? Read the", `link "dashboard guide" [`, `nav "Footer"`, `link "Docs" [`, `link "Status page" [`, `link "Support" [`, `link "Privacy" [`}},
}

// pageElements lists what an agent needs from the page, read from the DOM: the visible links
// (name and href attribute), headings, and other controls.
const pageElements = `() => {
  const shown = e => e.getClientRects().length > 0;
  const name = e => e.textContent.replace(/\s+/g, ' ').trim();
  return {
    links: [...document.querySelectorAll('a[href]')].filter(shown).map(a => [name(a), a.getAttribute('href')]),
    headings: [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')].filter(shown).map(h => [h.tagName.toLowerCase(), name(h)]),
    controls: [...document.querySelectorAll('button, input, select, textarea')].filter(shown).length,
  };
}`

type elements struct {
	Links    [][2]string `json:"links"`
	Headings [][2]string `json:"headings"`
	Controls int         `json:"controls"`
}

// TestWholePagesInOneSnapshot navigates Chromium to each benchmark page and checks that the
// answer of browser_navigate — the bytes an agent receives, header included — is the whole
// page within its budget: the last section, footer links and help text present, every visible
// link (with its URL), heading and control there with a ref, and the refs the same in a second
// snapshot and after an unrelated change to the page. It logs the sizes and the
// navigate+snapshot latency (p50 of five) that docs/browser.md reports.
func TestWholePagesInOneSnapshot(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	for _, p := range benchPages {
		t.Run(p.page, func(t *testing.T) {
			var lat []time.Duration
			var got string
			for range 5 {
				start := time.Now()
				got = callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/" + p.page})
				lat = append(lat, time.Since(start))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			t.Logf("%-15s navigate answer %6d bytes (%.0f%% of the smaller peer's %d; budget %d), navigate+snapshot p50 %s",
				p.page, len(got), 100*float64(len(got))/float64(p.peer), p.peer, p.budget, lat[len(lat)/2].Round(time.Millisecond))
			if len(got) > p.budget {
				t.Errorf("the snapshot is %d bytes, over the budget of %d", len(got), p.budget)
			}
			if strings.Contains(got, "[truncated") {
				t.Errorf("the page was cut:\n%s", got[max(0, len(got)-400):])
			}
			for _, want := range p.complete {
				if !strings.Contains(got, want) {
					t.Errorf("the snapshot lacks %q", want)
				}
			}

			var el elements
			raw := callTool(t, cs, "browser_evaluate", map[string]any{"function": pageElements})
			if err := json.Unmarshal([]byte(raw), &el); err != nil {
				t.Fatalf("page elements %q: %v", raw, err)
			}
			for _, l := range el.Links {
				re := regexp.MustCompile(`(?m)link "` + regexp.QuoteMeta(l[0]) + `" \[e\d+\] ` + regexp.QuoteMeta(l[1]) + `$`)
				if !re.MatchString(got) {
					t.Errorf("no ref for the link %q to %s", l[0], l[1])
				}
			}
			for _, h := range el.Headings {
				if !strings.Contains(got, h[0]+` "`+h[1]+`"`) {
					t.Errorf("no heading %s %q", h[0], h[1])
				}
			}
			refs := map[string]bool{}
			for _, m := range refRE.FindAllStringSubmatch(got, -1) {
				refs[m[1]] = true
			}
			if len(refs) < len(el.Links)+el.Controls {
				t.Errorf("%d refs for %d links and %d controls", len(refs), len(el.Links), el.Controls)
			}

			// The same refs in a second snapshot, and after a change elsewhere on the page.
			first := snapshotBody(callTool(t, cs, "browser_snapshot", map[string]any{}))
			if !strings.Contains(got, first) {
				t.Errorf("browser_snapshot differs from the navigate answer's snapshot")
			}
			if second := snapshotBody(callTool(t, cs, "browser_snapshot", map[string]any{})); second != first {
				t.Errorf("two snapshots of an unchanged page differ")
			}
			callTool(t, cs, "browser_evaluate", map[string]any{"function": `() => {
  const d = document.createElement('div');
  d.innerHTML = '<p role="status">Saved a minute ago</p><button>Dismiss</button>';
  document.body.prepend(d);
}`})
			changed := snapshotBody(callTool(t, cs, "browser_snapshot", map[string]any{}))
			if !strings.Contains(changed, "Saved a minute ago") || !strings.Contains(changed, `button "Dismiss" [`) {
				t.Fatalf("the change is not in the snapshot:\n%s", changed[:min(len(changed), 600)])
			}
			lines := map[string]bool{}
			for _, l := range strings.Split(changed, "\n") {
				lines[strings.TrimSpace(l)] = true
			}
			for _, l := range strings.Split(first, "\n") {
				if l = strings.TrimSpace(l); refRE.MatchString(l) && !lines[l] {
					t.Errorf("after an unrelated change the line %q is gone or has another ref", l)
				}
			}
		})
	}
}

// snapshotBody is a browser_snapshot answer without its Page/Title header.
func snapshotBody(s string) string {
	_, body, _ := strings.Cut(s, "\nTitle: ")
	_, body, _ = strings.Cut(body, "\n")
	return body
}

// TestLongPagesPage checks that a snapshot over its page size ends with a note of what it left
// out (refs, headings) and how to get it, that the offset it names continues the snapshot, and
// that shortened text can be read whole.
func TestLongPagesPage(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	first := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/article.html", "max_chars": 4000})
	m := regexp.MustCompile(`\[truncated: characters 0-(\d+) of (\d+) shown; left out (\d+) refs \(e\d+…e\d+\); (\d+) headings: h2 "[^"]+"`).FindStringSubmatch(first)
	if m == nil || !strings.Contains(first, "browser_snapshot with offset="+m[1]+" shows the rest") {
		t.Fatalf("a cut snapshot should say what it left out and how to get it:\n%s", first[max(0, len(first)-500):])
	}
	t.Logf("the note: %s", first[strings.LastIndex(first, "\n")+1:])
	rest := callTool(t, cs, "browser_snapshot", map[string]any{"offset": mustAtoi(t, m[1])})
	if !strings.Contains(rest, `h2 "10. On planning"`) || !strings.Contains(rest, `link "Privacy" [`) || !strings.Contains(rest, fmt.Sprintf("[end: characters %s-%s of %s]", m[1], m[2], m[2])) {
		t.Errorf("the next page should run to the end:\n%s", rest[max(0, len(rest)-500):])
	}
	if got := len(refRE.FindAllString(rest, -1)); got != mustAtoi(t, m[3]) {
		t.Errorf("the note counted %s refs left out; the rest has %d", m[3], got)
	}

	// Long text is shortened with a mark; full_text and find show it whole.
	const sentence = "Harvest leafy greens in the cool of the morning, when the leaves are full of water and keep longest."
	snap := callTool(t, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, "…(+") || !strings.Contains(snap, "long texts shortened") {
		t.Fatalf("the article's long paragraphs should be shortened:\n%s", snap[:min(len(snap), 3000)])
	}
	whole := callTool(t, cs, "browser_snapshot", map[string]any{"full_text": true, "max_chars": 100000})
	if strings.Contains(whole, "…(+") || len(whole) <= len(snap) || strings.Count(whole, sentence) <= strings.Count(snap, sentence) {
		t.Errorf("full_text should show every text whole (%d bytes, shortened %d)", len(whole), len(snap))
	}
	const paragraph = "Seeds saved from open-pollinated varieties come true, while seeds from hybrids rarely resemble their parents. Hand tools last for decades when they are cleaned after use, kept sharp, and stored out of the rain. Planning on paper in winter prevents the common mistake of sowing everything at once and harvesting a glut. Crop rotation moves each family of plants to a new bed every year, which starves the pests and diseases that specialise in it."
	if strings.Contains(snap, paragraph) || !strings.Contains(whole, paragraph) {
		t.Errorf("the paragraph should be shortened in the snapshot and whole with full_text")
	}
	found := callTool(t, cs, "browser_snapshot", map[string]any{"find": "stored out of the rain. Planning on paper"})
	if !strings.Contains(found, "\n"+paragraph) {
		t.Errorf("find should show the whole line:\n%s", found)
	}
}

// BenchmarkNavigateSnapshot measures navigate + snapshot of the dashboard page.
func BenchmarkNavigateSnapshot(b *testing.B) {
	s := newSite(b)
	_, cs := startServer(b)
	for b.Loop() {
		callTool(b, cs, "browser_navigate", map[string]any{"url": s.URL + "/dashboard.html"})
	}
}
