package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// attachmentInput is a file to attach: a path inside --attachments-dir, or base64 content.
type attachmentInput struct {
	Path          string `json:"path,omitempty" jsonschema:"file in the attachments folder"`
	Name          string `json:"name,omitempty" jsonschema:"file name shown"`
	ContentBase64 string `json:"content_base64,omitempty" jsonschema:"bytes, base64, instead of path"`
	Type          string `json:"type,omitempty" jsonschema:"MIME type (default: from the name)"`
}

type composeInput struct {
	To          []string          `json:"to,omitempty" jsonschema:"recipients, 'Name <a@b.c>' or 'a@b.c'"`
	Cc          []string          `json:"cc,omitempty" schema:"bare=true"`
	Bcc         []string          `json:"bcc,omitempty" schema:"bare=true"`
	Subject     string            `json:"subject,omitempty" schema:"bare=true"`
	Text        string            `json:"text,omitempty" jsonschema:"plain-text body"`
	HTML        string            `json:"html,omitempty" jsonschema:"HTML body"`
	ReplyTo     []string          `json:"reply_to,omitempty" jsonschema:"Reply-To addresses"`
	Attachments []attachmentInput `json:"attachments,omitempty" jsonschema:"files to attach"`
	identityInput
}

type replyInput struct {
	MessageID   string            `json:"message_id" jsonschema:"the message to answer: an id from search_messages" schema:"minLength=1"`
	Text        string            `json:"text,omitempty" jsonschema:"plain-text reply"`
	HTML        string            `json:"html,omitempty" jsonschema:"HTML reply"`
	ReplyAll    bool              `json:"reply_all,omitempty" jsonschema:"also answer the original To and Cc"`
	Quote       bool              `json:"quote,omitempty" jsonschema:"quote the original below the reply"`
	Cc          []string          `json:"cc,omitempty" jsonschema:"extra cc recipients"`
	Attachments []attachmentInput `json:"attachments,omitempty" jsonschema:"files to attach"`
	identityInput
}

type forwardInput struct {
	MessageID string   `json:"message_id" jsonschema:"the message to forward, an id from search_messages; its attachments go along" schema:"minLength=1"`
	To        []string `json:"to" jsonschema:"recipients" schema:"minItems=1,minLength=1"`
	Cc        []string `json:"cc,omitempty" schema:"bare=true"`
	Bcc       []string `json:"bcc,omitempty" schema:"bare=true"`
	Text      string   `json:"text,omitempty" jsonschema:"a note above the forwarded message"`
	identityInput
}

type sentOutput struct {
	ID       string `json:"id"`
	ThreadID string `json:"thread_id"`
	Action   string `json:"action"`
}

func (o sentOutput) Text() string {
	return fmt.Sprintf("%s: message %s in thread %s.", o.Action, o.ID, o.ThreadID)
}

// build composes and encodes a message from the chosen identity, enforcing the recipient
// allowlist.
func (m *mailbox) build(ctx context.Context, msg mime.Message, threadID string, id identityInput) (*apiMessage, error) {
	if err := m.checkRecipients(msg.To, msg.Cc, msg.Bcc); err != nil {
		return nil, err
	}
	if err := m.applyIdentity(ctx, &msg, id); err != nil {
		return nil, err
	}
	raw, err := mime.Compose(msg)
	if err != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "%v", err)
	}
	return &apiMessage{Raw: base64.URLEncoding.EncodeToString(raw), ThreadId: threadID}, nil
}

// loadAttachments reads the files to attach, from --attachments-dir or base64.
func (m *mailbox) loadAttachments(in []attachmentInput) ([]mime.Attachment, error) {
	var out []mime.Attachment
	total := 0
	for _, a := range in {
		var data []byte
		name := a.Name
		switch {
		case a.Path != "" && a.ContentBase64 != "":
			return nil, kit.Errorf(kit.CodeInvalidInput, "attachment: give path or content_base64, not both")
		case a.Path != "":
			if m.attachmentsDir == "" {
				return nil, kit.Errorf(kit.CodeInvalidInput, "attaching local files is off on this server (--attachments-dir); send content_base64 instead")
			}
			var err error
			if data, err = m.readAttachment(a.Path); err != nil {
				return nil, err
			}
			if name == "" {
				name = filepath.Base(a.Path)
			}
		case a.ContentBase64 != "":
			var err error
			if data, err = base64.StdEncoding.DecodeString(a.ContentBase64); err != nil {
				return nil, kit.Errorf(kit.CodeInvalidInput, "attachment %s: content_base64 is not base64: %v", name, err)
			}
			if name == "" {
				return nil, kit.Errorf(kit.CodeInvalidInput, "attachment: give a name with content_base64")
			}
		default:
			return nil, kit.Errorf(kit.CodeInvalidInput, "attachment: give path or content_base64")
		}
		total += len(data)
		if total > m.maxAttachBytes {
			return nil, kit.Errorf(kit.CodeLimit, "attachments total over the %d-byte limit", m.maxAttachBytes)
		}
		out = append(out, mime.Attachment{Name: name, Type: a.Type, Data: data})
	}
	return out, nil
}

// readAttachment reads the file p, relative to --attachments-dir or absolute inside it,
// through the folder held open since the start: a symlink may lead elsewhere inside it, and
// nothing, not even one swapped in meanwhile, leads outside.
func (m *mailbox) readAttachment(p string) ([]byte, error) {
	rel, err := rootdir.Rel(p, m.attachmentsDir, m.attachmentsArg)
	if err != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "attachment %s is outside the attachments folder %s", p, m.attachmentsDir)
	}
	f, err := m.attachments.Open(rel)
	switch {
	case rootdir.Escapes(err):
		return nil, kit.Errorf(kit.CodeInvalidInput, "attachment %s is outside the attachments folder %s: a symlink on its way leads out", p, m.attachmentsDir)
	case err != nil:
		return nil, kit.Errorf(kit.CodeNotFound, "attachment %s: %v", p, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, kit.Errorf(kit.CodeInvalidInput, "attachment %s is not a regular file", p)
	}
	if info.Size() > int64(m.maxAttachBytes) {
		return nil, kit.Errorf(kit.CodeLimit, "attachment %s is %d bytes, over the %d-byte limit", p, info.Size(), m.maxAttachBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(m.maxAttachBytes)+1))
	if err != nil {
		return nil, kit.Errorf(kit.CodeUnavailable, "attachment %s: %v", p, err)
	}
	if len(data) > m.maxAttachBytes {
		return nil, kit.Errorf(kit.CodeLimit, "attachment %s grew over the %d-byte limit while being read", p, m.maxAttachBytes)
	}
	return data, nil
}

// threading places a message in a conversation: its thread and the headers that tie it to the
// message it answers.
type threading struct {
	threadID, inReplyTo, references string
}

// composed turns compose input into a message ready for Gmail, in the thread th names (none when
// zero).
func (m *mailbox) composed(ctx context.Context, in composeInput, th threading) (*apiMessage, error) {
	msg, err := m.composeMessage(in, th)
	if err != nil {
		return nil, err
	}
	return m.build(ctx, msg, th.threadID, in.identityInput)
}

// composeMessage is the message compose input describes, attachments read, not yet encoded.
func (m *mailbox) composeMessage(in composeInput, th threading) (mime.Message, error) {
	if in.Text == "" && in.HTML == "" {
		return mime.Message{}, kit.Errorf(kit.CodeInvalidInput, "give text or html")
	}
	att, err := m.loadAttachments(in.Attachments)
	if err != nil {
		return mime.Message{}, err
	}
	return mime.Message{To: in.To, Cc: in.Cc, Bcc: in.Bcc, ReplyTo: in.ReplyTo, Subject: in.Subject, Text: in.Text, HTML: in.HTML,
		InReplyTo: th.inReplyTo, References: th.references, Attach: att}, nil
}

func (m *mailbox) send(ctx context.Context, req *mcp.CallToolRequest, in composeInput) (*mcp.CallToolResult, sentOutput, error) {
	msg, err := m.composeMessage(in, threading{})
	if err != nil {
		return nil, sentOutput{}, err
	}
	if err := m.confirmStrangers(ctx, req, "Send this message", outgoingOf(msg), nil); err != nil {
		return nil, sentOutput{}, err
	}
	raw, err := m.build(ctx, msg, "", in.identityInput)
	if err != nil {
		return nil, sentOutput{}, err
	}
	return m.deliver(ctx, raw, "Sent")
}

func (m *mailbox) deliver(ctx context.Context, msg *apiMessage, action string) (*mcp.CallToolResult, sentOutput, error) {
	sent, err := m.gm.Users.Messages.Send(me, msg).Context(ctx).Do()
	if err != nil {
		return nil, sentOutput{}, m.google.Fail(err, "thread")
	}
	return nil, sentOutput{ID: sent.Id, ThreadID: sent.ThreadId, Action: action}, nil
}

func (m *mailbox) reply(ctx context.Context, req *mcp.CallToolRequest, in replyInput) (*mcp.CallToolResult, sentOutput, error) {
	msg, thread, err := m.replyMime(ctx, in)
	if err != nil {
		return nil, sentOutput{}, err
	}
	// The person answered is not asked about; the people the model adds in cc are.
	if len(in.Cc) > 0 {
		if err := m.confirmStrangers(ctx, req, "Send this reply", outgoingOf(msg), in.Cc); err != nil {
			return nil, sentOutput{}, err
		}
	}
	raw, err := m.build(ctx, msg, thread, in.identityInput)
	if err != nil {
		return nil, sentOutput{}, err
	}
	return m.deliver(ctx, raw, "Replied")
}

// replyMessage builds the answer to a message, encoded for Gmail.
func (m *mailbox) replyMessage(ctx context.Context, in replyInput) (*apiMessage, error) {
	msg, thread, err := m.replyMime(ctx, in)
	if err != nil {
		return nil, err
	}
	return m.build(ctx, msg, thread, in.identityInput)
}

// replyMime is the answer to a message: recipients, Re: subject, In-Reply-To, References and
// the quote, and the thread it goes in.
func (m *mailbox) replyMime(ctx context.Context, in replyInput) (mime.Message, string, error) {
	if in.Text == "" && in.HTML == "" {
		return mime.Message{}, "", kit.Errorf(kit.CodeInvalidInput, "give text or html")
	}
	orig, err := m.fetch(ctx, in.MessageID, "text")
	if err != nil {
		return mime.Message{}, "", err
	}
	p := orig.Payload
	to := header(p, "Reply-To")
	if to == "" {
		to = header(p, "From")
	}
	self := m.myAddress(ctx)
	// A reply to one's own message goes to its original recipients.
	if addrs, _ := mime.ParseAddresses([]string{to}); len(addrs) == 1 && addrs[0] == self && header(p, "To") != "" {
		to = header(p, "To")
	}
	toList := []string{to}
	cc := append([]string{}, in.Cc...)
	if in.ReplyAll {
		seen := map[string]bool{self: true}
		for _, a := range mustAddrs(toList) {
			seen[a] = true
		}
		for _, field := range []string{"To", "Cc"} {
			for _, a := range mustAddrs(splitHeaderList(header(p, field))) {
				if !seen[a] {
					seen[a] = true
					cc = append(cc, a)
				}
			}
		}
	}
	subject := header(p, "Subject")
	if !strings.HasPrefix(strings.ToLower(subject), "re:") {
		subject = "Re: " + subject
	}
	msgID := header(p, "Message-ID")
	refs := strings.TrimSpace(header(p, "References") + " " + msgID)
	text, html := in.Text, in.HTML
	if in.Quote {
		body, _ := bodyText(p, "text")
		intro := fmt.Sprintf("On %s, %s wrote:", header(p, "Date"), header(p, "From"))
		quoted := "> " + strings.ReplaceAll(strings.TrimRight(body, "\n"), "\n", "\n> ")
		if text != "" {
			text += "\n\n" + intro + "\n" + quoted + "\n"
		}
		if html != "" {
			origHTML, _ := bodyText(p, "html")
			html += "<br><div class=\"gmail_quote\">" + intro + "<blockquote>" + origHTML + "</blockquote></div>"
		}
	}
	att, err := m.loadAttachments(in.Attachments)
	if err != nil {
		return mime.Message{}, "", err
	}
	return mime.Message{To: toList, Cc: cc, Subject: subject, Text: text, HTML: html, InReplyTo: msgID, References: refs, Attach: att}, orig.ThreadId, nil
}

func (m *mailbox) forward(ctx context.Context, req *mcp.CallToolRequest, in forwardInput) (*mcp.CallToolResult, sentOutput, error) {
	msg, thread, err := m.forwardMime(ctx, in)
	if err != nil {
		return nil, sentOutput{}, err
	}
	if err := m.confirmStrangers(ctx, req, "Forward this message", outgoingOf(msg), nil); err != nil {
		return nil, sentOutput{}, err
	}
	raw, err := m.build(ctx, msg, thread, in.identityInput)
	if err != nil {
		return nil, sentOutput{}, err
	}
	return m.deliver(ctx, raw, "Forwarded")
}

func (m *mailbox) forwardMessage(ctx context.Context, in forwardInput) (*apiMessage, error) {
	msg, thread, err := m.forwardMime(ctx, in)
	if err != nil {
		return nil, err
	}
	return m.build(ctx, msg, thread, in.identityInput)
}

// forwardMime is the forward of a message, its attachments along, and the thread it goes in.
func (m *mailbox) forwardMime(ctx context.Context, in forwardInput) (mime.Message, string, error) {
	if err := m.checkRecipients(in.To, in.Cc, in.Bcc); err != nil {
		return mime.Message{}, "", err
	}
	orig, err := m.fetch(ctx, in.MessageID, "text")
	if err != nil {
		return mime.Message{}, "", err
	}
	p := orig.Payload
	body, _ := bodyText(p, "text")
	text := fmt.Sprintf("%s\n\n---------- Forwarded message ---------\nFrom: %s\nDate: %s\nSubject: %s\nTo: %s\n\n%s",
		in.Text, header(p, "From"), header(p, "Date"), header(p, "Subject"), header(p, "To"), body)
	var att []mime.Attachment
	total := 0
	for _, a := range attachments(p) {
		total += int(a.Size)
		if total > m.maxAttachBytes {
			return mime.Message{}, "", kit.Errorf(kit.CodeLimit, "the attachments total over the %d-byte limit; forward without them by sending a new message", m.maxAttachBytes)
		}
		data, err := m.download(ctx, orig.Id, a.ID, a.Size)
		if err != nil {
			return mime.Message{}, "", err
		}
		att = append(att, mime.Attachment{Name: a.Name, Type: a.Type, Data: data})
	}
	subject := header(p, "Subject")
	if !strings.HasPrefix(strings.ToLower(subject), "fwd:") {
		subject = "Fwd: " + subject
	}
	// Like Gmail's own forward, it stays in the original's conversation.
	msgID := header(p, "Message-ID")
	refs := strings.TrimSpace(header(p, "References") + " " + msgID)
	return mime.Message{To: in.To, Cc: in.Cc, Bcc: in.Bcc, Subject: subject, Text: strings.TrimLeft(text, "\n"), InReplyTo: msgID, References: refs, Attach: att}, orig.ThreadId, nil
}

func splitHeaderList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	return []string{v}
}

func mustAddrs(list []string) []string {
	out, _ := mime.ParseAddresses(list)
	return out
}
