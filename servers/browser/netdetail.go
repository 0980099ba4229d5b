package main

import (
	"context"
	"fmt"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
)

// Caps of what one request's detail shows.
const (
	maxBodyBytes   = 8000 // of the response body, and of the request body
	maxHeaderValue = 500  // of one header's value
)

// requestDetail describes request #n of the tab's network list: its headers, the request
// body, and the response body as text, or what it is when it is binary.
func (c *call) requestDetail(ctx context.Context, n int) (string, error) {
	c.t.mu.Lock()
	var r netRequest
	found, latest := false, false
	for _, x := range c.t.requests {
		if x.n == n {
			r, found = *x, true
			latest = c.t.byRequest[x.id] == x
		}
	}
	first := 0
	if len(c.t.requests) > 0 {
		first = c.t.requests[0].n
	}
	c.t.mu.Unlock()
	if !found {
		if n < first {
			return "", kit.Errorf(kit.CodeNotFound, "request #%d is no longer kept (the tab keeps the last %d); list them with kind network", n, maxRequests)
		}
		return "", kit.Errorf(kit.CodeNotFound, "no request #%d in tab %s; list them with kind network", n, c.t.id)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s\nType: %s\n", r.n, r.method, r.url, r.kind)
	switch {
	case r.failed != "":
		fmt.Fprintf(&b, "Failed: %s\n", r.failed)
	case r.status != 0:
		fmt.Fprintf(&b, "Status: %d %s\n", r.status, r.statusText)
	default:
		b.WriteString("Status: no response yet\n")
	}
	if r.blockedGuard != "" {
		fmt.Fprintf(&b, "Blocked by the private-network guard: %s\n", r.blockedGuard)
	}
	reqHeaders := r.reqHeaders
	if r.afterSecret {
		reqHeaders = withholdCredentials(reqHeaders)
	}
	writeHeaders(&b, "Request headers", c.cleanHeaders(reqHeaders))
	if r.hasPostData && r.afterSecret {
		b.WriteString("Request body: withheld (sent after a secret was typed in this tab)\n")
	} else if r.hasPostData {
		res, err := onAnySession(ctx, c.t, func(tg *chromedp.Target) (network.GetRequestPostDataResult, error) {
			return cdp.Call(ctx, tg, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: r.id})
		})
		if err != nil {
			b.WriteString("Request body: not available from the browser\n")
		} else {
			writeBody(&b, "Request body", []byte(c.clean(string(res.PostData))), headerValue(r.reqHeaders, "Content-Type"))
		}
	}
	writeHeaders(&b, "Response headers", c.cleanHeaders(r.respHeaders))
	switch {
	case r.failed != "" || r.status == 0:
	case !latest || r.status >= 300 && r.status < 400 && headerValue(r.respHeaders, "Location") != "":
		b.WriteString("Response body: none (a redirect)\n")
	case !r.done:
		b.WriteString("Response body: still loading; ask again\n")
	default:
		res, err := onAnySession(ctx, c.t, func(tg *chromedp.Target) (network.GetResponseBodyResult, error) {
			return cdp.Call(ctx, tg, network.GetResponseBody, network.GetResponseBodyParams{RequestID: r.id})
		})
		if err != nil {
			b.WriteString("Response body: no longer kept by the browser (it keeps recent bodies only)\n")
		} else {
			body := res.Body
			if isText(body, r.mime) {
				body = []byte(c.clean(string(body)))
			}
			writeBody(&b, "Response body", body, r.mime)
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// onAnySession runs a Network command in the tab's page session and, when that does not know
// the request, in the sessions of its out-of-process iframes, whose requests join the tab's.
func onAnySession[R any](ctx context.Context, t *tab, fn func(tg *chromedp.Target) (R, error)) (R, error) {
	res, err := fn(t.target())
	if err == nil {
		return res, nil
	}
	for _, fs := range t.oopifs {
		if fs.ctx.Err() != nil {
			continue
		}
		if r, ferr := fn(fs.tg); ferr == nil {
			return r, nil
		}
	}
	return res, err
}

func writeHeaders(b *strings.Builder, title string, h network.Headers) {
	if len(h) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, k := range names {
		v := fmt.Sprint(h[k])
		if len(v) > maxHeaderValue {
			v = v[:maxHeaderValue] + fmt.Sprintf("… (%d bytes)", len(v))
		}
		// Repeated headers (Set-Cookie) come joined by newlines.
		for line := range strings.SplitSeq(v, "\n") {
			fmt.Fprintf(b, "  %s: %s\n", k, line)
		}
	}
}

// headerValue returns a header by name, whatever its case.
func headerValue(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// writeBody writes a body as text, capped, or says it is binary with its size and type.
func writeBody(b *strings.Builder, title string, body []byte, contentType string) {
	if len(body) == 0 {
		fmt.Fprintf(b, "%s: empty\n", title)
		return
	}
	if !isText(body, contentType) {
		if contentType == "" {
			contentType = "unknown type"
		}
		fmt.Fprintf(b, "%s: binary, %d bytes, %s\n", title, len(body), contentType)
		return
	}
	if len(body) <= maxBodyBytes {
		fmt.Fprintf(b, "%s (%d bytes):\n%s\n", title, len(body), body)
		return
	}
	cut := maxBodyBytes
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	fmt.Fprintf(b, "%s (first %d of %d bytes):\n%s\n", title, cut, len(body), body[:cut])
}

// isText reports whether a body of this content type is text worth showing.
func isText(body []byte, contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case strings.HasPrefix(mt, "image/svg"), strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"),
		mt == "application/json", mt == "application/xml", mt == "application/javascript",
		mt == "application/x-www-form-urlencoded", mt == "application/graphql":
		return !slices.Contains(body[:min(len(body), 4096)], 0)
	case mt == "" || mt == "application/octet-stream":
		probe := body[:min(len(body), 4096)]
		if slices.Contains(probe, 0) {
			return false
		}
		// The probe may end inside a rune: drop up to three bytes of it.
		for i := 0; i < 4 && len(probe) > 0; i++ {
			if utf8.Valid(probe) {
				return true
			}
			probe = probe[:len(probe)-1]
		}
		return false
	}
	return false
}

// withholdCredentials is h with the values of the headers that carry credentials withheld.
func withholdCredentials(h network.Headers) network.Headers {
	out := make(network.Headers, len(h))
	for k, v := range h {
		switch strings.ToLower(k) {
		case "authorization", "proxy-authorization", "cookie":
			v = "(withheld: sent after a secret was typed in this tab)"
		}
		out[k] = v
	}
	return out
}

// cleanHeaders is h with the owner's secrets redacted from its values.
func (c *call) cleanHeaders(h network.Headers) network.Headers {
	if len(h) == 0 || c.m.opts.secrets.scrub == nil {
		return h
	}
	out := make(network.Headers, len(h))
	for k, v := range h {
		out[k] = c.clean(fmt.Sprint(v))
	}
	return out
}
