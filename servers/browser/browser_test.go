package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLoginFormByRefs(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	calls := 0
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html"})
	calls++
	out := callTool(t, cs, "browser_fill_form", map[string]any{
		"fields": []map[string]any{
			{"ref": ref(t, snap, `textbox "Username"`), "value": "alice"},
			{"ref": ref(t, snap, `textbox "Password"`), "value": "s3cret!"},
			{"ref": ref(t, snap, `combobox "Role"`), "value": "Administrator"},
			{"ref": ref(t, snap, `checkbox "Remember me"`), "value": "true"},
		},
		"submit": ref(t, snap, `button "Sign in"`),
	})
	calls++
	for _, want := range []string{"Welcome back, alice", "Role: admin", "Remember me: on", "/login"} {
		if !strings.Contains(out, want) {
			t.Errorf("after submitting, the result lacks %q:\n%s", want, out)
		}
	}
	if calls > 4 {
		t.Errorf("the login took %d calls, want at most 4", calls)
	}
}

func TestTypeAndSelectByRefs(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html"})
	user := ref(t, snap, `textbox "Username"`)
	out := callTool(t, cs, "browser_type", map[string]any{"ref": user, "text": "bob"})
	if !strings.Contains(out, `+ textbox "Username" [`+user+`]: bob`) {
		t.Errorf("typing should show the new value in the diff:\n%s", out)
	}
	out = callTool(t, cs, "browser_type", map[string]any{"ref": user, "text": "alice"})
	if !strings.Contains(out, ": alice") || strings.Contains(out, "bobalice") {
		t.Errorf("typing again should replace the value:\n%s", out)
	}
	out = callTool(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{{"ref": ref(t, snap, `combobox "Role"`), "value": "editor"}}})
	if !strings.Contains(out, ": Editor") {
		t.Errorf("selecting by value should show the label:\n%s", out)
	}
	msg := mcptest.CallError(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{{"ref": ref(t, snap, `combobox "Role"`), "value": "Owner"}}})
	if !strings.Contains(msg, "Viewer | Editor | Administrator") {
		t.Errorf("a bad option should list the options: %s", msg)
	}
	msg = mcptest.CallError(t, cs, "browser_click", map[string]any{"ref": "e999"})
	if !strings.Contains(msg, "browser_snapshot") {
		t.Errorf("an unknown ref should say to take a snapshot: %s", msg)
	}
}

func TestRefsStableAcrossSnapshots(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/dashboard.html", "no_snapshot": true})
	first := callTool(t, cs, "browser_snapshot", map[string]any{})
	second := callTool(t, cs, "browser_snapshot", map[string]any{})
	if first != second {
		t.Fatalf("two snapshots of an unchanged page differ")
	}
	hosts, alerts := ref(t, first, `tab "Hosts"`), ref(t, first, `tab "Alerts"`)
	// Switching tabs changes the page; the refs of elements that stay keep their values.
	out := callTool(t, cs, "browser_click", map[string]any{"ref": alerts})
	if !strings.Contains(out, `tab "Alerts" [`+alerts+`] selected`) {
		t.Errorf("the diff should show the selected tab:\n%s", out)
	}
	third := callTool(t, cs, "browser_snapshot", map[string]any{})
	if ref(t, third, `tab "Hosts"`) != hosts || ref(t, third, `tab "Alerts"`) != alerts {
		t.Errorf("refs changed across snapshots: %s/%s -> %s/%s", hosts, alerts, ref(t, third, `tab "Hosts"`), ref(t, third, `tab "Alerts"`))
	}
	found := callTool(t, cs, "browser_snapshot", map[string]any{"role": "tab"})
	if !strings.Contains(found, "2 matches") || !strings.Contains(found, "["+hosts+"]") {
		t.Errorf("find by role: %s", found)
	}
}

func TestIframeContent(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/dashboard.html"})
	callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `tab "Alerts"`)})
	snap = callTool(t, cs, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, `iframe "Alerts panel"`) || !strings.Contains(snap, "3 hosts need attention.") {
		t.Fatalf("the iframe's content is missing:\n%s", snap)
	}
	out := callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `button "Acknowledge all"`)})
	if !strings.Contains(out, "+ Acknowledged") {
		t.Errorf("clicking inside the iframe should show its change:\n%s", out)
	}
}

func TestPageText(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/article.html", "no_snapshot": true})
	md := callTool(t, cs, "browser_get_text", map[string]any{"max_chars": 100000})
	for _, want := range []string{"# A year in the kitchen garden", "## 1. On soil", "*By Ada Fielding, updated in March*", "guide](" + s.URL + "/guides/", "Gardeners who keep notes"} {
		if !strings.Contains(md, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	for _, bad := range []string{"Section 12", "Garden Notes", "Starting seeds indoors", "Privacy"} {
		if strings.Contains(md, bad) {
			t.Errorf("page text should leave out navigation and boilerplate, has %q", bad)
		}
	}
	pageOne := callTool(t, cs, "browser_get_text", map[string]any{"max_chars": 2000})
	m := regexp.MustCompile(`call again with offset=(\d+)`).FindStringSubmatch(pageOne)
	if m == nil || len(pageOne) > 2200 {
		t.Fatalf("a capped text should say how to page on (%d chars):\n%s", len(pageOne), pageOne)
	}
	pageTwo := callTool(t, cs, "browser_get_text", map[string]any{"max_chars": 2000, "offset": mustAtoi(t, m[1])})
	if strings.TrimSpace(pageTwo) == "" || strings.HasPrefix(pageTwo, pageOne[:100]) {
		t.Errorf("the second page should continue the text")
	}
}

func mustAtoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDownload(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/popup"})
	out := callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `link "Download report"`)})
	m := regexp.MustCompile(`downloaded report\.csv \((\d+) bytes\) to (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the click should report the download:\n%s", out)
	}
	data, err := os.ReadFile(m[2])
	if err != nil || len(data) != 1800 || m[1] != "1800" {
		t.Fatalf("downloaded file %s: %d bytes, %v; want 1800", m[2], len(data), err)
	}
	// The connection and the tab still work.
	if out := callTool(t, cs, "browser_snapshot", map[string]any{}); !strings.Contains(out, "Download report") {
		t.Errorf("the tab should still show the page:\n%s", out)
	}
}

func TestDialogs(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/dialogs"})
	out := callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `button "Alert"`)})
	if !strings.Contains(out, `alert dialog is open: "Saved!"`) {
		t.Fatalf("the click should report the alert:\n%s", out)
	}
	if msg := mcptest.CallError(t, cs, "browser_snapshot", map[string]any{}); !strings.Contains(msg, "browser_handle_dialog") {
		t.Errorf("a snapshot under a dialog should point to handle_dialog: %s", msg)
	}
	callTool(t, cs, "browser_handle_dialog", map[string]any{"accept": true})
	out = callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `button "Prompt"`)})
	if !strings.Contains(out, `prompt dialog is open: "Your name?"`) || !strings.Contains(out, `default "guest"`) {
		t.Fatalf("the click should report the prompt:\n%s", out)
	}
	out = callTool(t, cs, "browser_handle_dialog", map[string]any{"accept": true, "text": "Ada"})
	if !strings.Contains(out, "+ Hello, Ada") {
		t.Errorf("answering the prompt should change the page:\n%s", out)
	}
}

func TestTabs(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	snap := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/popup"})
	out := callTool(t, cs, "browser_click", map[string]any{"ref": ref(t, snap, `link "Open login in a new tab"`)})
	if !strings.Contains(out, "New tab t2") || !strings.Contains(out, "Sign in to Acme") {
		t.Fatalf("the click should open and show a new tab:\n%s", out)
	}
	list := callTool(t, cs, "browser_tabs", map[string]any{})
	if !regexp.MustCompile(`(?m)^\s*t1 .*/popup "Opener"\n\* t2 .*/login.html`).MatchString(list) {
		t.Errorf("tab list:\n%s", list)
	}
	callTool(t, cs, "browser_tabs", map[string]any{"action": "select", "tab": "t1"})
	if out := callTool(t, cs, "browser_snapshot", map[string]any{}); !strings.Contains(out, "Opener") {
		t.Errorf("selecting t1 should make it current:\n%s", out)
	}
	list = callTool(t, cs, "browser_tabs", map[string]any{"action": "close", "tab": "t2"})
	if strings.Contains(list, "t2") {
		t.Errorf("t2 should be closed:\n%s", list)
	}
	// Another session has its own tabs and cookies; a reconnecting client finds its tabs.
	callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html", "session": "work", "no_snapshot": true})
	cs2 := startClient(t, cs)
	if list := callTool(t, cs2, "browser_tabs", map[string]any{"session": "work"}); !strings.Contains(list, "login.html") {
		t.Errorf("a new client connection should see the session's tabs:\n%s", list)
	}
	callTool(t, cs2, "browser_tabs", map[string]any{"session": "work", "action": "end"})
}

// startClient connects a second client to the same server as cs (a reconnect).
func startClient(t testing.TB, _ *mcp.ClientSession) *mcp.ClientSession {
	t.Helper()
	return lastHarness.Connect(t, "")
}

func TestPrivateAddressesRefused(t *testing.T) {
	s := newSite(t)
	_, open := startServer(t)
	for _, path := range []string{"/to-private", "/to-private-decimal"} {
		msg := mcptest.CallError(t, open, "browser_navigate", map[string]any{"url": s.URL + path})
		if !strings.Contains(msg, "refused") || !strings.Contains(msg, "127.0.0.2") {
			t.Errorf("%s: %s", path, msg)
		}
	}
	if n := s.privateHits.Load(); n != 0 {
		t.Errorf("the private server was reached %d times", n)
	}
	for _, u := range []string{"file:///etc/passwd", "chrome://version", "view-source:" + s.URL, "javascript:alert(1)", "data:text/html,<p>x</p>"} {
		if msg := mcptest.CallError(t, open, "browser_navigate", map[string]any{"url": u}); !strings.Contains(msg, "only http and https") {
			t.Errorf("%s: %s", u, msg)
		}
	}
	// Without an allowlist even the test site on 127.0.0.1 is refused, in any spelling.
	_, strict := startServerArgs(t)
	port := s.URL[strings.LastIndexByte(s.URL, ':'):]
	for _, host := range []string{"127.0.0.1", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "localhost"} {
		msg := mcptest.CallError(t, strict, "browser_navigate", map[string]any{"url": "http://" + host + port + "/login.html"})
		if !strings.Contains(msg, "refused") {
			t.Errorf("%s: %s", host, msg)
		}
	}
}

func TestChromiumRestartsAfterKill(t *testing.T) {
	s := newSite(t)
	h, cs := startServer(t)
	callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html", "no_snapshot": true})
	rep := h.Server.Health(t.Context())
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(rep.Checks["chromium"].Detail)
	if m == nil {
		t.Fatalf("health should show the running pid: %+v", rep.Checks)
	}
	pid := mustAtoi(t, m[1])
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	// The next call works; it may first report that the tab went away, never more than once.
	res := mcptest.Call(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html"})
	if res.IsError {
		t.Logf("first call after the kill: %s", mcptest.Text(res))
		res = mcptest.Call(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html"})
	}
	text := mcptest.Text(res)
	if res.IsError || !strings.Contains(text, "Sign in to Acme") {
		t.Fatalf("after the kill, navigate should work: %s", text)
	}
	if !strings.Contains(text, "restarted") {
		t.Errorf("the result should say the browser restarted: %s", text)
	}
}

func TestUploadConfined(t *testing.T) {
	state := t.TempDir()
	o := &options{maxTabs: 1, maxMemoryMB: 256, idleTimeout: time.Minute}
	if err := o.finish(state); err != nil {
		t.Fatal(err)
	}
	f, err := openFolders(o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if err := os.WriteFile(filepath.Join(o.uploadDir, "cv.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(o.uploadDir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	paths, dir, err := f.stage([]string{"cv.txt", filepath.Join(o.uploadDir, "cv.txt")})
	if err != nil {
		t.Fatalf("files in the upload dir: %v", err)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || string(b) != "hello" || filepath.Base(p) != "cv.txt" || !strings.HasPrefix(p, f.stagingDir+"/") {
			t.Errorf("staged %s: %q, %v", p, b, err)
		}
	}
	f.unstage(dir)
	if _, err := os.Stat(paths[0]); err == nil {
		t.Error("unstage left the staged file")
	}
	for _, bad := range []string{"../../etc/passwd", "/etc/passwd", "missing.txt", "out.txt", "."} {
		if _, _, err := f.stage([]string{bad}); err == nil {
			t.Errorf("stage(%q) allowed", bad)
		}
	}
	if entries, _ := os.ReadDir(f.stagingDir); len(entries) != 0 {
		t.Errorf("refused uploads left %d staging directories", len(entries))
	}
}

func TestToolsList(t *testing.T) {
	_, cs := startServer(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if len(b) >= 12*1024 {
		t.Errorf("tools/list is %d bytes, want under 12 KB", len(b))
	}
	for _, tool := range res.Tools {
		if !strings.HasPrefix(tool.Name, "browser_") {
			t.Errorf("tool %s lacks the browser_ prefix", tool.Name)
		}
	}
	t.Logf("tools/list: %d tools, %d bytes", len(res.Tools), len(b))
	_, off := startServerArgs(t, "--allow-private-hosts", "127.0.0.1/32", "--evaluate=false")
	res, _ = off.ListTools(context.Background(), nil)
	for _, tool := range res.Tools {
		if tool.Name == "browser_evaluate" {
			t.Error("--evaluate=false should drop browser_evaluate")
		}
	}
}

// TestArgumentRules: arguments outside their schema are refused with a message naming the rule,
// before any page is touched.
func TestArgumentRules(t *testing.T) {
	_, cs := startServer(t)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"browser_click", map[string]any{"ref": "e1", "modifiers": []string{"Hyper"}}, `modifiers[0] must be one of "Alt", "Control", "Meta", "Shift"`},
		{"browser_click", map[string]any{"ref": ""}, "give ref (from a snapshot) or at ([x, y] from a screenshot)"},
		{"browser_type", map[string]any{"ref": "", "text": "x"}, "ref is empty"},
		{"browser_click", map[string]any{"at": []float64{-1, 5}}, "at"},
		{"browser_hover", map[string]any{"scroll": []float64{1, 2, 3}}, "scroll must have at most 2 items"},
		{"browser_navigate", map[string]any{"url": "reload", "scale": 9}, "scale must be at most 4"},
		{"browser_logs", map[string]any{"request": 0}, "request must be at least 1"},
		{"browser_screenshot", map[string]any{"format": "gif"}, `format must be one of "png", "jpeg", "pdf"`},
		{"browser_snapshot", map[string]any{"max_chars": 200000}, "max_chars must be at most 100000"},
		{"browser_snapshot", map[string]any{"depth": -1}, "depth must be at least 0"},
		{"browser_get_text", map[string]any{"offset": -5}, "offset must be at least 0"},
		{"browser_wait_for", map[string]any{"seconds": 31}, "seconds must be at most 30"},
		{"browser_logs", map[string]any{"kind": "dom"}, `kind must be one of "console", "network"`},
		{"browser_tabs", map[string]any{"action": "open"}, `action must be one of "list", "new", "select", "close", "end"`},
		{"browser_fill_form", map[string]any{"fields": []any{}}, "fields must have at least 1 item"},
		{"browser_navigate", map[string]any{"url": "https://example.org", "max_chars": 10}, "max_chars must be at least 100"},
	}
	for _, tc := range cases {
		if msg := mcptest.CallError(t, cs, tc.tool, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.tool, tc.args, msg, tc.want)
		}
	}
}

// TestGuardProxyOnlyForTheBrowser reads the guard proxy's address from the running Chromium's
// command line, as a local process could, and checks that a connection from any process but
// the browser (here the test process, which is also the server's) is refused while the
// browser's own navigation goes through.
func TestGuardProxyOnlyForTheBrowser(t *testing.T) {
	s := newSite(t)
	h, cs := startServer(t)
	callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html", "no_snapshot": true})
	rep := h.Server.Health(t.Context())
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(rep.Checks["chromium"].Detail)
	if m == nil {
		t.Fatalf("health should show the running pid: %+v", rep.Checks)
	}
	cmdline, err := os.ReadFile("/proc/" + m[1] + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	pm := regexp.MustCompile(`--proxy-server=http://([0-9.:]+)`).FindSubmatch(cmdline)
	if pm == nil {
		t.Fatalf("no --proxy-server in %q", cmdline)
	}
	for _, req := range []string{
		"GET " + s.URL + "/login.html HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
	} {
		c, err := net.Dial("tcp", string(pm[1]))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.WriteString(c, req)
		reply, _ := io.ReadAll(c)
		_ = c.Close()
		if !strings.HasPrefix(string(reply), "HTTP/1.1 403") || !strings.Contains(string(reply), "only the browser") {
			t.Errorf("%q from the test process: got %q, want the proxy's refusal", strings.Fields(req)[0], reply)
		}
	}
	if text := callTool(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/login.html"}); !strings.Contains(text, "Sign in to Acme") {
		t.Fatalf("the browser's own navigation should still work: %s", text)
	}
}
