package main

import (
	"encoding/base64"
	stdmime "mime"
	"strings"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
)

// attachmentInfo describes one attachment of a message.
type attachmentInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	PartID   string `json:"part_id"`
	InlineID string `json:"inline_id,omitempty"` // Content-ID of an inline image
}

// header returns a part's header value (case-insensitive), decoding encoded words.
func header(p *apiPart, name string) string {
	if p == nil {
		return ""
	}
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) {
			dec := new(stdmime.WordDecoder)
			if v, err := dec.DecodeHeader(h.Value); err == nil {
				return v
			}
			return h.Value
		}
	}
	return ""
}

// walk visits every part depth-first.
func walk(p *apiPart, fn func(*apiPart)) {
	if p == nil {
		return
	}
	fn(p)
	for _, c := range p.Parts {
		walk(c, fn)
	}
}

// isAttachment reports whether a part is a file rather than body text.
func isAttachment(p *apiPart) bool {
	if p.Filename != "" {
		return true
	}
	disp := strings.ToLower(header(p, "Content-Disposition"))
	return strings.HasPrefix(disp, "attachment") || p.Body != nil && p.Body.AttachmentId != "" && !strings.HasPrefix(p.MimeType, "text/")
}

// textPart returns the decoded text of the first body part of the given type.
func textPart(p *apiPart, mimeType string) (string, bool) {
	var out string
	found := false
	walk(p, func(q *apiPart) {
		if found || q.MimeType != mimeType || isAttachment(q) || q.Body == nil {
			return
		}
		data, err := base64.URLEncoding.DecodeString(padBase64(q.Body.Data))
		if err != nil {
			return
		}
		_, params, _ := stdmime.ParseMediaType(header(q, "Content-Type"))
		out, found = mime.DecodeCharset(data, params["charset"]), true
	})
	return out, found
}

// padBase64 accepts Gmail's base64url with or without padding.
func padBase64(s string) string {
	s = strings.TrimRight(s, "=")
	if n := len(s) % 4; n != 0 {
		s += strings.Repeat("=", 4-n)
	}
	return s
}

// bodyText renders a message body: "text" (plain, or the HTML as text when the plain part is
// missing or a "view in browser" stub) or "html" (the HTML part, else the plain one). It also
// says which part the text came from.
func bodyText(p *apiPart, format string) (string, string) {
	plain, hasPlain := textPart(p, "text/plain")
	html, hasHTML := textPart(p, "text/html")
	switch {
	case format == "html" && hasHTML:
		return html, "text/html"
	case format == "html":
		return plain, "text/plain"
	case hasPlain && (!hasHTML || !mime.IsStub(plain)):
		return strings.ReplaceAll(plain, "\r\n", "\n"), "text/plain"
	case hasHTML:
		return mime.HTMLToText(html), "text/html converted to text"
	}
	return "", "none"
}

// attachments lists a message's attachments.
func attachments(p *apiPart) []attachmentInfo {
	var out []attachmentInfo
	walk(p, func(q *apiPart) {
		if !isAttachment(q) || q.Body == nil || strings.HasPrefix(q.MimeType, "multipart/") {
			return
		}
		name := q.Filename
		if name == "" {
			name = "attachment-" + q.PartId
		}
		out = append(out, attachmentInfo{ID: q.Body.AttachmentId, Name: name, Type: q.MimeType, Size: q.Body.Size, PartID: q.PartId,
			InlineID: strings.Trim(header(q, "Content-ID"), "<>")})
	})
	return out
}

// page cuts text to at most limit characters starting at offset (in characters) and returns
// the piece, whether more follows, and the text's total length.
func page(text string, offset, limit int) (string, bool, int) {
	runes := []rune(text)
	total := len(runes)
	if offset >= total {
		return "", false, total
	}
	end := min(offset+limit, total)
	return string(runes[offset:end]), end < total, total
}
