package main

import (
	"encoding/base64"
	"io"
	stdmime "mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/gmail/v1"
)

func start(t *testing.T, extra ...string) (*googlefake.Gmail, *mcp.ClientSession, *mcptest.Harness) {
	f := newFakeGmail(t)
	args := append(signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour)), extra...)
	h := mcptest.Start(t, spec(), args...)
	return f, h.Connect(t, ""), h
}

func TestSearchPaging(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	out, _ := mcptest.CallFor[searchOutput](t, cs, "search_messages", map[string]any{"query": "in:inbox newer_than:7d", "max_results": 5})
	if len(out.Messages) != 5 || out.NextPageToken != "p5" || out.Estimate != 8 {
		t.Fatalf("page 1: %d messages, token %q", len(out.Messages), out.NextPageToken)
	}
	alt := out.Messages[0]
	if alt.ID != "alt" || alt.ThreadID != "t-alt" || alt.From != "Bob <bob@example.com>" || alt.Subject != "Lunch" || alt.Date != "2026-03-02T09:30:00Z" ||
		!slices.Equal(alt.Labels, []string{"INBOX", "UNREAD"}) || alt.HasAttachments || alt.Snippet != "Lunch on Friday?" {
		t.Errorf("hit %+v", alt)
	}
	if out.Messages[1].Subject != "Spécial offers" || !out.Messages[3].HasAttachments {
		t.Errorf("decoded subject %q, nested has_attachments %v", out.Messages[1].Subject, out.Messages[3].HasAttachments)
	}
	out2, _ := mcptest.CallFor[searchOutput](t, cs, "search_messages", map[string]any{"query": "in:inbox newer_than:7d", "max_results": 5, "page_token": out.NextPageToken})
	if len(out2.Messages) != 3 || out2.NextPageToken != "" || out2.Messages[2].ID != "th3" {
		t.Errorf("page 2: %+v", out2)
	}
	if q := f.Calls("GET", "/messages")[0].Query.Get("q"); q != "in:inbox newer_than:7d" {
		t.Errorf("query sent %q", q)
	}
}

func TestGetMessageBodies(t *testing.T) {
	t.Parallel()
	_, cs, _ := start(t)
	tests := []struct {
		id, format string
		body       string
		source     string
	}{
		{"alt", "", "Hi Ada,\nlunch on Friday?\nBob", "text/plain"},
		{"alt", "html", "<p>Hi Ada,</p><p>lunch on <b>Friday</b>?</p>", "text/html"},
		{"news", "", "This week\n\n50% off everything (https://shop.example/sale)", "text/html converted to text"},
		{"stub", "", "The real content", "text/html converted to text"},
		{"latin1", "", "Grüße aus Köln", "text/plain"},
		{"nested", "", "Report attached.", "text/plain"},
		{"alt", "raw", "From: Bob <bob@example.com>\r\nSubject: raw\r\n\r\nraw body", "raw"},
	}
	for _, tt := range tests {
		args := map[string]any{"id": tt.id}
		if tt.format != "" { // absent: the schema's default, text
			args["format"] = tt.format
		}
		out, _ := mcptest.CallFor[messageOutput](t, cs, "get_message", args)
		if out.Body != tt.body || out.BodySource != tt.source || out.Truncated {
			t.Errorf("%s/%s: body %q from %q, want %q from %q", tt.id, tt.format, out.Body, out.BodySource, tt.body, tt.source)
		}
	}
	out, _ := mcptest.CallFor[messageOutput](t, cs, "get_message", map[string]any{"id": "nested"})
	want := []attachmentInfo{{ID: "att-logo", Name: "attachment-1.1", Type: "image/png", Size: 4, PartID: "1.1", InlineID: "logo"},
		{ID: "att-pdf", Name: "report.pdf", Type: "application/pdf", Size: int64(len(pdfBytes)), PartID: "2"}}
	if !slices.Equal(out.Attachments, want) {
		t.Errorf("attachments %+v", out.Attachments)
	}
	// Paging a body: a marker and the offset to continue from.
	page1, res := mcptest.CallFor[messageOutput](t, cs, "get_message", map[string]any{"id": "alt", "max_chars": 10})
	if page1.Body != "Hi Ada,\nlu" || !page1.Truncated || page1.BodyTotal != 28 || !strings.Contains(mcptest.Text(res), "[… truncated: 18 more characters; call get_message with id=alt offset=10]") {
		t.Errorf("page 1 %+v\n%s", page1, mcptest.Text(res))
	}
	page2, _ := mcptest.CallFor[messageOutput](t, cs, "get_message", map[string]any{"id": "alt", "offset": 10, "max_chars": 100})
	if page2.Body != "nch on Friday?\nBob" || page2.Truncated {
		t.Errorf("page 2 %+v", page2)
	}
	res = mcptest.Call(t, cs, "get_message", map[string]any{"id": "nope"})
	if !res.IsError || mcptest.Text(res) != "message nope not found" {
		t.Errorf("missing message: %s", mcptest.Text(res))
	}
}

func TestGetThread(t *testing.T) {
	t.Parallel()
	_, cs, _ := start(t)
	out, _ := mcptest.CallFor[threadOutput](t, cs, "get_thread", map[string]any{"id": "t3"})
	var bodies, froms []string
	for _, m := range out.Messages {
		bodies, froms = append(bodies, m.Body), append(froms, m.From)
	}
	if !slices.Equal(bodies, []string{"Shall we meet?", "Yes, Tuesday.", "Tuesday it is."}) || !slices.Equal(froms, []string{"bob@example.com", "ada@example.com", "bob@example.com"}) {
		t.Errorf("thread %v %v", bodies, froms)
	}
}

func TestGetAttachment(t *testing.T) {
	t.Parallel()
	_, cs, _ := start(t, "--inline-attachment-bytes", "1024", "--max-attachment-bytes", "1048576")
	out, res := mcptest.CallFor[attachmentOutput](t, cs, "get_attachment", map[string]any{"message_id": "nested", "attachment_id": "att-logo"})
	var blob []byte
	for _, c := range res.Content {
		if r, ok := c.(*mcp.EmbeddedResource); ok {
			blob = r.Resource.Blob
		}
	}
	if !out.Inline || string(blob) != "\x89PNG" {
		t.Errorf("inline attachment %+v, blob %q", out, blob)
	}
	out, _ = mcptest.CallFor[attachmentOutput](t, cs, "get_attachment", map[string]any{"message_id": "nested", "attachment_id": "att-pdf"})
	data, err := os.ReadFile(out.Path)
	if err != nil || string(data) != string(pdfBytes) || out.Inline || filepath.Base(out.Path) != "nested-2-report.pdf" {
		t.Errorf("saved attachment %+v: %v", out, err)
	}
	_, cs2, _ := start(t, "--max-attachment-bytes", "1024", "--inline-attachment-bytes", "512")
	res = mcptest.Call(t, cs2, "get_attachment", map[string]any{"message_id": "nested", "attachment_id": "att-pdf"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "over the 1024-byte limit") {
		t.Errorf("cap: %s", mcptest.Text(res))
	}
}

// readRaw parses what the server handed Gmail: headers and decoded leaf parts by type or filename.
func readRaw(t *testing.T, m *gmail.Message) (mail.Header, map[string]string) {
	t.Helper()
	raw, err := base64.URLEncoding.DecodeString(m.Raw)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	var walkParts func(ct, cte, name string, r io.Reader)
	walkParts = func(ct, cte, name string, r io.Reader) {
		mt, params, _ := stdmime.ParseMediaType(ct)
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(r, params["boundary"])
			for {
				p, err := mr.NextRawPart()
				if err != nil {
					return
				}
				_, dp, _ := stdmime.ParseMediaType(p.Header.Get("Content-Disposition"))
				walkParts(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), dp["filename"], p)
			}
		}
		switch cte {
		case "base64":
			r = base64.NewDecoder(base64.StdEncoding, r)
		case "quoted-printable":
			r = quotedPrintable(r)
		}
		b, _ := io.ReadAll(r)
		if name == "" {
			name = mt
		}
		parts[name] = string(b)
	}
	walkParts(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), "", msg.Body)
	return msg.Header, parts
}

func TestSendAfter429(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	f.FailNext("POST /gmail/v1/users/me/messages/send", 1, http.StatusTooManyRequests)
	out, _ := mcptest.CallFor[sentOutput](t, cs, "send_message", map[string]any{"to": []string{"Bob <bob@example.com>"}, "bcc": []string{"eve@example.com"},
		"subject": "Plans", "text": "See you at 8.", "html": "<p>See you at <b>8</b>.</p>", "reply_to": []string{"ada+r@example.com"},
		"attachments": []map[string]any{{"name": "plan.txt", "content_base64": base64.StdEncoding.EncodeToString([]byte("step 1"))}}})
	if hits := f.Hits("POST /gmail/v1/users/me/messages/send"); out.ID != "sent1" || hits != 2 || len(f.Sent) != 1 {
		t.Fatalf("sent %+v after %d hits", out, hits)
	}
	h, parts := readRaw(t, f.Sent[0])
	if h.Get("To") != `"Bob" <bob@example.com>` || h.Get("Bcc") != "<eve@example.com>" || h.Get("Subject") != "Plans" || h.Get("Reply-To") != "<ada+r@example.com>" {
		t.Errorf("headers %v", h)
	}
	if parts["text/plain"] != "See you at 8." || parts["text/html"] != "<p>See you at <b>8</b>.</p>" || parts["plan.txt"] != "step 1" {
		t.Errorf("parts %q", parts)
	}
}

func TestDraftsLabelsFiltersModifyProfile(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	d, _ := mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"to": []string{"bob@example.com"}, "subject": "Draft", "text": "v1"})
	if d.ID != "d1" {
		t.Fatalf("draft %+v", d)
	}
	mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"draft_id": "d1", "to": []string{"bob@example.com"}, "subject": "Draft v2", "text": "v2"})
	h, parts := readRaw(t, f.Drafts["d1"].Message)
	if h.Get("Subject") != "Draft v2" || parts["text/plain"] != "v2" {
		t.Errorf("updated draft %v %q", h, parts)
	}
	list, _ := mcptest.CallFor[listDraftsOutput](t, cs, "list_drafts", nil)
	if len(list.Drafts) != 1 || list.Drafts[0].ID != "d1" {
		t.Errorf("drafts %+v", list)
	}
	got, _ := mcptest.CallFor[getDraftOutput](t, cs, "get_draft", map[string]any{"id": "d1"})
	if got.ID != "d1" || got.Subject != "Lunch" {
		t.Errorf("get_draft %+v", got)
	}
	sent, _ := mcptest.CallFor[sentOutput](t, cs, "send_draft", map[string]any{"id": "d1"})
	if sent.ID != "sent-d1" {
		t.Errorf("send_draft %+v", sent)
	}
	mcptest.CallFor[draftOutput](t, cs, "delete_draft", map[string]any{"id": "d1"})
	if len(f.Drafts) != 0 {
		t.Errorf("draft not deleted")
	}

	mod, _ := mcptest.CallFor[modifyOutput](t, cs, "modify_messages", map[string]any{"ids": []string{"alt", "nested"}, "add_labels": []string{"receipts", "STARRED"}, "remove_labels": []string{"INBOX", "UNREAD"}})
	req := f.Modified[0]
	if mod.Modified != 2 || !slices.Equal(req.Ids, []string{"alt", "nested"}) || !slices.Equal(req.AddLabelIds, []string{"Label_7", "STARRED"}) || !slices.Equal(req.RemoveLabelIds, []string{"INBOX", "UNREAD"}) {
		t.Errorf("modify %+v → %+v", mod, req)
	}
	res := mcptest.Call(t, cs, "modify_messages", map[string]any{"ids": make([]string, 1001), "add_labels": []string{"STARRED"}})
	if !res.IsError || mcptest.Text(res) != "invalid arguments: ids must have at most 1000 items, not 1001" {
		t.Errorf("1001 ids: %s", mcptest.Text(res))
	}

	lbl, _ := mcptest.CallFor[labelOutput](t, cs, "edit_label", map[string]any{"action": "create", "label": "Projects/Apollo"})
	ren, _ := mcptest.CallFor[labelOutput](t, cs, "edit_label", map[string]any{"action": "rename", "label": "projects/apollo", "new_name": "Projects/Artemis"})
	if lbl.ID != f.Labels[3].Id || lbl.ID == "" || ren.Name != "Projects/Artemis" {
		t.Errorf("labels %+v %+v", lbl, ren)
	}
	res = mcptest.Call(t, cs, "edit_label", map[string]any{"action": "delete", "label": "INBOX"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "system label") {
		t.Errorf("delete INBOX: %s", mcptest.Text(res))
	}
	labels, _ := mcptest.CallFor[listLabelsOutput](t, cs, "list_labels", nil)
	if len(labels.Labels) != 4 {
		t.Errorf("labels %+v", labels)
	}

	fl, _ := mcptest.CallFor[filterOutput](t, cs, "create_filter", map[string]any{"from": "news@shop.example", "add_labels": []string{"Receipts"}, "remove_labels": []string{"INBOX"}})
	if fl.ID != "f1" || fl.From != "news@shop.example" || !slices.Equal(fl.AddLabels, []string{"Label_7"}) {
		t.Errorf("filter %+v", fl)
	}
	fls, _ := mcptest.CallFor[listFiltersOutput](t, cs, "list_filters", nil)
	if len(fls.Filters) != 1 || fls.Filters[0].String() != "f1: from=news@shop.example → +Label_7 -INBOX" {
		t.Errorf("filters %+v", fls)
	}
	mcptest.CallFor[filterOutput](t, cs, "delete_filter", map[string]any{"id": "f1"})

	p, _ := mcptest.CallFor[profileOutput](t, cs, "get_gmail_profile", nil)
	if p.Email != "ada@example.com" || p.MessagesTotal != 1234 || p.ThreadsTotal != 567 || !strings.HasPrefix(p.SignIn, "ok: ada@example.com") {
		t.Errorf("profile %+v", p)
	}
}

func TestNoCredentials(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec(), googletest.SignedOut(t)...)
	cs := h.Connect(t, "")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 18 {
		t.Fatalf("tools/list without credentials: %d tools, %v", len(tools.Tools), err)
	}
	googletest.CheckSignedOut(t, h, "gmail", map[string]map[string]any{"search_messages": {}, "get_gmail_profile": {}, "send_message": {"to": []string{"a@b.c"}, "text": "x"}})
}

func TestRevokedSignIn(t *testing.T) {
	t.Parallel()
	f := newFakeGmail(t)
	var refreshes atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refreshes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`)
	}))
	defer tokenSrv.Close()
	h := mcptest.Start(t, spec(), signIn(t, f, tokenSrv.URL, time.Now().Add(-time.Hour))...)
	cs := h.Connect(t, "")
	for range 2 {
		res := mcptest.Call(t, cs, "search_messages", map[string]any{})
		if !res.IsError || mcptest.Text(res) != "Google sign-in for ada@example.com was revoked or expired: run `gmail auth login`" {
			t.Errorf("revoked: %q", mcptest.Text(res))
		}
	}
	if refreshes.Load() != 1 {
		t.Errorf("%d refresh attempts, want 1", refreshes.Load())
	}
	if c := h.Server.Health(t.Context()).Checks["google token"]; c.Status != "fail" || !strings.HasPrefix(c.Detail, "revoked: ") {
		t.Errorf("health %+v", c)
	}
}

func TestReadOnlyTools(t *testing.T) {
	t.Parallel()
	_, _, h := start(t, "--read-only")
	want := []string{"get_attachment", "get_draft", "get_gmail_profile", "get_message", "get_thread", "list_drafts", "list_filters", "list_labels", "list_send_as", "search_messages"}
	if got := h.Server.ToolNames(); !slices.Equal(got, want) {
		t.Errorf("read-only tools %v", got)
	}
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: []string{"--state-dir", t.TempDir()}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, "--state-dir", t.TempDir(), "--toolsets", "all") // the toolsets off by default too
}
