package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPlanMyDayPrompt: plan_my_day names the day and calendar to list, refuses a bad date, and
// completes the next days and the calendars' names (from the Calendar fake's list).
func TestPlanMyDayPrompt(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "plan_my_day", Arguments: map[string]string{"date": "2026-03-04", "calendar": "Team"}})
	if err != nil {
		t.Fatalf("plan_my_day: %v", err)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "Plan my day for 2026-03-04.") || !strings.Contains(text, `the calendar "Team"`) {
		t.Errorf("plan_my_day: %s", text)
	}
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "plan_my_day", Arguments: map[string]string{"date": "tomorrow"}}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("date tomorrow: %v", err)
	}
	complete := func(arg, value string) []string {
		comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "plan_my_day"}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("complete %s %q: %v", arg, value, err)
		}
		return comp.Completion.Values
	}
	if got := complete("calendar", "te"); !slices.Equal(got, []string{"Team"}) {
		t.Errorf("complete calendar te: %v", got)
	}
	if got := complete("date", ""); len(got) != planDays || got[0] != time.Now().Format("2006-01-02") {
		t.Errorf("complete date: %v", got)
	}
}
