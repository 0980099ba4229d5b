package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the calendar server's part of the agent task suite (docs/agent-tasks.md)
// against the Calendar fake holding the fixtures' calendars, a fresh one per task.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "calendar", func(t *testing.T) *mcp.ClientSession {
		f := newFakeCalendar(t)
		return mcptest.Start(t, spec(), signIn(t, f)...).Connect(t, "")
	}, calendarTasks)
}

var calendarTasks = []agenttask.Task{
	{Name: "book-common-hour", Ask: "Find an hour on 27 March when both I and the Team calendar are free, and book a planning meeting with bob@example.com.",
		Run: func(a *agenttask.Agent) {
			slots := a.Call("find_free_slots", map[string]any{"duration_minutes": 60, "calendars": []string{"primary", "Team"},
				"time_min": "2026-03-27T00:00", "time_max": "2026-03-28T00:00", "time_zone": "Europe/Berlin"})
			start := a.Find(slots, "the first free slot's start", `(2026-03-27T\d\d:\d\d)`)
			end := a.Find(slots, "the first free slot's end", `– (2026-03-27T\d\d:\d\d)`)
			made := a.Call("create_event", map[string]any{"summary": "Planning", "start": start, "end": end, "attendees": []string{"bob@example.com"}, "time_zone": "Europe/Berlin"})
			a.Find(made, "the new event's id", `\[id ([^,\]]+)`)
			a.Has(made, "Planning")
		}},
	{Name: "move-dentist", Ask: "Move my dentist appointment on 4 March an hour later.",
		Run: func(a *agenttask.Agent) {
			list := a.Call("list_events", map[string]any{"query": "dentist", "time_min": "2026-03-04T00:00", "time_max": "2026-03-05T00:00", "time_zone": "Europe/Berlin"})
			id := a.Find(list, "the dentist event's id", `\b(dentist)\b`)
			a.Find(list, "its start time", `(15:00)`)
			moved := a.Call("update_event", map[string]any{"event_id": id, "start": "2026-03-04T16:00", "end": "2026-03-04T17:00", "time_zone": "Europe/Berlin"})
			a.Has(moved, "16:00")
		}},
	{Name: "accept-invitation", Ask: "Accept Bob's design review invitation and tell him I'll bring the mockups.",
		Run: func(a *agenttask.Agent) {
			list := a.Call("list_events", map[string]any{"query": "design review", "time_min": "2026-03-06T00:00", "time_max": "2026-03-07T00:00"})
			id := a.Find(list, "the review's event id", `\b(review)\b`)
			a.Has(list, "invited by bob@example.com; your response: needsAction")
			done := a.Call("respond_to_event", map[string]any{"event_id": id, "response": "accepted", "note": "I'll bring the mockups."})
			a.Has(done, "accepted")
		}},
}
