package main

import (
	"context"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// composeArgs is what send_message and save_draft take: a new message, or with message_id a
// reply to that message, or with forward too a forward of it. One tool per outcome (sent or
// saved) instead of one per kind of message: the model reads the shared fields once.
type composeArgs struct {
	MessageID string `json:"message_id,omitempty" jsonschema:"message to reply to or forward" schema:"minLength=1"`
	Forward   bool   `json:"forward,omitempty" jsonschema:"forward message_id; text is a note"`
	ReplyAll  bool   `json:"reply_all,omitempty" jsonschema:"reply to the original To and Cc too"`
	Quote     bool   `json:"quote,omitempty" jsonschema:"quote the original below the reply"`
	composeInput
}

// draftArgs is save_draft's input: composeArgs, or with draft_id a new version of that draft.
type draftArgs struct {
	DraftID string `json:"draft_id,omitempty" jsonschema:"replace this draft, keeping its thread" schema:"minLength=1"`
	composeArgs
}

// misplaced names the given fields that the kind of message does not take.
func misplaced(fields map[string]bool) string {
	var names []string
	for _, n := range []string{"to", "bcc", "subject", "html", "reply_to", "attachments", "reply_all", "quote", "forward", "message_id"} {
		if fields[n] {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// kind says which message the arguments describe ("new", "reply" or "forward") and refuses
// fields that do not apply to it, saying which and why.
func (c composeArgs) kind() (string, error) {
	in := c.composeInput
	switch {
	case c.MessageID == "":
		if bad := misplaced(map[string]bool{"forward": c.Forward, "reply_all": c.ReplyAll, "quote": c.Quote}); bad != "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s only apply with message_id, the message to answer or forward", bad)
		}
		return "new", nil
	case c.Forward:
		if bad := misplaced(map[string]bool{"subject": in.Subject != "", "html": in.HTML != "", "reply_to": len(in.ReplyTo) > 0, "attachments": len(in.Attachments) > 0, "reply_all": c.ReplyAll, "quote": c.Quote}); bad != "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "a forward does not take %s: it keeps the original's subject and attachments, with text as a plain note", bad)
		}
		if len(in.To) == 0 {
			return "", kit.Errorf(kit.CodeInvalidInput, "a forward needs to: the recipients")
		}
		return "forward", nil
	default:
		if bad := misplaced(map[string]bool{"to": len(in.To) > 0, "bcc": len(in.Bcc) > 0, "subject": in.Subject != "", "reply_to": len(in.ReplyTo) > 0}); bad != "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "a reply does not take %s: it answers the sender (reply_all: everyone) under the thread's subject; add people with cc, or send a new message without message_id", bad)
		}
		return "reply", nil
	}
}

func (c composeArgs) reply() replyInput {
	return replyInput{MessageID: c.MessageID, Text: c.Text, HTML: c.HTML, ReplyAll: c.ReplyAll, Quote: c.Quote, Cc: c.Cc, Attachments: c.Attachments, identityInput: c.identityInput}
}

func (c composeArgs) forward() forwardInput {
	return forwardInput{MessageID: c.MessageID, To: c.To, Cc: c.Cc, Bcc: c.Bcc, Text: c.Text, identityInput: c.identityInput}
}

// sendMessage sends a new message, a reply or a forward (send, reply, forward).
func (m *mailbox) sendMessage(ctx context.Context, req *mcp.CallToolRequest, in composeArgs) (*mcp.CallToolResult, sentOutput, error) {
	kind, err := in.kind()
	if err != nil {
		return nil, sentOutput{}, err
	}
	switch kind {
	case "reply":
		return m.reply(ctx, req, in.reply())
	case "forward":
		return m.forward(ctx, req, in.forward())
	}
	return m.send(ctx, req, in.composeInput)
}

// saveDraftAs saves a new draft, a draft reply or forward, or a new version of a draft
// (createDraft, draftReply, draftForward, updateDraft).
func (m *mailbox) saveDraftAs(ctx context.Context, req *mcp.CallToolRequest, in draftArgs) (*mcp.CallToolResult, draftOutput, error) {
	kind, err := in.kind()
	if err != nil {
		return nil, draftOutput{}, err
	}
	switch {
	case in.DraftID != "" && kind != "new":
		return nil, draftOutput{}, kit.Errorf(kit.CodeInvalidInput, "draft_id replaces a draft with a new message (its thread is kept): leave out message_id, forward, reply_all and quote")
	case in.DraftID != "":
		return m.updateDraft(ctx, req, updateDraftInput{ID: in.DraftID, composeInput: in.composeInput})
	case kind == "reply":
		return m.draftReply(ctx, req, in.reply())
	case kind == "forward":
		return m.draftForward(ctx, req, in.forward())
	}
	return m.createDraft(ctx, req, in.composeInput)
}

// addComposeTools registers the two tools that write mail: one sends, one saves a draft. A
// forward may take up to the maximum timeout: it downloads the original's attachments first.
func addComposeTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "send_message", Toolset: toolsetSend, Title: "Send mail", Destructive: true, OpenWorld: true, Timeout: kit.MaxTimeout,
		Description: "Send an email now: new, or with message_id a reply or (forward) a forward. Irreversible: confirm with the user first."}, m.sendMessage)
	kit.AddTool(s, kit.Tool{Name: "save_draft", Toolset: toolsetDrafts, Title: "Save a draft", Destructive: true, OpenWorld: true, Timeout: kit.MaxTimeout,
		Description: "Save an email as a draft instead of sending it (fields as send_message)."}, m.saveDraftAs)
}
