package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// seen is how many requests the fake has answered so far.
func (f *fakeCalendar) seen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// TestSchemaRefusesBeforeGoogle holds the tools' declared constraints: input outside them is
// refused with a message naming the rule, and Google is never asked.
func TestSchemaRefusesBeforeGoogle(t *testing.T) {
	f, cs := start(t)
	event := func(kv ...any) map[string]any {
		m := map[string]any{"summary": "x", "start": "2026-03-28T09:00", "end": "2026-03-28T10:00"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_events", map[string]any{"max_results": 1000}, "max_results must be at most 250, not 1000"},
		{"list_events", map[string]any{"max_results": 0}, "max_results must be at least 1, not 0"},
		{"get_event", map[string]any{}, "event_id is required"},
		{"get_event", map[string]any{"event_id": ""}, "event_id must not be empty"},
		{"create_event", event("summary", ""), "summary must not be empty"},
		{"create_event", event("color_id", "12"), `color_id must be one of "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", not "12"`},
		{"create_event", event("visibility", "secret"), `visibility must be one of "default", "public", "private", "confidential", not "secret"`},
		{"create_event", event("send_updates", "everyone"), `send_updates must be one of "all", "external_only", "none", not "everyone"`},
		{"create_event", event("reminder_minutes", []int{10, 50000}), "reminder_minutes[1] must be at most 40320, not 50000"},
		{"create_event", event("reminder_minutes", []int{-1}), "reminder_minutes[0] must be at least 0, not -1"},
		{"create_event", event("reminder_minutes", []int{1, 2, 3, 4, 5, 6}), "reminder_minutes must have at most 5 items, not 6"},
		{"update_event", map[string]any{"event_id": "standup", "scope": "some"}, `scope must be one of "this", "following", "all", not "some"`},
		{"update_event", map[string]any{"event_id": "dentist", "color_id": "0"}, `color_id must be one of "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", not "0"`},
		{"update_event", map[string]any{"event_id": "dentist", "reminder_minutes": []int{40321}}, "reminder_minutes[0] must be at most 40320, not 40321"},
		{"delete_event", map[string]any{"event_id": "dentist", "scope": "this_and_following"}, `scope must be one of "this", "following", "all", not "this_and_following"`},
		{"delete_event", map[string]any{"event_id": "dentist", "send_updates": "externalOnly"}, `send_updates must be one of "all", "external_only", "none", not "externalOnly"`},
		{"respond_to_event", map[string]any{"event_id": "review", "response": "maybe"}, `response must be one of "accepted", "declined", "tentative", not "maybe"`},
		{"quick_add", map[string]any{"text": ""}, "text must not be empty"},
		{"find_free_slots", map[string]any{"duration_minutes": 2}, "duration_minutes must be at least 5, not 2"},
		{"find_free_slots", map[string]any{"duration_minutes": 30, "max_slots": 51}, "max_slots must be at most 50, not 51"},
	} {
		before := f.seen()
		msg := mcptest.CallError(t, cs, c.tool, c.args)
		if msg != "invalid arguments: "+c.want {
			t.Errorf("%s(%v): %q, want %q", c.tool, c.args, msg, c.want)
		}
		if n := f.seen(); n != before {
			t.Errorf("%s(%v): Google got %d requests, want none", c.tool, c.args, n-before)
		}
	}
}

// TestSchemaDefaultsReachGoogle holds the declared defaults: an absent argument reaches the
// handler, and so Google, as its default.
func TestSchemaDefaultsReachGoogle(t *testing.T) {
	f, cs := start(t)
	_, _ = mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-04", "time_max": "2026-03-07"})
	list := f.calls("GET", "/events")[0]
	if got := list.Query.Get("maxResults"); got != "50" {
		t.Errorf("list_events maxResults %q, want the default 50", got)
	}
	if !strings.HasSuffix(list.Path, "/calendars/ada@example.com/events") {
		t.Errorf("list_events listed %s, want the primary calendar by default", list.Path)
	}
	_, _ = mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{"summary": "x", "start": "2026-03-28T09:00", "end": "2026-03-28T10:00"})
	if got := f.calls("POST", "/events")[0].Query.Get("sendUpdates"); got != "all" {
		t.Errorf("create_event sendUpdates %q, want the default all", got)
	}
	_, _ = mcptest.CallFor[eventOutput](t, cs, "quick_add", map[string]any{"text": "Lunch with Ann Friday 12:30"})
	if got := f.calls("POST", "/quickAdd")[0].Query.Get("sendUpdates"); got != "none" {
		t.Errorf("quick_add sendUpdates %q, want the default none", got)
	}
	// Working hours default to 09:00-17:00: the first window of a free weekday starts at 09:00.
	slots, _ := mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", map[string]any{"duration_minutes": 60, "time_min": "2026-03-16", "time_max": "2026-03-17", "time_zone": "Europe/Berlin"})
	if len(slots.Slots) == 0 || !strings.HasSuffix(slots.Slots[0].Start, "T09:00:00+01:00") || !strings.HasSuffix(slots.Slots[len(slots.Slots)-1].End, "T17:00:00+01:00") {
		t.Errorf("default working hours: %+v", slots.Slots)
	}
}
