package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addPrompts offers triage_inbox beside search_messages.
func addPrompts(s *kit.Server, m *mailbox) {
	s.AddPrompt(kit.Prompt{
		Tool: "search_messages",
		Prompt: &mcp.Prompt{
			Name: "triage_inbox", Title: "Triage my inbox",
			Description: "Go through unread mail in a label (default the inbox): what needs a reply, what is for information, what can be archived; act only after you agree.",
			Arguments: []*mcp.PromptArgument{
				{Name: "label", Description: "the label to triage, e.g. INBOX or Receipts (completes from the account's labels)"},
				{Name: "days", Description: "how far back, in days (default 7)"},
			},
		},
		Get:      triageInbox,
		Complete: m.completeLabel,
	})
}

// triageInbox asks for a triage of the unread mail in a label.
func triageInbox(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
	label := strings.TrimSpace(args["label"])
	if label == "" {
		label = "INBOX"
	}
	if strings.ContainsAny(label, "\"\n") {
		return nil, fmt.Errorf("label %q: give a label's name as list_labels shows it", label)
	}
	days := strings.TrimSpace(args["days"])
	if days == "" {
		days = "7"
	}
	var n int
	if _, err := fmt.Sscanf(days, "%d", &n); err != nil || n < 1 || n > 365 || fmt.Sprint(n) != days {
		return nil, fmt.Errorf("days %q: give a whole number of days from 1 to 365", days)
	}
	query := fmt.Sprintf("label:%q is:unread newer_than:%dd", label, n)
	if label == "INBOX" {
		query = fmt.Sprintf("in:inbox is:unread newer_than:%dd", n)
	}
	text := fmt.Sprintf(`Triage my unread mail in %s from the last %d days.
1. search_messages with query %s (page through all of it).
2. Sort every message into: needs a reply from me (say by when, if the mail says), for information only, and can be archived (newsletters, notifications, receipts). Open a message with get_message only when its snippet does not settle it.
3. Show me the three groups as short lists: sender, subject, one line on why.
4. Offer the changes: archive and mark read with modify_messages, a label for the ones to keep, and a draft reply (save_draft) for each that needs one. Make no change and send nothing until I say which.`, label, n, query)
	return &mcp.GetPromptResult{
		Description: "Triage of " + label,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// completeLabel completes the label argument from the account's labels, names starting with
// what was typed (any case) first, then those containing it.
func (m *mailbox) completeLabel(ctx context.Context, arg, value string, _ map[string]string) ([]string, error) {
	if arg != "label" {
		return nil, nil
	}
	all, err := m.labels(ctx)
	if err != nil {
		return nil, err
	}
	v := strings.ToLower(value)
	var first, then []string
	for _, l := range all {
		name := strings.ToLower(l.Name)
		switch {
		case strings.HasPrefix(name, v):
			first = append(first, l.Name)
		case strings.Contains(name, v):
			then = append(then, l.Name)
		}
	}
	slices.Sort(first)
	slices.Sort(then)
	return append(first, then...), nil
}
