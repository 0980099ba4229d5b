package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type calendarInfo struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Primary    bool   `json:"primary,omitempty"`
	AccessRole string `json:"access_role"`
	TimeZone   string `json:"time_zone"`
	Color      string `json:"color,omitempty"`
}

type listCalendarsOutput struct {
	Calendars []calendarInfo `json:"calendars"`
}

func (o listCalendarsOutput) Text() string {
	var b strings.Builder
	for _, c := range o.Calendars {
		p := ""
		if c.Primary {
			p = ", primary"
		}
		fmt.Fprintf(&b, "%s (id %s, %s, %s%s)\n", c.Name, c.ID, c.AccessRole, c.TimeZone, p)
	}
	return strings.TrimSpace(b.String())
}

type noInput struct{}

type currentTimeInput struct {
	TimeZone string `json:"time_zone,omitempty" jsonschema:"IANA zone; default the primary calendar's"`
}

// Where get_current_time's zone came from.
const (
	zoneFromArgument = "argument"         // the time_zone argument
	zoneFromCalendar = "primary calendar" // the signed-in user's primary calendar
	zoneFromServer   = "server"           // --time-zone, else the host's zone
)

type currentTimeOutput struct {
	Now        string `json:"now"`
	Date       string `json:"date"`
	Weekday    string `json:"weekday"`
	TimeZone   string `json:"time_zone"`
	UTCOffset  string `json:"utc_offset"`
	ZoneSource string `json:"zone_source" jsonschema:"where the zone came from: argument, primary calendar or server"`
	Note       string `json:"note,omitempty" jsonschema:"why the server's zone stands in for the calendar's"`
}

func (o currentTimeOutput) Text() string {
	s := fmt.Sprintf("%s, %s (%s, UTC%s; zone from the %s)", o.Weekday, o.Now, o.TimeZone, o.UTCOffset, o.ZoneSource)
	if o.Note != "" {
		s += "\n" + o.Note
	}
	return s
}

func addCalendarTools(s *kit.Server, c *cal) {
	kit.AddTool(s, kit.Tool{Name: "list_calendars", Toolset: toolsetRead, Title: "List calendars", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "List the user's calendars: id, name, access role, time zone."}, c.listCalendars)
	kit.AddTool(s, kit.Tool{Name: "get_current_time", Toolset: toolsetRead, Title: "Current time", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "The current date, time and time zone; call before resolving dates like 'tomorrow'."}, c.currentTime)
}

// calendars lists the calendar list, all pages.
func (c *cal) calendars(ctx context.Context) ([]*calendarListEntry, error) {
	return c.calendarListAll(ctx)
}

func entryName(e *calendarListEntry) string {
	if e.SummaryOverride != "" {
		return e.SummaryOverride
	}
	return e.Summary
}

func (c *cal) listCalendars(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, listCalendarsOutput, error) {
	list, err := c.calendars(ctx)
	if err != nil {
		return nil, listCalendarsOutput{}, c.google.Fail(err, "calendar list")
	}
	out := listCalendarsOutput{Calendars: []calendarInfo{}}
	for _, e := range list {
		out.Calendars = append(out.Calendars, calendarInfo{ID: e.Id, Name: entryName(e), Primary: e.Primary, AccessRole: e.AccessRole, TimeZone: e.TimeZone, Color: e.BackgroundColor})
	}
	return nil, out, nil
}

// currentTime answers in the zone the argument names, else the primary calendar's, else, when
// the sign-in is not usable or Google does not answer, the server's, saying why.
func (c *cal) currentTime(ctx context.Context, _ *mcp.CallToolRequest, in currentTimeInput) (*mcp.CallToolResult, currentTimeOutput, error) {
	var (
		loc    = c.zone
		source = zoneFromServer
		note   string
	)
	switch {
	case in.TimeZone != "":
		var err error
		if loc, err = loadZone(in.TimeZone); err != nil {
			return nil, currentTimeOutput{}, err
		}
		source = zoneFromArgument
	default:
		why := c.signInProblem(ctx)
		if why == "" {
			e, err := c.cs.CalendarList.Get("primary").Context(ctx).Do()
			switch {
			case ctx.Err() != nil:
				return nil, currentTimeOutput{}, c.google.Fail(ctx.Err(), "primary calendar")
			case err != nil:
				why = c.google.Fail(err, "primary calendar").Error()
			default:
				if cl, err := loadZone(e.TimeZone); err != nil {
					why = "the primary calendar's zone " + e.TimeZone + " is unknown here"
				} else {
					loc, source = cl, zoneFromCalendar
				}
			}
		}
		if why != "" {
			note = "Not the calendar's time zone but the server's: " + why + ". Pass time_zone to choose another."
		}
	}
	now := time.Now().In(loc)
	return nil, currentTimeOutput{Now: now.Format(time.RFC3339), Date: now.Format(dateLayout), Weekday: now.Weekday().String(),
		TimeZone: loc.String(), UTCOffset: now.Format("-07:00"), ZoneSource: source, Note: note}, nil
}

// signInProblem is what keeps the sign-in from being used, read without calling Google, or "".
func (c *cal) signInProblem(ctx context.Context) string {
	if st := c.google.Status(ctx); !st.Usable() {
		return st.Message
	}
	return ""
}

// target is a calendar resolved from an id or a name, with the zone its times are read in.
type target struct {
	ID      string
	Name    string
	Zone    *time.Location
	Primary bool // the signed-in user's own calendar, where status events live
}

// resolve turns ids or names (case-insensitive; "primary" included) into calendars with their
// zones. override, when set, replaces every calendar's zone.
func (c *cal) resolve(ctx context.Context, refs []string, override string) ([]target, error) {
	var over *time.Location
	if override != "" {
		var err error
		if over, err = loadZone(override); err != nil {
			return nil, err
		}
	}
	if len(refs) == 0 {
		refs = []string{"primary"}
	}
	list, err := c.calendars(ctx)
	if err != nil {
		return nil, c.google.Fail(err, "calendar list")
	}
	var out []target
	seen := map[string]bool{}
	for _, ref := range refs {
		ref = strings.TrimSpace(ref)
		var hit *calendarListEntry
		for _, e := range list {
			if e.Id == ref || ref == "primary" && e.Primary {
				hit = e
				break
			}
		}
		if hit == nil {
			for _, e := range list {
				if strings.EqualFold(entryName(e), ref) || strings.EqualFold(e.Summary, ref) {
					hit = e
					break
				}
			}
		}
		if hit == nil {
			// Not in the list: another calendar by id (a colleague's, a public one).
			got, err := c.cs.Calendars.Get(ref).Context(ctx).Do()
			if err != nil {
				return nil, c.google.Fail(err, fmt.Sprintf("calendar %q (give an id or a name from list_calendars)", ref))
			}
			hit = &calendarListEntry{Id: got.Id, Summary: got.Summary, TimeZone: got.TimeZone}
		}
		if seen[hit.Id] {
			continue
		}
		seen[hit.Id] = true
		t := target{ID: hit.Id, Name: entryName(hit), Zone: over, Primary: hit.Primary}
		if t.Zone == nil {
			if t.Zone, err = loadZone(hit.TimeZone); err != nil {
				t.Zone = time.UTC
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// one resolves a single calendar (default primary).
func (c *cal) one(ctx context.Context, ref, zone string) (target, error) {
	var refs []string
	if ref != "" {
		refs = []string{ref}
	}
	ts, err := c.resolve(ctx, refs, zone)
	if err != nil {
		return target{}, err
	}
	return ts[0], nil
}
