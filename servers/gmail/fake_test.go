package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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

// fakeGmail is the Gmail API over HTTP, answering the production client.
type fakeGmail struct {
	t        *testing.T
	srv      *httptest.Server
	msgs     map[string]*gmail.Message
	order    []string
	mu       sync.Mutex
	sent     []*gmail.Message
	modified []*gmail.BatchModifyMessagesRequest
	drafts   map[string]*gmail.Draft
	filters  []*gmail.Filter
	labels   []*gmail.Label
	queries  []string
	fail429  int // answer this many send calls with 429 first
	sendHits int
}

func newFakeGmail(t *testing.T) *fakeGmail {
	f := &fakeGmail{t: t, msgs: fixtures(), drafts: map[string]*gmail.Draft{},
		order:  []string{"alt", "news", "stub", "nested", "latin1", "th1", "th2", "th3"},
		labels: []*gmail.Label{{Id: "INBOX", Name: "INBOX", Type: "system"}, {Id: "UNREAD", Name: "UNREAD", Type: "system"}, {Id: "Label_7", Name: "Receipts", Type: "user"}}}
	mux := http.NewServeMux()
	const base = "/gmail/v1/users/me"
	mux.HandleFunc("GET "+base+"/profile", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, &gmail.Profile{EmailAddress: "ada@example.com", MessagesTotal: 1234, ThreadsTotal: 567, HistoryId: 89})
	})
	mux.HandleFunc("GET "+base+"/messages", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.queries = append(f.queries, r.URL.Query().Get("q"))
		f.mu.Unlock()
		start := 0
		if pt := r.URL.Query().Get("pageToken"); pt != "" {
			_, _ = fmt.Sscanf(pt, "p%d", &start)
		}
		n := 100
		_, _ = fmt.Sscan(r.URL.Query().Get("maxResults"), &n)
		res := &gmail.ListMessagesResponse{ResultSizeEstimate: int64(len(f.order))}
		for i := start; i < len(f.order) && i < start+n; i++ {
			res.Messages = append(res.Messages, &gmail.Message{Id: f.order[i], ThreadId: f.msgs[f.order[i]].ThreadId})
		}
		if start+n < len(f.order) {
			res.NextPageToken = fmt.Sprintf("p%d", start+n)
		}
		f.json(w, res)
	})
	mux.HandleFunc("GET "+base+"/messages/{id}", func(w http.ResponseWriter, r *http.Request) {
		m, ok := f.msgs[r.PathValue("id")]
		if !ok {
			f.notFound(w)
			return
		}
		if r.URL.Query().Get("format") == "raw" {
			f.json(w, &gmail.Message{Id: m.Id, Raw: b64("From: " + header(m.Payload, "From") + "\r\nSubject: raw\r\n\r\nraw body")})
			return
		}
		f.json(w, m)
	})
	mux.HandleFunc("GET "+base+"/messages/{id}/attachments/{aid}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("aid") {
		case "att-pdf":
			f.json(w, &gmail.MessagePartBody{Data: base64.URLEncoding.EncodeToString(pdfBytes), Size: int64(len(pdfBytes))})
		case "att-logo":
			f.json(w, &gmail.MessagePartBody{Data: base64.URLEncoding.EncodeToString([]byte("\x89PNG")), Size: 4})
		default:
			f.notFound(w)
		}
	})
	mux.HandleFunc("GET "+base+"/threads/{id}", func(w http.ResponseWriter, r *http.Request) {
		th := &gmail.Thread{Id: r.PathValue("id")}
		for _, id := range f.order {
			if f.msgs[id].ThreadId == th.Id {
				th.Messages = append(th.Messages, f.msgs[id])
			}
		}
		if len(th.Messages) == 0 {
			f.notFound(w)
			return
		}
		f.json(w, th)
	})
	mux.HandleFunc("POST "+base+"/messages/send", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.sendHits++
		if f.fail429 > 0 {
			f.fail429--
			f.mu.Unlock()
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"error":{"code":429,"message":"Too many concurrent requests for user","errors":[{"reason":"rateLimitExceeded"}]}}`)
			return
		}
		f.mu.Unlock()
		var m gmail.Message
		f.decode(r, &m)
		f.mu.Lock()
		f.sent = append(f.sent, &m)
		n := len(f.sent)
		f.mu.Unlock()
		thread := m.ThreadId
		if thread == "" {
			thread = fmt.Sprintf("t-sent%d", n)
		}
		f.json(w, &gmail.Message{Id: fmt.Sprintf("sent%d", n), ThreadId: thread, LabelIds: []string{"SENT"}})
	})
	mux.HandleFunc("POST "+base+"/messages/batchModify", func(w http.ResponseWriter, r *http.Request) {
		var req gmail.BatchModifyMessagesRequest
		f.decode(r, &req)
		f.mu.Lock()
		f.modified = append(f.modified, &req)
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+base+"/labels", func(w http.ResponseWriter, r *http.Request) { f.json(w, &gmail.ListLabelsResponse{Labels: f.labels}) })
	mux.HandleFunc("POST "+base+"/labels", func(w http.ResponseWriter, r *http.Request) {
		var l gmail.Label
		f.decode(r, &l)
		l.Id, l.Type = "Label_9", "user"
		f.labels = append(f.labels, &l)
		f.json(w, &l)
	})
	mux.HandleFunc("PATCH "+base+"/labels/{id}", func(w http.ResponseWriter, r *http.Request) {
		var l gmail.Label
		f.decode(r, &l)
		for _, x := range f.labels {
			if x.Id == r.PathValue("id") {
				x.Name = l.Name
				f.json(w, x)
				return
			}
		}
		f.notFound(w)
	})
	mux.HandleFunc("DELETE "+base+"/labels/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("POST "+base+"/drafts", func(w http.ResponseWriter, r *http.Request) {
		var d gmail.Draft
		f.decode(r, &d)
		d.Id = fmt.Sprintf("d%d", len(f.drafts)+1)
		d.Message.Id, d.Message.ThreadId = "dm-"+d.Id, "t-"+d.Id
		f.drafts[d.Id] = &d
		f.json(w, &d)
	})
	mux.HandleFunc("PUT "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request) {
		var d gmail.Draft
		f.decode(r, &d)
		if f.drafts[r.PathValue("id")] == nil {
			f.notFound(w)
			return
		}
		d.Id, d.Message.Id, d.Message.ThreadId = r.PathValue("id"), "dm2-"+r.PathValue("id"), "t-"+r.PathValue("id")
		f.drafts[d.Id] = &d
		f.json(w, &d)
	})
	mux.HandleFunc("GET "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request) {
		if f.drafts[r.PathValue("id")] == nil {
			f.notFound(w)
			return
		}
		f.json(w, &gmail.Draft{Id: r.PathValue("id"), Message: f.msgs["alt"]})
	})
	mux.HandleFunc("GET "+base+"/drafts", func(w http.ResponseWriter, r *http.Request) {
		res := &gmail.ListDraftsResponse{}
		for id := range f.drafts {
			res.Drafts = append(res.Drafts, &gmail.Draft{Id: id})
		}
		f.json(w, res)
	})
	mux.HandleFunc("POST "+base+"/drafts/send", func(w http.ResponseWriter, r *http.Request) {
		var d gmail.Draft
		f.decode(r, &d)
		f.json(w, &gmail.Message{Id: "sent-" + d.Id, ThreadId: "t-" + d.Id})
	})
	mux.HandleFunc("DELETE "+base+"/drafts/{id}", func(w http.ResponseWriter, r *http.Request) {
		delete(f.drafts, r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+base+"/settings/filters", func(w http.ResponseWriter, r *http.Request) { f.json(w, &gmail.ListFiltersResponse{Filter: f.filters}) })
	mux.HandleFunc("POST "+base+"/settings/filters", func(w http.ResponseWriter, r *http.Request) {
		var fl gmail.Filter
		f.decode(r, &fl)
		fl.Id = "f1"
		f.filters = append(f.filters, &fl)
		f.json(w, &fl)
	})
	mux.HandleFunc("DELETE "+base+"/settings/filters/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake Gmail: unexpected %s %s", r.Method, r.URL)
		f.notFound(w)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer live-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGmail) json(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeGmail) decode(r *http.Request, v any) {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		f.t.Errorf("fake Gmail: bad request body: %v", err)
	}
}

func (f *fakeGmail) notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"code":404,"message":"Requested entity was not found."}}`)
}

// signIn writes a client JSON (token endpoint tokenURL) and a token file; it returns the flags
// that point the server at them and at the fake.
func signIn(t *testing.T, f *fakeGmail, tokenURL string, expiry time.Time) []string {
	t.Helper()
	args := googletest.SignIn(t, tokenURL, expiry, "https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic")
	return append(args, "--gmail-endpoint", f.srv.URL+"/")
}
