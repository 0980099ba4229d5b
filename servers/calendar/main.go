// Command calendar is the fleet's Google Calendar MCP server (port 9004): calendars, events with
// recurring-event scopes, responses, free/busy and free-slot search, on the account of the shared
// Google sign-in.
package main

import (
	"context"
	"flag"
	"io"
	"os"
	_ "time/tzdata" // zones work on hosts without tzdata

	"github.com/jck411/mcp-servers/shared/googleauth"
	"github.com/jck411/mcp-servers/shared/kit"
)

func main() { os.Exit(kit.Main(spec())) }

// settings are the calendar server's own flags.
type settings struct {
	tokenFile  string
	clientFile string
	endpoint   string
	concurrent int
}

// spec describes the calendar server.
func spec() kit.Spec {
	st := &settings{}
	return kit.Spec{
		Name:         "calendar",
		Title:        "Google Calendar",
		Port:         9004,
		Instructions: "Google Calendar for the signed-in account. Call get_current_time first to learn today's date and the user's time zone. Calendars are named by id or by name ('primary' is the user's own). Times without an offset are read in the calendar's time zone; a date alone (YYYY-MM-DD) means an all-day event, whose end date is inclusive. For a recurring event, update_event and delete_event take scope: this, following or all.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&st.tokenFile, "google-token-file", "", "the Google token file the Google servers share (default: "+googleauth.SystemDir+"/token.json when that folder exists, else ~/.local/state/mcp-servers/google/token.json)")
			fs.StringVar(&st.clientFile, "google-client-file", "", "the Google OAuth client JSON, Desktop app type (default: $CREDENTIALS_DIRECTORY/google_client.json, else client.json beside the token file)")
			fs.StringVar(&st.endpoint, "calendar-endpoint", "https://www.googleapis.com/calendar/v3/", "base URL of the Google Calendar API")
			fs.IntVar(&st.concurrent, "max-concurrent", 5, "Calendar API calls in flight at once")
		},
		Setup: func(s *kit.Server) error {
			c, err := newCal(s, st)
			if err != nil {
				return &kit.ConfigError{Err: err}
			}
			s.AddHealthCheck("google token", c.healthCheck)
			addCalendarTools(s, c)
			addEventTools(s, c)
			addChangeTools(s, c)
			addFreeBusyTools(s, c)
			return nil
		},
		Commands: map[string]func(context.Context, []string, io.Writer, io.Writer) int{"auth": googleauth.Command(googleauth.CommandOptions{Server: "calendar"})},
	}
}
