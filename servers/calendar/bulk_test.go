package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/calendar/v3"
)

func TestCreateEvents(t *testing.T) {
	t.Parallel()
	week := []map[string]any{
		{"summary": "Office", "start": "2026-03-04", "event_type": "workingLocation", "working_location": "office", "location": "Building 4"},
		{"summary": "Call", "start": "2026-03-04T15:30", "end": "2026-03-04T16:30", "attendees": []string{"bob@example.com"}, "optional_attendees": []string{"cy@example.com"}},
		{"summary": "Prep", "start": "2026-03-04T16:00", "end": "2026-03-04T17:00", "show_as_free": true},
		{"summary": "Debrief", "start": "2026-03-04T16:15", "end": "2026-03-04T16:45"},
	}
	t.Run("created in order, each checked against the earlier ones", func(t *testing.T) {
		t.Parallel()
		f, cs := start(t)
		out, res := mcptest.CallFor[createEventsOutput](t, cs, "create_events", map[string]any{"events": week, "send_updates": "none"})
		ins := f.Calls("POST", "/events")
		if len(ins) != 4 || len(out.Created) != 4 || len(out.Failed) != 0 {
			t.Fatalf("created %d (%d inserts), failed %+v", len(out.Created), len(ins), out.Failed)
		}
		for i, want := range []string{"Office", "Call", "Prep", "Debrief"} {
			if ins[i].Body["summary"] != want || ins[i].Query.Get("sendUpdates") != "none" {
				t.Errorf("insert %d: %v %v", i, ins[i].Body["summary"], ins[i].Query)
			}
		}
		if ins[0].Body["eventType"] != "workingLocation" || ins[2].Body["transparency"] != "transparent" || ins[1].Body["attendees"].([]any)[1].(map[string]any)["optional"] != true {
			t.Errorf("bodies %v / %v / %v", ins[0].Body, ins[1].Body, ins[2].Body)
		}
		// The call overlaps the dentist; the debrief overlaps the call just created, not the
		// prep (shown as free) nor the working location.
		if got := conflictIDs(out.Created[1].Conflicts); !slices.Equal(got, []string{"dentist"}) {
			t.Errorf("call conflicts %v", got)
		}
		if got := out.Created[3].Conflicts; len(got) != 1 || got[0].Summary != "Call" || got[0].ID != out.Created[1].ID {
			t.Errorf("debrief conflicts %+v", got)
		}
		if text := mcptest.Text(res); !strings.HasPrefix(text, "Created 4 of 4 events.") || !strings.Contains(text, "Warning: it overlaps") {
			t.Errorf("text %q", text)
		}
	})
	t.Run("refuse_conflicts skips the conflicting ones", func(t *testing.T) {
		t.Parallel()
		f, cs := start(t)
		out, res := mcptest.CallFor[createEventsOutput](t, cs, "create_events", map[string]any{"events": week, "refuse_conflicts": true})
		if len(f.Calls("POST", "/events")) != 3 || len(out.Created) != 3 || len(out.Failed) != 1 || out.Failed[0].Index != 1 || !strings.Contains(out.Failed[0].Error, "Dentist") {
			t.Errorf("created %d, failed %+v", len(out.Created), out.Failed)
		}
		if len(out.Created[2].Conflicts) != 0 {
			t.Errorf("debrief conflicts %+v: the call was not created", out.Created[2].Conflicts)
		}
		if text := mcptest.Text(res); !strings.Contains(text, `Not created: events[1] "Call": not written: it overlaps`) {
			t.Errorf("text %q", text)
		}
	})
	t.Run("one invalid event: nothing written", func(t *testing.T) {
		t.Parallel()
		f, cs := start(t)
		bad := append(slices.Clone(week[:1]), map[string]any{"summary": "Away", "start": "2026-03-05", "event_type": "outOfOffice"})
		msg := mcptest.CallError(t, cs, "create_events", map[string]any{"events": bad})
		if !strings.Contains(msg, `events[1] "Away": a outOfOffice event cannot be all-day`) || !strings.Contains(msg, "nothing was created") || len(f.Calls("POST", "/events")) != 0 {
			t.Errorf("error %q", msg)
		}
		many := make([]map[string]any, 26)
		for i := range many {
			many[i] = week[1]
		}
		if msg := mcptest.CallError(t, cs, "create_events", map[string]any{"events": many}); !strings.Contains(msg, "at most 25") {
			t.Errorf("26 events: %q", msg)
		}
		if msg := mcptest.CallError(t, cs, "create_events", map[string]any{"events": []map[string]any{}}); !strings.Contains(msg, "at least 1") {
			t.Errorf("no events: %q", msg)
		}
	})
	t.Run("Google refuses each write to a read-only calendar", func(t *testing.T) {
		t.Parallel()
		_, cs := startWith(t, func(f *googlefake.Calendar) {
			f.Lists = append(f.Lists, &calendar.CalendarListEntry{Id: "shared@group.calendar.google.com", Summary: "Family", AccessRole: "reader", TimeZone: "Europe/Berlin"})
			f.Events["shared@group.calendar.google.com"] = map[string]*calendar.Event{}
		})
		out, _ := mcptest.CallFor[createEventsOutput](t, cs, "create_events", map[string]any{"calendar": "Family", "events": week[1:3]})
		if len(out.Created) != 0 || len(out.Failed) != 2 || !strings.Contains(out.Failed[0].Error, "writer access") || !strings.Contains(out.Failed[0].Error, "list_calendars") {
			t.Errorf("out %+v", out)
		}
	})
}
