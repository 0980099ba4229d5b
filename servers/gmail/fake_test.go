package main

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"google.golang.org/api/gmail/v1"
)

func b64(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }

func hdrs(kv ...string) []*gmail.MessagePartHeader {
	var out []*gmail.MessagePartHeader
	for i := 0; i < len(kv); i += 2 {
		out = append(out, &gmail.MessagePartHeader{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

func textPartOf(typ, charset, body string) *gmail.MessagePart {
	return &gmail.MessagePart{MimeType: typ, Headers: hdrs("Content-Type", typ+"; charset="+charset), Body: &gmail.MessagePartBody{Data: b64(body), Size: int64(len(body))}}
}

// pdfBytes is the attachment the nested fixture carries.
var pdfBytes = []byte("%PDF-1.4\n" + strings.Repeat("x", 2000) + "\n%%EOF")

// fixtures are realistic Gmail API messages.
func fixtures() map[string]*gmail.Message {
	date := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC).UnixMilli()
	top := func(typ string, h []*gmail.MessagePartHeader, parts ...*gmail.MessagePart) *gmail.MessagePart {
		return &gmail.MessagePart{MimeType: typ, Headers: h, Body: &gmail.MessagePartBody{}, Parts: parts}
	}
	msgs := map[string]*gmail.Message{
		"alt": {Id: "alt", ThreadId: "t-alt", LabelIds: []string{"INBOX", "UNREAD"}, Snippet: "Lunch on Friday?", InternalDate: date,
			Payload: top("multipart/alternative", hdrs("From", "Bob <bob@example.com>", "To", "ada@example.com", "Subject", "Lunch", "Message-ID", "<alt@mail.example.com>", "Date", "Mon, 2 Mar 2026 09:30:00 +0000"),
				textPartOf("text/plain", "UTF-8", "Hi Ada,\r\nlunch on Friday?\r\nBob"), textPartOf("text/html", "UTF-8", "<p>Hi Ada,</p><p>lunch on <b>Friday</b>?</p>"))},
		"news": {Id: "news", ThreadId: "t-news", LabelIds: []string{"CATEGORY_PROMOTIONS"}, Snippet: "This week", InternalDate: date,
			Payload: &gmail.MessagePart{MimeType: "text/html", Headers: hdrs("From", "News <news@shop.example>", "To", "ada@example.com", "Subject", "=?UTF-8?Q?Sp=C3=A9cial_offers?=", "Content-Type", "text/html; charset=UTF-8"),
				Body: &gmail.MessagePartBody{Data: b64(`<html><head><style>.x{}</style></head><body><h1>This week</h1><p>50% off <a href="https://shop.example/sale">everything</a></p></body></html>`)}}},
		"stub": {Id: "stub", ThreadId: "t-stub", InternalDate: date,
			Payload: top("multipart/alternative", hdrs("From", "x@example.com", "Subject", "Stub"),
				textPartOf("text/plain", "UTF-8", "View this email in your browser: https://ex.com/v"), textPartOf("text/html", "UTF-8", "<p>The real content</p>"))},
		"nested": {Id: "nested", ThreadId: "t-nested", LabelIds: []string{"INBOX"}, InternalDate: date,
			Payload: top("multipart/mixed", hdrs("From", "Carol <carol@example.com>", "To", "ada@example.com", "Subject", "Report", "Message-ID", "<nested@mail.example.com>"),
				top("multipart/related", nil,
					top("multipart/alternative", nil, textPartOf("text/plain", "UTF-8", "Report attached."), textPartOf("text/html", "UTF-8", "<p>Report attached.</p>")),
					&gmail.MessagePart{PartId: "1.1", MimeType: "image/png", Headers: hdrs("Content-ID", "<logo>", "Content-Disposition", "inline"), Body: &gmail.MessagePartBody{AttachmentId: "att-logo", Size: 4}}),
				&gmail.MessagePart{PartId: "2", MimeType: "application/pdf", Filename: "report.pdf", Headers: hdrs("Content-Disposition", `attachment; filename="report.pdf"`), Body: &gmail.MessagePartBody{AttachmentId: "att-pdf", Size: int64(len(pdfBytes))}})},
		"latin1": {Id: "latin1", ThreadId: "t-latin1", InternalDate: date,
			Payload: &gmail.MessagePart{MimeType: "text/plain", Headers: hdrs("From", "Jürgen <j@example.de>", "Subject", "Gruss", "Content-Type", "text/plain; charset=ISO-8859-1"),
				Body: &gmail.MessagePartBody{Data: base64.URLEncoding.EncodeToString([]byte("Gr\xfc\xdfe aus K\xf6ln"))}}},
	}
	for i, body := range []string{"Shall we meet?", "Yes, Tuesday.", "Tuesday it is."} {
		id := fmt.Sprintf("th%d", i+1)
		msgs[id] = &gmail.Message{Id: id, ThreadId: "t3", InternalDate: date + int64(i)*3600000, LabelIds: []string{"INBOX"},
			Payload: &gmail.MessagePart{MimeType: "text/plain", Headers: hdrs("From", []string{"bob@example.com", "ada@example.com", "bob@example.com"}[i], "To", "ada@example.com, team@example.com", "Cc", "carol@example.com", "Subject", "Meeting", "Message-ID", fmt.Sprintf("<th%d@mail.example.com>", i+1)),
				Body: &gmail.MessagePartBody{Data: b64(body)}}}
	}
	msgs["th2"].Payload.Headers = append(msgs["th2"].Payload.Headers, hdrs("References", "<th1@mail.example.com>", "In-Reply-To", "<th1@mail.example.com>")...)
	return msgs
}

// newFakeGmail is the Gmail fake holding the fixtures.
func newFakeGmail(t *testing.T) *googlefake.Gmail {
	f := googlefake.NewGmail(t)
	f.Profile = &gmail.Profile{EmailAddress: "ada@example.com", MessagesTotal: 1234, ThreadsTotal: 567, HistoryId: 89}
	f.Messages, f.DraftView = fixtures(), fixtures()["alt"]
	f.Order = []string{"alt", "news", "stub", "nested", "latin1", "th1", "th2", "th3"}
	f.Attachments = map[string][]byte{"att-pdf": pdfBytes, "att-logo": []byte("\x89PNG")}
	f.Labels = []*gmail.Label{{Id: "INBOX", Name: "INBOX", Type: "system"}, {Id: "UNREAD", Name: "UNREAD", Type: "system"}, {Id: "Label_7", Name: "Receipts", Type: "user"}}
	return f
}

// signIn writes a client JSON (token endpoint tokenURL) and a token file; it returns the flags
// that point the server at them and at the fake.
func signIn(t *testing.T, f *googlefake.Gmail, tokenURL string, expiry time.Time) []string {
	t.Helper()
	args := googletest.SignIn(t, tokenURL, expiry, "https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic")
	return append(args, "--gmail-endpoint", f.URL+"/")
}
