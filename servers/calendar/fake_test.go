package main

import (
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"google.golang.org/api/calendar/v3"
)

func berlin(s string) string { // a local Berlin time as Google renders it
	loc, _ := time.LoadLocation("Europe/Berlin")
	t, _ := time.ParseInLocation("2006-01-02T15:04", s, loc)
	return t.Format(time.RFC3339)
}

// newFakeCalendar is the Calendar fake holding the fixtures: two calendars in two zones, all-day
// and timed events, a recurring series and busy times.
func newFakeCalendar(t *testing.T) *googlefake.Calendar {
	f := googlefake.NewCalendar(t)
	f.Events = map[string]map[string]*calendar.Event{"ada@example.com": {}, "team@group.calendar.google.com": {}}
	f.Lists = []*calendar.CalendarListEntry{
		{Id: "ada@example.com", Summary: "ada@example.com", Primary: true, AccessRole: "owner", TimeZone: "Europe/Berlin"},
		{Id: "team@group.calendar.google.com", Summary: "Team", AccessRole: "writer", TimeZone: "America/New_York"},
	}
	ada, team := f.Events["ada@example.com"], f.Events["team@group.calendar.google.com"]
	ada["holiday"] = &calendar.Event{Id: "holiday", Summary: "Company holiday", Status: "confirmed", Start: &calendar.EventDateTime{Date: "2026-03-05"}, End: &calendar.EventDateTime{Date: "2026-03-06"}}
	ada["trip"] = &calendar.Event{Id: "trip", Summary: "Lisbon trip", Start: &calendar.EventDateTime{Date: "2026-03-10"}, End: &calendar.EventDateTime{Date: "2026-03-13"}}
	ada["dentist"] = &calendar.Event{Id: "dentist", Summary: "Dentist", Location: "Hauptstr. 1", Start: &calendar.EventDateTime{DateTime: berlin("2026-03-04T15:00"), TimeZone: "Europe/Berlin"}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-04T16:00"), TimeZone: "Europe/Berlin"}}
	ada["review"] = &calendar.Event{Id: "review", Summary: "Design review", Organizer: &calendar.EventOrganizer{Email: "bob@example.com"},
		Start: &calendar.EventDateTime{DateTime: berlin("2026-03-06T11:00")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-06T12:00")},
		Attendees: []*calendar.EventAttendee{{Email: "bob@example.com", Organizer: true, ResponseStatus: "accepted"}, {Email: "ada@example.com", Self: true, ResponseStatus: "needsAction"}}}
	team["launch"] = &calendar.Event{Id: "launch", Summary: "Launch sync", Start: &calendar.EventDateTime{DateTime: "2026-03-04T08:00:00-05:00"}, End: &calendar.EventDateTime{DateTime: "2026-03-04T08:30:00-05:00"}}
	// A weekly stand-up, 09:00 Berlin, six times from 2 March 2026: it crosses the 29 March DST
	// change, so its UTC times move from 08:00Z to 07:00Z.
	ada["standup"] = &calendar.Event{Id: "standup", Summary: "Stand-up", Recurrence: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6"},
		Start: &calendar.EventDateTime{DateTime: berlin("2026-03-02T09:00"), TimeZone: "Europe/Berlin"}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-02T09:15"), TimeZone: "Europe/Berlin"}}
	for i := range 6 {
		day := time.Date(2026, 3, 2+7*i, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		start, _ := time.Parse(time.RFC3339, berlin(day+"T09:00"))
		id := "standup_" + start.UTC().Format("20060102T150405Z")
		ada[id] = &calendar.Event{Id: id, Summary: "Stand-up", RecurringEventId: "standup",
			OriginalStartTime: &calendar.EventDateTime{DateTime: start.Format(time.RFC3339), TimeZone: "Europe/Berlin"},
			Start:             &calendar.EventDateTime{DateTime: start.Format(time.RFC3339), TimeZone: "Europe/Berlin"},
			End:               &calendar.EventDateTime{DateTime: start.Add(15 * time.Minute).Format(time.RFC3339), TimeZone: "Europe/Berlin"}}
	}
	f.Busy["ada@example.com"] = []*calendar.TimePeriod{{Start: "2026-03-27T08:00:00Z", End: "2026-03-27T12:00:00Z"}, {Start: "2026-03-30T07:00:00Z", End: "2026-03-30T08:00:00Z"}}
	f.Busy["team@group.calendar.google.com"] = []*calendar.TimePeriod{{Start: "2026-03-27T13:00:00Z", End: "2026-03-27T15:30:00Z"}}

	f.Calendars["holidays@group.v.calendar.google.com"] = &calendar.Calendar{Id: "holidays@group.v.calendar.google.com", Summary: "Holidays", TimeZone: "UTC"}
	f.QuickAdded = &calendar.Event{Id: "quick1", Summary: "Lunch with Ann", Start: &calendar.EventDateTime{DateTime: berlin("2026-03-06T12:30")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-06T13:30")}}
	return f
}

// signIn writes a client JSON and a token file with the calendar scope; it returns the flags
// that point the server at them and at the fake.
func signIn(t *testing.T, f *googlefake.Calendar, scopes ...string) []string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"https://www.googleapis.com/auth/calendar"}
	}
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...)
	return append(args, "--calendar-endpoint", f.URL+"/calendar/v3/")
}
