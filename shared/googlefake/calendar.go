package googlefake

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/calendar/v3"
)

// Calendar is the Calendar API over HTTP. Recurring series are stored as Google returns them:
// a master (with Recurrence) plus its expanded occurrences (with RecurringEventId). A test
// fills the exported state before its first call.
type Calendar struct {
	*Server
	Lists     []*calendar.CalendarListEntry         // the signed-in user's calendar list
	Calendars map[string]*calendar.Calendar         // calendars.get answers for ids off the list
	Events    map[string]map[string]*calendar.Event // calendar id → event id → event
	Busy      map[string][]*calendar.TimePeriod     // freeBusy answers; ids neither here nor listed are notFound
	// QuickAdded is the event quickAdd creates (the fake does not parse the text).
	QuickAdded *calendar.Event
}

// EventsRoute is the events.list route, for FailNext.
const EventsRoute = "GET /calendar/v3/calendars/{cal}/events"

// NewCalendar starts a Calendar fake with no calendars, closed when the test ends. Its
// endpoint is URL+"/calendar/v3/".
func NewCalendar(t testing.TB) *Calendar {
	c := &Calendar{Server: newServer(t, "Calendar"), Calendars: map[string]*calendar.Calendar{}, Events: map[string]map[string]*calendar.Event{}, Busy: map[string][]*calendar.TimePeriod{}}
	const base = "/calendar/v3"
	c.handle("GET "+base+"/users/me/calendarList", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		WriteJSON(w, &calendar.CalendarList{Items: c.Lists})
	})
	c.handle("GET "+base+"/users/me/calendarList/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		for _, e := range c.Lists {
			if e.Id == r.PathValue("id") || r.PathValue("id") == "primary" && e.Primary {
				WriteJSON(w, e)
				return
			}
		}
		notFound(w, "Not Found")
	})
	c.handle("GET "+base+"/calendars/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		if cal, ok := c.Calendars[r.PathValue("id")]; ok {
			WriteJSON(w, cal)
			return
		}
		notFound(w, "Not Found")
	})
	c.handle(EventsRoute, c.list)
	c.handle("GET "+base+"/calendars/{cal}/events/{id}/instances", func(w http.ResponseWriter, r *http.Request, _ Request) {
		max, _ := time.Parse(time.RFC3339, r.URL.Query().Get("timeMax"))
		var hits []*calendar.Event
		for _, e := range c.calEvents(r.PathValue("cal")) {
			if s, _ := bounds(e); e.RecurringEventId == r.PathValue("id") && s.Before(max) {
				hits = append(hits, e)
			}
		}
		WriteJSON(w, &calendar.Events{Items: hits})
	})
	c.handle("GET "+base+"/calendars/{cal}/events/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		if e := c.Event(r.PathValue("cal"), r.PathValue("id")); e != nil {
			WriteJSON(w, e)
			return
		}
		notFound(w, "Not Found")
	})
	c.handle("PATCH "+base+"/calendars/{cal}/events/{id}", c.patch)
	c.handle("POST "+base+"/calendars/{cal}/events", func(w http.ResponseWriter, r *http.Request, rq Request) {
		var e calendar.Event
		_ = rq.Decode(&e)
		c.mu.Lock()
		defer c.mu.Unlock()
		e.Id = c.newID("new")
		if e.ConferenceData != nil && e.ConferenceData.CreateRequest != nil {
			e.HangoutLink = "https://meet.google.com/abc-defg-hij"
		}
		c.Events[r.PathValue("cal")][e.Id] = &e
		WriteJSON(w, &e)
	})
	c.handle("POST "+base+"/calendars/{cal}/events/quickAdd", func(w http.ResponseWriter, _ *http.Request, _ Request) {
		WriteJSON(w, c.QuickAdded)
	})
	c.handle("DELETE "+base+"/calendars/{cal}/events/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.Events[r.PathValue("cal")][r.PathValue("id")] == nil {
			notFound(w, "Not Found")
			return
		}
		delete(c.Events[r.PathValue("cal")], r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	c.handle("POST "+base+"/freeBusy", c.freeBusy)
	return c
}

// list answers events.list as the servers call it: expanded (singleEvents, by start time)
// between timeMin and timeMax, filtered by q over summary and location.
func (c *Calendar) list(w http.ResponseWriter, r *http.Request, _ Request) {
	q := r.URL.Query()
	if q.Get("singleEvents") != "true" || q.Get("orderBy") != "startTime" {
		c.t.Errorf("events.list without singleEvents/orderBy: %s", r.URL.RawQuery)
	}
	min, _ := time.Parse(time.RFC3339, q.Get("timeMin"))
	max, _ := time.Parse(time.RFC3339, q.Get("timeMax"))
	var hits []*calendar.Event
	for _, e := range c.calEvents(r.PathValue("cal")) {
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
	start, end, next := page(q, "maxResults", 250, len(hits))
	WriteJSON(w, &calendar.Events{TimeZone: q.Get("timeZone"), Items: append([]*calendar.Event{}, hits[start:end]...), NextPageToken: next})
}

// patch merges the body's fields into the stored event, as events.patch does.
func (c *Calendar) patch(w http.ResponseWriter, r *http.Request, rq Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.Events[r.PathValue("cal")][r.PathValue("id")]
	if e == nil {
		notFound(w, "Not Found")
		return
	}
	merged := map[string]any{}
	raw, _ := json.Marshal(e)
	_ = json.Unmarshal(raw, &merged)
	for k, v := range rq.Body {
		merged[k] = v
	}
	raw, _ = json.Marshal(merged)
	var out calendar.Event
	_ = json.Unmarshal(raw, &out)
	c.Events[r.PathValue("cal")][e.Id] = &out
	WriteJSON(w, &out)
}

func (c *Calendar) freeBusy(w http.ResponseWriter, _ *http.Request, rq Request) {
	var req calendar.FreeBusyRequest
	if err := rq.Decode(&req); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error(), "invalid")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	res := &calendar.FreeBusyResponse{Calendars: map[string]calendar.FreeBusyCalendar{}}
	for _, it := range req.Items {
		busy, ok := c.Busy[it.Id]
		for _, e := range c.Lists {
			ok = ok || e.Id == it.Id
		}
		if !ok {
			res.Calendars[it.Id] = calendar.FreeBusyCalendar{Errors: []*calendar.Error{{Domain: "global", Reason: "notFound"}}}
			continue
		}
		res.Calendars[it.Id] = calendar.FreeBusyCalendar{Busy: busy}
	}
	WriteJSON(w, res)
}

// bounds is an event's start and end; an all-day event's are midnight UTC.
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

func (c *Calendar) calEvents(cal string) []*calendar.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*calendar.Event
	for _, e := range c.Events[cal] {
		out = append(out, e)
	}
	return out
}

// Event is the stored event id of calendar cal, or nil.
func (c *Calendar) Event(cal, id string) *calendar.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Events[cal][id]
}
