package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/jck411/mcp-servers/shared/admin"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
)

// withManaged adds a server the console manages at base.
func withManaged(name, base string) envOption {
	return func(s *settings) {
		s.Console = append(s.Console, consoleServer{Name: name, client: &admin.Client{Base: base, Token: consoleToken}})
	}
}

// startGmail builds and starts the fleet's gmail at base: a protected resource of e's issuer,
// managed by the console, signed in to Google as ada@example.com with its token endpoint at
// tokenURL (its Gmail API is never called: the test only lists, switches and refuses).
func startGmail(t *testing.T, e *fleetEnv, base, tokenURL string) {
	t.Helper()
	bin := goBuild(t, "github.com/jck411/mcp-servers/servers/gmail")
	args := append([]string{"--port", port(t, base), "--oauth-issuer", e.Issuer, "--public-url", base, "--admin-token-sha256", admin.HashToken(consoleToken),
		"--gmail-endpoint", "http://127.0.0.1:1/"},
		googletest.SignIn(t, tokenURL, time.Now().Add(time.Hour), "https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic")...)
	var logs bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("gmail's log:\n%s", logs.String())
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gmail did not start: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConsoleInBrowser is the console as the owner meets it (issue 33's "done when"): headless
// Chromium with a virtual passkey enrols, opens /console, is sent to sign in, signs in with the
// passkey and sees the servers healthy; switches the fleet's real gmail's send_message off
// (gmail's tools/list loses it, a call answers disabled) and on again; turns the fleet read-only
// and back; revokes a device and sees its refresh refused; starts a Google sign-in on the
// accounts page and finishes it by pasting the address the browser lands on; downloads a
// client configuration; and reads the activity, devices and charts pages. With
// MCP_CONSOLE_SCREENSHOTS=DIR it writes each page's screenshot there (docs/console.md shows them).
func TestConsoleInBrowser(t *testing.T) {
	fake := newFakeAccounts(t)
	gmailBase := "http://127.0.0.1:" + freePort(t)
	e := startFleet(t, withConsole(t), withManaged("gmail", gmailBase), withResource("gmail", gmailBase+"/mcp"), withLAN("http://192.168.1.110"))
	startGmail(t, e, gmailBase, fake.URL+"/token")
	alphaTok, alphaRefresh := e.tokenFor(t, "alpha", e.Alpha)
	gmailTok, _ := e.tokenFor(t, "gmail", gmailBase)
	b := newBrowser(t)
	b.enrol(e)
	dir := os.Getenv("MCP_CONSOLE_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	// shot writes a PNG of the page (quality 100: below it Chromium writes a JPEG).
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "console-"+name+".png"), png, 0o644)
		})
	}
	pageIs := func(p string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS(`body[data-page="` + p + `"]`))
	}
	body := func() string {
		s, _ := b.value(chromedp.Text(chromedp.CSS("body")))
		return s
	}
	if err := b.run(chromedp.EmulateViewport(1100, 800), chromedp.Navigate(e.Issuer+consolePath), chromedp.WaitVisible(chromedp.ID("console-signin")),
		shot("signin"), chromedp.Click(chromedp.ID("console-signin")), pageIs("fleet"), shot("fleet")); err != nil {
		t.Fatalf("sign in to the console: %v", err)
	}
	if fleet := body(); !strings.Contains(fleet, "alpha ok") || !strings.Contains(fleet, "beta ok") || !strings.Contains(fleet, "gmail ok") || !strings.Contains(fleet, "cannot tell") {
		t.Fatalf("fleet page: %s", fleet)
	}
	e.app.console.sampleOnce(t.Context()) // the charts' first sample; the calls below follow it

	// A tool off and on: gmail's send_message.
	if err := b.run(chromedp.Navigate(e.Issuer+consoleSwitchesPath), pageIs("switches"), chromedp.Click(chromedp.ID("sw-tool-send_message")),
		chromedp.WaitVisible(chromedp.CSS(`tr#tool-send_message[data-off="true"]`)), shot("switches")); err != nil {
		t.Fatalf("switch send_message off: %v\n%s", err, body())
	}
	if got := listTools(t, gmailBase, gmailTok); slices.Contains(got, "send_message") || !slices.Contains(got, "save_draft") {
		t.Errorf("gmail lists %v after the switch", got)
	}
	if _, _, out := callTool(t, gmailBase, gmailTok, "send_message"); !strings.Contains(out, "disabled: send_message") {
		t.Errorf("call after the switch: %s", out)
	}
	if err := b.run(chromedp.Click(chromedp.ID("sw-tool-send_message")), chromedp.WaitVisible(chromedp.CSS(`tr#tool-send_message[data-off="false"]`))); err != nil {
		t.Fatalf("switch send_message on: %v", err)
	}
	if got := listTools(t, gmailBase, gmailTok); !slices.Contains(got, "send_message") {
		t.Errorf("gmail lists %v after switching back on", got)
	}

	// The fleet read-only and back.
	if err := b.run(chromedp.Click(chromedp.ID("sw-read-only")), chromedp.WaitVisible(chromedp.CSS(`tr#tool-alpha_write[data-off="true"]`))); err != nil {
		t.Fatalf("fleet read-only: %v\n%s", err, body())
	}
	if a, g := listTools(t, e.Alpha, alphaTok), listTools(t, gmailBase, gmailTok); !slices.Equal(a, []string{"alpha_read"}) || slices.Contains(g, "send_message") || !slices.Contains(g, "search_messages") {
		t.Errorf("a read-only fleet lists alpha %v, gmail %v", a, g)
	}
	if err := b.run(chromedp.Click(chromedp.ID("sw-read-only")), chromedp.WaitVisible(chromedp.CSS(`tr#tool-alpha_write[data-off="false"]`))); err != nil {
		t.Fatalf("fleet writable again: %v", err)
	}
	if a := listTools(t, e.Alpha, alphaTok); !slices.Contains(a, "alpha_write") {
		t.Errorf("alpha lists %v after the fleet is writable again", a)
	}

	if err := b.run(chromedp.Navigate(e.Issuer+consoleActivityPath), pageIs("activity"), shot("activity")); err != nil {
		t.Fatalf("activity: %v", err)
	}
	activity, err := b.value(chromedp.Text(chromedp.ID("audit")))
	if err != nil || !strings.Contains(activity, "tool gmail/send_message off") || !strings.Contains(activity, "fleet read-only on") || !strings.Contains(activity, "signed in to the console") {
		t.Errorf("activity's console actions: %v\n%s", err, activity)
	}

	// A device revoked: alpha's app; its refresh token stops.
	var grant, client string
	if err := e.app.db.sql.QueryRowContext(t.Context(), "SELECT id, client_id FROM grants WHERE resource = ? AND revoked = 0", e.Alpha+"/mcp").Scan(&grant, &client); err != nil {
		t.Fatalf("alpha's grant: %v", err)
	}
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {alphaRefresh}, "client_id": {client}}
	status, out := e.postForm(t, "/token", refresh)
	if status != http.StatusOK {
		t.Fatalf("refresh before the revocation: %d %v", status, out)
	}
	if next, ok := out["refresh_token"].(string); ok { // rotated: the new one is the device's
		refresh.Set("refresh_token", next)
	}
	if err := b.run(chromedp.Navigate(e.Issuer+consoleDevicesPath), pageIs("devices"), shot("devices"), chromedp.Click(chromedp.ID("revoke-"+grant)),
		pageIs("devices"), chromedp.WaitNotPresent(chromedp.ID("revoke-"+grant))); err != nil {
		t.Fatalf("revoke alpha's device: %v\n%s", err, body())
	}
	if status, out := e.postForm(t, "/token", refresh); status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Errorf("refresh after the revocation: %d %v", status, out)
	}

	// A Google sign-in started and finished on the accounts page.
	if err := b.run(chromedp.Navigate(e.Issuer+consoleAccountsPath), pageIs("accounts"), chromedp.WaitVisible(chromedp.CSS(`tr#account-gmail-default[data-state="ok"]`)),
		chromedp.SendKeys(chromedp.ID("label-gmail"), "work"), chromedp.Click(chromedp.ID("start-gmail")), chromedp.WaitVisible(chromedp.ID("consent-url")), shot("accounts")); err != nil {
		t.Fatalf("start a Google sign-in: %v\n%s", err, body())
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	href, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.ID("consent-url"), "href"))
	cancel()
	link := href.Value
	if err != nil || !strings.HasPrefix(link, "https://accounts.google.com/") {
		t.Fatalf("consent link %q: %v", link, err)
	}
	landed := fake.consent(t, link)
	if err := b.run(chromedp.SendKeys(chromedp.ID("redirect"), landed), chromedp.Click(chromedp.ID("finish-signin")),
		chromedp.WaitVisible(chromedp.CSS(`tr#account-gmail-work[data-state="ok"]`))); err != nil {
		t.Fatalf("finish the Google sign-in: %v\n%s", err, body())
	}
	if page := body(); !strings.Contains(page, "work · bea@example.com") || strings.Contains(page, "good-code") {
		t.Errorf("accounts page after the sign-in:\n%s", page)
	}

	// A client configuration downloaded.
	downloads := t.TempDir()
	if err := b.run(chromedp.Navigate(e.Issuer+consoleClientsPath), pageIs("clients"), shot("clients"),
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
			return err
		}),
		chromedp.Click(chromedp.ID("download-tunnel-claude-code"))); err != nil {
		t.Fatalf("download a client configuration: %v\n%s", err, body())
	}
	file := filepath.Join(downloads, "claude-code-tunnel.json")
	var data []byte
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if data, err = os.ReadFile(file); err == nil && json.Valid(data) {
			break
		}
	}
	if !json.Valid(data) || !strings.Contains(string(data), gmailBase+"/mcp") {
		t.Errorf("downloaded %s: %v\n%s", file, err, data)
	}

	e.app.console.sampleOnce(t.Context())
	if err := b.run(chromedp.Navigate(e.Issuer+consoleChartsPath), pageIs("charts"), chromedp.WaitVisible(chromedp.CSS("#charts-gmail svg polyline")), shot("charts")); err != nil {
		t.Fatalf("charts: %v", err)
	}
	charts, err := b.value(chromedp.Text(chromedp.ID("charts-gmail")))
	if err != nil || !strings.Contains(charts, "calls per minute: last 1") || !strings.Contains(charts, "errors per minute: last 1") {
		t.Errorf("gmail's charts after its one call, refused as disabled: %v\n%s", err, charts)
	}
}
