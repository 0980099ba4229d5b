package googlefake

import (
	"net/http"
	"testing"

	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"
)

// newCalendarFake holds a primary calendar with a meeting, a focus-time block, an event shown
// as free and a working location, a read-only and a shared writable calendar, and extra busy
// time.
func newCalendarFake(t *testing.T) (*Calendar, *calendar.Service) {
	t.Helper()
	c := NewCalendar(t)
	c.Lists = []*calendar.CalendarListEntry{
		{Id: "me@example.com", Primary: true, AccessRole: "owner", TimeZone: "UTC"},
		{Id: "holidays@group.v.calendar.google.com", AccessRole: "reader", TimeZone: "UTC"},
		{Id: "team@group.calendar.google.com", AccessRole: "writer", TimeZone: "UTC"},
	}
	at := func(hm string) *calendar.EventDateTime {
		return &calendar.EventDateTime{DateTime: "2026-03-02T" + hm + ":00Z"}
	}
	c.Events = map[string]map[string]*calendar.Event{
		"me@example.com": {
			"meet":  {Id: "meet", Summary: "Meeting", Start: at("09:00"), End: at("10:00")},
			"focus": {Id: "focus", EventType: "focusTime", Start: at("09:30"), End: at("11:00")},
			"free":  {Id: "free", Transparency: "transparent", Start: at("12:00"), End: at("13:00")},
			"wl": {Id: "wl", EventType: "workingLocation", Transparency: "transparent", Start: &calendar.EventDateTime{Date: "2026-03-02"}, End: &calendar.EventDateTime{Date: "2026-03-03"},
				WorkingLocationProperties: &calendar.EventWorkingLocationProperties{Type: "homeOffice"}},
		},
		"holidays@group.v.calendar.google.com": {},
		"team@group.calendar.google.com":       {},
	}
	c.Busy["me@example.com"] = []*calendar.TimePeriod{{Start: "2026-03-02T10:30:00Z", End: "2026-03-02T11:30:00Z"}}
	svc, err := calendar.NewService(t.Context(), option.WithHTTPClient(Client()), option.WithEndpoint(c.URL+"/calendar/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	return c, svc
}

// TestCalendarFreeBusyFromEvents: free/busy is the stored busy time plus the events that block
// time, merged; shown-as-free events and working locations do not count.
func TestCalendarFreeBusyFromEvents(t *testing.T) {
	t.Parallel()
	_, svc := newCalendarFake(t)
	res, err := svc.Freebusy.Query(&calendar.FreeBusyRequest{TimeMin: "2026-03-02T00:00:00Z", TimeMax: "2026-03-03T00:00:00Z",
		Items: []*calendar.FreeBusyRequestItem{{Id: "me@example.com"}}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	busy := res.Calendars["me@example.com"].Busy
	if len(busy) != 1 || busy[0].Start != "2026-03-02T09:00:00Z" || busy[0].End != "2026-03-02T11:30:00Z" {
		t.Errorf("busy %+v, want 09:00-11:30 merged", busy)
	}
}

// TestCalendarEventTypesAndPrimary: eventTypes filters the list ("default" being events without
// a type) and "primary" names the user's own calendar.
func TestCalendarEventTypesAndPrimary(t *testing.T) {
	t.Parallel()
	_, svc := newCalendarFake(t)
	tests := []struct {
		types []string
		want  int
	}{{nil, 4}, {[]string{"default"}, 2}, {[]string{"focusTime", "workingLocation"}, 2}, {[]string{"outOfOffice"}, 0}}
	for _, tt := range tests {
		l, err := svc.Events.List("primary").SingleEvents(true).OrderBy("startTime").TimeMin("2026-03-02T00:00:00Z").TimeMax("2026-03-03T00:00:00Z").EventTypes(tt.types...).Do()
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != tt.want {
			t.Errorf("eventTypes %v: %d events, want %d", tt.types, len(l.Items), tt.want)
		}
	}
}

// TestCalendarInsertRefusals: Google's refusals of writes the fake reproduces, and attachments
// kept only with supportsAttachments.
func TestCalendarInsertRefusals(t *testing.T) {
	t.Parallel()
	_, svc := newCalendarFake(t)
	timed := func(e *calendar.Event) *calendar.Event {
		e.Start, e.End = &calendar.EventDateTime{DateTime: "2026-03-04T09:00:00Z"}, &calendar.EventDateTime{DateTime: "2026-03-04T10:00:00Z"}
		return e
	}
	tests := []struct {
		name       string
		cal        string
		ev         *calendar.Event
		wantCode   int
		wantReason string
	}{
		{"read-only calendar", "holidays@group.v.calendar.google.com", timed(&calendar.Event{Summary: "x"}), http.StatusForbidden, "requiredAccessLevel"},
		{"focus time off the primary", "team@group.calendar.google.com", timed(&calendar.Event{EventType: "focusTime"}), http.StatusBadRequest, "invalid"},
		{"all-day out of office", "me@example.com", &calendar.Event{EventType: "outOfOffice", Start: &calendar.EventDateTime{Date: "2026-03-04"}, End: &calendar.EventDateTime{Date: "2026-03-05"}}, http.StatusBadRequest, "invalid"},
		{"working location without properties", "me@example.com", timed(&calendar.Event{EventType: "workingLocation"}), http.StatusBadRequest, "invalid"},
	}
	for _, tt := range tests {
		_, err := svc.Events.Insert(tt.cal, tt.ev).Do()
		if ge := apiError(t, err); ge.Code != tt.wantCode || len(ge.Errors) != 1 || ge.Errors[0].Reason != tt.wantReason {
			t.Errorf("%s: %+v, want %d %s", tt.name, ge, tt.wantCode, tt.wantReason)
		}
	}
	att := []*calendar.EventAttachment{{FileUrl: "https://drive.google.com/file/d/f1/view"}}
	got, err := svc.Events.Insert("me@example.com", timed(&calendar.Event{Summary: "a", Attachments: att})).Do()
	if err != nil || len(got.Attachments) != 0 {
		t.Errorf("without supportsAttachments: %v, %+v", err, got)
	}
	got, err = svc.Events.Insert("me@example.com", timed(&calendar.Event{Summary: "b", Attachments: att})).SupportsAttachments(true).Do()
	if err != nil || len(got.Attachments) != 1 || got.Attachments[0].Title != "file view" {
		t.Errorf("with supportsAttachments: %v, %+v", err, got)
	}
}
