package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFeatures drives coordinates, device emulation and request detail end to end, each group
// in its own session of one server.
func TestFeatures(t *testing.T) {
	site := newSite(t)
	h, cs := startServer(t)
	state := h.Server.Config().StateDir
	groups := []struct {
		name string
		run  func(t *testing.T, s sess)
	}{
		{"points", testPoints},
		{"emulate", testEmulate},
		{"request_detail", testRequestDetail},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, sess{t: t, cs: cs, name: strings.ReplaceAll(g.name, "_", "-"), site: site, state: state})
		})
	}
}

func testPoints(t *testing.T, s sess) {
	s.open("points.html")
	tests := []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"click at a point", "browser_click", map[string]any{"at": []float64{150, 230}}, []string{"+ clicked at 150,230"}},
		{"hover at a point", "browser_hover", map[string]any{"at": []float64{450, 230}}, []string{"+ hovered"}},
		{"wheel over a scrolling box", "browser_hover", map[string]any{"at": []float64{250, 475}, "scroll": []float64{0, 300}}, []string{"+ box at 300", "Page scrolled to x=0 y=0"}},
		{"wheel over the page", "browser_hover", map[string]any{"scroll": []float64{0, 600}}, []string{"Page scrolled to x=0 y=600 of 1280x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			out := s.call(tt.tool, tt.args)
			containsAll(t, tt.tool, out, tt.want...)
		})
	}
	if y := s.eval("() => scrollY"); y != "600" {
		t.Errorf("the page's scrollY is %s after the wheel, want 600", y)
	}
	// The page scrolled by 600: the pad is now above the viewport, the same point misses it.
	out := s.call("browser_click", map[string]any{"at": []float64{150, 230}})
	containsNone(t, "a click where the pad was", out, "clicked at")
	refusals := []struct {
		name string
		args map[string]any
		want string
	}{
		{"ref and point", map[string]any{"ref": "e1", "at": []float64{1, 1}}, "give ref or at, not both"},
		{"neither", map[string]any{}, "give ref (from a snapshot) or at"},
		{"outside the viewport", map[string]any{"at": []float64{5000, 10}}, "outside the 1280x800 viewport"},
		{"one number", map[string]any{"at": []float64{10}}, "at"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			if msg := s.fail("browser_click", tt.args); !strings.Contains(msg, tt.want) {
				t.Errorf("browser_click(%v): %q lacks %q", tt.args, msg, tt.want)
			}
		})
	}
}

func testEmulate(t *testing.T, s sess) {
	steps := []struct {
		name  string
		args  map[string]any
		said  string
		page  string
		ua    string
		width int
	}{
		{"a phone", map[string]any{"device": "iphone-15"}, "Emulating iphone-15: viewport 393x659 at 3x, mobile, touch.", "viewport 393x659 dpr 3 touch 5 ua iPhone", "iPhone OS 17_5", 393},
		{"an Android phone", map[string]any{"device": "pixel-7"}, "Emulating pixel-7: viewport 412x839 at 2.625x", "viewport 412x839 dpr 2.625 touch 5 ua Android", "Chrome/1", 412},
		{"resized, the rest kept", map[string]any{"viewport": []int{800, 600}, "scale": 1}, "Emulating pixel-7, resized: viewport 800x600 at 1x", "viewport 800x600 dpr 1 touch 5 ua Android", "Android 14", 800},
		{"back to the desktop", map[string]any{"device": "desktop"}, "Emulating desktop: viewport 1280x800 at 1x.", "viewport 1280x800 dpr 1 touch 0 ua desktop", "HeadlessChrome", 1280},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			s := s.on(t)
			args := maps.Clone(st.args)
			args["url"] = s.site.URL + "/env.html"
			page := s.call("browser_navigate", args)
			containsAll(t, "the page", page, st.said, st.page)
			// A screenshot's pixels are the viewport's CSS pixels, whatever the pixel ratio.
			res := mcptest.Call(t, s.cs, "browser_screenshot", s.args(nil))
			img, ok := res.Content[0].(*mcp.ImageContent)
			if !ok {
				t.Fatalf("no image: %v", mcptest.Text(res))
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width != st.width {
				t.Errorf("the screenshot is %d px wide, want %d", cfg.Width, st.width)
			}
			ua := s.call("browser_navigate", map[string]any{"url": s.site.URL + "/ua"})
			containsAll(t, "the user agent the server saw", ua, st.ua)
		})
	}
	// The device applies to the session's open tabs (reload shows it) and to new ones.
	s.open("env.html")
	out := s.call("browser_tabs", map[string]any{"action": "new", "url": s.site.URL + "/env.html"})
	containsAll(t, "a second tab", out, "Opened tab t2")
	out = s.call("browser_navigate", map[string]any{"url": "reload", "device": "ipad-mini"})
	containsAll(t, "the reloaded page", out, "Emulating ipad-mini", "viewport 744x1133 dpr 2 touch 5")
	s.call("browser_tabs", map[string]any{"action": "select", "tab": "t1"})
	out = s.call("browser_navigate", map[string]any{"url": "reload"})
	containsAll(t, "the first tab, reloaded", out, "viewport 744x1133 dpr 2 touch 5")
	out = s.call("browser_tabs", map[string]any{"action": "new", "url": s.site.URL + "/env.html"})
	containsAll(t, "a new tab", out, "viewport 744x1133 dpr 2 touch 5")
	if msg := s.fail("browser_navigate", map[string]any{"url": "reload", "device": "nokia-3310"}); !strings.Contains(msg, "device must be one of") {
		t.Errorf("an unknown device: %s", msg)
	}
	if msg := s.fail("browser_navigate", map[string]any{"url": "reload", "viewport": []int{50, 600}}); !strings.Contains(msg, "at least 200") {
		t.Errorf("a tiny width: %s", msg)
	}
}

var requestNumber = regexp.MustCompile(`#(\d+) `)

// requestID finds the number of the request whose list line contains what.
func requestID(t *testing.T, s sess, what string) int {
	t.Helper()
	var list string
	for range 100 {
		list = s.call("browser_logs", map[string]any{"kind": "network", "filter": what})
		if m := requestNumber.FindStringSubmatch(list); m != nil && !strings.Contains(list, " … ") {
			return mustAtoi(t, m[1])
		}
	}
	t.Fatalf("no finished request for %q:\n%s", what, list)
	return 0
}

func testRequestDetail(t *testing.T, s sess) {
	s.open("logs.html")
	s.call("browser_wait_for", map[string]any{"text": "missing answered 404"})
	s.eval(`() => fetch('/echo', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'note=hello&n=2'}).then(r => r.status)`)
	s.eval(`() => fetch('/blob.png').then(r => r.status)`)
	s.eval(`() => fetch('/big.txt').then(r => r.text()).then(t => t.length)`)
	tests := []struct {
		name, filter string
		want, unwant []string
	}{
		{"JSON", "/api/items", []string{"Type: Fetch", "Status: 200 OK", "Request headers:\n", "User-Agent: ", "Response headers:\n", "Content-Type: application/json",
			`Response body (40 bytes):` + "\n" + `[{"sku":"a1"},{"sku":"b2"},{"sku":"c3"}]`}, nil},
		{"not found", "/api/missing", []string{"Status: 404 Not Found", "404 page not found"}, nil},
		{"a POST body", "/echo", []string{"POST " + s.site.URL + "/echo", "Request body (14 bytes):\nnote=hello&n=2", "<li>note = hello</li>"}, nil},
		{"binary", "/blob.png", []string{"Response body: binary, 3010 bytes, image/png"}, []string{"PNG\r"}},
		{"capped text", "/big.txt", []string{"Response body (first 8000 of 20000 bytes):\nxxxx"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := s.on(t)
			n := requestID(t, s, tt.filter)
			var out string
			for range 100 { // the body may still be arriving
				if out = s.call("browser_logs", map[string]any{"request": n}); !strings.Contains(out, "still loading") {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			containsAll(t, "the request's detail", out, tt.want...)
			containsNone(t, "the request's detail", out, tt.unwant...)
			if tt.filter == "/big.txt" {
				_, body, _ := strings.Cut(out, "bytes):\n")
				if len(body) != 8000 || strings.Trim(body, "x") != "" {
					t.Errorf("the capped body has %d characters, want 8000 x", len(body))
				}
			}
		})
	}
	if msg := s.fail("browser_logs", map[string]any{"request": 99999}); !strings.Contains(msg, "no request #99999") {
		t.Errorf("an unknown request: %s", msg)
	}
}

// TestProfiles: a login saved to a named profile survives the server's restart, exports and
// imports as Playwright's storageState, clears, and stays private to its token label.
func TestProfiles(t *testing.T) {
	requireChromium(t)
	site := newSite(t)
	state := t.TempDir()
	uploads := filepath.Join(state, "uploads")
	if err := os.MkdirAll(uploads, 0o755); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(t.TempDir(), "tokens")
	const aliceToken, bobToken = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	if err := os.WriteFile(tokens, []byte("alice:"+aliceToken+"\nbob:"+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func() *mcptest.Harness {
		return mcptest.Start(t, spec(), "--state-dir", state, "--auth-tokens-file", tokens, "--allow-private-hosts", "127.0.0.1/32")
	}
	h := start()
	alice := sess{t: t, cs: h.Connect(t, aliceToken), name: "mail", site: site, state: state}
	bob := sess{t: t, cs: h.Connect(t, bobToken), name: "mail", site: site, state: state}

	// Alice logs in once in a session that keeps profile "work".
	snap := alice.call("browser_navigate", map[string]any{"url": site.URL + "/login.html", "profile": "work"})
	containsAll(t, "the first use of a profile", snap, "Profile work is new")
	alice.call("browser_fill_form", map[string]any{
		"fields": []map[string]any{
			{"ref": ref(t, snap, `textbox "Username"`), "value": "alice"},
			{"ref": ref(t, snap, `textbox "Password"`), "value": "s3cret!"},
		},
		"submit": ref(t, snap, `button "Sign in"`),
	})
	containsAll(t, "the account page", alice.call("browser_navigate", map[string]any{"url": site.URL + "/account"}), "Signed in as alice", "theme: dark")

	file := filepath.Join(state, "profiles", base64.RawURLEncoding.EncodeToString([]byte("alice")), "work.json")
	for path, want := range map[string]os.FileMode{file: 0o600, filepath.Dir(file): 0o700, filepath.Dir(filepath.Dir(file)): 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatalf("the profile was not saved: %v", err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}

	t.Run("private to the token label", func(t *testing.T) {
		bob := bob.on(t)
		containsAll(t, "bob's list", callTool(t, bob.cs, "browser_profile", map[string]any{}), "No saved profiles")
		for _, action := range []string{"export", "clear"} {
			if msg := mcptest.CallError(t, bob.cs, "browser_profile", map[string]any{"action": action, "name": "work"}); !strings.Contains(msg, `no profile "work"`) {
				t.Errorf("bob's %s of alice's profile: %s", action, msg)
			}
		}
		out := bob.call("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "work"})
		containsAll(t, "bob's own profile work", out, "Profile work is new", "Not signed in", "theme: null")
		if _, err := os.Stat(file); err != nil {
			t.Errorf("alice's profile is gone after bob's calls: %v", err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		alice := alice.on(t)
		for _, bad := range []string{"../work", "a/b", ".hidden", "", "x y"} {
			msg := mcptest.CallError(t, alice.cs, "browser_profile", map[string]any{"action": "export", "name": bad})
			if !strings.Contains(msg, "profile") {
				t.Errorf("name %q: %s", bad, msg)
			}
		}
		msg := alice.fail("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "../../x"})
		containsAll(t, "a bad profile name", msg, "use 1-64 letters")
		other := alice
		other.name = "other"
		msg = other.fail("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "work"})
		containsAll(t, "a profile another session uses", msg, `profile "work" is in use by session "mail"`)
		msg = alice.fail("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "home"})
		containsAll(t, "a second profile in one session", msg, `session "mail" uses profile "work"`)
	})

	// The server stops and starts again on the same state directory.
	h.Server.Close()
	h = start()
	alice = sess{t: t, cs: h.Connect(t, aliceToken), name: "mail", site: site, state: state}
	out := alice.call("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "work"})
	containsAll(t, "the account page after a restart", out, "Loaded profile work (2 cookies, local storage of 1 origins)", "Signed in as alice", "theme: dark")
	fresh := alice
	fresh.name = "fresh"
	containsAll(t, "a session without the profile", fresh.call("browser_navigate", map[string]any{"url": site.URL + "/account"}), "Not signed in", "theme: null")
	containsAll(t, "alice's list", callTool(t, alice.cs, "browser_profile", map[string]any{"action": "list"}), "work: 2 cookies, local storage of 1 origins", "(in use by session mail)")

	// Chromium dies: the session's next call gets a new browser context with the profile loaded.
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(h.Server.Health(t.Context()).Checks["chromium"].Detail)
	if m == nil {
		t.Fatal("health does not show Chromium's pid")
	}
	pid := mustAtoi(t, m[1])
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); syscall.Kill(pid, 0) == nil && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	res := mcptest.Call(t, alice.cs, "browser_navigate", alice.args(map[string]any{"url": site.URL + "/account"}))
	if res.IsError { // the first call may still meet the dead browser
		res = mcptest.Call(t, alice.cs, "browser_navigate", alice.args(map[string]any{"url": site.URL + "/account"}))
	}
	containsAll(t, "the account page after Chromium's restart", mcptest.Text(res), "restarted", "Loaded profile work", "Signed in as alice", "theme: dark")

	// Export, then import as another profile.
	out = callTool(t, alice.cs, "browser_profile", map[string]any{"action": "export", "name": "work"})
	m = regexp.MustCompile(`to (/\S+\.json)\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the export does not name its file: %s", out)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(m[1]); fi.Mode().Perm() != 0o600 {
		t.Errorf("the export has mode %v, want 0600", fi.Mode().Perm())
	}
	var st struct {
		Cookies []struct {
			Name, Domain string
			Expires      float64
			HTTPOnly     bool `json:"httpOnly"`
		}
		Origins []struct {
			Origin       string
			LocalStorage []struct{ Name, Value string } `json:"localStorage"`
		}
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	got := fmt.Sprint(st)
	for _, want := range []string{"{sid 127.0.0.1 -1 true}", "{remember 127.0.0.1", "[{" + site.URL + " [{theme dark}]}]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the storageState lacks %q: %s", want, got)
		}
	}
	if err := os.WriteFile(filepath.Join(uploads, "state.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	containsAll(t, "the import", callTool(t, alice.cs, "browser_profile", map[string]any{"action": "import", "name": "copy", "file": "state.json"}), "Imported profile copy: 2 cookies")
	imported := alice
	imported.name = "imported"
	containsAll(t, "a session on the imported profile", imported.call("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "copy"}), "Signed in as alice", "theme: dark")
	if err := os.WriteFile(filepath.Join(uploads, "bad.json"), []byte(`{"cookies": [{"name": "a", "domain": ""}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	containsAll(t, "a bad import", mcptest.CallError(t, alice.cs, "browser_profile", map[string]any{"action": "import", "name": "bad", "file": "bad.json"}), "needs a name or value, and a domain")
	containsAll(t, "an import from outside", mcptest.CallError(t, alice.cs, "browser_profile", map[string]any{"action": "import", "name": "bad", "file": "/etc/passwd"}), "refused")
	containsAll(t, "an import over a profile in use", mcptest.CallError(t, alice.cs, "browser_profile", map[string]any{"action": "import", "name": "work", "file": "state.json"}), `in use by session "mail"`)

	// Clearing ends the session that uses it; the login is gone.
	containsAll(t, "the clear", callTool(t, alice.cs, "browser_profile", map[string]any{"action": "clear", "name": "work"}), "Cleared profile work. Session mail, which used it, was closed.")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the profile file is still there: %v", err)
	}
	out = alice.call("browser_navigate", map[string]any{"url": site.URL + "/account", "profile": "work"})
	containsAll(t, "after the clear", out, "Profile work is new", "Not signed in", "theme: null")
}
