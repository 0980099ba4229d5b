package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleInBrowser is the console as the owner meets it: headless Chromium with a virtual
// passkey enrols, opens /console, is sent to sign in, signs in with the passkey, sees the fleet,
// switches alpha_write off (alpha's tools/list loses it) and on again, and reads the activity,
// devices and charts pages. With MCP_CONSOLE_SCREENSHOTS=DIR it writes each page's screenshot there
// (docs/console.md shows them).
func TestConsoleInBrowser(t *testing.T) {
	e := startFleet(t, withConsole(t))
	alphaTok, _ := e.tokenFor(t, "alpha", e.Alpha)
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
	if err := b.run(chromedp.EmulateViewport(1100, 800), chromedp.Navigate(e.Issuer+consolePath), chromedp.WaitVisible(chromedp.ID("console-signin")),
		shot("signin"), chromedp.Click(chromedp.ID("console-signin")), pageIs("fleet"), shot("fleet")); err != nil {
		t.Fatalf("sign in to the console: %v", err)
	}
	fleet, err := b.value(chromedp.Text(chromedp.CSS("body")))
	if err != nil || !strings.Contains(fleet, "alpha ok") || !strings.Contains(fleet, "beta ok") || !strings.Contains(fleet, "cannot tell") {
		t.Fatalf("fleet page: %v\n%s", err, fleet)
	}
	e.app.console.sampleOnce(t.Context()) // the charts' first sample; the calls below follow it
	if err := b.run(chromedp.Navigate(e.Issuer+consoleSwitchesPath), pageIs("switches"), chromedp.Click(chromedp.ID("sw-tool-alpha_write")),
		chromedp.WaitVisible(chromedp.CSS(`tr#tool-alpha_write[data-off="true"]`)), shot("switches")); err != nil {
		body, _ := b.value(chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("switch alpha_write off: %v\n%s", err, body)
	}
	if got := listTools(t, e.Alpha, alphaTok); slices.Contains(got, "alpha_write") {
		t.Errorf("alpha lists %v after the switch", got)
	}
	if _, _, body := callTool(t, e.Alpha, alphaTok, "alpha_write"); !strings.Contains(body, "disabled: alpha_write") {
		t.Errorf("call after the switch: %s", body)
	}
	if err := b.run(chromedp.Click(chromedp.ID("sw-tool-alpha_write")), chromedp.WaitVisible(chromedp.CSS(`tr#tool-alpha_write[data-off="false"]`))); err != nil {
		t.Fatalf("switch alpha_write on: %v", err)
	}
	if got := listTools(t, e.Alpha, alphaTok); !slices.Contains(got, "alpha_write") {
		t.Errorf("alpha lists %v after switching back on", got)
	}
	if err := b.run(chromedp.Navigate(e.Issuer+consoleActivityPath), pageIs("activity"), shot("activity")); err != nil {
		t.Fatalf("activity: %v", err)
	}
	activity, err := b.value(chromedp.Text(chromedp.ID("audit")))
	if err != nil || !strings.Contains(activity, "tool alpha/alpha_write off") || !strings.Contains(activity, "signed in to the console") {
		t.Errorf("activity's console actions: %v\n%s", err, activity)
	}
	if err := b.run(chromedp.Navigate(e.Issuer+consoleDevicesPath), pageIs("devices"), shot("devices")); err != nil {
		t.Fatalf("devices: %v", err)
	}
	e.app.console.sampleOnce(t.Context())
	if err := b.run(chromedp.Navigate(e.Issuer+consoleChartsPath), pageIs("charts"), chromedp.WaitVisible(chromedp.CSS("#charts-alpha svg polyline")), shot("charts")); err != nil {
		t.Fatalf("charts: %v", err)
	}
	charts, err := b.value(chromedp.Text(chromedp.ID("charts-alpha")))
	if err != nil || !strings.Contains(charts, "calls per minute: last 1") || !strings.Contains(charts, "errors per minute: last 1") {
		t.Errorf("alpha's charts after its one call, refused as disabled: %v\n%s", err, charts)
	}
}
