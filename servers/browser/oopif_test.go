package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestCrossSiteIframeForm fills and submits a form inside an out-of-process iframe by refs.
// The page is on 127.0.0.1 and the iframe on localhost: two sites, which --site-per-process
// puts in two renderer processes.
func TestCrossSiteIframeForm(t *testing.T) {
	requireChromium(t)
	posted := make(chan url.Values, 1)
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_ = r.ParseForm()
			select {
			case posted <- r.PostForm:
			default:
			}
			fmt.Fprintf(w, "<!doctype html><title>Sent</title><p>Thanks, %s.</p>", strings.ToUpper(r.PostForm.Get("name")))
			return
		}
		_, _ = io.WriteString(w, `<!doctype html><title>Partner</title>
<form method="post" action="/subscribe">
<label>Name <input name="name"></label>
<label>Plan <select name="plan"><option>Free</option><option>Pro</option></select></label>
<label><input type="checkbox" name="terms"> I agree</label>
<button>Subscribe</button>
</form>`)
	}))
	t.Cleanup(inner.Close)
	_, port, _ := net.SplitHostPort(inner.Listener.Addr().String())
	innerURL := "http://localhost:" + port + "/"

	// A second iframe points at 127.0.0.2, which the guard refuses.
	var privateHits atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	private := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		_, _ = io.WriteString(w, "<p>router admin</p>")
	})}}
	private.Start()
	t.Cleanup(private.Close)

	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The spacer puts the iframe below the fold, so acting in it has to scroll to it.
		fmt.Fprintf(w, `<!doctype html><title>Shop</title><h1>Our partner</h1>
<div style="height:1500px"></div>
<iframe title="Partner signup" src="%s" width="500" height="300" style="margin:20px;border:4px solid #888"></iframe>
<iframe title="Router" src="%s/admin" width="200" height="100"></iframe>`, innerURL, private.URL)
	}))
	t.Cleanup(outer.Close)

	var m *manager
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/uploads", 0o755); err != nil {
		t.Fatal(err)
	}
	h := mcptest.Start(t, specFor(func(x *manager) { m = x }), "--state-dir", dir, "--allow-private-hosts", "127.0.0.1/32", "--site-per-process")
	cs := h.Connect(t, "")

	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": outer.URL})
	// The localhost frame loads on its own; wait for its content.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(snap, `checkbox "I agree"`) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		snap = callTool(t, cs, "browser_snapshot", map[string]any{})
	}
	if !strings.Contains(snap, `iframe "Partner signup"`) || strings.Contains(snap, "another process") {
		t.Fatalf("the cross-site iframe's content is missing:\n%s", snap)
	}

	// The test proves nothing unless the iframe really is in another process: it must be a
	// target of its own, which only out-of-process iframes are.
	if !oopifTarget(t, m, innerURL) {
		t.Fatalf("the localhost iframe is not an out-of-process target; the test would not exercise OOPIF support")
	}

	name := ref(t, snap, `textbox "Name"`)
	plan := ref(t, snap, `combobox "Plan"`)
	terms := ref(t, snap, `checkbox "I agree"`)
	submit := ref(t, snap, `button "Subscribe"`)
	if len(map[string]bool{name: true, plan: true, terms: true, submit: true}) != 4 {
		t.Fatalf("refs are not unique: %s %s %s %s", name, plan, terms, submit)
	}
	// Refs stay the same in the next snapshot.
	again := callTool(t, cs, "browser_snapshot", map[string]any{})
	if ref(t, again, `textbox "Name"`) != name || ref(t, again, `button "Subscribe"`) != submit {
		t.Fatalf("iframe refs changed between snapshots:\n%s\n---\n%s", snap, again)
	}

	out := callTool(t, cs, "browser_type", map[string]any{"ref": name, "text": "ada"})
	if !strings.Contains(out, `textbox "Name" [`+name+`]: ada`) {
		t.Errorf("typing into the iframe should show its value:\n%s", out)
	}
	if txt := callTool(t, cs, "browser_get_text", map[string]any{"ref": submit}); !strings.Contains(txt, "Subscribe") {
		t.Errorf("get_text of an iframe element: %q", txt)
	}
	if res := mcptest.Call(t, cs, "browser_screenshot", map[string]any{"ref": submit}); res.IsError {
		t.Errorf("screenshot of an iframe element: %s", mcptest.Text(res))
	}
	out = callTool(t, cs, "browser_fill_form", map[string]any{
		"fields": []map[string]any{
			{"ref": name, "value": "grace"},
			{"ref": plan, "value": "Pro"},
			{"ref": terms, "value": "true"},
		},
		"submit": submit,
	})
	select {
	case got := <-posted:
		if got.Get("name") != "grace" || got.Get("plan") != "Pro" || got.Get("terms") != "on" {
			t.Errorf("the iframe's server got %v", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the iframe's server got no POST; fill_form said:\n%s", out)
	}
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(out, "Thanks, GRACE.") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		out = callTool(t, cs, "browser_snapshot", map[string]any{})
	}
	if !strings.Contains(out, "Thanks, GRACE.") {
		t.Errorf("the iframe's answer is not in the snapshot:\n%s", out)
	}
	if n := privateHits.Load(); n != 0 {
		t.Errorf("the guard let an iframe reach 127.0.0.2 (%d requests)", n)
	}
	logs := callTool(t, cs, "browser_logs", map[string]any{"kind": "network"})
	if !strings.Contains(logs, "POST") || !strings.Contains(logs, "/subscribe") {
		t.Errorf("the iframe's requests are missing from the network log:\n%s", logs)
	}
}

// oopifTarget reports whether Chromium lists a target of type iframe at url.
func oopifTarget(t *testing.T, m *manager, url string) bool {
	t.Helper()
	m.browser.mu.Lock()
	root := m.browser.root
	m.browser.mu.Unlock()
	ctx, cancel := context.WithTimeout(root, 20*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, chromedp.FromContext(root).Browser, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("list targets: %v", err)
	}
	for _, info := range res.TargetInfos {
		if info.Type == "iframe" && strings.HasPrefix(info.URL, url) {
			return true
		}
	}
	return false
}
