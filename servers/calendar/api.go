package main

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// The Calendar API v3 as this server calls it, over googleserver.Account's REST calls: only the
// fields the server reads or writes, with the API's JSON names. Paths are relative to the
// endpoint (https://www.googleapis.com/calendar/v3/), ids escaped with url.PathEscape.

// eventDateTime is an event's start or end: a date (all-day) or a date-time, with its zone.
type eventDateTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// eventAttendee carries every field of an attendee, so that a patch that sends the list back
// (respond_to_event, a series split) changes nothing it did not mean to.
type eventAttendee struct {
	ID               string `json:"id,omitempty"`
	Email            string `json:"email,omitempty"`
	DisplayName      string `json:"displayName,omitempty"`
	Organizer        bool   `json:"organizer,omitempty"`
	Self             bool   `json:"self,omitempty"`
	Resource         bool   `json:"resource,omitempty"`
	Optional         bool   `json:"optional,omitempty"`
	ResponseStatus   string `json:"responseStatus,omitempty"`
	Comment          string `json:"comment,omitempty"`
	AdditionalGuests int64  `json:"additionalGuests,omitempty"`
}

type eventOrganizer struct {
	Email       string `json:"email,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Self        bool   `json:"self,omitempty"`
}

// eventReminders always sends useDefault: false must reach Google for overrides to count.
type eventReminders struct {
	UseDefault bool            `json:"useDefault"`
	Overrides  []eventReminder `json:"overrides,omitempty"`
}

type eventReminder struct {
	Method  string `json:"method"`
	Minutes int64  `json:"minutes"`
}

type conferenceData struct {
	CreateRequest *createConferenceRequest `json:"createRequest,omitempty"`
}

type createConferenceRequest struct {
	RequestID             string                `json:"requestId"`
	ConferenceSolutionKey conferenceSolutionKey `json:"conferenceSolutionKey"`
}

type conferenceSolutionKey struct {
	Type string `json:"type"`
}

// event is an event resource. Zero fields are left out, so an event value is what create sends;
// a patch sends only the fields it names (eventPatch).
type event struct {
	ID                string          `json:"id,omitempty"`
	Status            string          `json:"status,omitempty"`
	HTMLLink          string          `json:"htmlLink,omitempty"`
	Summary           string          `json:"summary,omitempty"`
	Description       string          `json:"description,omitempty"`
	Location          string          `json:"location,omitempty"`
	ColorID           string          `json:"colorId,omitempty"`
	Visibility        string          `json:"visibility,omitempty"`
	Transparency      string          `json:"transparency,omitempty"`
	Organizer         *eventOrganizer `json:"organizer,omitempty"`
	Start             *eventDateTime  `json:"start,omitempty"`
	End               *eventDateTime  `json:"end,omitempty"`
	Recurrence        []string        `json:"recurrence,omitempty"`
	RecurringEventID  string          `json:"recurringEventId,omitempty"`
	OriginalStartTime *eventDateTime  `json:"originalStartTime,omitempty"`
	Attendees         []eventAttendee `json:"attendees,omitempty"`
	Reminders         *eventReminders `json:"reminders,omitempty"`
	HangoutLink       string          `json:"hangoutLink,omitempty"`
	ConferenceData    *conferenceData `json:"conferenceData,omitempty"`
	// EventType is default, outOfOffice, focusTime or workingLocation (birthday and
	// fromGmail are Google's own); each status type carries its properties.
	EventType                 string                     `json:"eventType,omitempty"`
	OutOfOfficeProperties     *statusProperties          `json:"outOfOfficeProperties,omitempty"`
	FocusTimeProperties       *statusProperties          `json:"focusTimeProperties,omitempty"`
	WorkingLocationProperties *workingLocationProperties `json:"workingLocationProperties,omitempty"`
	Attachments               []eventAttachment          `json:"attachments,omitempty"`
	// Guest permissions; Google's defaults are false, true and true, so a nil pointer is left
	// to them.
	GuestsCanModify         *bool `json:"guestsCanModify,omitempty"`
	GuestsCanInviteOthers   *bool `json:"guestsCanInviteOthers,omitempty"`
	GuestsCanSeeOtherGuests *bool `json:"guestsCanSeeOtherGuests,omitempty"`
}

// statusProperties are an out-of-office or focus-time event's: what happens to invitations
// that conflict with it (focus time also sets the chat status).
type statusProperties struct {
	AutoDeclineMode string `json:"autoDeclineMode,omitempty"`
	DeclineMessage  string `json:"declineMessage,omitempty"`
	ChatStatus      string `json:"chatStatus,omitempty"`
}

// workingLocationProperties say where the user works: type homeOffice, officeLocation or
// customLocation, the latter two with a label.
type workingLocationProperties struct {
	Type           string         `json:"type"`
	HomeOffice     *struct{}      `json:"homeOffice,omitempty"`
	OfficeLocation *locationLabel `json:"officeLocation,omitempty"`
	CustomLocation *locationLabel `json:"customLocation,omitempty"`
}

type locationLabel struct {
	Label string `json:"label,omitempty"`
}

// eventAttachment is a Drive file attached to an event (at most 25).
type eventAttachment struct {
	FileURL  string `json:"fileUrl"`
	Title    string `json:"title,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	FileID   string `json:"fileId,omitempty"`
}

// eventPatch is the body of events.patch: exactly the fields to change, empty values included
// (an empty location clears it).
type eventPatch map[string]any

type eventList struct {
	Items         []*event `json:"items"`
	NextPageToken string   `json:"nextPageToken"`
}

// calendarListEntry is a calendar on the user's list.
type calendarListEntry struct {
	ID              string `json:"id"`
	Summary         string `json:"summary"`
	SummaryOverride string `json:"summaryOverride,omitempty"`
	Primary         bool   `json:"primary,omitempty"`
	AccessRole      string `json:"accessRole"`
	TimeZone        string `json:"timeZone"`
	BackgroundColor string `json:"backgroundColor,omitempty"`
}

type calendarList struct {
	Items         []*calendarListEntry `json:"items"`
	NextPageToken string               `json:"nextPageToken"`
}

// calendarResource is calendars.get's answer, for a calendar off the user's list.
type calendarResource struct {
	ID       string `json:"id"`
	Summary  string `json:"summary"`
	TimeZone string `json:"timeZone"`
}

type freeBusyRequest struct {
	TimeMin  string             `json:"timeMin"`
	TimeMax  string             `json:"timeMax"`
	TimeZone string             `json:"timeZone,omitempty"`
	Items    []freeBusyCalendar `json:"items"`
}

type freeBusyCalendar struct {
	ID string `json:"id"`
}

type timePeriod struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

type freeBusyResponse struct {
	Calendars map[string]struct {
		Busy   []timePeriod `json:"busy"`
		Errors []struct {
			Domain string `json:"domain"`
			Reason string `json:"reason"`
		} `json:"errors"`
	} `json:"calendars"`
}

// eventPath is calendars/{cal}/events, or calendars/{cal}/events/{id} with an id.
func eventPath(cal string, id ...string) string {
	p := "calendars/" + url.PathEscape(cal) + "/events"
	for _, s := range id {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// sendQuery is the query of a write: sendUpdates when given.
func sendQuery(su string) url.Values {
	q := url.Values{}
	if su != "" {
		q.Set("sendUpdates", su)
	}
	return q
}

// calendarListAll reads every page of the user's calendar list.
func (c *cal) calendarListAll(ctx context.Context) ([]*calendarListEntry, error) {
	var all []*calendarListEntry
	q := url.Values{"maxResults": {"250"}}
	for {
		var page calendarList
		if err := c.google.Do(ctx, http.MethodGet, "users/me/calendarList", q, nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextPageToken == "" {
			return all, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

// getEventByID reads one event or occurrence.
func (c *cal) getEventByID(ctx context.Context, cal, id string) (*event, error) {
	var e event
	if err := c.google.Do(ctx, http.MethodGet, eventPath(cal, id), nil, nil, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// insertEvent creates an event; meet asks for a Meet link (conferenceDataVersion=1).
// supportsAttachments is always set: without it Google drops the attachments of the body.
func (c *cal) insertEvent(ctx context.Context, cal string, body any, su string, meet bool) (*event, error) {
	q := sendQuery(su)
	q.Set("supportsAttachments", "true")
	if meet {
		q.Set("conferenceDataVersion", "1")
	}
	var got event
	if err := c.google.Do(ctx, http.MethodPost, eventPath(cal), q, body, &got); err != nil {
		return nil, err
	}
	return &got, nil
}

// patchEvent changes the fields of body (an eventPatch or an event) on one event; attachments
// it does not name are kept (supportsAttachments, else Google would drop them).
func (c *cal) patchEvent(ctx context.Context, cal, id string, body any, su string) (*event, error) {
	q := sendQuery(su)
	q.Set("supportsAttachments", "true")
	var got event
	if err := c.google.Do(ctx, http.MethodPatch, eventPath(cal, id), q, body, &got); err != nil {
		return nil, err
	}
	return &got, nil
}

// deleteEventByID deletes one event, occurrence or series.
func (c *cal) deleteEventByID(ctx context.Context, cal, id, su string) error {
	return c.google.Do(ctx, http.MethodDelete, eventPath(cal, id), sendQuery(su), nil, nil)
}

// countInstances counts a series' occurrences (cancelled ones included) starting before timeMax.
func (c *cal) countInstances(ctx context.Context, cal, id, timeMax string) (int, error) {
	q := url.Values{"timeMax": {timeMax}, "showDeleted": {"true"}, "maxResults": {strconv.Itoa(2500)}}
	n := 0
	for {
		var page eventList
		if err := c.google.Do(ctx, http.MethodGet, eventPath(cal, id)+"/instances", q, nil, &page); err != nil {
			return 0, err
		}
		n += len(page.Items)
		if page.NextPageToken == "" {
			return n, nil
		}
		q.Set("pageToken", page.NextPageToken)
	}
}
