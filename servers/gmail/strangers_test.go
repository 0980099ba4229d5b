package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/gmail/v1"
)

// TestMailToStrangersAsksTheOwner: sending, forwarding or sending a draft to an address the
// owner has never written to (none of their Sent mail has it) asks the person behind a client
// that can ask, showing the recipients, subject, attachments and body; the mail goes when they
// accept and not when they decline. Known correspondents and a client that cannot ask are not
// asked, and the mail goes as before. Mail from an address does not make it known. A reply is
// asked about only for the addresses added in cc.
func TestMailToStrangersAsksTheOwner(t *testing.T) {
	t.Parallel()
	send := func(to string) (string, map[string]any) {
		return "send_message", map[string]any{"to": []string{to}, "subject": "Plans", "text": "See you at 6."}
	}
	forward := func(to string) (string, map[string]any) {
		return "send_message", map[string]any{"message_id": "nested", "forward": true, "to": []string{to}, "text": "FYI"}
	}
	reply := func(cc string) (string, map[string]any) {
		args := map[string]any{"message_id": "nested", "text": "Thanks"}
		if cc != "" {
			args["cc"] = []string{cc}
		}
		return "send_message", args
	}
	for _, tt := range []struct {
		name, version, action string
		call                  func(string) (string, map[string]any)
		to                    string
		want                  []string // in the question; nil: not asked
		sent                  bool
	}{
		{"a stranger, accepted", mcptest.Stateless, "accept", send, "eve@evil.example",
			[]string{"Send this message? You have never written to eve@evil.example.\n\nTo: eve@evil.example\nSubject: Plans\n\nSee you at 6."}, true},
		{"a stranger, declined", mcptest.Stateless, "decline", send, "Eve <EVE@evil.example>",
			[]string{"You have never written to eve@evil.example.", "To: Eve <EVE@evil.example>"}, false},
		{"someone who only wrote to the owner", mcptest.Stateless, "decline", send, "carol@example.com",
			[]string{"You have never written to carol@example.com."}, false},
		{"a correspondent", mcptest.Stateless, "decline", send, "bob@example.com", nil, true},
		{"the owner", mcptest.Stateless, "decline", send, "ada@example.com", nil, true},
		{"a client that cannot ask", mcptest.ProtocolVersion, "", send, "eve@evil.example", nil, true},
		{"a forward, accepted", mcptest.Stateless, "accept", forward, "eve@evil.example",
			[]string{"Forward this message? You have never written to eve@evil.example.", "Subject: Fwd: Report\n",
				"Attachment: report.pdf (2015 bytes)\n", "FYI\n\n---------- Forwarded message ---------\nFrom: Carol <carol@example.com>"}, true},
		{"a forward, declined", mcptest.Stateless, "decline", forward, "eve@evil.example", []string{"Forward this message?"}, false},
		// A reply answers someone who wrote: only the people added in cc are asked about.
		{"a reply to a first-time sender", mcptest.Stateless, "decline", reply, "", nil, true},
		{"a reply with a stranger in cc", mcptest.Stateless, "decline", reply, "eve@evil.example",
			[]string{"Send this reply? You have never written to eve@evil.example.\n\nTo: Carol <carol@example.com>\nCc: eve@evil.example\nSubject: Re: Report\n\nThanks"}, false},
		{"a reply with a correspondent in cc", mcptest.Stateless, "decline", reply, "bob@example.com", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _, h := start(t)
			f.Messages["to-bob"] = &gmail.Message{Id: "to-bob", ThreadId: "t-bob", LabelIds: []string{"SENT"},
				Payload: &gmail.MessagePart{MimeType: "text/plain", Headers: hdrs("From", "ada@example.com", "To", "Bob <bob@example.com>", "Subject", "Hi")}}
			f.Order = append(f.Order, "to-bob")
			var asked []string
			opts := &mcp.ClientOptions{}
			if tt.action != "" {
				opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, r.Params.Message)
					return &mcp.ElicitResult{Action: tt.action}, nil
				}
			}
			tool, args := tt.call(tt.to)
			res := mcptest.Call(t, h.ConnectAs(t, "", tt.version, opts), tool, args)
			if (tt.want != nil) != (len(asked) == 1) {
				t.Fatalf("asked %q, want asked: %v", asked, tt.want != nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(asked[0], w) {
					t.Errorf("the question %q does not show %q", asked[0], w)
				}
			}
			if sent := len(f.Sent) == 1; sent != tt.sent {
				t.Errorf("sent %v, want %v", sent, tt.sent)
			}
			if res.IsError == tt.sent {
				t.Errorf("answer %v %q", res.IsError, mcptest.Text(res))
			}
		})
	}
}

// TestDraftToStrangerAsksTheOwner: send_draft shows the stored draft's recipients and body,
// and a known address is looked up in Sent once, then remembered.
func TestDraftToStrangerAsksTheOwner(t *testing.T) {
	t.Parallel()
	f, _, h := start(t)
	f.Drafts["d9"] = &gmail.Draft{Id: "d9", Message: &gmail.Message{Id: "dm-d9"}}
	f.DraftView = &gmail.Message{Id: "dm-d9", Payload: &gmail.MessagePart{MimeType: "text/plain",
		Headers: hdrs("To", "eve@evil.example", "Cc", "bob@example.com", "Subject", "Keys"), Body: &gmail.MessagePartBody{Data: b64("The code is 1234.")}}}
	f.Messages["to-bob"] = &gmail.Message{Id: "to-bob", LabelIds: []string{"SENT"}, Payload: &gmail.MessagePart{Headers: hdrs("To", "bob@example.com")}}
	f.Order = append(f.Order, "to-bob")
	var asked []string
	cs := h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, r.Params.Message)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	msg := mcptest.CallError(t, cs, "send_draft", map[string]any{"id": "d9"})
	want := "Send the draft d9? You have never written to eve@evil.example.\n\nTo: eve@evil.example\nCc: bob@example.com\nSubject: Keys\n\nThe code is 1234."
	if len(asked) != 1 || asked[0] != want || !strings.Contains(msg, "declined") {
		t.Errorf("asked %q, answer %q; want %q", asked, msg, want)
	}
	if n := len(f.Calls("POST", "/drafts/send")); n != 0 {
		t.Errorf("the declined draft was sent %d times", n)
	}
	searches := 0
	for _, c := range f.Calls("GET", "/messages") {
		if q := c.Query.Get("q"); q == "in:sent {to:bob@example.com cc:bob@example.com bcc:bob@example.com}" {
			searches++
		} else if q != "in:sent {to:eve@evil.example cc:eve@evil.example bcc:eve@evil.example}" {
			t.Errorf("searched %q", q)
		}
	}
	// Two calls (the question, the answer), each checking both addresses: bob's once, then cached.
	if searches != 1 {
		t.Errorf("Sent was searched for the known address %d times, want 1", searches)
	}
}
