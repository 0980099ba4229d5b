package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	stdmime "mime"
	"net/mail"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type draftIDInput struct {
	ID string `json:"id" jsonschema:"draft id" schema:"minLength=1"`
}

type updateDraftInput struct {
	ID string `json:"id" jsonschema:"draft id" schema:"minLength=1"`
	composeInput
}

// listDraftsInput caps max_results at 100 (Gmail allows 500): each draft is fetched on its own.
type listDraftsInput struct {
	MaxResults int    `json:"max_results,omitempty" jsonschema:"drafts per page" schema:"minimum=1,maximum=100,default=20"`
	PageToken  string `json:"page_token,omitempty" schema:"bare=true"`
}

type draftOutput struct {
	ID        string `json:"id"`
	MessageID string `json:"message_id"`
	ThreadID  string `json:"thread_id"`
	Action    string `json:"action"`
	To        string `json:"to,omitempty"`
	Cc        string `json:"cc,omitempty"`
	Subject   string `json:"subject,omitempty"`
}

// Text names who the draft goes to, so that the user can confirm it before send_draft.
func (o draftOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Draft %s %s (message %s, thread %s).", o.ID, o.Action, o.MessageID, o.ThreadID)
	if o.To != "" {
		fmt.Fprintf(&b, "\nTo: %s", o.To)
	}
	if o.Cc != "" {
		fmt.Fprintf(&b, "\nCc: %s", o.Cc)
	}
	if o.Subject != "" {
		fmt.Fprintf(&b, "\nSubject: %s", o.Subject)
	}
	return b.String()
}

type draftSummary struct {
	ID string `json:"id"`
	messageSummary
}

type listDraftsOutput struct {
	Drafts        []draftSummary `json:"drafts"`
	NextPageToken string         `json:"next_page_token,omitempty"`
}

func (o listDraftsOutput) Text() string {
	if len(o.Drafts) == 0 {
		return "No drafts."
	}
	var b strings.Builder
	for _, d := range o.Drafts {
		fmt.Fprintf(&b, "draft %s: to %s | %s\n  %s\n", d.ID, d.To, d.Subject, d.Snippet)
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "More drafts: page_token=%s", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

// Unshown: the text shows each draft's id.
func (listDraftsOutput) Unshown() map[string]string {
	return map[string]string{"drafts[].thread_id": "drafts are read, changed and sent by their id; get_draft shows the thread"}
}

type getDraftOutput struct {
	ID string `json:"id"`
	messageOutput
}

func (o getDraftOutput) Text() string { return "Draft " + o.ID + "\n" + o.messageOutput.Text() }

func addDraftTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "list_drafts", Toolset: toolsetDrafts, Title: "List drafts", ReadOnly: true, OpenWorld: true,
		Description: "List Gmail drafts with recipients, subject and snippet."}, m.listDrafts)
	kit.AddTool(s, kit.Tool{Name: "get_draft", Toolset: toolsetDrafts, Title: "Read a draft", ReadOnly: true, OpenWorld: true,
		Description: "Read one Gmail draft in full."}, m.getDraft)
	kit.AddTool(s, kit.Tool{Name: "send_draft", Toolset: toolsetDrafts, Title: "Send a draft", Destructive: true, OpenWorld: true,
		Description: "Send a Gmail draft. Irreversible: confirm with the user first."}, m.sendDraft)
	kit.AddTool(s, kit.Tool{Name: "delete_draft", Toolset: toolsetDrafts, Title: "Delete a draft", Destructive: true, Idempotent: true, OpenWorld: true,
		Description: "Delete a Gmail draft permanently."}, m.deleteDraft)
}

func (m *mailbox) createDraft(ctx context.Context, _ *mcp.CallToolRequest, in composeInput) (*mcp.CallToolResult, draftOutput, error) {
	msg, err := m.composed(ctx, in, threading{})
	if err != nil {
		return nil, draftOutput{}, err
	}
	return m.saveDraft(ctx, msg)
}

// saveDraft creates a draft holding msg (raw, and its thread when it answers one).
func (m *mailbox) saveDraft(ctx context.Context, msg *apiMessage) (*mcp.CallToolResult, draftOutput, error) {
	what := "draft"
	if msg.ThreadId != "" {
		what = "thread " + msg.ThreadId
	}
	d, err := m.gm.Users.Drafts.Create(me, &apiDraft{Message: msg}).Context(ctx).Do()
	if err != nil {
		return nil, draftOutput{}, m.google.Fail(err, what)
	}
	return nil, draftInfo(d, "created", msg), nil
}

func (m *mailbox) draftReply(ctx context.Context, _ *mcp.CallToolRequest, in replyInput) (*mcp.CallToolResult, draftOutput, error) {
	msg, err := m.replyMessage(ctx, in)
	if err != nil {
		return nil, draftOutput{}, err
	}
	return m.saveDraft(ctx, msg)
}

func (m *mailbox) draftForward(ctx context.Context, _ *mcp.CallToolRequest, in forwardInput) (*mcp.CallToolResult, draftOutput, error) {
	msg, err := m.forwardMessage(ctx, in)
	if err != nil {
		return nil, draftOutput{}, err
	}
	return m.saveDraft(ctx, msg)
}

// draftInfo describes the draft Gmail answered with, addressed as the message saved in it.
func draftInfo(d *apiDraft, action string, saved *apiMessage) draftOutput {
	out := draftOutput{ID: d.Id, Action: action}
	if d.Message != nil {
		out.MessageID, out.ThreadID = d.Message.Id, d.Message.ThreadId
	}
	out.To, out.Cc, out.Subject = addressed(saved.Raw)
	return out
}

// addressed reads the To, Cc and Subject headers of a raw (base64url RFC 822) message we
// composed; a message it cannot read gives empty ones.
func addressed(raw string) (to, cc, subject string) {
	data, err := base64.URLEncoding.DecodeString(raw)
	if err != nil {
		return "", "", ""
	}
	m, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return "", "", ""
	}
	list := func(key string) string {
		addrs, err := m.Header.AddressList(key)
		if err != nil {
			return m.Header.Get(key)
		}
		out := make([]string, len(addrs))
		for i, a := range addrs {
			out[i] = a.String()
		}
		return strings.Join(out, ", ")
	}
	subject, err = new(stdmime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		subject = m.Header.Get("Subject")
	}
	return list("To"), list("Cc"), subject
}

// readDraft gets a draft in a format ("full", "metadata").
func (m *mailbox) readDraft(ctx context.Context, id, format string) (*apiDraft, error) {
	d, err := m.gm.Users.Drafts.Get(me, id).Format(format).Context(ctx).Do()
	if err != nil {
		return nil, m.google.Fail(err, "draft "+id)
	}
	if d.Message == nil {
		d.Message = &apiMessage{}
	}
	return d, nil
}

func (m *mailbox) listDrafts(ctx context.Context, _ *mcp.CallToolRequest, in listDraftsInput) (*mcp.CallToolResult, listDraftsOutput, error) {
	call := m.gm.Users.Drafts.List(me).MaxResults(int64(in.MaxResults)).Context(ctx)
	if in.PageToken != "" {
		call.PageToken(in.PageToken)
	}
	res, err := call.Do()
	if err != nil {
		return nil, listDraftsOutput{}, m.google.Fail(err, "page_token")
	}
	out := listDraftsOutput{Drafts: []draftSummary{}, NextPageToken: res.NextPageToken}
	for _, ref := range res.Drafts {
		d, err := m.readDraft(ctx, ref.Id, "metadata")
		if err != nil {
			return nil, listDraftsOutput{}, err
		}
		out.Drafts = append(out.Drafts, draftSummary{ID: d.Id, messageSummary: summarize(d.Message)})
	}
	return nil, out, nil
}

func (m *mailbox) getDraft(ctx context.Context, _ *mcp.CallToolRequest, in draftIDInput) (*mcp.CallToolResult, getDraftOutput, error) {
	d, err := m.readDraft(ctx, in.ID, "full")
	if err != nil {
		return nil, getDraftOutput{}, err
	}
	r, err := m.render(d.Message, "text", 0, 0)
	return nil, getDraftOutput{ID: d.Id, messageOutput: r}, err
}

func (m *mailbox) updateDraft(ctx context.Context, _ *mcp.CallToolRequest, in updateDraftInput) (*mcp.CallToolResult, draftOutput, error) {
	// A draft answering a message (save_draft with message_id) stays in its thread, tied to it.
	old, err := m.readDraft(ctx, in.ID, "metadata")
	if err != nil {
		return nil, draftOutput{}, err
	}
	p := old.Message.Payload
	th := threading{threadID: old.Message.ThreadId, inReplyTo: header(p, "In-Reply-To"), references: header(p, "References")}
	msg, err := m.composed(ctx, in.composeInput, th)
	if err != nil {
		return nil, draftOutput{}, err
	}
	d, err := m.gm.Users.Drafts.Update(me, in.ID, &apiDraft{Id: in.ID, Message: msg}).Context(ctx).Do()
	if err != nil {
		return nil, draftOutput{}, m.google.Fail(err, "draft "+in.ID)
	}
	return nil, draftInfo(d, "updated", msg), nil
}

func (m *mailbox) sendDraft(ctx context.Context, req *mcp.CallToolRequest, in draftIDInput) (*mcp.CallToolResult, sentOutput, error) {
	format := "metadata"
	if confirm.Possible(ctx, req) {
		format = "full" // the question shows the body
	}
	d, err := m.readDraft(ctx, in.ID, format)
	if err != nil {
		return nil, sentOutput{}, err
	}
	p := d.Message.Payload
	if err := m.checkRecipients(splitHeaderList(header(p, "To")), splitHeaderList(header(p, "Cc")), splitHeaderList(header(p, "Bcc"))); err != nil {
		return nil, sentOutput{}, err
	}
	if err := m.confirmStrangers(ctx, req, "Send the draft "+in.ID, draftOutgoing(p), nil); err != nil {
		return nil, sentOutput{}, err
	}
	sent, err := m.gm.Users.Drafts.Send(me, &apiDraft{Id: in.ID}).Context(ctx).Do()
	if err != nil {
		return nil, sentOutput{}, m.google.Fail(err, "draft "+in.ID)
	}
	return nil, sentOutput{ID: sent.Id, ThreadID: sent.ThreadId, Action: "Sent draft " + in.ID}, nil
}

func (m *mailbox) deleteDraft(ctx context.Context, req *mcp.CallToolRequest, in draftIDInput) (*mcp.CallToolResult, draftOutput, error) {
	if confirm.Possible(ctx, req) {
		// Gmail deletes a draft for good, without the bin: the owner confirms, seeing which.
		d, err := m.readDraft(ctx, in.ID, "metadata")
		if err != nil {
			return nil, draftOutput{}, err
		}
		p := d.Message.Payload
		q := fmt.Sprintf("Delete the draft %q to %s for good? Gmail keeps no copy of a deleted draft.", header(p, "Subject"), cmp.Or(header(p, "To"), "nobody yet"))
		if err := confirm.Confirm(ctx, req, q); err != nil {
			return nil, draftOutput{}, err
		}
	}
	if err := m.gm.Users.Drafts.Delete(me, in.ID).Context(ctx).Do(); err != nil {
		return nil, draftOutput{}, m.google.Fail(err, "draft "+in.ID)
	}
	return nil, draftOutput{ID: in.ID, Action: "deleted"}, nil
}
