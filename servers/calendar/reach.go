package main

import (
	"regexp"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
)

// The fleet's recipient allowlist (--allowed-recipients) on calendar writes. A guest put on an
// event is reached whether or not Google mails them (the event shows up in their calendar), so
// every guest a write adds must be allowed; a write that makes Google mail the guests
// (send_updates all or external_only: an invitation, an update, a cancellation) must have every
// guest it mails allowed, since the mail carries what the write put in the event.

// newGuests refuses the guests of a new event that the allowlist does not allow.
func (c *cal) newGuests(ev *event) error {
	return c.reach(nil, ev.Attendees, ev, "none")
}

// reach checks a write that leaves the event with guests after (before: those it had) and
// sends su: the guests it adds, and when Google mails the guests, every one of them. ev is the
// event as stored (nil for a new one): a guest who cannot change an event mails no one by
// changing it.
func (c *cal) reach(before, after []*eventAttendee, ev *event, su string) error {
	if c.allowed.Open() {
		return nil
	}
	had := func(a *eventAttendee) bool {
		return slices.ContainsFunc(before, func(b *eventAttendee) bool { return strings.EqualFold(a.Email, b.Email) })
	}
	mails := (su == "all" || su == "externalOnly") && organizes(ev)
	var refused []string
	for _, a := range after {
		addr := strings.ToLower(a.Email)
		if a.Self || c.allowed.Allows(addr) || slices.Contains(refused, addr) || had(a) && !mails {
			continue
		}
		refused = append(refused, addr)
	}
	if len(refused) > 0 {
		err := recipients.Refusal(refused...)
		if mails && slices.ContainsFunc(after, func(a *eventAttendee) bool { return had(a) && !c.allowed.Allows(a.Email) }) {
			return kit.Errorf(kit.CodeInvalidInput, "%v; or give send_updates none, which writes the change without mailing the guests", err)
		}
		return err
	}
	return nil
}

// organizes reports whether changes to ev reach its guests: the user organizes it (or it is
// new), or its guests may modify it, which applies a guest's change to everyone's copy.
func organizes(ev *event) bool {
	return ev == nil || ev.Organizer == nil || ev.Organizer.Self || ev.GuestsCanModify
}

// guestsOf is the event's guests, or the series' when the occurrence has none of its own.
func guestsOf(evs ...*event) []*eventAttendee {
	var out []*eventAttendee
	for _, e := range evs {
		if e != nil {
			out = append(out, e.Attendees...)
		}
	}
	return out
}

// addressInText finds what Google's Quick add could read as a guest's address.
var addressInText = regexp.MustCompile(`[^\s<>()\[\],;:"']+@[^\s<>()\[\],;:"']+\.[^\s<>()\[\],;:"'.]+`)

// quickAddReach refuses Quick add text that names an address the allowlist does not allow.
func (c *cal) quickAddReach(text string) error {
	if c.allowed.Open() {
		return nil
	}
	_, err := c.allowed.Check(addressInText.FindAllString(text, -1)...)
	return err
}
