package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxImageBytes caps a screenshot; bigger ones are re-taken as JPEG and then scaled down.
const maxImageBytes = 800 << 10

type screenshotInput struct {
	where
	Ref      string `json:"ref,omitempty" jsonschema:"element only"`
	FullPage bool   `json:"full_page,omitempty" schema:"bare=true"`
	Format   string `json:"format,omitempty" schema:"enum=png|jpeg|pdf,default=png,bare=true"`
}

func addScreenshot(s *kit.Server, m *manager) {
	addTool(s, m, kit.Tool{
		Name:        "browser_screenshot",
		Toolset:     toolsetBrowse,
		Description: "Screenshot the viewport, full page or a ref, or save a PDF; to read a page browser_snapshot is cheaper.",
		ReadOnly:    true,
		OpenWorld:   true,
		Timeout:     actionTimeout,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in screenshotInput) (*mcp.CallToolResult, pageOut, error) {
		c, release, err := m.acquire(ctx, in.where, "")
		if err != nil {
			return nil, pageOut{}, err
		}
		defer release()
		out := pageOut{Tab: c.t.id}
		if _, visible, err := c.secretShown(ctx); err != nil {
			return nil, pageOut{}, c.browserErr(err)
		} else if visible {
			return nil, pageOut{}, kit.Errorf(kit.CodeInvalidInput, "%v", errSecretShown)
		}
		if in.Format == "pdf" {
			text, err := c.pdf(ctx)
			if err != nil {
				return nil, pageOut{}, c.browserErr(err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
		}
		img, mime, note, err := c.screenshot(ctx, in)
		if err != nil {
			return nil, pageOut{}, c.browserErr(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: img, MIMEType: mime},
			&mcp.TextContent{Text: fmt.Sprintf("%s screenshot, %d bytes%s", mime, len(img), note)},
		}}, out, nil
	})
}

func (c *call) screenshot(ctx context.Context, in screenshotInput) ([]byte, string, string, error) {
	format := page.CaptureScreenshotFormatPng
	if in.Format == "jpeg" { // the schema admits png (the default), jpeg and pdf, which never gets here
		format = page.CaptureScreenshotFormatJpeg
	}
	tg := c.t.target()
	var clip *page.Viewport
	switch {
	case in.Ref != "":
		id, etg, err := c.element(ctx, in.Ref)
		if err != nil {
			return nil, "", "", err
		}
		_, _ = cdp.Call(ctx, etg, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id.id})
		box, err := cdp.Call(ctx, etg, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: id.id})
		if err != nil || box.Model == nil {
			return nil, "", "", kit.Errorf(kit.CodeInvalidInput, "element %s has no box to capture", in.Ref)
		}
		// An element of an out-of-process iframe has its box in the frame's viewport.
		fx, fy, err := c.t.frameOffset(ctx, id.sess)
		if err != nil {
			return nil, "", "", err
		}
		q := box.Model.Border
		x0, y0 := min(q[0], q[2], q[4], q[6])+fx, min(q[1], q[3], q[5], q[7])+fy
		x1, y1 := max(q[0], q[2], q[4], q[6])+fx, max(q[1], q[3], q[5], q[7])+fy
		lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
		if err == nil && lm.CSSVisualViewport != nil {
			x0 += lm.CSSVisualViewport.PageX
			x1 += lm.CSSVisualViewport.PageX
			y0 += lm.CSSVisualViewport.PageY
			y1 += lm.CSSVisualViewport.PageY
		}
		clip = &page.Viewport{X: x0, Y: y0, Width: math.Max(x1-x0, 1), Height: math.Max(y1-y0, 1), Scale: 1}
	case in.FullPage:
		lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, "", "", err
		}
		w, h := lm.CSSContentSize.Width, math.Min(lm.CSSContentSize.Height, 16000)
		clip = &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}
	}
	// A device with more than one pixel per CSS pixel would give a bigger image whose pixels are
	// not the viewport's coordinates; scaled back, a screenshot's x,y are what click takes.
	if dpr := c.s.device.scale; dpr > 0 && dpr != 1 {
		if clip == nil {
			lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
			if err != nil || lm.CSSVisualViewport == nil {
				return nil, "", "", kit.Errorf(kit.CodeUnavailable, "the page has no viewport")
			}
			v := lm.CSSVisualViewport
			clip = &page.Viewport{X: v.PageX, Y: v.PageY, Width: v.ClientWidth, Height: v.ClientHeight}
		}
		clip.Scale = 1 / dpr
	}
	note := ""
	for attempt := 0; ; attempt++ {
		p := page.CaptureScreenshotParams{Format: format, Clip: clip, CaptureBeyondViewport: ptr(clip != nil)}
		if format == page.CaptureScreenshotFormatJpeg {
			p.Quality = ptr(int64(75))
		}
		res, err := cdp.Call(ctx, tg, page.CaptureScreenshot, p)
		if err != nil {
			return nil, "", "", err
		}
		if len(res.Data) <= maxImageBytes || attempt >= 4 {
			mime := "image/png"
			if format == page.CaptureScreenshotFormatJpeg {
				mime = "image/jpeg"
			}
			return res.Data, mime, note, nil
		}
		if format == page.CaptureScreenshotFormatPng {
			format = page.CaptureScreenshotFormatJpeg
			note = " (JPEG: the PNG was over the size cap)"
			continue
		}
		if clip == nil {
			lm, err := cdp.Call(ctx, tg, page.GetLayoutMetrics, cdp.Empty{})
			if err != nil || lm.CSSVisualViewport == nil {
				return nil, "", "", kit.Errorf(kit.CodeLimit, "the screenshot is over %d bytes", maxImageBytes)
			}
			v := lm.CSSVisualViewport
			clip = &page.Viewport{X: v.PageX, Y: v.PageY, Width: v.ClientWidth, Height: v.ClientHeight, Scale: 1}
		}
		clip.Scale /= 2
		note = fmt.Sprintf(" (scaled to %.0f%% to fit the size cap)", clip.Scale*100)
	}
}

// pdf saves the page as a PDF in the session's downloads directory.
func (c *call) pdf(ctx context.Context) (string, error) {
	res, err := cdp.Call(ctx, c.t.target(), page.PrintToPDF, page.PrintToPDFParams{PrintBackground: ptr(true)})
	if err != nil {
		return "", err
	}
	name := safeFileName(c.t.state(ctx).title)
	if name == "" {
		name = "page"
	}
	dir, err := c.m.folders.downloads.OpenRoot(c.s.downloadName)
	if rootdir.Escapes(err) || errors.Is(err, syscall.ELOOP) {
		return "", kit.Errorf(kit.CodeUnavailable, "saving the PDF: the session's folder %s is now a symlink leading outside the downloads folder, or was swapped for one while the PDF was saved; nothing was saved", c.s.downloadDir)
	}
	if err != nil {
		return "", kit.Errorf(kit.CodeInternal, "saving the PDF: %v", err)
	}
	defer dir.Close()
	file := fmt.Sprintf("%s-%s.pdf", name, time.Now().Format("20060102-150405"))
	saved, _, err := rootdir.Save(dir, file, bytes.NewReader(res.Data), int64(len(res.Data)), 0o640, rootdir.NextFree)
	if err != nil {
		return "", kit.Errorf(kit.CodeInternal, "saving the PDF: %v", err)
	}
	return fmt.Sprintf("Saved a PDF of %d bytes to %s", len(res.Data), filepath.Join(c.s.downloadDir, saved)), nil
}
