package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decode JPEG screenshots
	_ "image/png"  // decode PNG screenshots
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sess calls tools in one named session of a shared server, so groups of tests can run in
// parallel in one Chromium.
type sess struct {
	t     *testing.T
	cs    *mcp.ClientSession
	name  string
	site  *site
	state string // the server's state directory
}

// on returns s for a subtest.
func (s sess) on(t *testing.T) sess {
	s.t = t
	return s
}

func (s sess) args(args map[string]any) map[string]any {
	a := maps.Clone(args)
	if a == nil {
		a = map[string]any{}
	}
	a["session"] = s.name
	return a
}

func (s sess) call(tool string, args map[string]any) string {
	s.t.Helper()
	return callTool(s.t, s.cs, tool, s.args(args))
}

func (s sess) fail(tool string, args map[string]any) string {
	s.t.Helper()
	return mcptest.CallError(s.t, s.cs, tool, s.args(args))
}

// open navigates to a test page and returns its snapshot.
func (s sess) open(page string) string {
	s.t.Helper()
	return s.call("browser_navigate", map[string]any{"url": s.site.URL + "/" + page})
}

// eval runs a JavaScript function in the page and returns its JSON result.
func (s sess) eval(fn string) string {
	s.t.Helper()
	return s.call("browser_evaluate", map[string]any{"function": fn})
}

// snapshot returns a fresh snapshot of the current tab.
func (s sess) snapshot() string {
	s.t.Helper()
	return s.call("browser_snapshot", map[string]any{})
}

func containsAll(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func containsNone(t *testing.T, what, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("%s should not have %q:\n%s", what, b, text)
		}
	}
}

// TestTools drives the action and inspection tools end to end. Each group runs in its own
// session (browser context) of one server, in parallel with the others.
func TestTools(t *testing.T) {
	site := newSite(t)
	h, cs := startServer(t)
	state := h.Server.Config().StateDir
	groups := []struct {
		name string
		run  func(t *testing.T, s sess)
	}{
		{"drag", testDrag},
		{"upload", testUpload},
		{"screenshot", testScreenshot},
		{"wait_for", testWaitFor},
		{"evaluate", testEvaluate},
		{"logs", testLogs},
		{"hover", testHover},
		{"press_key", testPressKey},
		{"select", testSelect},
		{"type", testType},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, sess{t: t, cs: cs, name: strings.ReplaceAll(g.name, "_", "-"), site: site, state: state})
		})
	}
}

func testDrag(t *testing.T, s sess) {
	snap := s.open("drag.html")
	tests := []struct {
		name, from, to string
		want           []string
	}{
		{"HTML5 drag and drop onto a column", `button "Card: Fix login bug"`, `section "Done column"`, []string{"Done: Fix login bug"}},
		{"mouse drag of a slider handle", `slider "Volume"`, `button "Max"`, []string{"Volume: 100", `slider "Volume"`}},
		{"HTML5 drop target below the fold", `button "Card: Write docs"`, `section "Archive column"`, []string{"Archive: Write docs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call("browser_drag", map[string]any{"ref": ref(t, snap, tt.from), "to": ref(t, snap, tt.to)})
			containsAll(t, "the drag's result", out, tt.want...)
		})
	}
	if msg := s.fail("browser_drag", map[string]any{"ref": ref(t, snap, `button "Card: Fix login bug"`), "to": "e999"}); !strings.Contains(msg, "browser_snapshot") {
		t.Errorf("an unknown target ref: %s", msg)
	}
}

func testUpload(t *testing.T, s sess) {
	dir := filepath.Join(s.state, "uploads")
	files := map[string][]byte{
		"cv.pdf":         append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("resume "), 300)...),
		"photo.png":      bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 512),
		"letters/hi.txt": []byte("hello there\n"),
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("no"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(dir), "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	snap := s.open("upload.html")
	resume, attach := ref(t, snap, `button "Resume"`), ref(t, snap, `button "Attachments"`)
	tests := []struct {
		name  string
		ref   string
		files []string
		want  string // what the page's change listener shows
	}{
		{"one file", resume, []string{"cv.pdf"}, fmt.Sprintf("Picked: cv.pdf (%d bytes)", len(files["cv.pdf"]))},
		{"two files into a multiple input", attach, []string{"photo.png", "letters/hi.txt"}, fmt.Sprintf("Picked: photo.png (%d bytes), hi.txt (%d bytes)", len(files["photo.png"]), len(files["letters/hi.txt"]))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call("browser_upload_file", map[string]any{"ref": tt.ref, "files": tt.files})
			containsAll(t, "the upload's result", out, "+ "+tt.want)
		})
	}
	// The form posts the files' bytes: the server reads them back.
	out := s.call("browser_click", map[string]any{"ref": ref(t, snap, `button "Send"`)})
	for _, f := range []struct{ field, name, path string }{{"resume", "cv.pdf", "cv.pdf"}, {"attachments", "photo.png", "photo.png"}, {"attachments", "hi.txt", "letters/hi.txt"}} {
		sum := sha256.Sum256(files[f.path])
		containsAll(t, "the server's answer", out, fmt.Sprintf("%s: %s, %d bytes, sha256 %x", f.field, f.name, len(files[f.path]), sum[:4]))
	}

	snap = s.open("upload.html")
	errs := []struct{ name, ref, file, want string }{
		{"outside the upload directory", ref(t, snap, `button "Resume"`), "../secret.txt", "outside the upload directory"},
		{"a symlink out of it", ref(t, snap, `button "Resume"`), "link.txt", "outside the upload directory"},
		{"an absolute path", ref(t, snap, `button "Resume"`), "/etc/hostname", "outside the upload directory"},
		{"a missing file", ref(t, snap, `button "Resume"`), "nope.pdf", "no file"},
		{"not a file input", ref(t, snap, `button "Send"`), "cv.pdf", "input type=file"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			msg := s.fail("browser_upload_file", map[string]any{"ref": tt.ref, "files": []string{tt.file}})
			containsAll(t, "the error", msg, tt.want)
		})
	}
	if got := s.eval(`() => document.getElementById('resume').files.length`); got != "0" {
		t.Errorf("refused uploads left %s files in the input", got)
	}
}

// shot calls browser_screenshot and decodes the image it returns.
func shot(t *testing.T, s sess, args map[string]any) (image.Image, string, int, string) {
	t.Helper()
	res := mcptest.Call(t, s.cs, "browser_screenshot", s.args(args))
	if res.IsError {
		t.Fatalf("screenshot %v: %s", args, mcptest.Text(res))
	}
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img, format, err := image.Decode(bytes.NewReader(ic.Data))
			if err != nil {
				t.Fatalf("screenshot %v: %s does not decode: %v", args, ic.MIMEType, err)
			}
			if ic.MIMEType != "image/"+format {
				t.Errorf("MIME type %s for a %s image", ic.MIMEType, format)
			}
			return img, format, len(ic.Data), mcptest.Text(res)
		}
	}
	t.Fatalf("screenshot %v: no image in %s", args, mcptest.Text(res))
	return nil, "", 0, ""
}

// near reports whether two colors are within tol per channel (JPEG is lossy).
func near(a, b color.Color, tol int) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return abs(int(x>>8)-int(y>>8)) <= tol }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func testScreenshot(t *testing.T, s sess) {
	snap := s.open("shots.html")
	var dims [4]int
	if err := json.Unmarshal([]byte(s.eval(`() => [innerWidth, innerHeight, document.documentElement.scrollWidth, document.documentElement.scrollHeight]`)), &dims); err != nil {
		t.Fatal(err)
	}
	red, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	tests := []struct {
		name   string
		args   map[string]any
		format string
		w, h   int
		fill   color.Color // every sampled pixel, when set
	}{
		{"viewport PNG", map[string]any{}, "png", dims[0], dims[1], nil},
		{"viewport JPEG", map[string]any{"format": "jpeg"}, "jpeg", dims[0], dims[1], nil},
		{"full page", map[string]any{"full_page": true}, "png", dims[2], dims[3], nil},
		{"one ref", map[string]any{"ref": ref(t, snap, `button "Red badge"`)}, "png", 200, 100, red},
		{"one ref below the fold, JPEG", map[string]any{"ref": ref(t, snap, `button "Blue footer"`), "format": "jpeg"}, "jpeg", 150, 50, blue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			img, format, _, _ := shot(t, s, tt.args)
			b := img.Bounds()
			if format != tt.format || b.Dx() != tt.w || b.Dy() != tt.h {
				t.Errorf("got a %dx%d %s, want a %dx%d %s", b.Dx(), b.Dy(), format, tt.w, tt.h, tt.format)
			}
			if tt.fill == nil {
				return
			}
			for _, p := range []image.Point{{b.Min.X + 3, b.Min.Y + 3}, {b.Max.X - 4, b.Max.Y - 4}, {(b.Min.X + b.Max.X) / 2, b.Min.Y + 3}, {b.Min.X + 3, b.Max.Y - 4}} {
				if c := img.At(p.X, p.Y); !near(c, tt.fill, 40) {
					t.Errorf("pixel %v is %v, want %v: the image is not the element", p, c, tt.fill)
				}
			}
		})
	}
	t.Run("over the size cap", func(t *testing.T) {
		s := s.on(t)
		s.open("noise.html")
		_, format, size, text := shot(t, s, map[string]any{})
		if size > maxImageBytes {
			t.Errorf("the image is %d bytes, over the %d cap", size, maxImageBytes)
		}
		if format != "jpeg" || !strings.Contains(text, "size cap") {
			t.Errorf("a page of noise should come back as a smaller JPEG that says so: %s, %q", format, text)
		}
	})
	t.Run("PDF", func(t *testing.T) {
		s := s.on(t)
		s.open("shots.html")
		out := s.call("browser_screenshot", map[string]any{"format": "pdf"})
		m := regexp.MustCompile(`Saved a PDF of (\d+) bytes to (.+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("the result should name the PDF: %s", out)
		}
		data, err := os.ReadFile(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("%PDF-")) || fmt.Sprint(len(data)) != m[1] {
			t.Errorf("%s: %d bytes starting %q; want a PDF of %s bytes", m[2], len(data), data[:min(8, len(data))], m[1])
		}
		if rel, err := filepath.Rel(filepath.Join(s.state, "downloads"), m[2]); err != nil || strings.HasPrefix(rel, "..") || !strings.HasPrefix(filepath.Base(m[2]), "Shots-") {
			t.Errorf("the PDF should be in the downloads directory, named after the page: %s", m[2])
		}
	})
	if msg := s.fail("browser_screenshot", map[string]any{"format": "gif"}); !strings.Contains(msg, `format must be one of "png", "jpeg", "pdf"`) {
		t.Errorf("a bad format: %s", msg)
	}
}

func testWaitFor(t *testing.T, s sess) {
	const delay = 1500 // ms before the page changes after a click
	tests := []struct {
		name    string
		click   string // button to click first
		wait    func(t *testing.T, snap string) map[string]any
		present string // in the page after the wait
		absent  string
	}{
		{"text appears", `button "Load rows"`, func(*testing.T, string) map[string]any { return map[string]any{"text": "Loaded 42 rows"} }, "Loaded 42 rows", ""},
		{"text disappears", `button "Load rows"`, func(*testing.T, string) map[string]any { return map[string]any{"text_gone": "Loading…"} }, "", "Loading…"},
		{"a hidden ref shows again", `button "Refresh"`, func(t *testing.T, snap string) map[string]any {
			return map[string]any{"ref": ref(t, snap, `button "Refresh"`)}
		}, `button "Refresh"`, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			// Each case waits for a timer; they wait side by side, in sessions of their own.
			t.Parallel()
			s.name = fmt.Sprintf("%s-%d", s.name, i)
			snap := s.open(fmt.Sprintf("wait.html?delay=%d", delay))
			start := time.Now()
			s.call("browser_click", map[string]any{"ref": ref(t, snap, tt.click)})
			// When the click returned before the timer fired (the usual case), the wait
			// must have waited for it.
			early := time.Since(start) < delay*time.Millisecond*3/4
			out := s.call("browser_wait_for", tt.wait(t, snap))
			if early && time.Since(start) < delay*time.Millisecond {
				t.Errorf("the wait returned after %s, before the page changed", time.Since(start))
			}
			if !strings.HasPrefix(out, "Done.") {
				t.Errorf("the wait's result: %s", out)
			}
			after := s.snapshot()
			if tt.present != "" {
				containsAll(t, "the page after the wait", after, tt.present)
			}
			if tt.absent != "" {
				containsNone(t, "the page after the wait", after, tt.absent)
			}
		})
	}
	t.Run("seconds", func(t *testing.T) {
		s := s.on(t)
		s.open("wait.html")
		start := time.Now()
		out := s.call("browser_wait_for", map[string]any{"seconds": 0.5})
		if d := time.Since(start); d < 500*time.Millisecond {
			t.Errorf("waited %s, want at least 0.5s", d)
		}
		containsAll(t, "the wait's result", out, "did not change")
	})
	t.Run("time out", func(t *testing.T) {
		s := s.on(t)
		start := time.Now()
		msg := s.fail("browser_wait_for", map[string]any{"text": "Never shown", "seconds": 1})
		if d := time.Since(start); d < time.Second {
			t.Errorf("gave up after %s, want at least 1s", d)
		}
		containsAll(t, "the error", msg, "did not hold within 1s")
	})
	if msg := s.fail("browser_wait_for", map[string]any{}); !strings.Contains(msg, "give text") {
		t.Errorf("no condition: %s", msg)
	}
}

func testEvaluate(t *testing.T, s sess) {
	snap := s.open("forms.html")
	name := ref(t, snap, `textbox "Name"`)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a value", map[string]any{"function": "() => 6 * 7"}, "42"},
		{"the page's state", map[string]any{"function": "() => document.title + ' has ' + document.querySelectorAll('option').length + ' options'"}, `"Profile has 8 options"`},
		{"a promise and an object", map[string]any{"function": "async () => { await new Promise(r => setTimeout(r, 20)); return {fields: document.forms[0].elements.length, ok: true}; }"}, `{"fields":6,"ok":true}`},
		{"undefined", map[string]any{"function": "() => {}"}, "undefined"},
		{"a ref's element", map[string]any{"function": "(el) => el.tagName + ' ' + el.name + ' = ' + el.value", "ref": name}, `"INPUT name = Old Name"`},
		{"an expression, not a function", map[string]any{"function": "document.title"}, `"Profile"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			if got := s.call("browser_evaluate", tt.args); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	errs := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a thrown error", map[string]any{"function": "() => { throw new Error('boom') }"}, "boom"},
		{"a syntax error", map[string]any{"function": "() => {"}, "SyntaxError"},
		{"an empty function", map[string]any{"function": " "}, "empty"},
		{"an unknown ref", map[string]any{"function": "el => el", "ref": "e999"}, "browser_snapshot"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			containsAll(t, "the error", s.fail("browser_evaluate", tt.args), tt.want)
		})
	}
	t.Run("turned off", func(t *testing.T) {
		_, off := startServerArgs(t, "--allow-private-hosts", "127.0.0.1/32", "--evaluate=false")
		res, err := off.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser_evaluate", Arguments: map[string]any{"function": "() => 1"}})
		if err == nil && !res.IsError {
			t.Fatalf("browser_evaluate ran with --evaluate=false: %s", mcptest.Text(res))
		}
	})
}

func testLogs(t *testing.T, s sess) {
	snap := s.open("logs.html")
	// The page's fetches and its late error may still be on their way.
	s.call("browser_wait_for", map[string]any{"text": "missing answered 404"})
	eventually(t, s, "the uncaught error", map[string]any{"all": true}, "kaboom")
	base := s.site.URL
	eventually(t, s, "the page's fetches", map[string]any{"kind": "network", "filter": "/api/"}, "GET 200 Fetch", "GET 404 Fetch")
	tests := []struct {
		name        string
		args        map[string]any
		want, unwan []string
	}{
		{"console, all", map[string]any{"all": true}, []string{"[log] inventory page 3 items", "[warning] stock is low", "[error] price feed unavailable", "[error] Error: render failed: kaboom", "404 (Not Found) (" + base + "/api/missing)"}, nil},
		{"console, errors only", map[string]any{"all": true, "filter": "error"}, []string{"price feed unavailable", "kaboom"}, []string{"[log]", "[warning]"}},
		{"console, warnings by either name", map[string]any{"all": true, "filter": "warn"}, []string{"[warning] stock is low"}, []string{"[error]"}},
		{"console, nothing new since the last call", map[string]any{}, []string{"No console messages."}, nil},
		{"network", map[string]any{"kind": "network"}, []string{"GET 200 Document " + base + "/logs.html", "GET 200 Fetch " + base + "/api/items", "GET 404 Fetch " + base + "/api/missing"}, nil},
		{"network, URL filter", map[string]any{"kind": "network", "filter": "/api/"}, []string{"2 requests", "/api/items", "/api/missing"}, []string{"logs.html"}},
		{"network, by type", map[string]any{"kind": "network", "type": "document"}, []string{"1 request:", "/logs.html"}, []string{"/api/"}},
		{"network, failures", map[string]any{"kind": "network", "failed": true}, []string{"1 request:", "GET 404 Fetch " + base + "/api/missing"}, []string{"/api/items"}},
		{"network, no match", map[string]any{"kind": "network", "filter": "nothing-like-this"}, []string{"No matching requests."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call("browser_logs", tt.args)
			containsAll(t, "the log", out, tt.want...)
			containsNone(t, "the log", out, tt.unwan...)
		})
	}
	t.Run("after an action", func(t *testing.T) {
		s := s.on(t)
		s.call("browser_click", map[string]any{"ref": ref(t, snap, `button "Fetch again"`)})
		out := s.call("browser_logs", map[string]any{})
		containsAll(t, "the new console messages", out, "[log] clicked again")
		containsNone(t, "the new console messages", out, "inventory page")
		out = s.call("browser_logs", map[string]any{"kind": "network", "filter": "again=1"})
		containsAll(t, "the new request", out, "GET 200 Fetch "+base+"/api/items?again=1")
	})
	t.Run("a request the guard refused", func(t *testing.T) {
		s := s.on(t)
		private := s.site.private.URL + "/admin"
		for _, u := range []string{private, strings.Replace(private, "http:", "https:", 1)} {
			s.eval(fmt.Sprintf(`() => fetch(%q).then(r => r.status, e => String(e))`, u))
		}
		eventually(t, s, "the refused requests", map[string]any{"kind": "network", "failed": true, "filter": "127.0.0.2"}, "2 requests:",
			"(blocked: 127.0.0.2 is a loopback address) Fetch "+private,
			"(blocked: 127.0.0.2 is a loopback address) Fetch https://127.0.0.2")
		if n := s.site.privateHits.Load(); n != 0 {
			t.Errorf("the private server was reached %d times", n)
		}
	})
	if msg := s.fail("browser_logs", map[string]any{"kind": "cookies"}); !strings.Contains(msg, `kind must be one of "console", "network"`) {
		t.Errorf("a bad kind: %s", msg)
	}
}

// eventually calls browser_logs until its answer has every wanted string: the browser reports
// events a little after the page sees them.
func eventually(t *testing.T, s sess, what string, args map[string]any, want ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := s.call("browser_logs", args)
		missing := ""
		for _, w := range want {
			if !strings.Contains(out, w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the log still lacks %q:\n%s", what, missing, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testHover(t *testing.T, s sess) {
	snap := s.open("forms.html")
	tests := []struct {
		name, ref   string
		want, unwan []string
	}{
		{"a mouseenter tooltip", `button "Help"`, []string{"+ Tip: your profile is public"}, nil},
		{"a CSS :hover menu", `button "Account"`, []string{`+ link "Settings"`, `+ link "Sign out"`, "- Tip: your profile is public"}, nil},
		{"moving away closes the menu", `textbox "Name"`, []string{`- link "Settings"`}, []string{"+ Tip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call("browser_hover", map[string]any{"ref": ref(t, snap, tt.ref)})
			containsAll(t, "the hover's result", out, tt.want...)
			containsNone(t, "the hover's result", out, tt.unwan...)
		})
	}
}

func testPressKey(t *testing.T, s sess) {
	snap := s.open("forms.html")
	tests := []struct {
		name, key, ref string
		want           []string // in the result
		value          string   // the page's state afterwards, when set
		check          string   // the function that reads it
	}{
		{"Tab moves the focus", "Tab", `textbox "Name"`, []string{"+ Focus: email"}, `"email"`, "() => document.activeElement.name"},
		{"Shift+Tab moves it back", "Shift+Tab", "", []string{"+ Focus: name"}, `"name"`, "() => document.activeElement.name"},
		{"ArrowDown picks the next option", "ArrowDown", `combobox "Country"`, []string{`combobox "Country"`, ": France"}, `"fr"`, "() => document.forms[0].country.value"},
		{"Control+A then Backspace clears a field", "Control+A", `textbox "Bio"`, nil, `""`, ""},
		{"Escape", "Escape", "", []string{`- dialog "Cookie notice"`}, "null", "() => document.getElementById('modal')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			args := map[string]any{"key": tt.key}
			if tt.ref != "" {
				args["ref"] = ref(t, snap, tt.ref)
			}
			out := s.call("browser_press_key", args)
			containsAll(t, "the key's result", out, tt.want...)
			if tt.key == "Control+A" {
				s.call("browser_press_key", map[string]any{"key": "Backspace"})
				if got := s.eval("() => document.forms[0].bio.value"); got != tt.value {
					t.Errorf("Bio after Control+A, Backspace: %s, want %s", got, tt.value)
				}
				return
			}
			if got := s.eval(tt.check); got != tt.value {
				t.Errorf("%s: %s, want %s", tt.check, got, tt.value)
			}
		})
	}
	t.Run("Enter submits the form", func(t *testing.T) {
		s := s.on(t)
		out := s.call("browser_press_key", map[string]any{"key": "Enter", "ref": ref(t, snap, `textbox "Name"`)})
		containsAll(t, "the result", out, "Page: "+s.site.URL+"/echo", "Title: Saved", "name = Old Name", "country = fr")
	})
	if msg := s.fail("browser_press_key", map[string]any{"key": "Hyper+Q"}); !strings.Contains(msg, "Control") {
		t.Errorf("a bad modifier: %s", msg)
	}
	if msg := s.fail("browser_press_key", map[string]any{"key": "Launch"}); !strings.Contains(msg, "Enter") {
		t.Errorf("a bad key: %s", msg)
	}
}

func testSelect(t *testing.T, s sess) {
	snap := s.open("forms.html")
	country, langs := ref(t, snap, `combobox "Country"`), ref(t, snap, `listbox "Languages"`)
	tests := []struct {
		name   string
		ref    string
		values []string
		want   []string
	}{
		{"by label", country, []string{"Japan"}, []string{": Japan", "+ Echo: country=jp"}},
		{"by value", country, []string{"br"}, []string{": Brazil", "+ Echo: country=br"}},
		{"several in a multiple select, by label and value", langs, []string{"English", "ja"}, []string{`option "English"`, `option "Japanese"`, "selected", "+ Echo: langs=en,ja"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			var fields []map[string]any
			for _, v := range tt.values {
				fields = append(fields, map[string]any{"ref": tt.ref, "value": v})
			}
			out := s.call("browser_fill_form", map[string]any{"fields": fields})
			containsAll(t, "the result", out, tt.want...)
		})
	}
	out := s.call("browser_click", map[string]any{"ref": ref(t, snap, `button "Save"`)})
	containsAll(t, "the posted form", out, "country = br", "langs = en|ja")

	snap = s.open("forms.html")
	msg := s.fail("browser_fill_form", map[string]any{"fields": []map[string]any{{"ref": ref(t, snap, `combobox "Country"`), "value": "Atlantis"}}})
	containsAll(t, "the error for a missing option", msg, "France | Japan | Brazil")
}

func testType(t *testing.T, s sess) {
	snap := s.open("forms.html")
	tests := []struct {
		name, ref, text string
		append          bool
		want            []string // in the result
		check, value    string   // a function reading the field, and its JSON value
	}{
		{"replaces the value", `textbox "Name"`, "Ada Lovelace", false, []string{`: Ada Lovelace`, "+ Echo: name=Ada Lovelace"}, "() => document.forms[0].name.value", `"Ada Lovelace"`},
		{"appends", `textbox "Email"`, ".uk", true, []string{": old@example.com.uk"}, "() => document.forms[0].email.value", `"old@example.com.uk"`},
		{"several lines into a textarea", `textbox "Bio"`, "line one\nline two", false, []string{"line one line two"}, "() => document.forms[0].bio.value", `"line one\nline two"`},
		{"a contenteditable element", `textbox "Notes"`, "final notes", false, []string{`textbox "Notes"`, "final notes"}, "() => document.getElementById('notes').textContent", `"final notes"`},
		{"empty text clears", `textbox "Name"`, "", false, []string{"+ Echo: name="}, "() => document.forms[0].name.value", `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call("browser_type", map[string]any{"ref": ref(t, snap, tt.ref), "text": tt.text, "append": tt.append})
			containsAll(t, "the result", out, tt.want...)
			if got := s.eval(tt.check); got != tt.value {
				t.Errorf("%s: %s, want %s", tt.check, got, tt.value)
			}
		})
	}
	t.Run("submit", func(t *testing.T) {
		s := s.on(t)
		out := s.call("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Name"`), "text": "Grace Hopper", "submit": true})
		containsAll(t, "the posted form", out, "Title: Saved", "name = Grace Hopper", "email = old@example.com.uk")
	})
	if msg := s.fail("browser_type", map[string]any{"ref": "e999", "text": "x"}); !strings.Contains(msg, "browser_snapshot") {
		t.Errorf("an unknown ref: %s", msg)
	}
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: []string{"--state-dir", t.TempDir()}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, "--state-dir", t.TempDir())
}
