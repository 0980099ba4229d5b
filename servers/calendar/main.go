// Command calendar is the fleet's Google Calendar MCP server (port 9004): calendars, events with
// recurring-event scopes, responses, free/busy and free-slot search, on the account of the shared
// Google sign-in.
package main

import (
	"flag"
	"os"
	_ "time/tzdata" // zones work on hosts without tzdata

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/oauth"
	"github.com/jck411/mcp-servers/shared/recipients"
)

func main() { os.Exit(kit.Main(spec())) }

// product is the Calendar API as this server uses it.
var product = googleserver.Product{Server: "calendar", Name: "Google Calendar", EndpointFlag: "calendar-endpoint", Endpoint: "https://www.googleapis.com/calendar/v3/"}

// settings are the calendar server's own flags.
type settings struct {
	google        googleserver.Flags
	timeZone      string
	allowed       recipients.Allowlist
	tasksEndpoint string
}

// spec describes the calendar server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "calendar",
		Title:        "Google Calendar",
		Port:         9004,
		Instructions: "Google Calendar for the signed-in account. Call get_current_time first to learn today's date and the user's time zone. Calendars are named by id or by name ('primary' is the user's own). Times without an offset are read in the calendar's time zone; a date alone (YYYY-MM-DD) means an all-day event, whose end date is inclusive.",
		Toolsets:     toolsets(),
		SharedArgs: []kit.SharedArg{
			{Name: "scope", Meaning: "for a recurring event: this occurrence, it and the following ones, or all (default: this for an occurrence id, all for a series)", Short: "of a recurring event"},
			{Name: "refuse_conflicts", Meaning: "refuse (or with several events, skip) busy time instead of listing the conflicts"},
			{Name: "send_updates", Meaning: "who gets the invitation, update or cancellation emails"},
			{Name: "time_zone", Meaning: "an IANA time zone for the times given and returned; default the calendar's own", Short: "IANA zone"},
			{Name: "calendar", Meaning: "a calendar id or name from list_calendars (default primary)", Short: "calendar id or name"},
			{Name: "event_id", Meaning: "an event or occurrence id from list_events", Short: "id from list_events"},
		},
		Flags: func(fs *flag.FlagSet) {
			st.google.Register(fs, product)
			fs.Var(&st.allowed, recipients.Flag, recipients.Usage)
			fs.StringVar(&st.tasksEndpoint, tasksProduct.EndpointFlag, tasksProduct.Endpoint, "base URL of the Google Tasks API")
			fs.StringVar(&st.timeZone, "time-zone", "", "IANA zone get_current_time answers in when the calendar's cannot be read (not signed in) (default: $TZ, else the zone /etc/localtime links to, else UTC)")
		},
		Setup: func(s *kit.Server) error {
			c, err := newCal(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			addCalendarTools(s, c)
			addEventTools(s, c)
			addChangeTools(s, c)
			addBulkTools(s, c)
			addFreeBusyTools(s, c)
			addTaskTools(s, c)
			addPrompts(s, c)
			return nil
		},
		Commands: map[string]kit.Command{"auth": oauth.Google.Command("calendar", nil)},
	}
}
