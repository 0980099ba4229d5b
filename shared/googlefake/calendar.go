package googlefake

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/calendar/v3"
)

// Calendar is the Calendar API over HTTP. Recurring series are stored as Google returns them:
// a master (with Recurrence) plus its expanded occurrences (with RecurringEventId). A test
// fills the exported state before its first call. Inserts on a calendar the user may only
// read are refused with 403 requiredAccessLevel. Free/busy answers Busy plus the stored
// events that block time, merged, as Google does; events.insert refuses status events
// (outOfOffice, focusTime, workingLocation) where Google does and drops attachments unless
// supportsAttachments=true.
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
		if c.readOnly(r.PathValue("cal")) {
			WriteError(w, http.StatusForbidden, "You need to have writer access to this calendar.", "requiredAccessLevel")
			return
		}
		if msg := c.refuseStatusEvent(r.PathValue("cal"), &e); msg != "" {
			WriteError(w, http.StatusBadRequest, msg, "invalid")
			return
		}
		if r.URL.Query().Get("supportsAttachments") != "true" {
			e.Attachments = nil
		}
		for _, a := range e.Attachments {
			a.Title = "file " + a.FileUrl[strings.LastIndex(a.FileUrl, "/")+1:]
		}
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
	types := q["eventTypes"]
	var hits []*calendar.Event
	for _, e := range c.calEvents(r.PathValue("cal")) {
		if len(e.Recurrence) > 0 || e.Status == "cancelled" {
			continue
		}
		if typ := e.EventType; len(types) > 0 && !slices.Contains(types, typ) && (typ != "" || !slices.Contains(types, "default")) {
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
	min, _ := time.Parse(time.RFC3339, req.TimeMin)
	max, _ := time.Parse(time.RFC3339, req.TimeMax)
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
		var spans [][2]time.Time
		for _, p := range busy {
			s, _ := time.Parse(time.RFC3339, p.Start)
			e, _ := time.Parse(time.RFC3339, p.End)
			spans = append(spans, [2]time.Time{s, e})
		}
		for _, e := range c.Events[it.Id] {
			if len(e.Recurrence) > 0 || e.Status == "cancelled" || e.Transparency == "transparent" || e.EventType == "workingLocation" {
				continue
			}
			if s, en := bounds(e); s.Before(max) && en.After(min) {
				spans = append(spans, [2]time.Time{s, en})
			}
		}
		res.Calendars[it.Id] = calendar.FreeBusyCalendar{Busy: merge(spans)}
	}
	WriteJSON(w, res)
}

// merge sorts busy spans and joins those that overlap or touch, as free/busy answers them.
func merge(spans [][2]time.Time) []*calendar.TimePeriod {
	sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
	var out [][2]time.Time
	for _, s := range spans {
		if n := len(out); n > 0 && !s[0].After(out[n-1][1]) {
			if s[1].After(out[n-1][1]) {
				out[n-1][1] = s[1]
			}
			continue
		}
		out = append(out, s)
	}
	periods := []*calendar.TimePeriod{}
	for _, s := range out {
		periods = append(periods, &calendar.TimePeriod{Start: s[0].UTC().Format(time.RFC3339), End: s[1].UTC().Format(time.RFC3339)})
	}
	return periods
}

// readOnly reports whether the user's list has cal with reader or free/busy access only, where
// Google refuses writes with 403 requiredAccessLevel.
func (c *Calendar) readOnly(cal string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.Lists {
		if l.Id == cal {
			return l.AccessRole == "reader" || l.AccessRole == "freeBusyReader"
		}
	}
	return false
}

// refuseStatusEvent is Google's refusal of a status event where it cannot be, or "".
func (c *Calendar) refuseStatusEvent(cal string, e *calendar.Event) string {
	name := map[string]string{"outOfOffice": "Out of office", "focusTime": "Focus time", "workingLocation": "Working location"}[e.EventType]
	if name == "" {
		return ""
	}
	c.mu.Lock()
	primary := false
	for _, l := range c.Lists {
		primary = primary || l.Id == cal && l.Primary
	}
	c.mu.Unlock()
	switch {
	case !primary:
		return name + " events can only be created on the primary calendar."
	case e.EventType != "workingLocation" && e.Start != nil && e.Start.Date != "":
		return name + " events cannot be all-day events."
	case e.EventType == "workingLocation" && e.WorkingLocationProperties == nil:
		return "Working location properties are required for working location events."
	}
	return ""
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
	cal = c.alias(cal)
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
	return c.Events[c.alias(cal)][id]
}

// alias turns "primary", which Google accepts for the user's own calendar, into its id; the
// caller holds mu.
func (c *Calendar) alias(cal string) string {
	if cal == "primary" {
		for _, l := range c.Lists {
			if l.Primary {
				return l.Id
			}
		}
	}
	return cal
}
