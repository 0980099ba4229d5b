package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/gmail/v1"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// summaryFields is the partial response search asks for: headers and part names, no bodies.
const summaryFields = "id,threadId,labelIds,snippet,internalDate,payload(mimeType,filename,headers,parts(filename,mimeType,parts(filename,mimeType,parts(filename,mimeType))))"

// messageSummary is one search hit.
type messageSummary struct {
	ID             string   `json:"id"`
	ThreadID       string   `json:"thread_id"`
	From           string   `json:"from"`
	To             string   `json:"to,omitempty"`
	Subject        string   `json:"subject"`
	Date           string   `json:"date"`
	Snippet        string   `json:"snippet"`
	Labels         []string `json:"labels"`
	HasAttachments bool     `json:"has_attachments"`
}

func summarize(msg *apiMessage) messageSummary {
	s := messageSummary{ID: msg.Id, ThreadID: msg.ThreadId, Snippet: msg.Snippet, Labels: msg.LabelIds,
		From: header(msg.Payload, "From"), To: header(msg.Payload, "To"), Subject: header(msg.Payload, "Subject"), Date: messageDate(msg)}
	walk(msg.Payload, func(p *apiPart) {
		if p.Filename != "" {
			s.HasAttachments = true
		}
	})
	if s.Labels == nil {
		s.Labels = []string{}
	}
	return s
}

// messageDate is the message's internal date (when Gmail received it) in RFC 3339, else its Date header.
func messageDate(msg *apiMessage) string {
	if msg.InternalDate > 0 {
		return time.UnixMilli(msg.InternalDate).UTC().Format(time.RFC3339)
	}
	return header(msg.Payload, "Date")
}

// searchInput caps max_results at 100 (Gmail allows 500): each hit is fetched on its own, at
// once, and more than that trips Gmail's per-user concurrency limit.
type searchInput struct {
	Query      string `json:"query,omitempty" jsonschema:"e.g. 'from:bob newer_than:30d'; empty lists all"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"hits per page" schema:"minimum=1,maximum=100,default=20"`
	PageToken  string `json:"page_token,omitempty" schema:"bare=true"`
}

type searchOutput struct {
	Messages      []messageSummary `json:"messages"`
	NextPageToken string           `json:"next_page_token,omitempty"`
	Estimate      int64            `json:"result_size_estimate"`
}

func (o searchOutput) Text() string {
	if len(o.Messages) == 0 {
		return "No messages found."
	}
	var b strings.Builder
	for _, m := range o.Messages {
		att := ""
		if m.HasAttachments {
			att = " [attachments]"
		}
		fmt.Fprintf(&b, "%s (thread %s) %s | %s | %s%s [%s]\n  %s\n", m.ID, m.ThreadID, m.Date, m.From, m.Subject, att, strings.Join(m.Labels, ","), m.Snippet)
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "More results: page_token=%s", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

type getMessageInput struct {
	ID       string `json:"id" jsonschema:"a message id from search_messages" schema:"minLength=1"`
	Format   string `json:"format,omitempty" jsonschema:"raw is the RFC 822 source" schema:"enum=text|html|raw,default=text"`
	Offset   int    `json:"offset,omitempty" jsonschema:"character offset into the body, to page" schema:"minimum=0"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"body characters to return" schema:"minimum=1"`
}

// messageOutput is one message read in full.
type messageOutput struct {
	messageSummary
	Cc          string           `json:"cc,omitempty"`
	ReplyTo     string           `json:"reply_to,omitempty"`
	MessageID   string           `json:"message_id_header,omitempty"`
	Body        string           `json:"body"`
	BodySource  string           `json:"body_source"`
	BodyOffset  int              `json:"body_offset"`
	BodyTotal   int              `json:"body_total_chars"`
	Truncated   bool             `json:"truncated"`
	Attachments []attachmentInfo `json:"attachments"`
}

func (o messageOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Message %s (thread %s)\nFrom: %s\nTo: %s\n", o.ID, o.ThreadID, o.From, o.To)
	if o.Cc != "" {
		fmt.Fprintf(&b, "Cc: %s\n", o.Cc)
	}
	fmt.Fprintf(&b, "Subject: %s\nDate: %s\nLabels: %s\n", o.Subject, o.Date, strings.Join(o.Labels, ","))
	for _, a := range o.Attachments {
		fmt.Fprintf(&b, "Attachment: %s (%s, %d bytes) id=%s\n", a.Name, a.Type, a.Size, a.ID)
	}
	b.WriteString("\n" + o.Body)
	if o.Truncated {
		next := o.BodyOffset + len([]rune(o.Body))
		fmt.Fprintf(&b, "\n[… truncated: %d more characters; call get_message with id=%s offset=%d]", o.BodyTotal-next, o.ID, next)
	}
	return b.String()
}

// render builds the output for a full message, paging its body.
func (m *mailbox) render(msg *apiMessage, format string, offset, limit int) (messageOutput, error) {
	if limit <= 0 || limit > m.maxBodyChars {
		limit = m.maxBodyChars
	}
	out := messageOutput{messageSummary: summarize(msg), Cc: header(msg.Payload, "Cc"), ReplyTo: header(msg.Payload, "Reply-To"),
		MessageID: header(msg.Payload, "Message-ID"), Attachments: attachments(msg.Payload), BodyOffset: offset}
	var text string
	if format == "raw" {
		raw, err := base64.URLEncoding.DecodeString(padBase64(msg.Raw))
		if err != nil {
			return out, kit.Errorf(kit.CodeInternal, "Gmail sent an undecodable raw message: %v", err)
		}
		text, out.BodySource = strings.ToValidUTF8(string(raw), "\uFFFD"), "raw"
	} else {
		text, out.BodySource = bodyText(msg.Payload, format)
	}
	out.Body, out.Truncated, out.BodyTotal = page(text, offset, limit)
	if out.Attachments == nil {
		out.Attachments = []attachmentInfo{}
	}
	return out, nil
}

type getThreadInput struct {
	ID       string `json:"id" jsonschema:"a thread_id from search_messages" schema:"minLength=1"`
	Format   string `json:"format,omitempty" jsonschema:"text converts HTML-only mail" schema:"enum=text|html,default=text"`
	MaxChars int    `json:"max_chars_per_message,omitempty" jsonschema:"body characters per message" schema:"minimum=1,default=4000"`
}

type threadOutput struct {
	ID       string          `json:"id"`
	Messages []messageOutput `json:"messages"`
}

func (o threadOutput) Text() string {
	parts := make([]string, len(o.Messages))
	for i, msg := range o.Messages {
		parts[i] = fmt.Sprintf("--- %d/%d ---\n%s", i+1, len(o.Messages), msg.Text())
	}
	return fmt.Sprintf("Thread %s, %d messages\n%s", o.ID, len(o.Messages), strings.Join(parts, "\n"))
}

// labelChange is what modify_messages and modify_threads add and remove.
type labelChange struct {
	AddLabels    []string `json:"add_labels,omitempty" jsonschema:"STARRED stars, TRASH trashes, UNREAD marks unread"`
	RemoveLabels []string `json:"remove_labels,omitempty" jsonschema:"INBOX archives, UNREAD marks read, TRASH untrashes"`
}

type modifyInput struct {
	IDs []string `json:"ids" jsonschema:"message ids from search_messages" schema:"minItems=1,maxItems=1000,minLength=1"`
	labelChange
}

type modifyOutput struct {
	Modified int      `json:"modified"`
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	unit     string   // what was modified, for the text: messages (when empty) or threads
}

func (o modifyOutput) Text() string {
	unit := cmp.Or(o.unit, "messages")
	return fmt.Sprintf("Modified %d %s: added [%s], removed [%s].", o.Modified, unit, strings.Join(o.Added, ","), strings.Join(o.Removed, ","))
}

// resolve turns a change's label names into ids, refusing an empty change.
func (m *mailbox) resolve(ctx context.Context, c labelChange) (add, remove []string, err error) {
	if len(c.AddLabels)+len(c.RemoveLabels) == 0 {
		return nil, nil, kit.Errorf(kit.CodeInvalidInput, "give add_labels or remove_labels")
	}
	if add, err = m.labelIDs(ctx, c.AddLabels); err != nil {
		return nil, nil, err
	}
	if remove, err = m.labelIDs(ctx, c.RemoveLabels); err != nil {
		return nil, nil, err
	}
	return add, remove, nil
}

func addMessageTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "search_messages", Toolset: toolsetRead, Title: "Search Gmail", ReadOnly: true, OpenWorld: true,
		Description: "Search Gmail with its query syntax; returns ids, sender, recipients, subject, date, snippet, labels."}, m.search)
	kit.AddTool(s, kit.Tool{Name: "get_message", Toolset: toolsetRead, Title: "Read a message", ReadOnly: true, OpenWorld: true,
		Description: "Read one Gmail message: headers, body, attachment list; long bodies page with offset."}, m.getMessage)
	kit.AddTool(s, kit.Tool{Name: "get_thread", Toolset: toolsetRead, Title: "Read a thread", ReadOnly: true, OpenWorld: true,
		Description: "Read a whole Gmail conversation, oldest first."}, m.getThread)
	kit.AddTool(s, kit.Tool{Name: "modify_messages", Toolset: toolsetOrganize, Title: "Change labels", Idempotent: true, OpenWorld: true,
		Description: "Add or remove labels on messages or whole threads: archive, read/unread, star, trash, untrash."}, m.modifyLabels)
}

func (m *mailbox) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
	call := m.gm.Users.Messages.List(me).MaxResults(int64(in.MaxResults)).Context(ctx)
	if in.PageToken != "" {
		call.PageToken(in.PageToken)
	}
	if in.Query != "" {
		call.Q(in.Query)
	}
	list, err := call.Do()
	if err != nil {
		return nil, searchOutput{}, m.google.Fail(err, "page_token")
	}
	out := searchOutput{Messages: make([]messageSummary, len(list.Messages)), NextPageToken: list.NextPageToken, Estimate: list.ResultSizeEstimate}
	errs := make([]error, len(list.Messages))
	var wg sync.WaitGroup
	for i, ref := range list.Messages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg, err := m.readMessage(ctx, ref.Id, "full", summaryFields)
			if err != nil {
				errs[i] = m.google.Fail(err, "message "+ref.Id)
				return
			}
			out.Messages[i] = summarize(msg)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, searchOutput{}, err
		}
	}
	return nil, out, nil
}

func (m *mailbox) getMessage(ctx context.Context, _ *mcp.CallToolRequest, in getMessageInput) (*mcp.CallToolResult, messageOutput, error) {
	msg, err := m.fetch(ctx, in.ID, in.Format)
	if err != nil {
		return nil, messageOutput{}, err
	}
	out, err := m.render(msg, in.Format, in.Offset, in.MaxChars)
	return nil, out, err
}

// fetch gets a message in full (or raw, plus the full form for headers and attachments).
func (m *mailbox) fetch(ctx context.Context, id, format string) (*apiMessage, error) {
	msg, err := m.readMessage(ctx, id, "full", "")
	if err != nil {
		return nil, m.google.Fail(err, "message "+id)
	}
	if format == "raw" {
		raw, err := m.readMessage(ctx, id, "raw", "")
		if err != nil {
			return nil, m.google.Fail(err, "message "+id)
		}
		msg.Raw = raw.Raw
	}
	return msg, nil
}

func (m *mailbox) getThread(ctx context.Context, _ *mcp.CallToolRequest, in getThreadInput) (*mcp.CallToolResult, threadOutput, error) {
	th, err := m.gm.Users.Threads.Get(me, in.ID).Format("full").Context(ctx).Do()
	if err != nil {
		return nil, threadOutput{}, m.google.Fail(err, "thread "+in.ID)
	}
	out := threadOutput{ID: th.Id, Messages: make([]messageOutput, 0, len(th.Messages))}
	for _, msg := range th.Messages {
		r, err := m.render(msg, in.Format, 0, in.MaxChars)
		if err != nil {
			return nil, threadOutput{}, err
		}
		out.Messages = append(out.Messages, r)
	}
	return nil, out, nil
}

func (m *mailbox) modify(ctx context.Context, _ *mcp.CallToolRequest, in modifyInput) (*mcp.CallToolResult, modifyOutput, error) {
	add, remove, err := m.resolve(ctx, in.labelChange)
	if err != nil {
		return nil, modifyOutput{}, err
	}
	req := &gmail.BatchModifyMessagesRequest{Ids: in.IDs, AddLabelIds: add, RemoveLabelIds: remove}
	if err := m.gm.Users.Messages.BatchModify(me, req).Context(ctx).Do(); err != nil {
		return nil, modifyOutput{}, m.google.Fail(err, "a message")
	}
	return nil, modifyOutput{Modified: len(in.IDs), Added: orEmpty(add), Removed: orEmpty(remove)}, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
