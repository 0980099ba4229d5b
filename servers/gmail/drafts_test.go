package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/gmail/v1"
)

// TestReplyAndForwardDrafts: a reply or forward saved as a draft is the message the send tools
// would send — same thread, headers, recipients, quote and attachments — only not sent.
func TestReplyAndForwardDrafts(t *testing.T) {
	t.Parallel()
	sent := func(f *googlefake.Gmail) *gmail.Message { return f.Sent[0] }
	drafted := func(f *googlefake.Gmail) *gmail.Message { return f.Drafts["d1"].Message }
	reply := map[string]any{"message_id": "th2", "text": "Works for me.", "reply_all": true, "quote": true}
	forward := map[string]any{"message_id": "nested", "forward": true, "to": []string{"dan@example.com"}, "text": "FYI"}
	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		stored func(*googlefake.Gmail) *gmail.Message
		thread string
		check  func(t *testing.T, h map[string]string, parts map[string]string)
	}{
		{"reply", "send_message", reply, sent, "t3", checkReply},
		{"draft reply", "save_draft", reply, drafted, "t3", checkReply},
		{"forward", "send_message", forward, sent, "t-nested", checkForward},
		{"draft forward", "save_draft", forward, drafted, "t-nested", checkForward},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, cs, _ := start(t)
			res := mcptest.Call(t, cs, tt.tool, tt.args)
			if res.IsError {
				t.Fatalf("%s: %s", tt.tool, mcptest.Text(res))
			}
			msg := tt.stored(f)
			if msg.ThreadId != tt.thread {
				t.Errorf("thread %q, want %q", msg.ThreadId, tt.thread)
			}
			h, parts := readRaw(t, msg)
			flat := map[string]string{}
			for k := range h {
				flat[k] = h.Get(k)
			}
			tt.check(t, flat, parts)
			if tt.tool == "save_draft" && (len(f.Sent) != 0 || !strings.Contains(mcptest.Text(res), "thread "+tt.thread)) {
				t.Errorf("draft sent %d messages; said %q", len(f.Sent), mcptest.Text(res))
			}
		})
	}
}

func checkReply(t *testing.T, h, parts map[string]string) {
	t.Helper()
	if h["In-Reply-To"] != "<th2@mail.example.com>" || h["References"] != "<th1@mail.example.com> <th2@mail.example.com>" || h["Subject"] != "Re: Meeting" {
		t.Errorf("reply headers %v", h)
	}
	// th2 is from ada herself: the reply goes to its recipients, ada at most once.
	all := h["To"] + ", " + h["Cc"]
	if strings.Count(all, "ada@example.com") > 1 || !strings.Contains(all, "carol@example.com") || !strings.Contains(all, "team@example.com") {
		t.Errorf("reply-all recipients to=%q cc=%q", h["To"], h["Cc"])
	}
	if !strings.HasPrefix(parts["text/plain"], "Works for me.\r\n\r\nOn ") || !strings.Contains(parts["text/plain"], "> Yes, Tuesday.") {
		t.Errorf("quoted reply %q", parts["text/plain"])
	}
}

func checkForward(t *testing.T, h, parts map[string]string) {
	t.Helper()
	if h["Subject"] != "Fwd: Report" || h["To"] != "<dan@example.com>" || h["In-Reply-To"] != "<nested@mail.example.com>" || h["References"] != "<nested@mail.example.com>" {
		t.Errorf("forward headers %v", h)
	}
	if parts["report.pdf"] != string(pdfBytes) || parts["attachment-1.1"] != "\x89PNG" ||
		!strings.Contains(parts["text/plain"], "FYI\r\n\r\n---------- Forwarded message ---------\r\nFrom: Carol <carol@example.com>") {
		t.Errorf("forward parts %q", parts["text/plain"])
	}
}

func TestReplyDraftMistakes(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t, "--allowed-recipients", "@example.com")
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		// A thread id where a message id belongs: Gmail answers 404 for the message.
		{"save_draft", map[string]any{"message_id": "t3", "text": "ok"}, "message t3 not found"},
		{"save_draft", map[string]any{"message_id": "th2"}, "give text or html"},
		{"save_draft", map[string]any{"message_id": "alt", "forward": true, "to": []string{"x@evil.test"}}, "x@evil.test is not an allowed recipient on this server (--allowed-recipients, MCP_ALLOWED_RECIPIENTS): leave them out, or ask the owner to add them"},
		{"save_draft", map[string]any{"message_id": "alt", "forward": true}, "a forward needs to: the recipients"},
		{"edit_label", map[string]any{"action": "rename", "label": "Receipts"}, "action rename needs new_name"},
		{"edit_label", map[string]any{"action": "delete", "label": "Receipts", "new_name": "X"}, "new_name is only for action rename"},
		{"send_message", map[string]any{"message_id": "alt", "forward": true, "to": []string{}}, "a forward needs to: the recipients"},
		// Fields the kind of message does not take are refused, naming them.
		{"save_draft", map[string]any{"message_id": "th2", "text": "ok", "subject": "New", "bcc": []string{"a@example.com"}}, "a reply does not take bcc, subject: it answers the sender (reply_all: everyone) under the thread's subject; add people with cc, or send a new message without message_id"},
		{"save_draft", map[string]any{"message_id": "alt", "forward": true, "to": []string{"dan@example.com"}, "quote": true}, "a forward does not take quote: it keeps the original's subject and attachments, with text as a plain note"},
		{"save_draft", map[string]any{"to": []string{"bob@example.com"}, "text": "ok", "reply_all": true}, "reply_all only apply with message_id, the message to answer or forward"},
		{"save_draft", map[string]any{"draft_id": "d1", "message_id": "th2", "text": "ok"}, "draft_id replaces a draft with a new message (its thread is kept): leave out message_id, forward, reply_all and quote"},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		if !res.IsError || mcptest.Text(res) != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, mcptest.Text(res), tt.want)
		}
	}
	if len(f.Drafts) != 0 {
		t.Errorf("drafts saved: %v", f.Drafts)
	}
}

// TestUpdateReplyDraftKeepsThread: rewriting a reply draft keeps it in the thread, answering the
// same message, as Gmail's composer does.
func TestUpdateReplyDraftKeepsThread(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	d, _ := mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"message_id": "th2", "text": "Maybe."})
	out, _ := mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"draft_id": d.ID, "to": []string{"bob@example.com"}, "subject": "Re: Meeting", "text": "Yes."})
	msg := f.Drafts[d.ID].Message
	h, parts := readRaw(t, msg)
	if out.ThreadID != "t3" || msg.ThreadId != "t3" || h.Get("In-Reply-To") != "<th2@mail.example.com>" || h.Get("References") != "<th1@mail.example.com> <th2@mail.example.com>" || parts["text/plain"] != "Yes." {
		t.Errorf("updated reply draft: thread %q/%q, headers %v, text %q", out.ThreadID, msg.ThreadId, h, parts["text/plain"])
	}
	// A draft of a new message has no message to answer.
	n, _ := mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"to": []string{"bob@example.com"}, "text": "v1"})
	mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"draft_id": n.ID, "to": []string{"bob@example.com"}, "text": "v2"})
	if h, _ := readRaw(t, f.Drafts[n.ID].Message); h.Get("In-Reply-To") != "" || h.Get("References") != "" {
		t.Errorf("new draft got reply headers %v", h)
	}
	res := mcptest.Call(t, cs, "save_draft", map[string]any{"draft_id": "d99", "to": []string{"bob@example.com"}, "text": "x"})
	if !res.IsError || mcptest.Text(res) != "draft d99 not found" {
		t.Errorf("missing draft: %q", mcptest.Text(res))
	}
}
