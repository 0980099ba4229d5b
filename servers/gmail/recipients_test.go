package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/gmail/v1"
)

// TestRecipientAllowlist tries every way gmail's tools reach someone — a new message, a reply
// (reply-all picks up the original's To and Cc), a forward, each sent or saved as a draft, a
// rewritten draft, a draft written elsewhere and sent here, a filter that forwards — with an
// address outside --allowed-recipients: each is refused with the same message, and nothing is
// sent, saved or created.
func TestRecipientAllowlist(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t, "--allowed-recipients", "ada@example.com, bob@example.com,@family.test")
	// A draft written in Gmail's own composer to an outsider.
	f.Drafts["d9"] = &gmail.Draft{Id: "d9", Message: &gmail.Message{Id: "dm-d9", ThreadId: "t-d9", Raw: b64("To: x@evil.test\r\nSubject: Hi\r\n\r\nhello")}}
	const refusal = " on this server (--allowed-recipients, MCP_ALLOWED_RECIPIENTS): leave them out, or ask the owner to add them"
	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		refused    string
	}{
		{"new to", "send_message", map[string]any{"to": []string{"x@evil.test"}, "text": "hi"}, "x@evil.test is not an allowed recipient"},
		{"new cc", "send_message", map[string]any{"to": []string{"bob@example.com"}, "cc": []string{"Eve <EVE@evil.test>"}, "text": "hi"}, "eve@evil.test is not an allowed recipient"},
		{"new bcc", "send_message", map[string]any{"to": []string{"kid@family.test"}, "bcc": []string{"x@evil.test, y@evil.test"}, "text": "hi"}, "x@evil.test, y@evil.test are not allowed recipients"},
		{"subdomain", "send_message", map[string]any{"to": []string{"kid@school.family.test"}, "text": "hi"}, "kid@school.family.test is not an allowed recipient"},
		{"reply to an outsider", "send_message", map[string]any{"message_id": "news", "text": "unsubscribe"}, "news@shop.example is not an allowed recipient"},
		{"reply-all", "send_message", map[string]any{"message_id": "th3", "reply_all": true, "text": "ok"}, "team@example.com, carol@example.com are not allowed recipients"},
		{"reply cc", "send_message", map[string]any{"message_id": "th3", "cc": []string{"x@evil.test"}, "text": "ok"}, "x@evil.test is not an allowed recipient"},
		{"forward", "send_message", map[string]any{"message_id": "nested", "forward": true, "to": []string{"x@evil.test"}}, "x@evil.test is not an allowed recipient"},
		{"draft", "save_draft", map[string]any{"to": []string{"x@evil.test"}, "text": "hi"}, "x@evil.test is not an allowed recipient"},
		{"draft reply-all", "save_draft", map[string]any{"message_id": "th3", "reply_all": true, "text": "ok"}, "team@example.com, carol@example.com are not allowed recipients"},
		{"draft forward", "save_draft", map[string]any{"message_id": "alt", "forward": true, "to": []string{"bob@example.com"}, "cc": []string{"x@evil.test"}}, "x@evil.test is not an allowed recipient"},
		{"draft rewritten", "save_draft", map[string]any{"draft_id": "d9", "to": []string{"x@evil.test"}, "text": "v2"}, "x@evil.test is not an allowed recipient"},
		{"send a draft", "send_draft", map[string]any{"id": "d9"}, "x@evil.test is not an allowed recipient"},
		{"filter forward", "create_filter", map[string]any{"from": "boss@example.com", "forward": "x@evil.test"}, "x@evil.test is not an allowed recipient"},
	} {
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		if !res.IsError || mcptest.Text(res) != tt.refused+refusal {
			t.Errorf("%s: %q, want %q", tt.name, mcptest.Text(res), tt.refused+refusal)
		}
	}
	if len(f.Sent) != 0 || len(f.Drafts) != 1 || len(f.Filters) != 0 || len(f.Calls("POST", "/drafts/send")) != 0 || len(f.Calls("PUT", "/drafts/d9")) != 0 {
		t.Fatalf("something went out: sent %d, drafts %d, filters %d, drafts.send %d", len(f.Sent), len(f.Drafts), len(f.Filters), len(f.Calls("POST", "/drafts/send")))
	}
	// The allowed ones go through: a listed address, any address at a listed domain, and a
	// reply whose reply-all stays inside.
	mcptest.CallFor[sentOutput](t, cs, "send_message", map[string]any{"to": []string{"Bob <bob@example.com>"}, "cc": []string{"kid@Family.test"}, "text": "hi"})
	mcptest.CallFor[sentOutput](t, cs, "send_message", map[string]any{"message_id": "alt", "reply_all": true, "text": "Friday works"})
	mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"message_id": "alt", "forward": true, "to": []string{"kid@family.test"}})
	if len(f.Sent) != 2 || len(f.Drafts) != 2 {
		t.Errorf("allowed mail: sent %d, drafts %d", len(f.Sent), len(f.Drafts))
	}
	// A name is not an address: the error says which tool finds one.
	if msg := mcptest.CallError(t, cs, "send_message", map[string]any{"to": []string{"Bob"}, "text": "hi"}); !strings.Contains(msg, "not an email address") {
		t.Errorf("a name as recipient: %s", msg)
	}
}
