package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func start(t *testing.T, extra ...string) (*googlefake.Calendar, *mcp.ClientSession) {
	f := newFakeCalendar(t)
	h := mcptest.Start(t, spec(), append(signIn(t, f), extra...)...)
	return f, h.Connect(t, "")
}

func summaries(evs []eventInfo) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Summary)
	}
	return out
}

func TestListCalendarsAndEvents(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	cals, _ := mcptest.CallFor[listCalendarsOutput](t, cs, "list_calendars", nil)
	if len(cals.Calendars) != 2 || !cals.Calendars[0].Primary || cals.Calendars[1].Name != "Team" || cals.Calendars[1].TimeZone != "America/New_York" {
		t.Fatalf("calendars %+v", cals)
	}
	// Two calendars, one by name: merged in time order, each in its own zone.
	out, _ := mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"calendars": []string{"primary", "team"}, "time_min": "2026-03-04", "time_max": "2026-03-07"})
	if got := summaries(out.Events); !slices.Equal(got, []string{"Launch sync", "Dentist", "Company holiday", "Design review"}) {
		t.Fatalf("merged events %v", got)
	}
	if e := out.Events[0]; e.CalendarID != "team@group.calendar.google.com" || e.Start.DateTime != "2026-03-04T08:00:00-05:00" || e.TimeZone != "America/New_York" {
		t.Errorf("team event %+v", e)
	}
	if e := out.Events[1]; e.Start.DateTime != "2026-03-04T15:00:00+01:00" || e.Location != "Hauptstr. 1" {
		t.Errorf("dentist %+v", e)
	}
	lists := f.Calls("GET", "/events")
	q := lists[0].Query
	if q.Get("timeMin") != "2026-03-04T00:00:00+01:00" || q.Get("timeZone") != "Europe/Berlin" || q.Get("singleEvents") != "true" {
		t.Errorf("primary list query %v", q)
	}
	if q := lists[1].Query; q.Get("timeMin") != "2026-03-04T00:00:00-05:00" || q.Get("timeZone") != "America/New_York" {
		t.Errorf("team list query %v", q)
	}
	// Free text goes to Google as q.
	out, _ = mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"query": "dentist", "time_min": "2026-03-01", "time_max": "2026-04-01"})
	if got := summaries(out.Events); !slices.Equal(got, []string{"Dentist"}) || f.Calls("GET", "/events")[2].Query.Get("q") != "dentist" {
		t.Errorf("query: %v", got)
	}
	// An unknown calendar name.
	if msg := mcptest.CallError(t, cs, "list_events", map[string]any{"calendars": []string{"Nope"}}); !strings.Contains(msg, `calendar "Nope"`) {
		t.Errorf("unknown calendar: %s", msg)
	}
}

func TestListEventsPagingAndRecurring(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	args := map[string]any{"calendars": []string{"ada@example.com", "Team"}, "time_min": "2026-03-01T00:00", "time_max": "2026-04-30T00:00", "max_results": 3}
	var all []string
	var recurring int
	for range 10 {
		out, res := mcptest.CallFor[listEventsOutput](t, cs, "list_events", args)
		for _, e := range out.Events {
			all = append(all, e.ID)
			if e.RecurringEventID == "standup" {
				recurring++
			}
		}
		if out.NextPageToken == "" {
			break
		}
		if !strings.Contains(mcptest.Text(res), "page_token="+out.NextPageToken) {
			t.Errorf("no paging marker in %s", mcptest.Text(res))
		}
		args["page_token"] = out.NextPageToken
	}
	// 6 stand-ups (expanded, master never listed) + 4 others on primary, 1 on Team.
	if len(all) != 11 || recurring != 6 || slices.Contains(all, "standup") {
		t.Errorf("paged %d events (%d recurring): %v", len(all), recurring, all)
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 11 {
		t.Errorf("duplicates across pages: %v", all)
	}
	if msg := mcptest.CallError(t, cs, "list_events", map[string]any{"page_token": "garbage!"}); !strings.Contains(msg, "page_token") {
		t.Errorf("bad token: %s", msg)
	}
}

func TestAllDayEventsKeepTheirDates(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	for _, zone := range []string{"Pacific/Honolulu", "Pacific/Kiritimati", "UTC", "Europe/Berlin"} { // UTC−10, UTC+14
		out, res := mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-05", "time_max": "2026-03-14", "time_zone": zone})
		var holiday, trip eventInfo
		for _, e := range out.Events {
			switch e.ID {
			case "holiday":
				holiday = e
			case "trip":
				trip = e
			}
		}
		if !holiday.AllDay || holiday.Start.Date != "2026-03-05" || holiday.End.Date != "2026-03-05" || holiday.Start.DateTime != "" {
			t.Errorf("%s: holiday %+v", zone, holiday)
		}
		if trip.Start.Date != "2026-03-10" || trip.End.Date != "2026-03-12" {
			t.Errorf("%s: trip %+v", zone, trip)
		}
		if !strings.Contains(mcptest.Text(res), "2026-03-05 (all day) Company holiday") {
			t.Errorf("%s: text %s", zone, mcptest.Text(res))
		}
	}
	// Timed events move with the zone.
	ev, _ := mcptest.CallFor[eventOutput](t, cs, "get_event", map[string]any{"event_id": "dentist", "time_zone": "Pacific/Kiritimati"})
	if ev.Start.DateTime != "2026-03-05T04:00:00+14:00" {
		t.Errorf("dentist in UTC+14: %+v", ev.Start)
	}
	ev, _ = mcptest.CallFor[eventOutput](t, cs, "get_event", map[string]any{"event_id": "dentist", "time_zone": "Pacific/Honolulu"})
	if ev.Start.DateTime != "2026-03-04T04:00:00-10:00" {
		t.Errorf("dentist in UTC−10: %+v", ev.Start)
	}
}

func TestCreateEvent(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	// All-day, two days inclusive: Google gets an exclusive end.
	out, _ := mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{"summary": "Offsite", "start": "2026-05-04", "end": "2026-05-05", "send_updates": "none"})
	body := f.Calls("POST", "/events")[0].Body
	if body["start"].(map[string]any)["date"] != "2026-05-04" || body["end"].(map[string]any)["date"] != "2026-05-06" || out.End.Date != "2026-05-05" || !out.AllDay {
		t.Errorf("all-day body %v, out %+v", body, out)
	}
	// Timed across DST (Europe/Berlin changes on 29 March 2026), weekly, with everything.
	out, _ = mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{
		"summary": "Planning", "start": "2026-03-29T09:00", "end": "2026-03-29T10:30", "location": "Room 4", "description": "Q2",
		"attendees": []string{"bob@example.com"}, "recurrence": []string{"FREQ=WEEKLY;COUNT=4"}, "reminder_minutes": []int{10, 60},
		"meet": true, "color_id": "5", "visibility": "private"})
	req := f.Calls("POST", "/events")[1]
	b := req.Body
	st := b["start"].(map[string]any)
	if st["dateTime"] != "2026-03-29T09:00:00+02:00" || st["timeZone"] != "Europe/Berlin" || b["end"].(map[string]any)["dateTime"] != "2026-03-29T10:30:00+02:00" {
		t.Errorf("DST start %v end %v", st, b["end"])
	}
	if !slices.Equal(anyStrings(b["recurrence"]), []string{"RRULE:FREQ=WEEKLY;COUNT=4"}) || b["colorId"] != "5" || b["visibility"] != "private" || b["location"] != "Room 4" {
		t.Errorf("body %v", b)
	}
	rem := b["reminders"].(map[string]any)
	if rem["useDefault"] != false || len(rem["overrides"].([]any)) != 2 {
		t.Errorf("reminders %v", rem)
	}
	if req.Query.Get("conferenceDataVersion") != "1" || req.Query.Get("sendUpdates") != "all" || out.MeetLink == "" {
		t.Errorf("meet/sendUpdates: %v, %q", req.Query, out.MeetLink)
	}
	if b["attendees"].([]any)[0].(map[string]any)["email"] != "bob@example.com" {
		t.Errorf("attendees %v", b["attendees"])
	}
	// The day before DST is still +01:00.
	_, _ = mcptest.CallFor[eventOutput](t, cs, "create_event", map[string]any{"summary": "x", "start": "2026-03-28T09:00", "end": "2026-03-28T10:00", "time_zone": "Europe/Berlin"})
	if got := f.Calls("POST", "/events")[2].Body["start"].(map[string]any)["dateTime"]; got != "2026-03-28T09:00:00+01:00" {
		t.Errorf("pre-DST %v", got)
	}
	for _, bad := range []map[string]any{
		{"summary": "x", "start": "2026-03-28T09:00"},
		{"summary": "x", "start": "2026-03-28", "end": "2026-03-27"},
		{"summary": "x", "start": "2026-03-28T09:00", "end": "2026-03-28T08:00"},
		{"summary": "x", "start": "2026-03-28", "time_zone": "Mars/Olympus"},
		{"summary": "x", "start": "2026-03-28", "color_id": "12"},
		{"summary": "", "start": "2026-03-28"},
	} {
		mcptest.CallError(t, cs, "create_event", bad)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestRecurringScopes(t *testing.T) {
	t.Parallel()
	const third = "standup_20260316T080000Z"
	t.Run("this", func(t *testing.T) {
		f, cs := start(t)
		out, _ := mcptest.CallFor[eventOutput](t, cs, "update_event", map[string]any{"event_id": third, "summary": "Stand-up (demo)", "start": "2026-03-16T10:00", "end": "2026-03-16T10:30"})
		p := f.Calls("PATCH", "/events/"+third)
		if len(p) != 1 || p[0].Body["summary"] != "Stand-up (demo)" || p[0].Body["start"].(map[string]any)["dateTime"] != "2026-03-16T10:00:00+01:00" {
			t.Fatalf("patch %+v", p)
		}
		if len(f.Calls("PATCH", "/events/standup")) != 0 || out.Summary != "Stand-up (demo)" {
			t.Errorf("series touched or wrong output %+v", out)
		}
		if _, ok := p[0].Body["location"]; ok {
			t.Errorf("unset field sent: %v", p[0].Body)
		}
		_, _ = mcptest.CallFor[deleteOutput](t, cs, "delete_event", map[string]any{"event_id": "standup_20260323T080000Z"})
		if d := f.Calls("DELETE", "/events/standup_20260323T080000Z"); len(d) != 1 || f.Event("ada@example.com", "standup") == nil {
			t.Errorf("delete this: %+v", d)
		}
		// A series id cannot take scope this.
		if msg := mcptest.CallError(t, cs, "update_event", map[string]any{"event_id": "standup", "scope": "this", "summary": "x"}); !strings.Contains(msg, "occurrence id") {
			t.Errorf("series with scope this: %s", msg)
		}
	})
	t.Run("all", func(t *testing.T) {
		f, cs := start(t)
		// Moving the third occurrence to 10:00 moves the series to 10:00 from its first day.
		out, _ := mcptest.CallFor[eventOutput](t, cs, "update_event", map[string]any{"event_id": third, "scope": "all", "start": "2026-03-16T10:00", "end": "2026-03-16T10:30", "location": "Room 2"})
		p := f.Calls("PATCH", "/events/standup")
		if len(p) != 1 {
			t.Fatalf("series patches %+v", p)
		}
		b := p[0].Body
		if b["start"].(map[string]any)["dateTime"] != "2026-03-02T10:00:00+01:00" || b["end"].(map[string]any)["dateTime"] != "2026-03-02T10:30:00+01:00" || b["location"] != "Room 2" {
			t.Errorf("series patch %v", b)
		}
		if !strings.Contains(out.Action, "whole series") {
			t.Errorf("action %q", out.Action)
		}
		_, _ = mcptest.CallFor[deleteOutput](t, cs, "delete_event", map[string]any{"event_id": third, "scope": "all"})
		if len(f.Calls("DELETE", "/events/standup")) != 1 {
			t.Errorf("series not deleted")
		}
	})
	t.Run("following", func(t *testing.T) {
		f, cs := start(t)
		out, _ := mcptest.CallFor[eventOutput](t, cs, "update_event", map[string]any{"event_id": third, "scope": "following", "summary": "Stand-up v2"})
		p := f.Calls("PATCH", "/events/standup")
		if len(p) != 1 || !slices.Equal(anyStrings(p[0].Body["recurrence"]), []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260316T075959Z"}) {
			t.Fatalf("old series patch %+v", p)
		}
		ins := f.Calls("POST", "/events")
		if len(ins) != 1 {
			t.Fatalf("new series %+v", ins)
		}
		b := ins[0].Body
		// Six in all, two before the split: the new series has four.
		if !slices.Equal(anyStrings(b["recurrence"]), []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"}) || b["summary"] != "Stand-up v2" ||
			b["start"].(map[string]any)["dateTime"] != "2026-03-16T09:00:00+01:00" || b["end"].(map[string]any)["dateTime"] != "2026-03-16T09:15:00+01:00" ||
			b["start"].(map[string]any)["timeZone"] != "Europe/Berlin" {
			t.Errorf("new series %v", b)
		}
		if !strings.Contains(out.Action, "this and following") {
			t.Errorf("action %q", out.Action)
		}
	})
	t.Run("delete following", func(t *testing.T) {
		f, cs := start(t)
		// After the DST change: UNTIL is one second before 07:00Z.
		out, _ := mcptest.CallFor[deleteOutput](t, cs, "delete_event", map[string]any{"event_id": "standup_20260330T070000Z", "scope": "following"})
		p := f.Calls("PATCH", "/events/standup")
		if len(p) != 1 || !slices.Equal(anyStrings(p[0].Body["recurrence"]), []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330T065959Z"}) || len(f.Calls("DELETE", "")) != 0 {
			t.Errorf("delete following %+v", p)
		}
		if !strings.Contains(out.Detail, "2026-03-30T09:00:00+02:00") {
			t.Errorf("detail %q", out.Detail)
		}
		// From the first occurrence, "following" is the whole series.
		_, _ = mcptest.CallFor[deleteOutput](t, cs, "delete_event", map[string]any{"event_id": "standup_20260302T080000Z", "scope": "following"})
		if len(f.Calls("DELETE", "/events/standup")) != 1 {
			t.Errorf("first occurrence following did not delete the series")
		}
	})
}

func TestRespondAndQuickAdd(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	out, _ := mcptest.CallFor[eventOutput](t, cs, "respond_to_event", map[string]any{"event_id": "review", "response": "tentative", "note": "might be late"})
	p := f.Calls("PATCH", "/events/review")
	if len(p) != 1 {
		t.Fatal("no patch")
	}
	var self map[string]any
	for _, a := range p[0].Body["attendees"].([]any) {
		if a.(map[string]any)["self"] == true {
			self = a.(map[string]any)
		}
	}
	if self["responseStatus"] != "tentative" || self["comment"] != "might be late" || len(p[0].Body["attendees"].([]any)) != 2 || out.Action != "tentative" {
		t.Errorf("respond body %v", p[0].Body)
	}
	if msg := mcptest.CallError(t, cs, "respond_to_event", map[string]any{"event_id": "dentist", "response": "accepted"}); !strings.Contains(msg, "not an invited attendee") {
		t.Errorf("not invited: %s", msg)
	}
	mcptest.CallError(t, cs, "respond_to_event", map[string]any{"event_id": "review", "response": "maybe"})
	q, _ := mcptest.CallFor[eventOutput](t, cs, "quick_add", map[string]any{"text": "Lunch with Ann Friday 12:30"})
	r := f.Calls("POST", "/quickAdd")
	if len(r) != 1 || r[0].Query.Get("text") != "Lunch with Ann Friday 12:30" || r[0].Query.Get("sendUpdates") != "none" || q.ID != "quick1" || q.Start.DateTime != "2026-03-06T12:30:00+01:00" {
		t.Errorf("quick add %+v %+v", r, q)
	}
}

func TestFreeBusyAndSlots(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	fb, _ := mcptest.CallFor[freeBusyOutput](t, cs, "free_busy", map[string]any{"calendars": []string{"primary", "Team", "secret@example.com"}, "time_min": "2026-03-27", "time_max": "2026-03-31"})
	if fb.TimeZone != "Europe/Berlin" || len(fb.Calendars) != 3 || fb.Calendars[0].Busy[0].Start != "2026-03-27T09:00:00+01:00" || fb.Calendars[2].Error != "notFound" {
		t.Errorf("free_busy %+v", fb)
	}
	b := f.Calls("POST", "/freeBusy")[0].Body
	if b["timeMin"] != "2026-03-27T00:00:00+01:00" || b["timeMax"] != "2026-03-31T00:00:00+02:00" {
		t.Errorf("free/busy range %v", b)
	}
	if msg := mcptest.CallError(t, cs, "free_busy", map[string]any{"time_min": "2026-01-01", "time_max": "2026-05-01"}); !strings.Contains(msg, "3 months") {
		t.Errorf("range cap: %s", msg)
	}
	// Friday 27 March (CET) and Monday 30 March (CEST, after the DST change); weekend skipped.
	slots, _ := mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", map[string]any{"calendars": []string{"primary", "Team"}, "duration_minutes": 60, "time_min": "2026-03-27", "time_max": "2026-03-31"})
	want := []interval{
		{"2026-03-27T13:00:00+01:00", "2026-03-27T14:00:00+01:00"},
		{"2026-03-27T16:30:00+01:00", "2026-03-27T17:00:00+01:00"},
		{"2026-03-30T10:00:00+02:00", "2026-03-30T17:00:00+02:00"},
	}
	want = slices.DeleteFunc(want, func(i interval) bool { // windows shorter than the hour drop out
		s, _ := time.Parse(time.RFC3339, i.Start)
		e, _ := time.Parse(time.RFC3339, i.End)
		return e.Sub(s) < time.Hour
	})
	if !slices.Equal(slots.Slots, want) || slots.More {
		t.Errorf("slots %+v, want %+v", slots.Slots, want)
	}
	slots, _ = mcptest.CallFor[freeSlotsOutput](t, cs, "find_free_slots", map[string]any{"duration_minutes": 30, "time_min": "2026-03-28", "time_max": "2026-03-30", "include_weekends": true,
		"working_hours_start": "08:00", "working_hours_end": "12:00", "max_slots": 1})
	if len(slots.Slots) != 1 || slots.Slots[0] != (interval{"2026-03-28T08:00:00+01:00", "2026-03-28T12:00:00+01:00"}) || !slots.More {
		t.Errorf("weekend slots %+v", slots)
	}
	if msg := mcptest.CallError(t, cs, "find_free_slots", map[string]any{"calendars": []string{"secret@example.com"}, "duration_minutes": 30}); !strings.Contains(msg, "not visible") {
		t.Errorf("hidden calendar: %s", msg)
	}
}

func TestRetryAndErrors(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	f.FailNext(googlefake.EventsRoute, 1, http.StatusServiceUnavailable)
	out, _ := mcptest.CallFor[listEventsOutput](t, cs, "list_events", map[string]any{"time_min": "2026-03-04", "time_max": "2026-03-05"})
	if len(out.Events) != 1 || f.FailsLeft(googlefake.EventsRoute) != 0 {
		t.Errorf("after a 503: %+v", out)
	}
	if msg := mcptest.CallError(t, cs, "get_event", map[string]any{"event_id": "nope"}); msg != "event nope not found" {
		t.Errorf("not found: %q", msg)
	}
	now, _ := mcptest.CallFor[currentTimeOutput](t, cs, "get_current_time", nil)
	if now.TimeZone != "Europe/Berlin" || (now.UTCOffset != "+01:00" && now.UTCOffset != "+02:00") || now.ZoneSource != zoneFromCalendar || now.Note != "" {
		t.Errorf("current time %+v", now)
	}
}

func TestReadOnlyAndSignIn(t *testing.T) {
	t.Parallel()
	f := newFakeCalendar(t)
	h := mcptest.Start(t, spec(), append(signIn(t, f, "https://www.googleapis.com/auth/calendar.readonly"), "--read-only")...)
	cs := h.Connect(t, "")
	names := googletest.ReadOnlyTools(t, cs)
	if !slices.Equal(names, []string{"find_free_slots", "free_busy", "get_current_time", "get_event", "list_calendars", "list_events"}) {
		t.Errorf("read-only tools %v", names)
	}
	_, _ = mcptest.CallFor[listCalendarsOutput](t, cs, "list_calendars", nil)

	// No sign-in at all: the server runs and every tool says how to sign in.
	h = mcptest.Start(t, spec(), googletest.SignedOut(t)...)
	googletest.CheckSignedOut(t, h, "calendar", map[string]map[string]any{"list_calendars": nil, "list_events": {"query": "x"}})
}

func TestAllToolsAnnotated(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	googletest.CheckOpenWorld(t, cs, 12)
}

func TestSeriesHelpers(t *testing.T) {
	t.Parallel()
	rec := []string{"RRULE:FREQ=DAILY;COUNT=10;INTERVAL=2", "EXDATE;TZID=Europe/Berlin:20260305T090000"}
	if got := endSeries(rec, "20260310"); !slices.Equal(got, []string{"RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20260310", rec[1]}) {
		t.Errorf("endSeries %v", got)
	}
	if got := withCount(rec, 3); got[0] != "RRULE:FREQ=DAILY;COUNT=3;INTERVAL=2" || ruleCount(rec) != 10 {
		t.Errorf("withCount %v", got)
	}
	if got := normalizeRecurrence([]string{"FREQ=WEEKLY", "RRULE:FREQ=DAILY", "EXDATE:20260101"}); !slices.Equal(got, []string{"RRULE:FREQ=WEEKLY", "RRULE:FREQ=DAILY", "EXDATE:20260101"}) {
		t.Errorf("normalize %v", got)
	}
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: []string{"--state-dir", t.TempDir()}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, "--state-dir", t.TempDir(), "--toolsets", "all") // the toolsets off by default too
}
