package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"google.golang.org/api/calendar/v3"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFreeBusyRange is Google's limit for one free/busy query.
const maxFreeBusyRange = 92 * 24 * time.Hour

type freeBusyInput struct {
	Calendars []string `json:"calendars,omitempty" jsonschema:"calendar ids, names or emails" schema:"default=[\"primary\"]"`
	TimeMin   string   `json:"time_min,omitempty" jsonschema:"range start; default now"`
	TimeMax   string   `json:"time_max,omitempty" jsonschema:"end; default 7 days, at most 3 months"`
	TimeZone  string   `json:"time_zone,omitempty" jsonschema:"IANA zone; default the first calendar's own"`
}

type interval struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

type calendarBusy struct {
	Calendar string     `json:"calendar"`
	Busy     []interval `json:"busy"`
	Error    string     `json:"error,omitempty"`
}

type freeBusyOutput struct {
	TimeZone  string         `json:"time_zone"`
	Calendars []calendarBusy `json:"calendars"`
}

func (o freeBusyOutput) Text() string {
	var b strings.Builder
	for _, c := range o.Calendars {
		fmt.Fprintf(&b, "%s:", c.Calendar)
		if c.Error != "" {
			fmt.Fprintf(&b, " unavailable (%s)\n", c.Error)
			continue
		}
		if len(c.Busy) == 0 {
			b.WriteString(" free\n")
			continue
		}
		b.WriteString("\n")
		for _, i := range c.Busy {
			fmt.Fprintf(&b, "  busy %s – %s\n", i.Start, i.End)
		}
	}
	return strings.TrimSpace(b.String())
}

type freeSlotsInput struct {
	Calendars       []string `json:"calendars,omitempty" jsonschema:"calendar ids, names or emails" schema:"default=[\"primary\"]"`
	DurationMinutes int      `json:"duration_minutes" jsonschema:"shortest free window wanted" schema:"minimum=5,maximum=1440"`
	TimeMin         string   `json:"time_min,omitempty" jsonschema:"search start; default now"`
	TimeMax         string   `json:"time_max,omitempty" jsonschema:"end; default 7 days, at most 3 months"`
	WorkStart       string   `json:"working_hours_start,omitempty" jsonschema:"start of the working day, HH:MM" schema:"default=09:00"`
	WorkEnd         string   `json:"working_hours_end,omitempty" jsonschema:"end of the working day, HH:MM" schema:"default=17:00"`
	IncludeWeekends bool     `json:"include_weekends,omitempty" schema:"bare=true"`
	TimeZone        string   `json:"time_zone,omitempty" jsonschema:"IANA zone of the working hours; default the first calendar's own"`
	MaxSlots        int      `json:"max_slots,omitempty" schema:"minimum=1,maximum=50,default=10,bare=true"`
	WorkingLocation string   `json:"working_location,omitempty" jsonschema:"only where working location events say" schema:"enum=home|office|custom"`
}

type freeSlotsOutput struct {
	TimeZone string     `json:"time_zone"`
	Slots    []interval `json:"slots"`
	More     bool       `json:"more,omitempty"`
}

func (o freeSlotsOutput) Text() string {
	if len(o.Slots) == 0 {
		return "No free slot of that length in the range."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Free (%s):\n", o.TimeZone)
	for _, s := range o.Slots {
		fmt.Fprintf(&b, "%s – %s\n", s.Start, s.End)
	}
	if o.More {
		b.WriteString("[more free time later: narrow the range or raise max_slots]")
	}
	return strings.TrimSpace(b.String())
}

func addFreeBusyTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "free_busy", Toolset: toolsetAvailability, Title: "Free/busy", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Busy intervals of calendars or people in a range (up to 3 months)."}, c.freeBusy)
	kit.AddTool(s, kit.Tool{Name: "find_free_slots", Toolset: toolsetAvailability, Title: "Find free slots", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Free windows of at least a duration in working hours, common to calendars."}, c.findFreeSlots)
}

type busySpan struct{ start, end time.Time }

// busy queries free/busy; refs that are not calendars of the user are passed on as ids (email
// addresses of colleagues work).
func (c *cal) busy(ctx context.Context, refs []string, zone, minS, maxS string) (*time.Location, time.Time, time.Time, []string, *calendar.FreeBusyResponse, error) {
	if len(refs) == 0 {
		refs = []string{"primary"}
	}
	list, err := c.calendars(ctx)
	if err != nil {
		return nil, time.Time{}, time.Time{}, nil, nil, c.google.Fail(err, "calendar list")
	}
	var ids []string
	var loc *time.Location
	for _, r := range refs {
		id := r
		for _, e := range list {
			if e.Id == r || r == "primary" && e.Primary || strings.EqualFold(entryName(e), r) {
				id = e.Id
				if loc == nil {
					loc, _ = time.LoadLocation(e.TimeZone)
				}
				break
			}
		}
		ids = append(ids, id)
	}
	if zone != "" {
		if loc, err = loadZone(zone); err != nil {
			return nil, time.Time{}, time.Time{}, nil, nil, err
		}
	}
	if loc == nil {
		loc = time.UTC
	}
	min, max, err := rangeOf(minS, maxS, loc, 7*24*time.Hour)
	if err != nil {
		return nil, min, max, nil, nil, err
	}
	if max.Sub(min) > maxFreeBusyRange {
		return nil, min, max, nil, nil, kit.Errorf(kit.CodeLimit, "range is longer than 3 months: split it")
	}
	req := &calendar.FreeBusyRequest{TimeMin: min.Format(time.RFC3339), TimeMax: max.Format(time.RFC3339), TimeZone: loc.String()}
	for _, id := range ids {
		req.Items = append(req.Items, &calendar.FreeBusyRequestItem{Id: id})
	}
	res, err := c.cs.Freebusy.Query(req).Context(ctx).Do()
	if err != nil {
		return nil, min, max, nil, nil, c.google.Fail(err, "free/busy")
	}
	return loc, min, max, ids, res, nil
}

func (c *cal) freeBusy(ctx context.Context, _ *mcp.CallToolRequest, in freeBusyInput) (*mcp.CallToolResult, freeBusyOutput, error) {
	loc, _, _, ids, res, err := c.busy(ctx, in.Calendars, in.TimeZone, in.TimeMin, in.TimeMax)
	if err != nil {
		return nil, freeBusyOutput{}, err
	}
	out := freeBusyOutput{TimeZone: loc.String()}
	for _, id := range ids {
		cb := calendarBusy{Calendar: id, Busy: []interval{}}
		fb, ok := res.Calendars[id]
		switch {
		case !ok:
			cb.Error = "not returned"
		case len(fb.Errors) > 0:
			cb.Error = fb.Errors[0].Reason
		default:
			for _, p := range fb.Busy {
				cb.Busy = append(cb.Busy, interval{Start: renderInstant(p.Start, loc), End: renderInstant(p.End, loc)})
			}
		}
		out.Calendars = append(out.Calendars, cb)
	}
	return nil, out, nil
}

func clock(s string) (int, int, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, 0, kit.Errorf(kit.CodeInvalidInput, "working hours %q: give HH:MM, e.g. 09:00", s)
	}
	return t.Hour(), t.Minute(), nil
}

func (c *cal) findFreeSlots(ctx context.Context, _ *mcp.CallToolRequest, in freeSlotsInput) (*mcp.CallToolResult, freeSlotsOutput, error) {
	sh, sm, err := clock(in.WorkStart)
	if err != nil {
		return nil, freeSlotsOutput{}, err
	}
	eh, em, err := clock(in.WorkEnd)
	if err != nil {
		return nil, freeSlotsOutput{}, err
	}
	if eh*60+em <= sh*60+sm {
		return nil, freeSlotsOutput{}, kit.Errorf(kit.CodeInvalidInput, "working_hours_end must be after working_hours_start")
	}
	loc, min, max, ids, res, err := c.busy(ctx, in.Calendars, in.TimeZone, in.TimeMin, in.TimeMax)
	if err != nil {
		return nil, freeSlotsOutput{}, err
	}
	var busy []busySpan
	for _, id := range ids {
		fb := res.Calendars[id]
		if len(fb.Errors) > 0 {
			return nil, freeSlotsOutput{}, kit.Errorf(kit.CodeUnavailable, "free/busy of %s is not visible (%s): leave it out or ask its owner to share it", id, fb.Errors[0].Reason)
		}
		for _, p := range fb.Busy {
			s, e1 := time.Parse(time.RFC3339, p.Start)
			e, e2 := time.Parse(time.RFC3339, p.End)
			if e1 == nil && e2 == nil {
				busy = append(busy, busySpan{s, e})
			}
		}
	}
	if in.WorkingLocation != "" {
		away, err := c.awayFrom(ctx, workingLocationTypes[in.WorkingLocation], min, max, loc)
		if err != nil {
			return nil, freeSlotsOutput{}, err
		}
		busy = append(busy, away...)
	}
	slots, more := freeWindows(busy, min, max, loc, sh, sm, eh, em, !in.IncludeWeekends, time.Duration(in.DurationMinutes)*time.Minute, in.MaxSlots)
	out := freeSlotsOutput{TimeZone: loc.String(), Slots: []interval{}, More: more}
	for _, s := range slots {
		out.Slots = append(out.Slots, interval{Start: s.start.In(loc).Format(time.RFC3339), End: s.end.In(loc).Format(time.RFC3339)})
	}
	return nil, out, nil
}

// freeWindows returns the free windows of at least d inside working hours (local wall clock in
// loc, so days that change DST keep their hours) between min and max, at most n, and whether
// more exist.
func freeWindows(busy []busySpan, min, max time.Time, loc *time.Location, sh, sm, eh, em int, weekdaysOnly bool, d time.Duration, n int) ([]busySpan, bool) {
	sort.Slice(busy, func(i, j int) bool { return busy[i].start.Before(busy[j].start) })
	var out []busySpan
	first := min.In(loc)
	for day := time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, loc); day.Before(max); day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc) {
		if weekdaysOnly && (day.Weekday() == time.Saturday || day.Weekday() == time.Sunday) {
			continue
		}
		ws := time.Date(day.Year(), day.Month(), day.Day(), sh, sm, 0, 0, loc)
		we := time.Date(day.Year(), day.Month(), day.Day(), eh, em, 0, 0, loc)
		if ws.Before(min) {
			ws = min
		}
		if we.After(max) {
			we = max
		}
		cur := ws
		for _, b := range busy {
			if !b.end.After(cur) || !b.start.Before(we) {
				continue
			}
			if b.start.Sub(cur) >= d {
				if len(out) == n {
					return out, true
				}
				out = append(out, busySpan{cur, b.start})
			}
			if b.end.After(cur) {
				cur = b.end
			}
		}
		if we.Sub(cur) >= d {
			if len(out) == n {
				return out, true
			}
			out = append(out, busySpan{cur, we})
		}
	}
	return out, false
}

// awayFrom is the time between min and max when the user's primary calendar does not place
// them at the working location kind (homeOffice, officeLocation, customLocation): the gaps
// between its working location events of that kind, as busy spans.
func (c *cal) awayFrom(ctx context.Context, kind string, min, max time.Time, loc *time.Location) ([]busySpan, error) {
	var there []busySpan
	tok := ""
	for {
		res, err := c.eventsBetween(ctx, "primary", min.Format(time.RFC3339), max.Format(time.RFC3339), loc.String(), func(call *calendar.EventsListCall) {
			call.EventTypes(typeWorkingLocation)
			if tok != "" {
				call.PageToken(tok)
			}
		})
		if err != nil {
			return nil, c.google.Fail(err, "working locations")
		}
		for _, e := range res.Items {
			if e.EventType == typeWorkingLocation && e.WorkingLocationProperties != nil && e.WorkingLocationProperties.Type == kind && e.Status != "cancelled" {
				there = append(there, busySpan{instantOf(e.Start, loc), instantOf(e.End, loc)})
			}
		}
		if res.NextPageToken == "" {
			break
		}
		tok = res.NextPageToken
	}
	sort.Slice(there, func(i, j int) bool { return there[i].start.Before(there[j].start) })
	var away []busySpan
	cur := min
	for _, s := range there {
		if s.start.After(cur) {
			away = append(away, busySpan{cur, s.start})
		}
		if s.end.After(cur) {
			cur = s.end
		}
	}
	if max.After(cur) {
		away = append(away, busySpan{cur, max})
	}
	return away, nil
}
