package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTriagePrompt: triage_inbox gets the search to run for a label, refuses bad arguments, and
// its label completes from the account's labels on the Gmail fake.
func TestTriagePrompt(t *testing.T) {
	t.Parallel()
	_, cs, _ := start(t)
	for args, want := range map[[2]string]string{
		{"", ""}:          "query in:inbox is:unread newer_than:7d",
		{"Receipts", "3"}: `query label:"Receipts" is:unread newer_than:3d`,
	} {
		res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "triage_inbox", Arguments: map[string]string{"label": args[0], "days": args[1]}})
		if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, want) {
			t.Errorf("triage_inbox %v: %+v %v, want %q", args, res, err, want)
		}
	}
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "triage_inbox", Arguments: map[string]string{"days": "week"}}); err == nil || !strings.Contains(err.Error(), "whole number of days") {
		t.Errorf("days week: %v", err)
	}
	for value, want := range map[string][]string{"in": {"INBOX"}, "r": {"Receipts", "UNREAD"}, "": {"INBOX", "Receipts", "UNREAD"}} {
		comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "triage_inbox"}, Argument: mcp.CompleteParamsArgument{Name: "label", Value: value}})
		if err != nil || !slices.Equal(comp.Completion.Values, want) {
			t.Errorf("complete label %q: %+v %v, want %v", value, comp, err, want)
		}
	}
}
