package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"google.golang.org/api/calendar/v3"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/jck411/mcp-servers/shared/recipients"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type createEventInput struct {
	Calendar        string   `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	Summary         string   `json:"summary" jsonschema:"title" schema:"minLength=1"`
	Start           string   `json:"start" jsonschema:"2026-03-05T09:00, RFC 3339, or a date for all day" schema:"minLength=1"`
	End             string   `json:"end,omitempty" jsonschema:"end; all-day: the last day, inclusive"`
	TimeZone        string   `json:"time_zone,omitempty" jsonschema:"IANA zone; default the calendar's own"`
	Location        string   `json:"location,omitempty" jsonschema:"address or room"`
	Description     string   `json:"description,omitempty" jsonschema:"notes, plain text"`
	Attendees       []string `json:"attendees,omitempty" jsonschema:"email addresses"`
	SendUpdates     string   `json:"send_updates,omitempty" jsonschema:"who gets invitation emails" schema:"enum=all|external_only|none,default=all"`
	Recurrence      []string `json:"recurrence,omitempty" jsonschema:"RRULE lines, e.g. FREQ=WEEKLY;BYDAY=MO"`
	ReminderMinutes []int64  `json:"reminder_minutes,omitempty" jsonschema:"popup reminders, minutes before" schema:"maxItems=5,minimum=0,maximum=40320"`
	Meet            bool     `json:"meet,omitempty" jsonschema:"add a Google Meet link"`
	ColorID         string   `json:"color_id,omitempty" jsonschema:"Google event colour" schema:"enum=1|2|3|4|5|6|7|8|9|10|11"`
	Visibility      string   `json:"visibility,omitempty" schema:"enum=default|public|private|confidential,bare=true"`
	createExtras
}

// createExtras are the arguments create_event shares with each item of create_events.
type createExtras struct {
	EventType         string   `json:"event_type,omitempty" jsonschema:"status events (primary calendar only)" schema:"enum=default|outOfOffice|focusTime|workingLocation,default=default"`
	AutoDecline       string   `json:"auto_decline,omitempty" jsonschema:"outOfOffice, focusTime: decline conflicts" schema:"enum=none|all|new"`
	DeclineMessage    string   `json:"decline_message,omitempty" jsonschema:"note with the declines"`
	WorkingLocation   string   `json:"working_location,omitempty" jsonschema:"workingLocation: where" schema:"enum=home|office|custom"`
	OptionalAttendees []string `json:"optional_attendees,omitempty" jsonschema:"optional attendees' emails"`
	ShowAsFree        bool     `json:"show_as_free,omitempty" jsonschema:"do not block the time"`
	Attachments       []string `json:"attachments,omitempty" jsonschema:"Google Drive file links" schema:"maxItems=25"`
	GuestsCanModify   *bool    `json:"guests_can_modify,omitempty" jsonschema:"guests may edit the event; default false"`
	GuestsCanInvite   *bool    `json:"guests_can_invite_others,omitempty" jsonschema:"guests may invite others (default true)"`
	GuestsCanSee      *bool    `json:"guests_can_see_other_guests,omitempty" jsonschema:"guests see the guest list; default true"`
	RefuseConflicts   bool     `json:"refuse_conflicts,omitempty" jsonschema:"refuse busy time instead of listing the conflicts"`
}

type updateEventInput struct {
	Calendar        string    `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	EventID         string    `json:"event_id" jsonschema:"an event id, or an occurrence id from list_events" schema:"minLength=1"`
	Scope           string    `json:"scope,omitempty" jsonschema:"recurring: this occurrence, it and the following, or all" schema:"enum=this|following|all"`
	Summary         *string   `json:"summary,omitempty" jsonschema:"new title"`
	Start           string    `json:"start,omitempty" jsonschema:"new start, as in create_event"`
	End             string    `json:"end,omitempty" jsonschema:"new end; required with start"`
	TimeZone        string    `json:"time_zone,omitempty" jsonschema:"IANA zone for start and end; default the calendar's own"`
	Location        *string   `json:"location,omitempty" jsonschema:"new location; empty clears it"`
	Description     *string   `json:"description,omitempty" jsonschema:"new notes; empty clears them"`
	Attendees       *[]string `json:"attendees,omitempty" jsonschema:"replaces the attendee list"`
	SendUpdates     string    `json:"send_updates,omitempty" jsonschema:"who gets update emails" schema:"enum=all|external_only|none,default=all"`
	Recurrence      *[]string `json:"recurrence,omitempty" jsonschema:"replaces the RRULE lines"`
	ReminderMinutes *[]int64  `json:"reminder_minutes,omitempty" jsonschema:"popup reminders, minutes before; []: defaults" schema:"maxItems=5,minimum=0,maximum=40320"`
	ColorID         *string   `json:"color_id,omitempty" jsonschema:"Google event colour" schema:"enum=1|2|3|4|5|6|7|8|9|10|11"`
	Visibility      *string   `json:"visibility,omitempty" schema:"enum=default|public|private|confidential,bare=true"`
	Optional        *[]string `json:"optional_attendees,omitempty" jsonschema:"replaces the optional attendees"`
	ShowAsFree      *bool     `json:"show_as_free,omitempty" jsonschema:"do not block the time"`
	Attachments     *[]string `json:"attachments,omitempty" jsonschema:"replaces the Drive file links" schema:"maxItems=25"`
	GuestsCanModify *bool     `json:"guests_can_modify,omitempty" schema:"bare=true"`
	GuestsCanInvite *bool     `json:"guests_can_invite_others,omitempty" schema:"bare=true"`
	GuestsCanSee    *bool     `json:"guests_can_see_other_guests,omitempty" schema:"bare=true"`
	RefuseConflicts bool      `json:"refuse_conflicts,omitempty" jsonschema:"refuse busy time instead of listing the conflicts"`
}

type deleteEventInput struct {
	Calendar    string `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	EventID     string `json:"event_id" jsonschema:"an event id, or an occurrence id from list_events" schema:"minLength=1"`
	Scope       string `json:"scope,omitempty" jsonschema:"recurring: this occurrence, it and the following, or all" schema:"enum=this|following|all"`
	SendUpdates string `json:"send_updates,omitempty" jsonschema:"who gets cancellation emails" schema:"enum=all|external_only|none,default=all"`
}

type respondInput struct {
	Calendar string `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	EventID  string `json:"event_id" jsonschema:"the invitation's event or occurrence id from list_events" schema:"minLength=1"`
	Response string `json:"response" jsonschema:"your answer" schema:"enum=accepted|declined|tentative"`
	Note     string `json:"note,omitempty" jsonschema:"comment shown to the organizer"`
}

type quickAddInput struct {
	Calendar    string `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	Text        string `json:"text" jsonschema:"e.g. 'Lunch with Ann tomorrow 12:30 at Café Luz'" schema:"minLength=1"`
	SendUpdates string `json:"send_updates,omitempty" jsonschema:"who gets invitation emails" schema:"enum=all|external_only|none,default=none"`
}

type deleteOutput struct {
	EventID string `json:"event_id"`
	Scope   string `json:"scope"`
	Detail  string `json:"detail"`
}

func (o deleteOutput) Text() string { return o.Detail }

func addChangeTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "create_event", Toolset: toolsetEdit, Title: "Create an event", OpenWorld: true,
		Description: "Create an event: timed, all-day or recurring, with guests, Meet, attachments, or out of office, focus time, working location."}, c.createEvent)
	kit.AddTool(s, kit.Tool{Name: "update_event", Toolset: toolsetEdit, Title: "Update an event", OpenWorld: true,
		Description: "Change the given fields of an event, one occurrence, or a recurring series."}, c.updateEvent)
	kit.AddTool(s, kit.Tool{Name: "delete_event", Toolset: toolsetEdit, Title: "Delete an event", Destructive: true, OpenWorld: true,
		Description: "Delete an event, one occurrence, or a recurring series or its rest."}, c.deleteEvent)
	kit.AddTool(s, kit.Tool{Name: "respond_to_event", Toolset: toolsetRespond, Title: "Respond to an invitation", Idempotent: true, OpenWorld: true,
		Description: "Accept, decline or tentatively accept an invitation, with an optional note."}, c.respond)
	kit.AddTool(s, kit.Tool{Name: "quick_add", Toolset: toolsetEdit, Title: "Quick add", OpenWorld: true,
		Description: "Create an event from a sentence, parsed by Google Calendar."}, c.quickAdd)
}

// sendUpdates is Google's spelling of a send_updates value.
func sendUpdates(s string) string {
	if s == "external_only" {
		return "externalOnly"
	}
	return s
}

func attendeesOf(emails []string) ([]*eventAttendee, error) {
	out := []*eventAttendee{}
	for _, a := range emails {
		a = strings.TrimSpace(a)
		if !strings.Contains(a, "@") {
			return nil, kit.Errorf(kit.CodeInvalidInput, "attendee %q is not an email address: give one (find a person's with search_contacts)", a)
		}
		out = append(out, &eventAttendee{Email: a})
	}
	return out, nil
}

// remindersOf is the calendar's default reminders, or popups at mins; useDefault: false is
// always sent, as Google counts the overrides only then.
func remindersOf(mins []int64) (*eventReminders, error) {
	if len(mins) == 0 {
		return &eventReminders{UseDefault: true}, nil
	}
	r := &eventReminders{UseDefault: false, ForceSendFields: []string{"UseDefault"}}
	for _, m := range mins {
		r.Overrides = append(r.Overrides, &eventReminder{Method: "popup", Minutes: m, ForceSendFields: []string{"Minutes"}})
	}
	return r, nil
}

func requestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *cal) createEvent(ctx context.Context, _ *mcp.CallToolRequest, in createEventInput) (*mcp.CallToolResult, writeOutput, error) {
	t, err := c.one(ctx, in.Calendar, in.TimeZone)
	if err != nil {
		return nil, writeOutput{}, err
	}
	out, err := c.create(ctx, t, in)
	if err != nil {
		return nil, writeOutput{}, err
	}
	return nil, out, nil
}

// create checks and creates one event on t: the body is built and checked in full, then
// conflicts are looked up, and only then is anything written.
func (c *cal) create(ctx context.Context, t target, in createEventInput) (writeOutput, error) {
	ev, err := build(t, in)
	if err != nil {
		return writeOutput{}, err
	}
	if err := c.newGuests(ev); err != nil {
		return writeOutput{}, err
	}
	return c.write(ctx, t, ev, in)
}

// build makes the body of a new event on t, refusing what Google would refuse.
func build(t target, in createEventInput) (*event, error) {
	if strings.TrimSpace(in.Summary) == "" {
		return nil, kit.Errorf(kit.CodeInvalidInput, "summary is empty: give the event a title")
	}
	start, end, err := span(in.Start, in.End, t.Zone)
	if err != nil {
		return nil, err
	}
	ev := &event{Summary: in.Summary, Start: start, End: end, Location: in.Location, Description: in.Description,
		Recurrence: normalizeRecurrence(in.Recurrence), ColorId: in.ColorID, Visibility: in.Visibility}
	if start.Date != "" && len(ev.Recurrence) > 0 {
		ev.Start.TimeZone, ev.End.TimeZone = t.Zone.String(), t.Zone.String()
	}
	if ev.Attendees, err = attendeesOf(in.Attendees); err != nil {
		return nil, err
	}
	if len(in.ReminderMinutes) > 0 {
		if ev.Reminders, err = remindersOf(in.ReminderMinutes); err != nil {
			return nil, err
		}
	}
	if in.Meet {
		ev.ConferenceData = &calendar.ConferenceData{CreateRequest: &calendar.CreateConferenceRequest{RequestId: requestID(), ConferenceSolutionKey: &calendar.ConferenceSolutionKey{Type: "hangoutsMeet"}}}
	}
	if err := applyExtras(ev, in.createExtras, in.Location, t); err != nil {
		return nil, err
	}
	return ev, nil
}

// write looks up the conflicts of a built event (refusing on them when asked) and inserts it.
func (c *cal) write(ctx context.Context, t target, ev *event, in createEventInput) (writeOutput, error) {
	conflicts, err := c.checkConflicts(ctx, t, ev, in.RefuseConflicts, nil)
	if err != nil {
		return writeOutput{}, err
	}
	got, err := c.insertEvent(ctx, t.ID, ev, sendUpdates(in.SendUpdates), in.Meet)
	if ae, ok := googleserver.AsAPIError(err); ok && ae.HasReason("requiredAccessLevel") {
		return writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "calendar %q is read-only for you (Google: %s): pick one whose access_role is owner or writer in list_calendars", t.Name, ae.Message)
	}
	if err != nil {
		return writeOutput{}, c.google.Fail(err, "calendar "+t.Name)
	}
	return writeOutput{eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: "created"}, conflicts}, nil
}

// scopeOf checks a scope against the event: an occurrence defaults to this, a series or a
// single event to all.
func scopeOf(scope string, e *event) (string, error) {
	occurrence := e.RecurringEventId != ""
	switch scope {
	case "":
		if occurrence {
			return "this", nil
		}
		return "all", nil
	case "this", "following":
		if !occurrence {
			if len(e.Recurrence) > 0 {
				return "", kit.Errorf(kit.CodeInvalidInput, "scope %s needs an occurrence id: list_events shows each occurrence's id (with recurring_event_id %s)", scope, e.Id)
			}
			return "all", nil // not recurring: the event itself
		}
	}
	return scope, nil // all, or this/following of an occurrence
}

// applyFields sets the given fields on p, empty values included (forced: they clear the
// field); start and end are applied by the caller. ev is the event as it is:
// optional_attendees alone keeps its required attendees.
func applyFields(p *event, in updateEventInput, ev *event) error {
	if in.Summary != nil {
		p.Summary = *in.Summary
		forceSend(p, "Summary")
	}
	if in.Location != nil {
		p.Location = *in.Location
		forceSend(p, "Location")
	}
	if in.Description != nil {
		p.Description = *in.Description
		forceSend(p, "Description")
	}
	if in.Attendees != nil || in.Optional != nil {
		var list []*eventAttendee
		if in.Attendees != nil {
			a, err := attendeesOf(*in.Attendees)
			if err != nil {
				return err
			}
			list = a
		} else {
			for _, a := range ev.Attendees {
				if !a.Optional {
					list = append(list, a)
				}
			}
		}
		if in.Optional != nil {
			opt, err := attendeesOf(*in.Optional)
			if err != nil {
				return err
			}
			for _, a := range opt {
				a.Optional = true
				list = append(list, a)
			}
		}
		if list == nil {
			list = []*eventAttendee{}
		}
		p.Attendees = list
		forceSend(p, "Attendees")
	}
	if in.Attachments != nil {
		a, err := attachmentsOf(*in.Attachments)
		if err != nil {
			return err
		}
		if a == nil {
			a = []*eventAttachment{}
		}
		p.Attachments = a
		forceSend(p, "Attachments")
	}
	if in.ShowAsFree != nil {
		p.Transparency = map[bool]string{true: "transparent", false: "opaque"}[*in.ShowAsFree]
	}
	if in.GuestsCanModify != nil {
		p.GuestsCanModify = *in.GuestsCanModify
		forceSend(p, "GuestsCanModify")
	}
	if in.GuestsCanInvite != nil {
		p.GuestsCanInviteOthers = in.GuestsCanInvite
	}
	if in.GuestsCanSee != nil {
		p.GuestsCanSeeOtherGuests = in.GuestsCanSee
	}
	if in.ReminderMinutes != nil {
		r, err := remindersOf(*in.ReminderMinutes)
		if err != nil {
			return err
		}
		p.Reminders = r
	}
	if in.ColorID != nil {
		p.ColorId = *in.ColorID
		forceSend(p, "ColorId")
	}
	if in.Visibility != nil {
		p.Visibility = *in.Visibility
		forceSend(p, "Visibility")
	}
	if in.Recurrence != nil {
		p.Recurrence = normalizeRecurrence(*in.Recurrence)
		forceSend(p, "Recurrence")
	}
	return nil
}

// setSpan puts a new start and end into a patch when they were given.
func setSpan(p *event, start, end *eventDateTime) {
	if start != nil {
		p.Start, p.End = start, end
	}
}

func (c *cal) updateEvent(ctx context.Context, _ *mcp.CallToolRequest, in updateEventInput) (*mcp.CallToolResult, writeOutput, error) {
	su := sendUpdates(in.SendUpdates)
	if (in.Start == "") != (in.End == "") && !isDate(in.Start) {
		return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "give start and end together")
	}
	t, err := c.one(ctx, in.Calendar, in.TimeZone)
	if err != nil {
		return nil, writeOutput{}, err
	}
	ev, err := c.getEventByID(ctx, t.ID, in.EventID)
	if err != nil {
		return nil, writeOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	scope, err := scopeOf(in.Scope, ev)
	if err != nil {
		return nil, writeOutput{}, err
	}
	if in.Recurrence != nil && scope == "this" {
		return nil, writeOutput{}, kit.Errorf(kit.CodeInvalidInput, "recurrence changes need scope all or following")
	}
	patch := &event{}
	if err := applyFields(patch, in, ev); err != nil {
		return nil, writeOutput{}, err
	}
	var newStart, newEnd *eventDateTime
	if in.Start != "" {
		if newStart, newEnd, err = span(in.Start, in.End, t.Zone); err != nil {
			return nil, writeOutput{}, err
		}
	}
	conflicts, err := c.updateConflicts(ctx, t, ev, in, newStart, newEnd)
	if err != nil {
		return nil, writeOutput{}, err
	}
	var master *event
	if scope != "this" && ev.RecurringEventId != "" {
		if master, err = c.getEventByID(ctx, t.ID, ev.RecurringEventId); err != nil {
			return nil, writeOutput{}, c.google.Fail(err, "series "+ev.RecurringEventId)
		}
		if scope == "following" && sameStart(master.Start, ev.OriginalStartTime) {
			scope = "all" // from the first occurrence on is the whole series; a split would leave an empty one
		}
	}
	after := guestsOf(ev, master)
	if patch.Attendees != nil {
		after = patch.Attendees
	}
	if err := c.reach(guestsOf(ev, master), after, ev, su); err != nil {
		return nil, writeOutput{}, err
	}
	switch {
	case scope == "this" || ev.RecurringEventId == "" && len(ev.Recurrence) == 0:
		setSpan(patch, newStart, newEnd)
		got, err := c.patchEvent(ctx, t.ID, ev.Id, patch, su)
		if err != nil {
			return nil, writeOutput{}, c.google.Fail(err, "event "+in.EventID)
		}
		return nil, writeOutput{eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: "updated"}, conflicts}, nil
	case scope == "all":
		if master == nil {
			master = ev
		}
		if newStart != nil {
			// Times given for one occurrence shift the whole series by the same amount.
			newStart, newEnd = shiftSeries(master, ev, newStart, newEnd, t.Zone)
			setSpan(patch, newStart, newEnd)
		}
		got, err := c.patchEvent(ctx, t.ID, master.Id, patch, su)
		if err != nil {
			return nil, writeOutput{}, c.google.Fail(err, "series "+master.Id)
		}
		return nil, writeOutput{eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: "updated (whole series)"}, conflicts}, nil
	}
	// following: end the series before this occurrence and start a new one from it.
	rest, err := c.splitSeries(ctx, t, master, ev, su)
	if err != nil {
		return nil, writeOutput{}, err
	}
	next := &event{Summary: master.Summary, Location: master.Location, Description: master.Description, Attendees: master.Attendees,
		Reminders: master.Reminders, ColorId: master.ColorId, Visibility: master.Visibility, Transparency: master.Transparency,
		Recurrence: rest, Start: ev.OriginalStartTime, End: sameLength(master, ev.OriginalStartTime)}
	if next.Start == nil {
		next.Start, next.End = ev.Start, ev.End
	}
	if next.Start.TimeZone == "" && master.Start != nil {
		next.Start = &eventDateTime{Date: next.Start.Date, DateTime: next.Start.DateTime, TimeZone: master.Start.TimeZone}
	}
	if newStart != nil {
		next.Start, next.End = newStart, newEnd
	}
	if err := applyFields(next, in, ev); err != nil { // the changes asked for, over the series' fields
		return nil, writeOutput{}, err
	}
	got, err := c.insertEvent(ctx, t.ID, next, su, false)
	if err != nil {
		return nil, writeOutput{}, c.google.Fail(err, "calendar "+t.Name)
	}
	return nil, writeOutput{eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: "updated (this and following: new series " + got.Id + ", earlier occurrences stay in " + master.Id + ")"}, conflicts}, nil
}

// splitSeries ends master just before occurrence and returns the recurrence the series from
// occurrence on keeps (COUNT reduced by the occurrences already held by master).
func (c *cal) splitSeries(ctx context.Context, t target, master, occurrence *event, su string) ([]string, error) {
	until, err := untilBefore(occurrence.OriginalStartTime)
	if err != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "event %s is not an occurrence of a series", occurrence.Id)
	}
	rest := master.Recurrence
	if n := ruleCount(master.Recurrence); n > 0 {
		at := occurrence.OriginalStartTime.DateTime
		if at == "" {
			at = occurrence.OriginalStartTime.Date + "T00:00:00Z"
		}
		before, err := c.countInstances(ctx, t.ID, master.Id, at)
		if err != nil {
			return nil, c.google.Fail(err, "series "+master.Id)
		}
		rest = withCount(master.Recurrence, max(n-before, 1))
	}
	patch := &event{Recurrence: endSeries(master.Recurrence, until)}
	if _, err := c.patchEvent(ctx, t.ID, master.Id, patch, su); err != nil {
		return nil, c.google.Fail(err, "series "+master.Id)
	}
	return rest, nil
}

// sameLength is an end at the master's duration after start.
func sameLength(master *event, start *eventDateTime) *eventDateTime {
	if start == nil || master.Start == nil || master.End == nil {
		return nil
	}
	if start.Date != "" {
		ms, _ := time.Parse(dateLayout, master.Start.Date)
		me, _ := time.Parse(dateLayout, master.End.Date)
		s, _ := time.Parse(dateLayout, start.Date)
		return &eventDateTime{Date: s.Add(me.Sub(ms)).Format(dateLayout)}
	}
	ms, _ := time.Parse(time.RFC3339, master.Start.DateTime)
	me, _ := time.Parse(time.RFC3339, master.End.DateTime)
	s, _ := time.Parse(time.RFC3339, start.DateTime)
	return &eventDateTime{DateTime: s.Add(me.Sub(ms)).Format(time.RFC3339), TimeZone: master.End.TimeZone}
}

// shiftSeries moves a series' first start and end by what the new times change for the
// occurrence they were given for; for the series itself they apply directly.
func shiftSeries(master, ev *event, newStart, newEnd *eventDateTime, loc *time.Location) (*eventDateTime, *eventDateTime) {
	if ev.Id == master.Id || ev.OriginalStartTime == nil {
		return newStart, newEnd
	}
	if newStart.Date != "" || master.Start.Date != "" {
		// All-day: move by whole days.
		if newStart.Date == "" || master.Start.Date == "" {
			return newStart, newEnd
		}
		o, _ := time.Parse(dateLayout, ev.OriginalStartTime.Date)
		n, _ := time.Parse(dateLayout, newStart.Date)
		ne, _ := time.Parse(dateLayout, newEnd.Date)
		ms, _ := time.Parse(dateLayout, master.Start.Date)
		days := int(n.Sub(o).Hours() / 24)
		s := ms.AddDate(0, 0, days)
		return &eventDateTime{Date: s.Format(dateLayout), TimeZone: master.Start.TimeZone}, &eventDateTime{Date: s.Add(ne.Sub(n)).Format(dateLayout), TimeZone: master.End.TimeZone}
	}
	o, _ := time.Parse(time.RFC3339, ev.OriginalStartTime.DateTime)
	n, _ := time.Parse(time.RFC3339, newStart.DateTime)
	ne, _ := time.Parse(time.RFC3339, newEnd.DateTime)
	ms, _ := time.Parse(time.RFC3339, master.Start.DateTime)
	// Shift by wall-clock: the same day offset and the new local time of day, so a series that
	// crosses DST keeps its local time.
	ol, nl, ml := o.In(loc), n.In(loc), ms.In(loc)
	days := int(time.Date(nl.Year(), nl.Month(), nl.Day(), 0, 0, 0, 0, time.UTC).Sub(time.Date(ol.Year(), ol.Month(), ol.Day(), 0, 0, 0, 0, time.UTC)).Hours() / 24)
	s := time.Date(ml.Year(), ml.Month(), ml.Day()+days, nl.Hour(), nl.Minute(), nl.Second(), 0, loc)
	return &eventDateTime{DateTime: s.Format(time.RFC3339), TimeZone: loc.String()},
		&eventDateTime{DateTime: s.Add(ne.Sub(n)).Format(time.RFC3339), TimeZone: loc.String()}
}

func (c *cal) deleteEvent(ctx context.Context, req *mcp.CallToolRequest, in deleteEventInput) (*mcp.CallToolResult, deleteOutput, error) {
	su := sendUpdates(in.SendUpdates)
	t, err := c.one(ctx, in.Calendar, "")
	if err != nil {
		return nil, deleteOutput{}, err
	}
	ev, err := c.getEventByID(ctx, t.ID, in.EventID)
	if err != nil {
		return nil, deleteOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	scope, err := scopeOf(in.Scope, ev)
	if err != nil {
		return nil, deleteOutput{}, err
	}
	if err := c.reach(ev.Attendees, ev.Attendees, ev, su); err != nil {
		return nil, deleteOutput{}, err
	}
	if err := confirm.Confirm(ctx, req, deleteQuestion(ev, t, scope, su)); err != nil {
		return nil, deleteOutput{}, err
	}
	out := deleteOutput{EventID: ev.Id, Scope: scope}
	switch scope {
	case "this":
		err = c.deleteEventByID(ctx, t.ID, ev.Id, su)
		out.Detail = fmt.Sprintf("Deleted the occurrence %s of %q; the rest of the series stays.", renderStart(ev.Start, t.Zone), ev.Summary)
	case "all":
		id := ev.Id
		if ev.RecurringEventId != "" {
			id = ev.RecurringEventId
		}
		out.EventID = id
		err = c.deleteEventByID(ctx, t.ID, id, su)
		out.Detail = fmt.Sprintf("Deleted %q (every occurrence).", ev.Summary)
	default:
		master, gerr := c.getEventByID(ctx, t.ID, ev.RecurringEventId)
		if gerr != nil {
			return nil, deleteOutput{}, c.google.Fail(gerr, "series "+ev.RecurringEventId)
		}
		if sameStart(master.Start, ev.OriginalStartTime) {
			err = c.deleteEventByID(ctx, t.ID, master.Id, su)
			out.EventID = master.Id
			out.Detail = fmt.Sprintf("Deleted %q: the occurrence was the first, so the whole series went.", ev.Summary)
			break
		}
		_, err = c.splitSeries(ctx, t, master, ev, su)
		out.EventID = master.Id
		out.Detail = fmt.Sprintf("Ended %q before %s: that occurrence and all later ones are gone.", ev.Summary, renderStart(ev.OriginalStartTime, t.Zone))
	}
	if err != nil {
		return nil, deleteOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	return nil, out, nil
}

func sameStart(a, b *eventDateTime) bool {
	if a == nil || b == nil {
		return false
	}
	if a.Date != "" || b.Date != "" {
		return a.Date == b.Date
	}
	ta, e1 := time.Parse(time.RFC3339, a.DateTime)
	tb, e2 := time.Parse(time.RFC3339, b.DateTime)
	return e1 == nil && e2 == nil && ta.Equal(tb)
}

func (c *cal) respond(ctx context.Context, _ *mcp.CallToolRequest, in respondInput) (*mcp.CallToolResult, eventOutput, error) {
	t, err := c.one(ctx, in.Calendar, "")
	if err != nil {
		return nil, eventOutput{}, err
	}
	ev, err := c.getEventByID(ctx, t.ID, in.EventID)
	if err != nil {
		return nil, eventOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	found := false
	for _, a := range ev.Attendees {
		if a.Self {
			a.ResponseStatus, a.Comment, found = in.Response, in.Note, true
		}
	}
	if !found {
		return nil, eventOutput{}, kit.Errorf(kit.CodeInvalidInput, "you are not an invited attendee of %q (its organizer is %s)", ev.Summary, orgOf(ev))
	}
	if in.Note != "" && ev.Organizer != nil && !ev.Organizer.Self && !c.allowed.Allows(ev.Organizer.Email) {
		// The note is text of the model's sent to the organizer.
		return nil, eventOutput{}, kit.Errorf(kit.CodeInvalidInput, "%v; or respond without a note", recipients.Refusal(strings.ToLower(ev.Organizer.Email)))
	}
	got, err := c.patchEvent(ctx, t.ID, ev.Id, &event{Attendees: ev.Attendees}, "all")
	if err != nil {
		return nil, eventOutput{}, c.google.Fail(err, "event "+in.EventID)
	}
	return nil, eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: in.Response}, nil
}

func orgOf(e *event) string {
	if e.Organizer == nil {
		return "unknown"
	}
	return e.Organizer.Email
}

func (c *cal) quickAdd(ctx context.Context, _ *mcp.CallToolRequest, in quickAddInput) (*mcp.CallToolResult, eventOutput, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, eventOutput{}, kit.Errorf(kit.CodeInvalidInput, "text is empty: describe the event, e.g. 'Dentist Friday 3pm'")
	}
	su := sendUpdates(in.SendUpdates)
	if err := c.quickAddReach(in.Text); err != nil {
		return nil, eventOutput{}, err
	}
	if !c.allowed.Open() {
		// Google's parser decides the guests: none is mailed before they are checked below.
		su = "none"
	}
	t, err := c.one(ctx, in.Calendar, "")
	if err != nil {
		return nil, eventOutput{}, err
	}
	call := c.cs.Events.QuickAdd(t.ID, in.Text).Context(ctx)
	if su != "" {
		call.SendUpdates(su)
	}
	got, err := call.Do()
	if err != nil {
		return nil, eventOutput{}, c.google.Fail(err, "calendar "+t.Name)
	}
	if err := c.newGuests(got); err != nil {
		// Undo it, mailing no one; the event had guests the allowlist refuses.
		if derr := c.deleteEventByID(ctx, t.ID, got.Id, "none"); derr != nil {
			return nil, eventOutput{}, kit.Errorf(kit.CodeInvalidInput, "%v; Quick add made event %s with them and it could not be deleted (%v): delete it with delete_event and send_updates none", err, got.Id, c.google.Fail(derr, "event "+got.Id))
		}
		return nil, eventOutput{}, kit.Errorf(kit.CodeInvalidInput, "%v (Quick add made them guests; the event was deleted again without mailing them): create the event with create_event instead", err)
	}
	return nil, eventOutput{eventInfo: toInfo(got, t, maxDescription), Action: "created"}, nil
}

// deleteQuestion is what the owner is asked before delete_event: which event, which of its
// occurrences, and who hears of it.
func deleteQuestion(ev *event, t target, scope, sendUpdates string) string {
	start := renderStart(ev.Start, t.Zone)
	what := map[string]string{
		"this":      fmt.Sprintf("the occurrence on %s of", start),
		"all":       "every occurrence of",
		"following": fmt.Sprintf("the occurrences from %s on of", start),
	}[scope]
	q := fmt.Sprintf("Delete %s %q from the calendar %s?", what, ev.Summary, t.Name)
	if n := len(ev.Attendees); n > 0 {
		notify := "they are told"
		if sendUpdates == "none" {
			notify = "they are not told"
		}
		q += fmt.Sprintf(" It has %d guests; %s.", n, notify)
	}
	return q
}
