package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// planDays is how many days ahead plan_my_day's date completes.
const planDays = 7

// addPrompts offers plan_my_day beside list_events.
func addPrompts(s *kit.Server, c *cal) {
	s.AddPrompt(kit.Prompt{
		Tool: "list_events",
		Prompt: &mcp.Prompt{
			Name: "plan_my_day", Title: "Plan my day",
			Description: "Lay out a day: its events in order, the gaps between them, conflicts and preparation, tasks due, and a proposed plan for the free time.",
			Arguments: []*mcp.PromptArgument{
				{Name: "date", Description: "the day, YYYY-MM-DD (default today; completes the next week)"},
				{Name: "calendar", Description: "one calendar by name (default all of them; completes from your calendars)"},
			},
		},
		Get:      planMyDay,
		Complete: c.completePlan,
	})
}

// planMyDay asks for a plan of one day.
func planMyDay(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
	day := strings.TrimSpace(args["date"])
	when := "today (call get_current_time for the date and time zone)"
	if day != "" {
		if _, err := time.Parse("2006-01-02", day); err != nil {
			return nil, fmt.Errorf("date %q: give YYYY-MM-DD", day)
		}
		when = day
	}
	which := "every calendar (list_calendars)"
	if cal := strings.TrimSpace(args["calendar"]); cal != "" {
		which = fmt.Sprintf("the calendar %q", cal)
	}
	text := fmt.Sprintf(`Plan my day for %s.
1. list_events for that day on %s, in my time zone.
2. find_free_slots for the day, and list_tasks for tasks due by then if the tasks tools are offered.
3. Lay the day out in order: each event with its time, place or Meet link, and who is coming; flag overlaps, back-to-back meetings without travel time, and anything I should prepare (a document linked in the event, a question to answer).
4. Propose how to use the free slots, hardest work first, with the tasks due. Make no change to the calendar until I agree.`, when, which)
	return &mcp.GetPromptResult{
		Description: "Plan for " + when,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// completePlan completes plan_my_day's arguments: the next days, and the calendars' names
// from the user's calendar list.
func (c *cal) completePlan(ctx context.Context, arg, value string, _ map[string]string) ([]string, error) {
	switch arg {
	case "date":
		var out []string
		today := time.Now()
		for i := range planDays {
			if d := today.AddDate(0, 0, i).Format("2006-01-02"); strings.HasPrefix(d, value) {
				out = append(out, d)
			}
		}
		return out, nil
	case "calendar":
		entries, err := c.calendarListAll(ctx)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, e := range entries {
			if name := entryName(e); strings.HasPrefix(strings.ToLower(name), strings.ToLower(value)) {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	return nil, nil
}
