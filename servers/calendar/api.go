package main

import (
	"context"
	"slices"

	"google.golang.org/api/calendar/v3"
)

// The Calendar API v3 through google.golang.org/api's generated client, its types under the
// names the server's code reads them by. A patch is an *event with only the fields to change
// set; those whose new value is empty ("" clears a location, false, an empty list) are named in
// ForceSendFields (forceSend), so that the generated client sends them.
type (
	eventDateTime             = calendar.EventDateTime
	eventAttendee             = calendar.EventAttendee
	eventReminders            = calendar.EventReminders
	eventReminder             = calendar.EventReminder
	event                     = calendar.Event
	eventAttachment           = calendar.EventAttachment
	workingLocationProperties = calendar.EventWorkingLocationProperties
	calendarListEntry         = calendar.CalendarListEntry
)

// forceSend names fields of e to send even when empty.
func forceSend(e *event, fields ...string) {
	for _, f := range fields {
		if !slices.Contains(e.ForceSendFields, f) {
			e.ForceSendFields = append(e.ForceSendFields, f)
		}
	}
}

// calendarListAll reads every page of the user's calendar list.
func (c *cal) calendarListAll(ctx context.Context) ([]*calendarListEntry, error) {
	var all []*calendarListEntry
	call := c.cs.CalendarList.List().MaxResults(250).Context(ctx)
	for {
		page, err := call.Do()
		if err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextPageToken == "" {
			return all, nil
		}
		call.PageToken(page.NextPageToken)
	}
}

// getEventByID reads one event or occurrence.
func (c *cal) getEventByID(ctx context.Context, cal, id string) (*event, error) {
	return c.cs.Events.Get(cal, id).Context(ctx).Do()
}

// insertEvent creates an event; meet asks for a Meet link (conferenceDataVersion=1).
// supportsAttachments is always set: without it Google drops the attachments of the body.
func (c *cal) insertEvent(ctx context.Context, cal string, body *event, su string, meet bool) (*event, error) {
	call := c.cs.Events.Insert(cal, body).SupportsAttachments(true).Context(ctx)
	if su != "" {
		call.SendUpdates(su)
	}
	if meet {
		call.ConferenceDataVersion(1)
	}
	return call.Do()
}

// patchEvent changes the fields the patch sets (or forces) on one event; attachments it does
// not name are kept (supportsAttachments, else Google would drop them).
func (c *cal) patchEvent(ctx context.Context, cal, id string, patch *event, su string) (*event, error) {
	call := c.cs.Events.Patch(cal, id, patch).SupportsAttachments(true).Context(ctx)
	if su != "" {
		call.SendUpdates(su)
	}
	return call.Do()
}

// deleteEventByID deletes one event, occurrence or series.
func (c *cal) deleteEventByID(ctx context.Context, cal, id, su string) error {
	call := c.cs.Events.Delete(cal, id).Context(ctx)
	if su != "" {
		call.SendUpdates(su)
	}
	return call.Do()
}

// countInstances counts a series' occurrences (cancelled ones included) starting before timeMax.
func (c *cal) countInstances(ctx context.Context, cal, id, timeMax string) (int, error) {
	call := c.cs.Events.Instances(cal, id).TimeMax(timeMax).ShowDeleted(true).MaxResults(2500).Context(ctx)
	n := 0
	for {
		page, err := call.Do()
		if err != nil {
			return 0, err
		}
		n += len(page.Items)
		if page.NextPageToken == "" {
			return n, nil
		}
		call.PageToken(page.NextPageToken)
	}
}

// eventsBetween is events.list of one calendar, occurrences expanded, ordered by start, between
// min and max (RFC 3339) in zone; tweak sets the rest (q, pageToken, eventTypes, maxResults).
func (c *cal) eventsBetween(ctx context.Context, cal, min, max, zone string, tweak func(*calendar.EventsListCall)) (*calendar.Events, error) {
	call := c.cs.Events.List(cal).SingleEvents(true).OrderBy("startTime").TimeMin(min).TimeMax(max).TimeZone(zone).MaxResults(250).Context(ctx)
	if tweak != nil {
		tweak(call)
	}
	return call.Do()
}
