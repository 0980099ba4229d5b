package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/calendar/v3"
)

// TestRecipientAllowlist tries every way calendar's tools reach someone outside
// --allowed-recipients — guests and optional guests on a new event, in a batch, added later,
// mailed an update or a cancellation of an event they are on, a note to an invitation's
// organizer, an address in Quick add text, a guest Quick add made up — and checks that each is
// refused with the fleet's message and nothing is written, while the same writes inside the
// list, or mailing no one, go through.
func TestRecipientAllowlist(t *testing.T) {
	t.Parallel()
	f, cs := start(t, "--allowed-recipients", "@family.test,bob@example.com")
	ada := f.Events["ada@example.com"]
	// A party Ada organizes, with a guest from before the list.
	ada["party"] = &calendar.Event{Id: "party", Summary: "Party", Organizer: &calendar.EventOrganizer{Email: "ada@example.com", Self: true},
		Start: &calendar.EventDateTime{DateTime: berlin("2026-03-07T19:00")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-07T23:00")},
		Attendees: []*calendar.EventAttendee{{Email: "ada@example.com", Self: true, Organizer: true}, {Email: "old@outside.test"}, {Email: "kid@family.test"}}}
	// An invitation from someone outside the list.
	ada["pitch"] = &calendar.Event{Id: "pitch", Summary: "Pitch", Organizer: &calendar.EventOrganizer{Email: "sales@vendor.test"},
		Start: &calendar.EventDateTime{DateTime: berlin("2026-03-09T10:00")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-09T11:00")},
		Attendees: []*calendar.EventAttendee{{Email: "sales@vendor.test", Organizer: true}, {Email: "ada@example.com", Self: true, ResponseStatus: "needsAction"}}}
	const refusal = " on this server (--allowed-recipients, MCP_ALLOWED_RECIPIENTS): leave them out, or ask the owner to add them"
	const orNone = "; or give send_updates none, which writes the change without mailing the guests"
	slot := map[string]any{"summary": "Lunch", "start": "2026-03-20T12:00", "end": "2026-03-20T13:00"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range slot {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	writes := func() int { return len(f.Calls("POST", "")) + len(f.Calls("PATCH", "")) + len(f.Calls("DELETE", "")) }
	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		refused    string
	}{
		{"guest", "create_event", with("attendees", []string{"kid@family.test", "x@evil.test"}), "x@evil.test is not an allowed recipient" + refusal},
		{"optional guest", "create_event", with("optional_attendees", []string{"X@Evil.test"}), "x@evil.test is not an allowed recipient" + refusal},
		{"no invitation mail", "create_event", with("attendees", []string{"x@evil.test"}, "send_updates", "none"), "x@evil.test is not an allowed recipient" + refusal},
		{"subdomain", "create_event", with("attendees", []string{"kid@school.family.test"}), "kid@school.family.test is not an allowed recipient" + refusal},
		{"batch", "create_events", map[string]any{"events": []any{with("attendees", []string{"kid@family.test"}), with("summary", "Dinner", "attendees", []string{"x@evil.test"})}},
			`events[1] "Dinner": x@evil.test is not an allowed recipient` + refusal + " (nothing was created)"},
		{"guest added later", "update_event", map[string]any{"event_id": "dentist", "attendees": []string{"x@evil.test"}, "send_updates": "none"}, "x@evil.test is not an allowed recipient" + refusal},
		{"optional guest added later", "update_event", map[string]any{"event_id": "party", "optional_attendees": []string{"y@evil.test"}, "send_updates": "none"}, "y@evil.test is not an allowed recipient" + refusal},
		{"series guest", "update_event", map[string]any{"event_id": "standup_20260316T080000Z", "scope": "following", "attendees": []string{"x@evil.test"}}, "x@evil.test is not an allowed recipient" + refusal},
		{"update mailed to a guest outside", "update_event", map[string]any{"event_id": "party", "description": "the door code is 4711"}, "old@outside.test is not an allowed recipient" + refusal + orNone},
		{"cancellation mailed", "delete_event", map[string]any{"event_id": "party"}, "old@outside.test is not an allowed recipient" + refusal + orNone},
		{"note to an organizer outside", "respond_to_event", map[string]any{"event_id": "pitch", "response": "declined", "note": "my card number is …"},
			"sales@vendor.test is not an allowed recipient" + refusal + "; or respond without a note"},
		{"address in quick add", "quick_add", map[string]any{"text": "Lunch with x@evil.test tomorrow noon"}, "x@evil.test is not an allowed recipient" + refusal},
	} {
		before := writes()
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		if !res.IsError || mcptest.Text(res) != tt.refused {
			t.Errorf("%s: %q\nwant %q", tt.name, mcptest.Text(res), tt.refused)
		}
		if n := writes() - before; n != 0 {
			t.Errorf("%s: %d writes reached Google", tt.name, n)
		}
	}
	if len(f.Calls("POST", "/quickAdd")) != 0 {
		t.Fatal("quick add called with a refused address")
	}

	// Inside the list, or mailing no one about a guest already there, goes through.
	mcptest.CallFor[writeOutput](t, cs, "create_event", with("attendees", []string{"Kid@Family.test", "bob@example.com"}))
	mcptest.CallFor[writeOutput](t, cs, "update_event", map[string]any{"event_id": "party", "description": "the door code is 4711", "send_updates": "none"})
	mcptest.CallFor[writeOutput](t, cs, "update_event", map[string]any{"event_id": "party", "optional_attendees": []string{"bob@example.com"}, "send_updates": "none"})
	// A guest's own copy of an invitation: changing it mails no one.
	mcptest.CallFor[writeOutput](t, cs, "update_event", map[string]any{"event_id": "pitch", "reminder_minutes": []int{10}})
	mcptest.CallFor[eventOutput](t, cs, "respond_to_event", map[string]any{"event_id": "pitch", "response": "declined"})
	if got := ada["party"].Attendees; len(got) != 4 || !got[3].Optional || got[3].Email != "bob@example.com" {
		t.Errorf("party guests %+v", got)
	}

	// Quick add under the list mails no one; a guest Google's parser made up (here: the fake's
	// answer) is refused and the event deleted again, mailing no one.
	mcptest.CallFor[eventOutput](t, cs, "quick_add", map[string]any{"text": "Lunch with kid@family.test Friday", "send_updates": "all"})
	if q := f.Calls("POST", "/quickAdd"); q[0].Query.Get("sendUpdates") != "none" {
		t.Errorf("quick add under the allowlist sent sendUpdates=%q", q[0].Query.Get("sendUpdates"))
	}
	f.QuickAdded = &calendar.Event{Id: "quick2", Summary: "Lunch with Ann", Attendees: []*calendar.EventAttendee{{Email: "ann@elsewhere.test"}},
		Start: &calendar.EventDateTime{DateTime: berlin("2026-03-06T12:30")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-06T13:30")}}
	ada["quick2"] = f.QuickAdded
	msg := mcptest.CallError(t, cs, "quick_add", map[string]any{"text": "Lunch with Ann Friday"})
	if !strings.HasPrefix(msg, "ann@elsewhere.test is not an allowed recipient") || !strings.Contains(msg, "the event was deleted again") {
		t.Errorf("made-up guest: %s", msg)
	}
	del := f.Calls("DELETE", "/events/quick2")
	if len(del) != 1 || del[0].Query.Get("sendUpdates") != "none" || ada["quick2"] != nil {
		t.Errorf("quick add's event not deleted quietly: %v", del)
	}
}

// TestRecipientAllowlistOpen: without the flag anyone may be invited, as before.
func TestRecipientAllowlistOpen(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	mcptest.CallFor[writeOutput](t, cs, "create_event", map[string]any{"summary": "Lunch", "start": "2026-03-20T12:00", "end": "2026-03-20T13:00", "attendees": []string{"x@evil.test"}})
	if q := f.Calls("POST", "/events"); len(q) != 1 || q[0].Query.Get("sendUpdates") != "all" {
		t.Errorf("insert %v", q)
	}
	if msg := mcptest.CallError(t, cs, "create_event", map[string]any{"summary": "Lunch", "start": "2026-03-20T12:00", "end": "2026-03-20T13:00", "attendees": []string{"Bob"}}); !strings.Contains(msg, "search_contacts") {
		t.Errorf("a name as guest: %s", msg)
	}
}
