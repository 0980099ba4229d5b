package main

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reviewNotes bounds the notes a review prompt lists.
const reviewNotes = 50

// addPrompts offers the reviews a user runs as slash commands, beside list_notes: each brings
// the period's own note and the notes changed in it into the conversation.
func addPrompts(s *kit.Server, n *store) {
	s.AddPrompt(kit.Prompt{
		Tool: "list_notes",
		Prompt: &mcp.Prompt{
			Name: "daily_review", Title: "Daily review",
			Description: "Review a day: its daily note and every note changed that day, to sum up what was done, what is open and what carries over.",
			Arguments:   []*mcp.PromptArgument{{Name: "date", Description: "the day, YYYY-MM-DD (default today)"}},
		},
		Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
			return n.review(ctx, "day", args["date"])
		},
		Complete: n.recentPeriods("day", 14),
	})
	s.AddPrompt(kit.Prompt{
		Tool: "list_notes",
		Prompt: &mcp.Prompt{
			Name: "weekly_summary", Title: "Weekly summary",
			Description: "Summarize an ISO week from its weekly note and every note changed that week: themes, decisions, open threads.",
			Arguments:   []*mcp.PromptArgument{{Name: "week", Description: "the week, YYYY-Www or a day in it (default this week)"}},
		},
		Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
			return n.review(ctx, "week", args["week"])
		},
		Complete: n.recentPeriods("week", 8),
	})
}

// reviewAsks is what each review asks of the model, after the notes.
var reviewAsks = map[string]string{
	"day":  "Review this day from these notes: what got done, what is still open (unchecked tasks, questions), and what should carry over to tomorrow. Quote note paths so I can open them. If something belongs in the daily note, offer to add it with update_note.",
	"week": "Summarize this week from these notes: the main themes, decisions made, what moved forward, and open threads for next week. Quote note paths. Offer to write the summary into the weekly note with update_note.",
}

// review builds a review prompt of kind ("day", "week") for the period holding date ("" now):
// the period's own note embedded when it exists, and the notes changed in the period listed
// as links.
func (n *store) review(ctx context.Context, kind, date string) (*mcp.GetPromptResult, error) {
	day := n.now()
	if date != "" {
		var err error
		if day, err = parsePeriodDate(kind, date); err != nil {
			return nil, err
		}
	}
	p := periodOf(kind, day)
	var msgs []*mcp.PromptMessage
	own := path.Join(n.cfg.periods[kind].folder, p.name+".md")
	if data, _, err := n.v.ReadHead(own, maxResourceBytes); err == nil {
		msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.EmbeddedResource{
			Resource: &mcp.ResourceContents{URI: noteURI(own), MIMEType: "text/markdown", Text: string(data)},
		}})
	}
	changed, more, err := n.changedIn(ctx, p)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	span := p.name
	if kind == "week" {
		span = fmt.Sprintf("%s (%s to %s)", p.name, p.start.Format("2006-01-02"), p.end.Format("2006-01-02"))
	}
	switch {
	case len(changed) == 0:
		fmt.Fprintf(&b, "No note changed in %s.", span)
	default:
		fmt.Fprintf(&b, "Notes changed in %s, newest first:\n", span)
		for _, e := range changed {
			fmt.Fprintf(&b, "- %s — %s (%s)\n", e.Path, e.Title, fmtTime(e.Updated))
		}
		if more {
			fmt.Fprintf(&b, "(more than %d: list_notes with updated_after %s finds the rest)\n", reviewNotes, p.start.Format("2006-01-02"))
		}
		b.WriteString("Read the ones that matter with get_note.")
	}
	if len(msgs) == 0 {
		fmt.Fprintf(&b, "\nThere is no %s note %s yet (daily_note makes it).", kind, own)
	}
	msgs = append(msgs, &mcp.PromptMessage{Role: "user", Content: &mcp.TextContent{Text: b.String() + "\n\n" + reviewAsks[kind]}})
	return &mcp.GetPromptResult{Description: fmt.Sprintf("Review of %s", span), Messages: msgs}, nil
}

// changedIn lists the notes updated within the period, newest first.
func (n *store) changedIn(ctx context.Context, p period) ([]index.Entry, bool, error) {
	ix, release, _, err := n.readable(ctx)
	if err != nil {
		return nil, false, err
	}
	defer release()
	f := index.Filter{UpdatedAfter: p.start, UpdatedBefore: p.end.AddDate(0, 0, 1)}
	entries, more, err := ix.List(ctx, f, index.ByUpdated, reviewNotes, 0)
	if err != nil {
		return nil, false, fmt.Errorf("list the notes changed in %s: %w", p.name, n.readError(err))
	}
	return entries, more, nil
}

// recentPeriods completes a date argument with the last count periods of kind, newest first.
func (n *store) recentPeriods(kind string, count int) kit.Completer {
	return func(_ context.Context, _, value string, _ map[string]string) ([]string, error) {
		var out []string
		step := map[string]int{"day": 1, "week": 7}[kind]
		for i := range count {
			name := periodOf(kind, n.now().AddDate(0, 0, -i*step)).name
			if strings.HasPrefix(name, value) {
				out = append(out, name)
			}
		}
		return out, nil
	}
}
