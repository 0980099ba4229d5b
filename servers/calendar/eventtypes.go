package main

import (
	"net/url"
	"strings"

	"google.golang.org/api/calendar/v3"

	"github.com/jck411/mcp-servers/shared/kit"
)

// Google's event types the server creates besides default ones. Status events exist only on
// the user's primary calendar; out-of-office and focus time block time (opaque) and need start
// and end times; a working location never blocks time and is public.
const (
	typeDefault         = "default"
	typeOutOfOffice     = "outOfOffice"
	typeFocusTime       = "focusTime"
	typeWorkingLocation = "workingLocation"
)

// autoDeclineModes maps auto_decline to Google's autoDeclineMode.
var autoDeclineModes = map[string]string{
	"none": "declineNone",
	"all":  "declineAllConflictingInvitations",
	"new":  "declineOnlyNewConflictingInvitations",
}

// workingLocationTypes maps working_location to Google's workingLocationProperties.type.
var workingLocationTypes = map[string]string{
	"home":   "homeOffice",
	"office": "officeLocation",
	"custom": "customLocation",
}

// applyExtras sets the event type with its properties, transparency, optional attendees,
// attachments and guest permissions on ev, refusing combinations Google would refuse (and
// saying what to do instead) before anything is sent. location is the event's, which names a
// working location.
func applyExtras(ev *event, x createExtras, location string, t target) error {
	typ := x.EventType
	if typ == "" {
		typ = typeDefault
	}
	status := typ != typeDefault
	if status && !t.Primary {
		return kit.Errorf(kit.CodeInvalidInput, "event_type %s exists only on your primary calendar, not on %q: leave calendar out", typ, t.Name)
	}
	if (x.AutoDecline != "" || x.DeclineMessage != "") && typ != typeOutOfOffice && typ != typeFocusTime {
		return kit.Errorf(kit.CodeInvalidInput, "auto_decline and decline_message apply to event_type outOfOffice or focusTime only")
	}
	if x.WorkingLocation != "" && typ != typeWorkingLocation {
		return kit.Errorf(kit.CodeInvalidInput, "working_location applies to event_type workingLocation only")
	}
	if status && (len(ev.Attendees) > 0 || len(x.OptionalAttendees) > 0 || ev.ConferenceData != nil) {
		return kit.Errorf(kit.CodeInvalidInput, "a %s event has no guests or Meet link: leave attendees and meet out", typ)
	}
	switch typ {
	case typeOutOfOffice, typeFocusTime:
		if ev.Start.Date != "" {
			return kit.Errorf(kit.CodeInvalidInput, "a %s event cannot be all-day: give start and end times (e.g. 2026-03-05T00:00 to 2026-03-06T00:00)", typ)
		}
		if x.ShowAsFree {
			return kit.Errorf(kit.CodeInvalidInput, "a %s event always blocks its time: leave show_as_free out", typ)
		}
		mode := autoDeclineModes[x.AutoDecline]
		if typ == typeOutOfOffice {
			ev.OutOfOfficeProperties = &calendar.EventOutOfOfficeProperties{AutoDeclineMode: mode, DeclineMessage: x.DeclineMessage}
		} else {
			ev.FocusTimeProperties = &calendar.EventFocusTimeProperties{AutoDeclineMode: mode, DeclineMessage: x.DeclineMessage}
		}
		ev.Transparency = "opaque"
	case typeWorkingLocation:
		kind, ok := workingLocationTypes[x.WorkingLocation]
		if !ok {
			return kit.Errorf(kit.CodeInvalidInput, "a workingLocation event needs working_location: home, office or custom (location is its label)")
		}
		p := &workingLocationProperties{Type: kind}
		switch kind {
		case "homeOffice":
			p.HomeOffice = struct{}{} // sent as {}
		case "officeLocation":
			p.OfficeLocation = &calendar.EventWorkingLocationPropertiesOfficeLocation{Label: location}
		default:
			if location == "" {
				return kit.Errorf(kit.CodeInvalidInput, "working_location custom needs location, its label (e.g. Café Luz)")
			}
			p.CustomLocation = &calendar.EventWorkingLocationPropertiesCustomLocation{Label: location}
		}
		ev.WorkingLocationProperties = p
		ev.Transparency, ev.Visibility = "transparent", "public"
	}
	if typ != typeDefault {
		ev.EventType = typ
	}
	if x.ShowAsFree {
		ev.Transparency = "transparent"
	}
	optional, err := attendeesOf(x.OptionalAttendees)
	if err != nil {
		return err
	}
	for _, a := range optional {
		a.Optional = true
		ev.Attendees = append(ev.Attendees, a)
	}
	if ev.Attachments, err = attachmentsOf(x.Attachments); err != nil {
		return err
	}
	if x.GuestsCanModify != nil {
		ev.GuestsCanModify = *x.GuestsCanModify
		forceSend(ev, "GuestsCanModify")
	}
	ev.GuestsCanInviteOthers, ev.GuestsCanSeeOtherGuests = x.GuestsCanInvite, x.GuestsCanSee
	return nil
}

// attachmentsOf checks that each link is a Drive file's (Google attaches only those).
func attachmentsOf(links []string) ([]*eventAttachment, error) {
	var out []*eventAttachment
	for _, l := range links {
		l = strings.TrimSpace(l)
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "https" || (u.Host != "drive.google.com" && u.Host != "docs.google.com") {
			return nil, kit.Errorf(kit.CodeInvalidInput, "attachment %q is not a Google Drive link: give the file's https://drive.google.com/... or https://docs.google.com/... address (the drive server's get_file_info shows it as link)", l)
		}
		out = append(out, &eventAttachment{FileUrl: l})
	}
	return out, nil
}

// workingLocationText describes a working location event's place, e.g. "office: Building 4".
func workingLocationText(p *workingLocationProperties) string {
	if p == nil {
		return ""
	}
	for kind, google := range workingLocationTypes {
		if google != p.Type {
			continue
		}
		switch {
		case p.OfficeLocation != nil && p.OfficeLocation.Label != "":
			return kind + ": " + p.OfficeLocation.Label
		case p.CustomLocation != nil && p.CustomLocation.Label != "":
			return kind + ": " + p.CustomLocation.Label
		}
		return kind
	}
	return p.Type
}
