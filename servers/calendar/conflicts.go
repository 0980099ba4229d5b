package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

// maxConflicts caps the conflicts one check reports.
const maxConflicts = 20

// conflict is an existing event that blocks part of a new or moved event's time.
type conflict struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Start   string `json:"start"`
	End     string `json:"end"`
}

func (c conflict) String() string {
	return fmt.Sprintf("%s – %s %s [id %s]", c.Start, c.End, c.Summary, c.ID)
}

// conflictsText is the warning or refusal naming the conflicts.
func conflictsText(cs []conflict) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

// blocks reports whether e makes its calendar busy: not cancelled, not shown as free, not a
// working location, not declined by the user.
func blocks(e *event) bool {
	if e.Status == "cancelled" || e.Transparency == "transparent" || e.EventType == typeWorkingLocation {
		return false
	}
	for _, a := range e.Attendees {
		if a.Self && a.ResponseStatus == "declined" {
			return false
		}
	}
	return true
}

// conflicts lists the events of t that block time between start and end (of one event, or a
// series' first occurrence), leaving out those skip names (the event being moved, its series).
func (c *cal) conflicts(ctx context.Context, t target, start, end *eventDateTime, skip func(*event) bool) ([]conflict, error) {
	from, to := instantOf(start, t.Zone), instantOf(end, t.Zone)
	if !to.After(from) {
		return nil, nil
	}
	res, err := c.eventsBetween(ctx, t.ID, from.Format(time.RFC3339), to.Format(time.RFC3339), t.Zone.String(), nil)
	if err != nil {
		return nil, c.google.Fail(err, "conflict check on calendar "+t.Name)
	}
	var out []conflict
	for _, e := range res.Items {
		if !blocks(e) || skip != nil && skip(e) {
			continue
		}
		// Google lists what overlaps the range; an event ending exactly at the start does not.
		if es, ee := instantOf(e.Start, t.Zone), instantOf(e.End, t.Zone); !es.Before(to) || !ee.After(from) {
			continue
		}
		out = append(out, conflict{ID: e.Id, Summary: e.Summary, Start: renderStart(e.Start, t.Zone).String(), End: renderEnd(e.End, t.Zone).String()})
		if len(out) == maxConflicts {
			break
		}
	}
	return out, nil
}

// checkConflicts runs the conflict check for an event that will block time and refuses when
// refuse is set and something conflicts.
func (c *cal) checkConflicts(ctx context.Context, t target, ev *event, refuse bool, skip func(*event) bool) ([]conflict, error) {
	if !blocks(ev) {
		return nil, nil
	}
	cs, err := c.conflicts(ctx, t, ev.Start, ev.End, skip)
	if err != nil {
		return nil, err
	}
	if refuse && len(cs) > 0 {
		return nil, kit.Errorf(kit.CodeInvalidInput, "not written: it overlaps %s. Pick another time (find_free_slots), or leave refuse_conflicts out to write it anyway", conflictsText(cs))
	}
	return cs, nil
}

// updateConflicts checks the time an update gives an event (new times, or its own when it is
// made to block time again), leaving out the event and its series; nothing is checked when
// neither changes.
func (c *cal) updateConflicts(ctx context.Context, t target, ev *event, in updateEventInput, start, end *eventDateTime) ([]conflict, error) {
	becomesBusy := in.ShowAsFree != nil && !*in.ShowAsFree
	if start == nil && !becomesBusy {
		return nil, nil
	}
	probe := *ev
	if start != nil {
		probe.Start, probe.End = start, end
	}
	if in.ShowAsFree != nil {
		probe.Transparency = map[bool]string{true: "transparent", false: "opaque"}[*in.ShowAsFree]
	}
	series := ev.RecurringEventId
	if series == "" && len(ev.Recurrence) > 0 {
		series = ev.Id
	}
	skip := func(e *event) bool {
		return e.Id == ev.Id || series != "" && (e.Id == series || e.RecurringEventId == series)
	}
	return c.checkConflicts(ctx, t, &probe, in.RefuseConflicts, skip)
}
