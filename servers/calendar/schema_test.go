package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

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
	mcptest.CheckRefusals(t, cs, f.Requests, []mcptest.Refusal{
		{Tool: "list_events", Args: map[string]any{"max_results": 1000}, Want: "max_results must be at most 250, not 1000"},
		{Tool: "list_events", Args: map[string]any{"max_results": 0}, Want: "max_results must be at least 1, not 0"},
		{Tool: "get_event", Args: map[string]any{}, Want: "event_id is required"},
		{Tool: "get_event", Args: map[string]any{"event_id": ""}, Want: "event_id must not be empty"},
		{Tool: "create_event", Args: event("summary", ""), Want: "summary must not be empty"},
		{Tool: "create_event", Args: event("color_id", "12"), Want: `color_id must be one of "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", not "12"`},
		{Tool: "create_event", Args: event("visibility", "secret"), Want: `visibility must be one of "default", "public", "private", "confidential", not "secret"`},
		{Tool: "create_event", Args: event("send_updates", "everyone"), Want: `send_updates must be one of "all", "external_only", "none", not "everyone"`},
		{Tool: "create_event", Args: event("reminder_minutes", []int{10, 50000}), Want: "reminder_minutes[1] must be at most 40320, not 50000"},
		{Tool: "create_event", Args: event("reminder_minutes", []int{-1}), Want: "reminder_minutes[0] must be at least 0, not -1"},
		{Tool: "create_event", Args: event("reminder_minutes", []int{1, 2, 3, 4, 5, 6}), Want: "reminder_minutes must have at most 5 items, not 6"},
		{Tool: "update_event", Args: map[string]any{"event_id": "standup", "scope": "some"}, Want: `scope must be one of "this", "following", "all", not "some"`},
		{Tool: "update_event", Args: map[string]any{"event_id": "dentist", "color_id": "0"}, Want: `color_id must be one of "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", not "0"`},
		{Tool: "update_event", Args: map[string]any{"event_id": "dentist", "reminder_minutes": []int{40321}}, Want: "reminder_minutes[0] must be at most 40320, not 40321"},
		{Tool: "delete_event", Args: map[string]any{"event_id": "dentist", "scope": "this_and_following"}, Want: `scope must be one of "this", "following", "all", not "this_and_following"`},
		{Tool: "delete_event", Args: map[string]any{"event_id": "dentist", "send_updates": "externalOnly"}, Want: `send_updates must be one of "all", "external_only", "none", not "externalOnly"`},
		{Tool: "respond_to_event", Args: map[string]any{"event_id": "review", "response": "maybe"}, Want: `response must be one of "accepted", "declined", "tentative", not "maybe"`},
		{Tool: "quick_add", Args: map[string]any{"text": ""}, Want: "text must not be empty"},
		{Tool: "find_free_slots", Args: map[string]any{"duration_minutes": 2}, Want: "duration_minutes must be at least 5, not 2"},
		{Tool: "find_free_slots", Args: map[string]any{"duration_minutes": 30, "max_slots": 51}, Want: "max_slots must be at most 50, not 51"},
	})
}

// TestSchemaDefaultsReachGoogle holds the declared defaults: an absent argument reaches the
// handler, and so Google, as its default.
func TestSchemaDefaultsReachGoogle(t *testing.T) {
	f, cs := start(t)
	_, _ = mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-04", "time_max": "2026-03-07"})
	list := f.Calls("GET", "/events")[0]
	if got := list.Query.Get("maxResults"); got != "50" {
		t.Errorf("list_events maxResults %q, want the default 50", got)
	}
	if !strings.HasSuffix(list.Path, "/calendars/ada@example.com/events") {
		t.Errorf("list_events listed %s, want the primary calendar by default", list.Path)
	}
	_, _ = mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{"summary": "x", "start": "2026-03-28T09:00", "end": "2026-03-28T10:00"})
	if got := f.Calls("POST", "/events")[0].Query.Get("sendUpdates"); got != "all" {
		t.Errorf("create_event sendUpdates %q, want the default all", got)
	}
	_, _ = mcptest.CallFor[eventOutput](t, cs, "quick_add", map[string]any{"text": "Lunch with Ann Friday 12:30"})
	if got := f.Calls("POST", "/quickAdd")[0].Query.Get("sendUpdates"); got != "none" {
		t.Errorf("quick_add sendUpdates %q, want the default none", got)
	}
	// Working hours default to 09:00-17:00: the first window of a free weekday starts at 09:00.
	slots, _ := mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", map[string]any{"duration_minutes": 60, "time_min": "2026-03-17", "time_max": "2026-03-18", "time_zone": "Europe/Berlin"})
	if len(slots.Slots) == 0 || !strings.HasSuffix(slots.Slots[0].Start, "T09:00:00+01:00") || !strings.HasSuffix(slots.Slots[len(slots.Slots)-1].End, "T17:00:00+01:00") {
		t.Errorf("default working hours: %+v", slots.Slots)
	}
}
