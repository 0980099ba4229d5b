package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

const dateLayout = "2006-01-02"

// loadZone reads an IANA time zone name.
func loadZone(name string) (*time.Location, error) {
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || strings.EqualFold(name, "local") {
		return nil, kit.Errorf(kit.CodeInvalidInput, "unknown time zone %q: give an IANA name such as Europe/Berlin or America/New_York", name)
	}
	return loc, nil
}

// serverZone is the zone named by flag, else by $TZ, else by the zoneinfo file the localtime
// symlink points to, else UTC. A zone that is named but unknown is an error that says who named it.
func serverZone(flag string, getenv func(string) string, localtime string) (*time.Location, error) {
	name, from := flag, "--time-zone"
	if name == "" {
		name, from = strings.TrimPrefix(getenv("TZ"), ":"), "$TZ"
	}
	if name == "" {
		if target, err := os.Readlink(localtime); err == nil {
			if _, zone, ok := strings.Cut(target, "zoneinfo/"); ok {
				name, from = zone, localtime
			}
		}
	}
	if name == "" {
		return time.UTC, nil
	}
	if _, zone, ok := strings.Cut(name, "zoneinfo/"); ok {
		name = zone
	}
	loc, err := loadZone(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return loc, nil
}

// isDate reports whether s is a plain date, YYYY-MM-DD.
func isDate(s string) bool {
	_, err := time.Parse(dateLayout, s)
	return err == nil
}

// parseInstant reads an RFC 3339 time, a local date-time (read in loc, DST included) or a date
// (midnight in loc).
func parseInstant(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", dateLayout} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, kit.Errorf(kit.CodeInvalidInput, "time %q: give RFC 3339 (2026-03-05T09:00:00+01:00), a local time (2026-03-05T09:00) or a date (2026-03-05)", s)
}

// eventTime is an event's start or end as the model sees it: an all-day date, or an instant
// rendered in the requested zone.
type eventTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"date_time,omitempty"`
}

func (e eventTime) String() string {
	if e.Date != "" {
		return e.Date
	}
	return e.DateTime
}

// renderStart renders an event start. All-day dates are calendar dates, not instants: they are
// returned as Google stores them, whatever the zone (the peers' off-by-one came from reading
// them as UTC midnight and shifting).
func renderStart(t *eventDateTime, loc *time.Location) eventTime {
	if t == nil {
		return eventTime{}
	}
	if t.Date != "" {
		return eventTime{Date: t.Date}
	}
	return eventTime{DateTime: renderInstant(t.DateTime, loc)}
}

// renderEnd renders an event end; an all-day end becomes the inclusive last day (Google stores
// the exclusive next day).
func renderEnd(t *eventDateTime, loc *time.Location) eventTime {
	if t == nil {
		return eventTime{}
	}
	if t.Date != "" {
		d, err := time.Parse(dateLayout, t.Date)
		if err != nil {
			return eventTime{Date: t.Date}
		}
		return eventTime{Date: d.AddDate(0, 0, -1).Format(dateLayout)}
	}
	return eventTime{DateTime: renderInstant(t.DateTime, loc)}
}

func renderInstant(s string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || loc == nil {
		return s
	}
	return t.In(loc).Format(time.RFC3339)
}

// instantOf is the start of an event as an instant for sorting and free-time arithmetic;
// all-day dates count from midnight in loc.
func instantOf(t *eventDateTime, loc *time.Location) time.Time {
	if t == nil {
		return time.Time{}
	}
	if t.Date != "" {
		d, _ := time.ParseInLocation(dateLayout, t.Date, loc)
		return d
	}
	d, _ := time.Parse(time.RFC3339, t.DateTime)
	return d
}

// span builds Google's start and end for an event. Dates give an all-day event whose end is
// inclusive (defaulting to the start day); times are read in loc when they carry no offset and
// sent with the zone so that recurrences follow its DST rules.
func span(start, end string, loc *time.Location) (*eventDateTime, *eventDateTime, error) {
	if isDate(start) {
		if end == "" {
			end = start
		}
		if !isDate(end) {
			return nil, nil, kit.Errorf(kit.CodeInvalidInput, "start is a date (all-day event), so end must be a date too (the last day, inclusive)")
		}
		s, _ := time.Parse(dateLayout, start)
		e, _ := time.Parse(dateLayout, end)
		if e.Before(s) {
			return nil, nil, kit.Errorf(kit.CodeInvalidInput, "end date %s is before start date %s", end, start)
		}
		return &eventDateTime{Date: start}, &eventDateTime{Date: e.AddDate(0, 0, 1).Format(dateLayout)}, nil
	}
	if end == "" {
		return nil, nil, kit.Errorf(kit.CodeInvalidInput, "end is required for a timed event")
	}
	if isDate(end) {
		return nil, nil, kit.Errorf(kit.CodeInvalidInput, "start has a time, so end needs one too (or give dates for an all-day event)")
	}
	s, err := parseInstant(start, loc)
	if err != nil {
		return nil, nil, err
	}
	e, err := parseInstant(end, loc)
	if err != nil {
		return nil, nil, err
	}
	if !e.After(s) {
		return nil, nil, kit.Errorf(kit.CodeInvalidInput, "end %s is not after start %s", end, start)
	}
	return &eventDateTime{DateTime: s.In(loc).Format(time.RFC3339), TimeZone: loc.String()},
		&eventDateTime{DateTime: e.In(loc).Format(time.RFC3339), TimeZone: loc.String()}, nil
}

// Recurrence rules are edited here as text on purpose, not with github.com/teambition/rrule-go
// (the Go RRULE library; v1.8.2, the latest tag, is from 2023-01-13, and DST fixes merged since
// are unreleased). Google expands every series itself (list_events, Events.Instances), so the
// server never computes occurrences: it only ends a series (UNTIL) and carries COUNT over to the
// new one, which is a token edit that keeps the rest of the user's rule exactly as written.
// rrule-go would re-serialise the rule instead (ROption.String reorders parts, writes BYDAY=2TU
// as +2TU and UNTIL always as UTC date-time, wrong for all-day series) and, when asked to count
// occurrences, disagrees with Google across DST: measured with v1.8.2 in America/New_York,
// FREQ=HOURLY from 00:30 on 2026-03-08 yields 01:30 twice and skips 05:30, and FREQ=DAILY at
// 02:30 puts 2026-03-08 at 01:30 EST where RFC 5545 gives 03:30 EDT. It would add 16 KB to the
// binary (go build -trimpath -ldflags '-s -w'); the size is not the reason, the disagreement is.

// untilBefore is an RRULE UNTIL value ending a series just before the occurrence at t: the day
// before for all-day series, one second before in UTC otherwise.
func untilBefore(orig *eventDateTime) (string, error) {
	if orig == nil {
		return "", fmt.Errorf("occurrence has no original start")
	}
	if orig.Date != "" {
		d, err := time.Parse(dateLayout, orig.Date)
		if err != nil {
			return "", err
		}
		return d.AddDate(0, 0, -1).Format("20060102"), nil
	}
	t, err := time.Parse(time.RFC3339, orig.DateTime)
	if err != nil {
		return "", err
	}
	return t.Add(-time.Second).UTC().Format("20060102T150405Z"), nil
}

// endSeries rewrites the RRULE lines of a recurrence to stop at until, dropping COUNT; EXDATE,
// RDATE and EXRULE lines are kept.
func endSeries(recurrence []string, until string) []string {
	out := make([]string, 0, len(recurrence))
	for _, line := range recurrence {
		if !strings.HasPrefix(strings.ToUpper(line), "RRULE:") {
			out = append(out, line)
			continue
		}
		var parts []string
		for _, p := range strings.Split(line[len("RRULE:"):], ";") {
			k := strings.ToUpper(strings.SplitN(p, "=", 2)[0])
			if k == "UNTIL" || k == "COUNT" || p == "" {
				continue
			}
			parts = append(parts, p)
		}
		out = append(out, "RRULE:"+strings.Join(append(parts, "UNTIL="+until), ";"))
	}
	return out
}

// withCount replaces COUNT in the RRULE lines (used when a series is split: the new series
// keeps the occurrences the old one no longer has).
func withCount(recurrence []string, count int) []string {
	out := make([]string, 0, len(recurrence))
	for _, line := range recurrence {
		if !strings.HasPrefix(strings.ToUpper(line), "RRULE:") {
			out = append(out, line)
			continue
		}
		var parts []string
		for _, p := range strings.Split(line[len("RRULE:"):], ";") {
			if strings.HasPrefix(strings.ToUpper(p), "COUNT=") {
				p = fmt.Sprintf("COUNT=%d", count)
			}
			parts = append(parts, p)
		}
		out = append(out, "RRULE:"+strings.Join(parts, ";"))
	}
	return out
}

// ruleCount is the COUNT of the first RRULE, or 0.
func ruleCount(recurrence []string) int {
	for _, line := range recurrence {
		if !strings.HasPrefix(strings.ToUpper(line), "RRULE:") {
			continue
		}
		for _, p := range strings.Split(line[len("RRULE:"):], ";") {
			var n int
			if _, err := fmt.Sscanf(strings.ToUpper(p), "COUNT=%d", &n); err == nil {
				return n
			}
		}
	}
	return 0
}

// normalizeRecurrence accepts lines with or without the RRULE: prefix.
func normalizeRecurrence(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		up := strings.ToUpper(l)
		if !strings.HasPrefix(up, "RRULE:") && !strings.HasPrefix(up, "EXDATE") && !strings.HasPrefix(up, "RDATE") && !strings.HasPrefix(up, "EXRULE:") {
			l = "RRULE:" + l
		}
		out = append(out, l)
	}
	return out
}
