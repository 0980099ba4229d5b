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
	"github.com/jck411/mcp-servers/shared/kit"
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
	"galaxy-s23": {name: "galaxy-s23", width: 360, height: 780, scale: 3, mobile: true, touch: true,
		ua: "Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/%s Mobile Safari/537.36"},
	"ipad-mini": {name: "ipad-mini", width: 744, height: 1133, scale: 2, mobile: true, touch: true,
		ua: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	"ipad-pro": {name: "ipad-pro", width: 1024, height: 1366, scale: 2, mobile: true, touch: true,
		ua: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
}

type emulateInput struct {
	where
	Device string  `json:"device,omitempty" jsonschema:"start from this device" schema:"enum=desktop|iphone-15|pixel-7|galaxy-s23|ipad-mini|ipad-pro"`
	Width  int64   `json:"width,omitempty" jsonschema:"viewport CSS px" schema:"minimum=200,maximum=4000"`
	Height int64   `json:"height,omitempty" jsonschema:"viewport CSS px" schema:"minimum=200,maximum=4000"`
	Scale  float64 `json:"scale,omitempty" jsonschema:"device pixel ratio" schema:"minimum=0.5,maximum=4"`
}

func addEmulate(s *kit.Server, m *manager) {
	addTabTool(s, m, kit.Tool{
		Name:        "browser_emulate",
		Description: "Set the session's viewport or device (size, pixel ratio, touch, mobile, user agent) for all its tabs.",
		Timeout:     actionTimeout,
	}, func(ctx context.Context, c *call, in emulateInput) (string, error) {
		d := c.s.device
		if in.Device != "" {
			d = devices[in.Device] // the schema admits only the names in devices
		}
		if in.Width > 0 {
			d.width = in.Width
		}
		if in.Height > 0 {
			d.height = in.Height
		}
		if in.Scale > 0 {
			d.scale = in.Scale
		}
		if in.Device == "" && (in.Width > 0 || in.Height > 0 || in.Scale > 0) && d.name != "" {
			d.name += ", resized"
		}
		c.s.device = d
		for _, t := range c.s.tabs {
			if t != c.t {
				if err := c.s.emulate(ctx, t.target()); err != nil {
					return "", err
				}
			}
		}
		text, err := c.act(ctx, false, func(ctx context.Context, tg *chromedp.Target) error {
			return c.s.emulate(ctx, tg)
		})
		if err != nil {
			return "", err
		}
		return d.describe() + "\n" + text, nil
	})
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
