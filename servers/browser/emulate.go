package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// device is what a session emulates: the viewport in CSS pixels, the device pixel ratio,
// whether it is a mobile device (meta viewport, overlay scrollbars) with touch, and the
// user agent ("" keeps the browser's own).
type device struct {
	name          string
	width, height int64
	scale         float64
	mobile, touch bool
	ua            string // %s is replaced by the running Chromium's version
}

// desktop is what a session starts with: the browser's own window.
var desktop = device{name: "desktop", width: 1280, height: 800, scale: 1}

// devices are the named devices browser_emulate offers; the sizes are the CSS viewport a page
// sees in the device's browser.
var devices = map[string]device{
	"desktop": desktop,
	"iphone-15": {name: "iphone-15", width: 393, height: 659, scale: 3, mobile: true, touch: true,
		ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	"pixel-7": {name: "pixel-7", width: 412, height: 839, scale: 2.625, mobile: true, touch: true,
		ua: "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s Mobile Safari/537.36"},
	"ipad-mini": {name: "ipad-mini", width: 744, height: 1133, scale: 2, mobile: true, touch: true,
		ua: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	"ipad-pro": {name: "ipad-pro", width: 1024, height: 1366, scale: 2, mobile: true, touch: true,
		ua: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
}

// setDevice changes what the session emulates, from a named device or the current one, and
// applies it to every tab of the session. It runs under the session lock.
func (c *call) setDevice(ctx context.Context, name string, viewport []int64, scale float64) (string, error) {
	d := c.s.device
	if name != "" {
		d = devices[name] // the schema admits only the names in devices
	} else if d.name == "" {
		d = desktop
	}
	if len(viewport) == 2 {
		d.width, d.height = viewport[0], viewport[1]
	}
	if scale > 0 {
		d.scale = scale
	}
	if name == "" && !strings.HasSuffix(d.name, ", resized") {
		d.name += ", resized"
	}
	c.s.device = d
	for _, t := range c.s.tabs {
		if err := c.s.emulate(ctx, t.target()); err != nil {
			return "", err
		}
	}
	return d.describe() + "\n", nil
}

// describe says what the device is, for the tool's answer.
func (d device) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Emulating %s: viewport %dx%d at %gx", d.name, d.width, d.height, d.scale)
	if d.mobile {
		b.WriteString(", mobile")
	}
	if d.touch {
		b.WriteString(", touch")
	}
	b.WriteString(".")
	return b.String()
}

// chromeVersion finds "156.0.1.2" in "HeadlessChrome/156.0.1.2".
var chromeVersion = regexp.MustCompile(`Chrome/([0-9.]+)`)

// emulate applies the session's device to a tab (a new tab, or every tab on a change).
// A session that never asked for another device is left alone.
func (s *session) emulate(ctx context.Context, tg *chromedp.Target) error {
	d := s.device
	if d.name == "" {
		return nil
	}
	if _, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: d.width, Height: d.height, DeviceScaleFactor: d.scale, Mobile: d.mobile,
		ScreenWidth: d.width, ScreenHeight: d.height,
	}); err != nil {
		return fmt.Errorf("setting the viewport: %w", err)
	}
	touch := emulation.SetTouchEmulationEnabledParams{Enabled: d.touch}
	if d.touch {
		touch.MaxTouchPoints = 5
	}
	if _, err := cdp.Call(ctx, tg, emulation.SetTouchEmulationEnabled, touch); err != nil {
		return fmt.Errorf("setting touch: %w", err)
	}
	ua := d.ua
	if strings.Contains(ua, "%s") {
		version := "0.0.0.0"
		if v, err := cdp.Call(ctx, chromedp.FromContext(s.root).Browser, browser.GetVersion, cdp.Empty{}); err == nil {
			if m := chromeVersion.FindStringSubmatch(v.Product); m != nil {
				version = m[1]
			}
		}
		ua = fmt.Sprintf(ua, version)
	}
	// An empty user agent removes the override.
	if _, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua}); err != nil {
		return fmt.Errorf("setting the user agent: %w", err)
	}
	return nil
}
