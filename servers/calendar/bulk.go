package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBulkEvents caps create_events: each event costs a conflict lookup and an insert.
const maxBulkEvents = 25

// newEvent is one event of create_events: create_event's common fields.
type newEvent struct {
	Summary           string   `json:"summary" jsonschema:"title" schema:"minLength=1"`
	Start             string   `json:"start" jsonschema:"local time, RFC 3339 or a date" schema:"minLength=1"`
	End               string   `json:"end,omitempty" jsonschema:"as in create_event"`
	Location          string   `json:"location,omitempty" jsonschema:"address or room"`
	Description       string   `json:"description,omitempty" jsonschema:"notes, plain text"`
	Attendees         []string `json:"attendees,omitempty" jsonschema:"email addresses"`
	OptionalAttendees []string `json:"optional_attendees,omitempty" jsonschema:"optional attendees' emails"`
	Recurrence        []string `json:"recurrence,omitempty" jsonschema:"RRULE lines"`
	EventType         string   `json:"event_type,omitempty" jsonschema:"as in create_event" schema:"enum=default|outOfOffice|focusTime|workingLocation"`
	WorkingLocation   string   `json:"working_location,omitempty" jsonschema:"workingLocation: where" schema:"enum=home|office|custom"`
	ShowAsFree        bool     `json:"show_as_free,omitempty" jsonschema:"do not block the time"`
}

type createEventsInput struct {
	Calendar        string     `json:"calendar,omitempty" jsonschema:"calendar id or name from list_calendars" schema:"default=primary"`
	TimeZone        string     `json:"time_zone,omitempty" jsonschema:"IANA zone; default the calendar's own"`
	SendUpdates     string     `json:"send_updates,omitempty" jsonschema:"who gets invitation emails" schema:"enum=all|external_only|none,default=all"`
	RefuseConflicts bool       `json:"refuse_conflicts,omitempty" jsonschema:"skip events over busy time"`
	Events          []newEvent `json:"events" jsonschema:"the events to create" schema:"minItems=1,maxItems=25"`
}

// bulkFailure is an event of create_events that was not created.
type bulkFailure struct {
	Index   int    `json:"index" jsonschema:"its position in events, from 0"`
	Summary string `json:"summary"`
	Error   string `json:"error"`
}

type createEventsOutput struct {
	Created []writeOutput `json:"created"`
	Failed  []bulkFailure `json:"failed,omitempty"`
}

func (o createEventsOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Created %d of %d events.", len(o.Created), len(o.Created)+len(o.Failed))
	for _, e := range o.Created {
		b.WriteString("\n" + e.line())
		if len(e.Conflicts) > 0 {
			b.WriteString("\n  Warning: it overlaps " + conflictsText(e.Conflicts))
		}
	}
	for _, f := range o.Failed {
		fmt.Fprintf(&b, "\nNot created: events[%d] %q: %s", f.Index, f.Summary, f.Error)
	}
	return b.String()
}

func addBulkTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "create_events", Toolset: toolsetEdit, Title: "Create several events", OpenWorld: true,
		Description: "Create several events (up to 25) on one calendar in one call."}, c.createEvents)
}

// createEvents checks every event before writing any: one that Google would refuse stops the
// call with nothing written. Then each is created in turn (so a later one sees the earlier ones
// as conflicts); a conflict refused or a write Google refuses is reported and the rest go on.
func (c *cal) createEvents(ctx context.Context, _ *mcp.CallToolRequest, in createEventsInput) (*mcp.CallToolResult, createEventsOutput, error) {
	if len(in.Events) == 0 || len(in.Events) > maxBulkEvents {
		return nil, createEventsOutput{}, kit.Errorf(kit.CodeInvalidInput, "give 1 to %d events, not %d", maxBulkEvents, len(in.Events))
	}
	t, err := c.one(ctx, in.Calendar, in.TimeZone)
	if err != nil {
		return nil, createEventsOutput{}, err
	}
	ins := make([]createEventInput, len(in.Events))
	bodies := make([]*event, len(in.Events))
	for i, e := range in.Events {
		ins[i] = createEventInput{Summary: e.Summary, Start: e.Start, End: e.End, Location: e.Location, Description: e.Description,
			Attendees: e.Attendees, Recurrence: e.Recurrence, SendUpdates: in.SendUpdates,
			createExtras: createExtras{EventType: e.EventType, WorkingLocation: e.WorkingLocation, OptionalAttendees: e.OptionalAttendees,
				ShowAsFree: e.ShowAsFree, RefuseConflicts: in.RefuseConflicts}}
		if bodies[i], err = build(t, ins[i]); err == nil {
			err = c.newGuests(bodies[i])
		}
		if err != nil {
			return nil, createEventsOutput{}, kit.Errorf(kit.CodeInvalidInput, "events[%d] %q: %s (nothing was created)", i, e.Summary, err.Error())
		}
	}
	out := createEventsOutput{Created: []writeOutput{}}
	for i, ev := range bodies {
		if ctx.Err() != nil {
			return nil, out, c.google.Fail(ctx.Err(), "create_events")
		}
		got, err := c.write(ctx, t, ev, ins[i])
		if err != nil {
			out.Failed = append(out.Failed, bulkFailure{Index: i, Summary: ins[i].Summary, Error: err.Error()})
			continue
		}
		out.Created = append(out.Created, got)
	}
	return nil, out, nil
}
