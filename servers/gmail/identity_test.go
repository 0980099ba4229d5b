package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/gmail/v1"
)

const (
	primarySig = `<div>Ada Lovelace<br>Analyst</div>`
	workSig    = `<div><b>Ada L.</b> | Engines Ltd</div>`
)

// withIdentities gives the fake account a primary address and two aliases, one not verified.
func withIdentities(f *googlefake.Gmail) {
	f.SendAs = []*gmail.SendAs{
		{SendAsEmail: "ada@example.com", DisplayName: "Ada Lovelace", IsPrimary: true, IsDefault: true, Signature: primarySig},
		{SendAsEmail: "ada@work.example", DisplayName: "Ada (Work)", ReplyToAddress: "team@work.example", TreatAsAlias: true, VerificationStatus: "accepted", Signature: workSig},
		{SendAsEmail: "ada@new.example", VerificationStatus: "pending"},
	}
}

func TestListSendAs(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	withIdentities(f)
	out, res := mcptest.CallFor[listSendAsOutput](t, cs, "list_send_as", nil)
	want := []sendAsInfo{
		{Email: "ada@example.com", Name: "Ada Lovelace", Primary: true, Default: true, Status: "accepted", Signature: "Ada Lovelace\nAnalyst"},
		{Email: "ada@work.example", Name: "Ada (Work)", ReplyTo: "team@work.example", Status: "accepted", Signature: "Ada L. | Engines Ltd"},
		{Email: "ada@new.example", Status: "pending"},
	}
	if !slices.Equal(out.Addresses, want) {
		t.Errorf("send-as %+v", out.Addresses)
	}
	if !strings.Contains(mcptest.Text(res), "Ada (Work) <ada@work.example> [signature]") {
		t.Errorf("text %q", mcptest.Text(res))
	}
}

func TestSendFromAliasWithSignature(t *testing.T) {
	t.Parallel()
	type want struct {
		from, replyTo string
		text, html    string // suffixes of the parts; "" = the part is absent
	}
	tests := []struct {
		name string
		tool string
		args map[string]any
		want want
	}{
		{
			name: "alias: its name, reply-to and signature in both parts",
			tool: "send_message",
			args: map[string]any{"to": []string{"bob@example.com"}, "subject": "Hi", "text": "Hello.", "html": "<p>Hello.</p>", "from": "ADA@work.example"},
			want: want{from: `"Ada (Work)" <ada@work.example>`, replyTo: "<team@work.example>", text: "Hello.\r\n\r\n-- \r\nAda L. | Engines Ltd",
				html: `<p>Hello.</p><br clear="all"><div><br></div><span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">` + workSig + `</div>`},
		},
		{
			name: "no from: Gmail's sender, the default identity's signature",
			tool: "send_message",
			args: map[string]any{"to": []string{"bob@example.com"}, "text": "Hello."},
			want: want{text: "Hello.\r\n\r\n-- \r\nAda Lovelace\r\nAnalyst"},
		},
		{
			name: "no_signature",
			tool: "send_message",
			args: map[string]any{"to": []string{"bob@example.com"}, "text": "Hello.", "from": "ada@work.example", "no_signature": true},
			want: want{from: `"Ada (Work)" <ada@work.example>`, replyTo: "<team@work.example>", text: "Hello."},
		},
		{
			name: "explicit reply_to wins over the alias's",
			tool: "save_draft",
			args: map[string]any{"to": []string{"bob@example.com"}, "text": "Hello.", "from": "ada@work.example", "reply_to": []string{"me@example.com"}},
			want: want{from: `"Ada (Work)" <ada@work.example>`, replyTo: "<me@example.com>", text: "Hello.\r\n\r\n-- \r\nAda L. | Engines Ltd"},
		},
		{
			name: "reply draft from an alias: signature below the quote",
			tool: "save_draft",
			args: map[string]any{"message_id": "alt", "text": "Yes!", "quote": true, "from": "ada@work.example"},
			want: want{from: `"Ada (Work)" <ada@work.example>`, replyTo: "<team@work.example>", text: "> Bob\r\n\r\n-- \r\nAda L. | Engines Ltd"},
		},
		{
			name: "forward from an alias",
			tool: "send_message",
			args: map[string]any{"message_id": "alt", "forward": true, "to": []string{"dan@example.com"}, "from": "ada@work.example"},
			want: want{from: `"Ada (Work)" <ada@work.example>`, replyTo: "<team@work.example>", text: "Bob\r\n\r\n-- \r\nAda L. | Engines Ltd"},
		},
		{
			name: "a body that only quotes the signature still gets it",
			tool: "send_message",
			args: map[string]any{"to": []string{"bob@example.com"}, "text": "New.\n\n> -- \n> Ada Lovelace\n> Analyst"},
			want: want{text: "> Analyst\r\n\r\n-- \r\nAda Lovelace\r\nAnalyst"},
		},
		{
			name: "a rewritten draft that holds the signature does not get it twice",
			tool: "save_draft",
			args: map[string]any{"to": []string{"bob@example.com"}, "text": "v2\n\n-- \nAda Lovelace\nAnalyst"},
			want: want{text: "v2\r\n\r\n-- \r\nAda Lovelace\r\nAnalyst"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, cs, _ := start(t)
			withIdentities(f)
			res := mcptest.Call(t, cs, tt.tool, tt.args)
			if res.IsError {
				t.Fatalf("%s", mcptest.Text(res))
			}
			var msg *gmail.Message
			if len(f.Sent) == 1 {
				msg = f.Sent[0]
			} else {
				msg = f.Drafts["d1"].Message
			}
			h, parts := readRaw(t, msg)
			if h.Get("From") != tt.want.from || h.Get("Reply-To") != tt.want.replyTo {
				t.Errorf("From %q Reply-To %q, want %q %q", h.Get("From"), h.Get("Reply-To"), tt.want.from, tt.want.replyTo)
			}
			if !strings.HasSuffix(parts["text/plain"], tt.want.text) || strings.Count(parts["text/plain"], "\r\n-- \r\n") > 1 {
				t.Errorf("text part %q, want it to end %q", parts["text/plain"], tt.want.text)
			}
			if got, ok := parts["text/html"]; ok != (tt.want.html != "") || !strings.HasSuffix(got, tt.want.html) {
				t.Errorf("html part %q, want %q", got, tt.want.html)
			}
		})
	}
}

func TestSendAsMistakes(t *testing.T) {
	t.Parallel()
	f, cs, _ := start(t)
	withIdentities(f)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		// Gmail would silently send from the primary address instead: the server refuses first.
		{"send_message", map[string]any{"to": []string{"bob@example.com"}, "text": "x", "from": "boss@example.com"}, "boss@example.com is not a send-as address of this account; list_send_as shows them"},
		{"send_message", map[string]any{"message_id": "alt", "text": "x", "from": "ada@new.example"}, "ada@new.example is not verified yet (pending): confirm it from the mail Gmail sent it, then try again"},
		{"save_draft", map[string]any{"message_id": "alt", "forward": true, "to": []string{"dan@example.com"}, "from": "not an address"}, `from "not an address" is not an email address`},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		if !res.IsError || mcptest.Text(res) != tt.want {
			t.Errorf("%s: %q, want %q", tt.tool, mcptest.Text(res), tt.want)
		}
	}
	if len(f.Sent)+len(f.Drafts) != 0 {
		t.Errorf("sent %d, drafted %d", len(f.Sent), len(f.Drafts))
	}
	// Without from and with no_signature, Gmail's settings are not read at all.
	mcptest.CallFor[sentOutput](t, cs, "send_message", map[string]any{"to": []string{"bob@example.com"}, "text": "x", "no_signature": true})
	if n := len(f.Calls("GET", "/settings/sendAs")); n != 2 {
		t.Errorf("%d sendAs reads, want 2 (the alias checks only)", n)
	}
}

func TestAppendSignature(t *testing.T) {
	t.Parallel()
	const block = `<span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">` + workSig + `</div>`
	tests := []struct {
		name, sig          string
		text, html         string
		wantText, wantHTML string
	}{
		{"both parts", workSig, "Hi.\n", "<p>Hi.</p>", "Hi.\n\n-- \nAda L. | Engines Ltd", `<p>Hi.</p><br clear="all"><div><br></div>` + block},
		{"html only: the text part is derived later", workSig, "", "<p>Hi.</p>", "", `<p>Hi.</p><br clear="all"><div><br></div>` + block},
		{"html already ending with it", workSig, "", `<p>Hi.</p><br clear="all"><div><br></div>` + block + "\n", "", `<p>Hi.</p><br clear="all"><div><br></div>` + block + "\n"},
		{"text already ending with it (CRLF)", workSig, "Hi.\r\n\r\n-- \r\nAda L. | Engines Ltd\r\n", "", "Hi.\r\n\r\n-- \r\nAda L. | Engines Ltd\r\n", ""},
		{"image-only signature: nothing in the text part", `<img src="https://x.example/logo.png">`, "Hi.", "", "Hi.", ""},
	}
	for _, tt := range tests {
		msg := mime.Message{Text: tt.text, HTML: tt.html}
		appendSignature(&msg, tt.sig)
		if msg.Text != tt.wantText || msg.HTML != tt.wantHTML {
			t.Errorf("%s: text %q html %q, want %q %q", tt.name, msg.Text, msg.HTML, tt.wantText, tt.wantHTML)
		}
	}
}
