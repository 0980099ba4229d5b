package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"google.golang.org/api/calendar/v3"
)

// request is one call the fake saw.
type request struct {
	Method, Path string
	Query        url.Values
	Body         map[string]any
}

// fakeCalendar is the Calendar API over HTTP, answering the production client. Recurring
// series are stored as a master plus its expanded occurrences, as Google returns them.
type fakeCalendar struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	lists  []*calendar.CalendarListEntry
	events map[string]map[string]*calendar.Event // calendar id → event id → event
	busy   map[string][]*calendar.TimePeriod
	reqs   []request
	fail   int // answer this many event list calls with 503 first
	nextID int
}

func berlin(s string) string { // a local Berlin time as Google renders it
	loc, _ := time.LoadLocation("Europe/Berlin")
	t, _ := time.ParseInLocation("2006-01-02T15:04", s, loc)
	return t.Format(time.RFC3339)
}

func newFakeCalendar(t *testing.T) *fakeCalendar {
	f := &fakeCalendar{t: t, events: map[string]map[string]*calendar.Event{"ada@example.com": {}, "team@group.calendar.google.com": {}}, busy: map[string][]*calendar.TimePeriod{}}
	f.lists = []*calendar.CalendarListEntry{
		{Id: "ada@example.com", Summary: "ada@example.com", Primary: true, AccessRole: "owner", TimeZone: "Europe/Berlin"},
		{Id: "team@group.calendar.google.com", Summary: "Team", AccessRole: "writer", TimeZone: "America/New_York"},
	}
	ada, team := f.events["ada@example.com"], f.events["team@group.calendar.google.com"]
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
	f.busy["ada@example.com"] = []*calendar.TimePeriod{{Start: "2026-03-27T08:00:00Z", End: "2026-03-27T12:00:00Z"}, {Start: "2026-03-30T07:00:00Z", End: "2026-03-30T08:00:00Z"}}
	f.busy["team@group.calendar.google.com"] = []*calendar.TimePeriod{{Start: "2026-03-27T13:00:00Z", End: "2026-03-27T15:30:00Z"}}

	mux := http.NewServeMux()
	const base = "/calendar/v3"
	mux.HandleFunc("GET "+base+"/users/me/calendarList", func(w http.ResponseWriter, r *http.Request) {
		f.json(w, &calendar.CalendarList{Items: f.lists})
	})
	mux.HandleFunc("GET "+base+"/users/me/calendarList/{id}", func(w http.ResponseWriter, r *http.Request) {
		for _, c := range f.lists {
			if c.Id == r.PathValue("id") || r.PathValue("id") == "primary" && c.Primary {
				f.json(w, c)
				return
			}
		}
		f.notFound(w)
	})
	mux.HandleFunc("GET "+base+"/calendars/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "holidays@group.v.calendar.google.com" {
			f.json(w, &calendar.Calendar{Id: r.PathValue("id"), Summary: "Holidays", TimeZone: "UTC"})
			return
		}
		f.notFound(w)
	})
	mux.HandleFunc("GET "+base+"/calendars/{cal}/events", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		if f.fail > 0 {
			f.fail--
			f.mu.Unlock()
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":503,"message":"Backend Error"}}`)
			return
		}
		f.mu.Unlock()
		q := r.URL.Query()
		if q.Get("singleEvents") != "true" || q.Get("orderBy") != "startTime" {
			t.Errorf("events.list without singleEvents/orderBy: %s", r.URL.RawQuery)
		}
		min, _ := time.Parse(time.RFC3339, q.Get("timeMin"))
		max, _ := time.Parse(time.RFC3339, q.Get("timeMax"))
		var hits []*calendar.Event
		for _, e := range f.calEvents(r.PathValue("cal")) {
			if len(e.Recurrence) > 0 || e.Status == "cancelled" {
				continue
			}
			s, en := bounds(e)
			if !s.Before(max) || !en.After(min) {
				continue
			}
			if qq := strings.ToLower(q.Get("q")); qq != "" && !strings.Contains(strings.ToLower(e.Summary+" "+e.Location), qq) {
				continue
			}
			hits = append(hits, e)
		}
		sort.Slice(hits, func(i, j int) bool { a, _ := bounds(hits[i]); b, _ := bounds(hits[j]); return a.Before(b) })
		f.json(w, page(hits, q.Get("maxResults"), q.Get("pageToken"), q.Get("timeZone")))
	})
	mux.HandleFunc("GET "+base+"/calendars/{cal}/events/{id}/instances", func(w http.ResponseWriter, r *http.Request) {
		max, _ := time.Parse(time.RFC3339, r.URL.Query().Get("timeMax"))
		var hits []*calendar.Event
		for _, e := range f.calEvents(r.PathValue("cal")) {
			if s, _ := bounds(e); e.RecurringEventId == r.PathValue("id") && s.Before(max) {
				hits = append(hits, e)
			}
		}
		f.json(w, &calendar.Events{Items: hits})
	})
	mux.HandleFunc("GET "+base+"/calendars/{cal}/events/{id}", func(w http.ResponseWriter, r *http.Request) {
		if e := f.event(r.PathValue("cal"), r.PathValue("id")); e != nil {
			f.json(w, e)
			return
		}
		f.notFound(w)
	})
	mux.HandleFunc("PATCH "+base+"/calendars/{cal}/events/{id}", func(w http.ResponseWriter, r *http.Request) {
		body := f.record(r)
		e := f.event(r.PathValue("cal"), r.PathValue("id"))
		if e == nil {
			f.notFound(w)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		merged := map[string]any{}
		raw, _ := json.Marshal(e)
		_ = json.Unmarshal(raw, &merged)
		for k, v := range body {
			merged[k] = v
		}
		raw, _ = json.Marshal(merged)
		var out calendar.Event
		_ = json.Unmarshal(raw, &out)
		f.events[r.PathValue("cal")][e.Id] = &out
		f.json(w, &out)
	})
	mux.HandleFunc("POST "+base+"/calendars/{cal}/events", func(w http.ResponseWriter, r *http.Request) {
		body := f.record(r)
		raw, _ := json.Marshal(body)
		var e calendar.Event
		_ = json.Unmarshal(raw, &e)
		f.mu.Lock()
		f.nextID++
		e.Id = fmt.Sprintf("new%d", f.nextID)
		if e.ConferenceData != nil && e.ConferenceData.CreateRequest != nil {
			e.HangoutLink = "https://meet.google.com/abc-defg-hij"
		}
		f.events[r.PathValue("cal")][e.Id] = &e
		f.mu.Unlock()
		f.json(w, &e)
	})
	mux.HandleFunc("POST "+base+"/calendars/{cal}/events/quickAdd", func(w http.ResponseWriter, r *http.Request) {
		f.record(r)
		f.json(w, &calendar.Event{Id: "quick1", Summary: "Lunch with Ann", Start: &calendar.EventDateTime{DateTime: berlin("2026-03-06T12:30")}, End: &calendar.EventDateTime{DateTime: berlin("2026-03-06T13:30")}})
	})
	mux.HandleFunc("DELETE "+base+"/calendars/{cal}/events/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.record(r)
		if f.event(r.PathValue("cal"), r.PathValue("id")) == nil {
			f.notFound(w)
			return
		}
		f.mu.Lock()
		delete(f.events[r.PathValue("cal")], r.PathValue("id"))
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST "+base+"/freeBusy", func(w http.ResponseWriter, r *http.Request) {
		body := f.record(r)
		res := &calendar.FreeBusyResponse{Calendars: map[string]calendar.FreeBusyCalendar{}}
		for _, it := range body["items"].([]any) {
			id := it.(map[string]any)["id"].(string)
			if id == "secret@example.com" {
				res.Calendars[id] = calendar.FreeBusyCalendar{Errors: []*calendar.Error{{Domain: "global", Reason: "notFound"}}}
				continue
			}
			res.Calendars[id] = calendar.FreeBusyCalendar{Busy: f.busy[id]}
		}
		f.json(w, res)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake Calendar: unexpected %s %s", r.Method, r.URL)
		f.notFound(w)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer live-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodGet {
			f.record(r)
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func bounds(e *calendar.Event) (time.Time, time.Time) {
	get := func(d *calendar.EventDateTime) time.Time {
		if d.Date != "" {
			t, _ := time.Parse("2006-01-02", d.Date)
			return t
		}
		t, _ := time.Parse(time.RFC3339, d.DateTime)
		return t
	}
	return get(e.Start), get(e.End)
}

// page pages hits like Google: pageToken "pN" continues at N.
func page(hits []*calendar.Event, maxS, tok, zone string) *calendar.Events {
	n, start := 250, 0
	_, _ = fmt.Sscan(maxS, &n)
	_, _ = fmt.Sscanf(tok, "p%d", &start)
	res := &calendar.Events{TimeZone: zone, Items: []*calendar.Event{}}
	for i := start; i < len(hits) && i < start+n; i++ {
		res.Items = append(res.Items, hits[i])
	}
	if start+n < len(hits) {
		res.NextPageToken = fmt.Sprintf("p%d", start+n)
	}
	return res
}

func (f *fakeCalendar) calEvents(cal string) []*calendar.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*calendar.Event
	for _, e := range f.events[cal] {
		out = append(out, e)
	}
	return out
}

func (f *fakeCalendar) event(cal, id string) *calendar.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[cal][id]
}

// record keeps a request and returns its JSON body.
func (f *fakeCalendar) record(r *http.Request) map[string]any {
	body := map[string]any{}
	if r.Body != nil {
		if raw, _ := io.ReadAll(r.Body); len(raw) > 0 {
			if err := json.Unmarshal(raw, &body); err != nil {
				f.t.Errorf("fake Calendar: bad body: %v", err)
			}
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body})
	f.mu.Unlock()
	return body
}

// calls returns the recorded requests with the method and a path suffix.
func (f *fakeCalendar) calls(method, suffix string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.reqs {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeCalendar) json(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeCalendar) notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"code":404,"message":"Not Found"}}`)
}

// signIn writes a client JSON and a token file with the calendar scope; it returns the flags
// that point the server at them and at the fake.
func signIn(t *testing.T, f *fakeCalendar, scopes ...string) []string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"https://www.googleapis.com/auth/calendar"}
	}
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...)
	return append(args, "--calendar-endpoint", f.srv.URL+"/calendar/v3/")
}
