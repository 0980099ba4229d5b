package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/calendar/v3"
)

// startWith is start with fixtures added to the fake before the server's first call.
func startWith(t *testing.T, add func(f *googlefake.Calendar)) (*googlefake.Calendar, *mcp.ClientSession) {
	t.Helper()
	f := newFakeCalendar(t)
	add(f)
	h := mcptest.Start(t, spec(), signIn(t, f)...)
	return f, h.Connect(t, "")
}

// addStatusEvents puts an out-of-office afternoon, a focus-time morning and two working
// locations (office on Tuesday 17 March, home on Wednesday 18 March) on the primary calendar.
func addStatusEvents(f *googlefake.Calendar) {
	ada := f.Events["ada@example.com"]
	ada["ooo"] = &calendar.Event{Id: "ooo", Summary: "Out of office", EventType: "outOfOffice", Transparency: "opaque",
		OutOfOfficeProperties: &calendar.EventOutOfOfficeProperties{AutoDeclineMode: "declineAllConflictingInvitations"},
		Start:                 &calendar.EventDateTime{DateTime: berlin("2026-03-19T13:00")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-19T17:00")}}
	ada["focus"] = &calendar.Event{Id: "focus", Summary: "Focus", EventType: "focusTime", Transparency: "opaque",
		FocusTimeProperties: &calendar.EventFocusTimeProperties{AutoDeclineMode: "declineNone"},
		Start:               &calendar.EventDateTime{DateTime: berlin("2026-03-19T09:00")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-19T11:00")}}
	ada["wl-office"] = &calendar.Event{Id: "wl-office", Summary: "Office", EventType: "workingLocation", Transparency: "transparent", Visibility: "public",
		WorkingLocationProperties: &calendar.EventWorkingLocationProperties{Type: "officeLocation", OfficeLocation: &calendar.EventWorkingLocationPropertiesOfficeLocation{Label: "Building 4"}},
		Start:                     &calendar.EventDateTime{Date: "2026-03-17"}, End: &calendar.EventDateTime{Date: "2026-03-18"}}
	ada["wl-home"] = &calendar.Event{Id: "wl-home", Summary: "Home", EventType: "workingLocation", Transparency: "transparent", Visibility: "public",
		WorkingLocationProperties: &calendar.EventWorkingLocationProperties{Type: "homeOffice", HomeOffice: map[string]any{}},
		Start:                     &calendar.EventDateTime{Date: "2026-03-18"}, End: &calendar.EventDateTime{Date: "2026-03-19"}}
}

func TestStatusEventsCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		check   func(t *testing.T, body map[string]any, out eventOutput, text string)
	}{
		{name: "out of office declines every conflicting invitation",
			args: map[string]any{"summary": "Dentist leave", "start": "2026-04-02T13:00", "end": "2026-04-02T18:00", "event_type": "outOfOffice", "auto_decline": "all", "decline_message": "Back on Friday"},
			check: func(t *testing.T, b map[string]any, out eventOutput, text string) {
				p := b["outOfOfficeProperties"].(map[string]any)
				if b["eventType"] != "outOfOffice" || b["transparency"] != "opaque" || p["autoDeclineMode"] != "declineAllConflictingInvitations" || p["declineMessage"] != "Back on Friday" {
					t.Errorf("body %v", b)
				}
				if out.EventType != "outOfOffice" || out.AutoDecline != "all" || !strings.Contains(text, "(outOfOffice)") {
					t.Errorf("out %+v, text %q", out.eventInfo, text)
				}
			}},
		{name: "focus time without auto-decline sends empty properties",
			args: map[string]any{"summary": "Deep work", "start": "2026-04-02T09:00", "end": "2026-04-02T11:00", "event_type": "focusTime"},
			check: func(t *testing.T, b map[string]any, out eventOutput, _ string) {
				if b["eventType"] != "focusTime" || b["focusTimeProperties"] == nil || b["outOfOfficeProperties"] != nil || out.EventType != "focusTime" || out.AutoDecline != "" {
					t.Errorf("body %v, out %+v", b, out.eventInfo)
				}
			}},
		{name: "working location at the office, all day, is public and free",
			args: map[string]any{"summary": "Office", "start": "2026-04-02", "event_type": "workingLocation", "working_location": "office", "location": "Building 4"},
			check: func(t *testing.T, b map[string]any, out eventOutput, text string) {
				p := b["workingLocationProperties"].(map[string]any)
				if p["type"] != "officeLocation" || p["officeLocation"].(map[string]any)["label"] != "Building 4" || b["visibility"] != "public" || b["transparency"] != "transparent" {
					t.Errorf("body %v", b)
				}
				if out.WorkingLocation != "office: Building 4" || !out.ShowAsFree || !strings.Contains(text, "working from office: Building 4") {
					t.Errorf("out %+v, text %q", out.eventInfo, text)
				}
			}},
		{name: "working from home",
			args: map[string]any{"summary": "Home", "start": "2026-04-03T08:00", "end": "2026-04-03T12:00", "event_type": "workingLocation", "working_location": "home"},
			check: func(t *testing.T, b map[string]any, out eventOutput, _ string) {
				p := b["workingLocationProperties"].(map[string]any)
				if p["type"] != "homeOffice" || p["homeOffice"] == nil || out.WorkingLocation != "home" {
					t.Errorf("body %v, out %+v", b, out.eventInfo)
				}
			}},
		{name: "out of office cannot be all-day", args: map[string]any{"summary": "Away", "start": "2026-04-02", "event_type": "outOfOffice"},
			wantErr: "cannot be all-day: give start and end times"},
		{name: "status events only on the primary calendar", args: map[string]any{"calendar": "Team", "summary": "Deep work", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00", "event_type": "focusTime"},
			wantErr: `exists only on your primary calendar, not on "Team"`},
		{name: "working location needs its kind", args: map[string]any{"summary": "Somewhere", "start": "2026-04-02", "event_type": "workingLocation"},
			wantErr: "needs working_location: home, office or custom"},
		{name: "a custom working location needs a label", args: map[string]any{"summary": "Somewhere", "start": "2026-04-02", "event_type": "workingLocation", "working_location": "custom"},
			wantErr: "working_location custom needs location"},
		{name: "auto-decline on an ordinary event", args: map[string]any{"summary": "x", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00", "auto_decline": "all"},
			wantErr: "apply to event_type outOfOffice or focusTime only"},
		{name: "status events have no guests", args: map[string]any{"summary": "Away", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00", "event_type": "outOfOffice", "attendees": []string{"bob@example.com"}},
			wantErr: "has no guests or Meet link"},
		{name: "focus time always blocks", args: map[string]any{"summary": "Deep work", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00", "event_type": "focusTime", "show_as_free": true},
			wantErr: "always blocks its time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, cs := start(t)
			if tc.wantErr != "" {
				if msg := mcptest.CallError(t, cs, "create_event", tc.args); !strings.Contains(msg, tc.wantErr) {
					t.Errorf("error %q, want %q", msg, tc.wantErr)
				}
				if n := len(f.Calls("POST", "/events")); n != 0 {
					t.Errorf("%d inserts after a refusal", n)
				}
				return
			}
			out, res := mcptest.CallFor[eventOutput](t, cs, "create_event", tc.args)
			ins := f.Calls("POST", "/events")
			if len(ins) != 1 {
				t.Fatalf("inserts %+v", ins)
			}
			tc.check(t, ins[0].Body, out, mcptest.Text(res))
		})
	}
}

// TestCreateRefusals: a status event on a calendar that is not the user's primary is refused
// before Google is asked; a write to a calendar the user may only read reaches Google, whose
// 403 requiredAccessLevel comes back with what to do.
func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	// Another calendar, known by id only (not on the list): not the user's primary.
	_, cs := start(t)
	if msg := mcptest.CallError(t, cs, "create_event", map[string]any{"calendar": "holidays@group.v.calendar.google.com", "summary": "x", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00", "event_type": "focusTime"}); !strings.Contains(msg, "primary calendar") {
		t.Errorf("focus time elsewhere: %q", msg)
	}
	// A reader-only calendar: Google's 403 requiredAccessLevel, named.
	f, cs := startWith(t, func(f *googlefake.Calendar) {
		f.Lists = append(f.Lists, &calendar.CalendarListEntry{Id: "de.german#holiday@group.v.calendar.google.com", Summary: "Holidays in Germany", AccessRole: "reader", TimeZone: "Europe/Berlin"})
		f.Events["de.german#holiday@group.v.calendar.google.com"] = map[string]*calendar.Event{}
	})
	msg := mcptest.CallError(t, cs, "create_event", map[string]any{"calendar": "Holidays in Germany", "summary": "x", "start": "2026-04-02T09:00", "end": "2026-04-02T10:00"})
	if !strings.Contains(msg, "writer access") {
		t.Errorf("reader calendar: %q", msg)
	}
	if ins := f.Calls("POST", "/events"); len(ins) != 1 || !strings.Contains(ins[0].Path, "de.german%23holiday@") && !strings.Contains(ins[0].Path, "de.german#holiday@") {
		t.Errorf("insert path %+v", ins)
	}
}

func TestListEventTypes(t *testing.T) {
	t.Parallel()
	f, cs := startWith(t, addStatusEvents)
	out, res := mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-17", "time_max": "2026-03-20", "event_types": []string{"outOfOffice", "workingLocation"}})
	if got := f.Calls("GET", "/events")[0].Query["eventTypes"]; !slices.Equal(got, []string{"outOfOffice", "workingLocation"}) {
		t.Errorf("eventTypes sent %v", got)
	}
	var ids []string
	for _, e := range out.Events {
		ids = append(ids, e.ID+":"+e.EventType+":"+e.WorkingLocation+":"+e.AutoDecline)
	}
	if want := []string{"wl-office:workingLocation:office: Building 4:", "wl-home:workingLocation:home:", "ooo:outOfOffice::all"}; !slices.Equal(ids, want) {
		t.Errorf("listed %v, want %v", ids, want)
	}
	if text := mcptest.Text(res); !strings.Contains(text, "Out of office [id ooo, calendar ada@example.com] (outOfOffice)") {
		t.Errorf("text %q", text)
	}
	// Without a filter every type comes, the ordinary ones without event_type.
	out, _ = mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-16", "time_max": "2026-03-17"})
	if len(out.Events) != 1 || out.Events[0].EventType != "" || f.Calls("GET", "/events")[1].Query.Has("eventTypes") {
		t.Errorf("unfiltered %+v", out.Events)
	}
}

// TestFreeSlotsRespectStatusEvents: out of office and focus time are busy (Google's free/busy
// counts them), and working_location keeps only the times the working location events place
// the user there.
func TestFreeSlotsRespectStatusEvents(t *testing.T) {
	t.Parallel()
	f, cs := startWith(t, addStatusEvents)
	week := map[string]any{"duration_minutes": 60, "time_min": "2026-03-17", "time_max": "2026-03-20", "time_zone": "Europe/Berlin"}
	slots, _ := mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", week)
	want := []interval{
		{berlin("2026-03-17T09:00"), berlin("2026-03-17T17:00")},
		{berlin("2026-03-18T09:00"), berlin("2026-03-18T17:00")},
		{berlin("2026-03-19T11:00"), berlin("2026-03-19T13:00")}, // focus time before, out of office after
	}
	if !slices.Equal(slots.Slots, want) {
		t.Errorf("slots %+v, want %+v", slots.Slots, want)
	}
	for kind, want := range map[string][]interval{
		"office": {{berlin("2026-03-17T09:00"), berlin("2026-03-17T17:00")}},
		"home":   {{berlin("2026-03-18T09:00"), berlin("2026-03-18T17:00")}},
		"custom": {},
	} {
		args := maps.Clone(week)
		args["working_location"] = kind
		slots, _ := mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", args)
		if !slices.Equal(slots.Slots, want) {
			t.Errorf("%s: slots %+v, want %+v", kind, slots.Slots, want)
		}
	}
	var asked bool
	for _, r := range f.Calls("GET", "/calendars/primary/events") {
		asked = asked || slices.Equal(r.Query["eventTypes"], []string{"workingLocation"})
	}
	if !asked {
		t.Error("working locations not listed from the primary calendar")
	}
}
