package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"google.golang.org/api/calendar/v3"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const maxDescription = 2000

type attendee struct {
	Email    string `json:"email"`
	Name     string `json:"name,omitempty"`
	Response string `json:"response,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	Self     bool   `json:"self,omitempty"`
}

// eventInfo is an event as the model sees it.
type eventInfo struct {
	ID               string     `json:"id"`
	CalendarID       string     `json:"calendar_id"`
	Summary          string     `json:"summary"`
	Start            eventTime  `json:"start"`
	End              eventTime  `json:"end"`
	AllDay           bool       `json:"all_day,omitempty"`
	TimeZone         string     `json:"time_zone"`
	Location         string     `json:"location,omitempty"`
	Description      string     `json:"description,omitempty"`
	Status           string     `json:"status,omitempty"`
	Organizer        string     `json:"organizer,omitempty"`
	Attendees        []attendee `json:"attendees,omitempty"`
	RecurringEventID string     `json:"recurring_event_id,omitempty"`
	Recurrence       []string   `json:"recurrence,omitempty"`
	MeetLink         string     `json:"meet_link,omitempty"`
	ColorID          string     `json:"color_id,omitempty"`
	Visibility       string     `json:"visibility,omitempty"`
	Reminders        []int64    `json:"reminder_minutes,omitempty"`
	Link             string     `json:"link,omitempty"`
	EventType        string     `json:"event_type,omitempty"`
	AutoDecline      string     `json:"auto_decline,omitempty"`
	WorkingLocation  string     `json:"working_location,omitempty"`
	ShowAsFree       bool       `json:"show_as_free,omitempty"`
	Attachments      []fileLink `json:"attachments,omitempty"`
	GuestsCanModify  bool       `json:"guests_can_modify,omitempty"`
	GuestsCannot     []string   `json:"guests_cannot,omitempty"`
}

// fileLink is an attachment: a Drive file's title and address.
type fileLink struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

func toInfo(e *event, t target, descCap int) eventInfo {
	info := eventInfo{ID: e.Id, CalendarID: t.ID, Summary: e.Summary, Start: renderStart(e.Start, t.Zone), End: renderEnd(e.End, t.Zone),
		AllDay: e.Start != nil && e.Start.Date != "", TimeZone: t.Zone.String(), Location: e.Location, Status: e.Status,
		RecurringEventID: e.RecurringEventId, Recurrence: e.Recurrence, MeetLink: e.HangoutLink, ColorID: e.ColorId, Link: e.HtmlLink}
	if e.Visibility != "default" {
		info.Visibility = e.Visibility
	}
	info.Description = e.Description
	if descCap > 0 && len([]rune(info.Description)) > descCap {
		info.Description = string([]rune(info.Description)[:descCap]) + " [… truncated; call get_event for all of it]"
	}
	if e.Organizer != nil {
		info.Organizer = e.Organizer.Email
	}
	for _, a := range e.Attendees {
		info.Attendees = append(info.Attendees, attendee{Email: a.Email, Name: a.DisplayName, Response: a.ResponseStatus, Optional: a.Optional, Self: a.Self})
	}
	if e.Reminders != nil {
		for _, r := range e.Reminders.Overrides {
			info.Reminders = append(info.Reminders, r.Minutes)
		}
	}
	if e.EventType != typeDefault {
		info.EventType = e.EventType
	}
	var mode string
	switch {
	case e.OutOfOfficeProperties != nil:
		mode = e.OutOfOfficeProperties.AutoDeclineMode
	case e.FocusTimeProperties != nil:
		mode = e.FocusTimeProperties.AutoDeclineMode
	}
	for short, google := range autoDeclineModes {
		if mode != "" && google == mode && short != "none" {
			info.AutoDecline = short
		}
	}
	info.WorkingLocation = workingLocationText(e.WorkingLocationProperties)
	info.ShowAsFree = e.Transparency == "transparent"
	for _, a := range e.Attachments {
		info.Attachments = append(info.Attachments, fileLink{Title: a.Title, URL: a.FileUrl})
	}
	info.GuestsCanModify = e.GuestsCanModify
	if e.GuestsCanInviteOthers != nil && !*e.GuestsCanInviteOthers {
		info.GuestsCannot = append(info.GuestsCannot, "invite_others")
	}
	if e.GuestsCanSeeOtherGuests != nil && !*e.GuestsCanSeeOtherGuests {
		info.GuestsCannot = append(info.GuestsCannot, "see_other_guests")
	}
	return info
}

func (e eventInfo) line() string {
	var b strings.Builder
	if e.AllDay {
		if e.Start.Date == e.End.Date {
			fmt.Fprintf(&b, "%s (all day)", e.Start.Date)
		} else {
			fmt.Fprintf(&b, "%s – %s (all day)", e.Start.Date, e.End.Date)
		}
	} else {
		fmt.Fprintf(&b, "%s – %s", e.Start.DateTime, e.End.DateTime)
	}
	fmt.Fprintf(&b, " %s [id %s, calendar %s]", e.Summary, e.ID, e.CalendarID)
	if e.EventType != "" {
		fmt.Fprintf(&b, " (%s)", e.EventType)
	}
	if e.WorkingLocation != "" {
		fmt.Fprintf(&b, " working from %s", e.WorkingLocation)
	}
	if e.ShowAsFree && e.EventType == "" {
		b.WriteString(" (shown as free)")
	}
	if e.Location != "" {
		fmt.Fprintf(&b, " @ %s", e.Location)
	}
	if e.RecurringEventID != "" {
		b.WriteString(" (recurring)")
	}
	for _, a := range e.Attendees {
		// An invitation: who sent it and whether the user has answered (respond_to_event).
		if a.Self && e.Organizer != "" && e.Organizer != a.Email && a.Response != "" {
			fmt.Fprintf(&b, " (invited by %s; your response: %s)", e.Organizer, a.Response)
		}
	}
	return b.String()
}

// listEventsInput caps max_results at 250 (Google allows 2500): a page is read by a model, each
// event with up to maxDescription characters.
type listEventsInput struct {
	Calendars  []string `json:"calendars,omitempty" jsonschema:"calendar ids or names" schema:"default=[\"primary\"]"`
	TimeMin    string   `json:"time_min,omitempty" jsonschema:"range start; default now"`
	TimeMax    string   `json:"time_max,omitempty" jsonschema:"range end; default 7 days later"`
	Query      string   `json:"query,omitempty" jsonschema:"only events with this text"`
	TimeZone   string   `json:"time_zone,omitempty" jsonschema:"IANA zone for times; default each calendar's own"`
	MaxResults int      `json:"max_results,omitempty" jsonschema:"events per calendar per page" schema:"minimum=1,maximum=250,default=50"`
	PageToken  string   `json:"page_token,omitempty" schema:"bare=true"`
	EventTypes []string `json:"event_types,omitempty" jsonschema:"only these types; default all" schema:"enum=default|outOfOffice|focusTime|workingLocation"`
}

type listEventsOutput struct {
	Events        []eventInfo `json:"events"`
	NextPageToken string      `json:"next_page_token,omitempty"`
}

func (o listEventsOutput) Text() string {
	if len(o.Events) == 0 {
		return "No events."
	}
	var b strings.Builder
	for _, e := range o.Events {
		b.WriteString(e.line() + "\n")
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "[more events: call list_events again with page_token=%s]", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

type getEventInput struct {
	Calendar string `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	EventID  string `json:"event_id" jsonschema:"an event or occurrence id from list_events" schema:"minLength=1"`
	TimeZone string `json:"time_zone,omitempty" jsonschema:"IANA zone for times; default the calendar's own"`
}

type eventOutput struct {
	eventInfo
	Action string `json:"action,omitempty"`
}

// writeOutput is what create_event, update_event and each event of create_events return: the
// event and the busy events it overlaps.
type writeOutput struct {
	eventOutput
	Conflicts []conflict `json:"conflicts,omitempty" jsonschema:"busy events it overlaps; it was written anyway"`
}

func (o writeOutput) Text() string {
	s := o.eventOutput.Text()
	if len(o.Conflicts) == 0 {
		return s
	}
	first, rest, _ := strings.Cut(s, "\n")
	s = first + "\nWarning: it overlaps " + conflictsText(o.Conflicts)
	if rest != "" {
		s += "\n" + rest
	}
	return s
}

func (o eventOutput) Text() string {
	s := o.line()
	if o.Action != "" {
		s = "Event " + o.Action + ": " + s
	}
	if o.MeetLink != "" {
		s += "\nMeet: " + o.MeetLink
	}
	if o.Description != "" {
		s += "\n" + o.Description
	}
	return s
}

func addEventTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "list_events", Toolset: toolsetRead, Title: "List events", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "List events in a time range on one or more calendars, recurring ones expanded."}, c.listEvents)
	kit.AddTool(s, kit.Tool{Name: "get_event", Toolset: toolsetRead, Title: "Get an event", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "One event with attendees, description, recurrence and Meet link."}, c.getEvent)
}

// pageState is the paging position per calendar when several are listed together.
type pageState map[string]string

func (c *cal) listEvents(ctx context.Context, _ *mcp.CallToolRequest, in listEventsInput) (*mcp.CallToolResult, listEventsOutput, error) {
	targets, err := c.resolve(ctx, in.Calendars, in.TimeZone)
	if err != nil {
		return nil, listEventsOutput{}, err
	}
	pages := pageState{}
	if in.PageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(in.PageToken)
		if err != nil || json.Unmarshal(raw, &pages) != nil {
			return nil, listEventsOutput{}, kit.Errorf(kit.CodeInvalidInput, "page_token is not one list_events returned")
		}
	}
	type hit struct {
		at   time.Time
		info eventInfo
	}
	var hits []hit
	next := pageState{}
	for _, t := range targets {
		tok, listed := pages[t.ID]
		if in.PageToken != "" && !listed {
			continue // this calendar was exhausted on an earlier page
		}
		min, max, err := rangeOf(in.TimeMin, in.TimeMax, t.Zone, 7*24*time.Hour)
		if err != nil {
			return nil, listEventsOutput{}, err
		}
		res, err := c.eventsBetween(ctx, t.ID, min.Format(time.RFC3339), max.Format(time.RFC3339), t.Zone.String(), func(call *calendar.EventsListCall) {
			call.MaxResults(int64(in.MaxResults))
			if in.Query != "" {
				call.Q(in.Query)
			}
			if tok != "" {
				call.PageToken(tok)
			}
			if len(in.EventTypes) > 0 {
				call.EventTypes(in.EventTypes...)
			}
		})
		if err != nil {
			return nil, listEventsOutput{}, c.google.Fail(err, fmt.Sprintf("calendar %q", t.Name))
		}
		for _, e := range res.Items {
			hits = append(hits, hit{at: instantOf(e.Start, t.Zone), info: toInfo(e, t, maxDescription)})
		}
		if res.NextPageToken != "" {
			next[t.ID] = res.NextPageToken
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].at.Before(hits[j].at) })
	out := listEventsOutput{Events: []eventInfo{}}
	for _, h := range hits {
		out.Events = append(out.Events, h.info)
	}
	if len(next) > 0 {
		raw, _ := json.Marshal(next)
		out.NextPageToken = base64.RawURLEncoding.EncodeToString(raw)
	}
	return nil, out, nil
}

// rangeOf reads a time range in loc; a missing start is now, a missing end is start+def.
func rangeOf(minS, maxS string, loc *time.Location, def time.Duration) (time.Time, time.Time, error) {
	min := time.Now()
	var err error
	if minS != "" {
		if min, err = parseInstant(minS, loc); err != nil {
			return min, min, err
		}
	}
	max := min.Add(def)
	if maxS != "" {
		if max, err = parseInstant(maxS, loc); err != nil {
			return min, max, err
		}
	}
	if !max.After(min) {
		return min, max, kit.Errorf(kit.CodeInvalidInput, "time_max %s is not after time_min %s", max.Format(time.RFC3339), min.Format(time.RFC3339))
	}
	return min, max, nil
}

func (c *cal) getEvent(ctx context.Context, _ *mcp.CallToolRequest, in getEventInput) (*mcp.CallToolResult, eventOutput, error) {
	t, err := c.one(ctx, in.Calendar, in.TimeZone)
	if err != nil {
		return nil, eventOutput{}, err
	}
	e, err := c.getEventByID(ctx, t.ID, in.EventID)
	if err != nil {
		return nil, eventOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	return nil, eventOutput{eventInfo: toInfo(e, t, 20000)}, nil
}
