package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type dailyInput struct {
	Date   string `json:"date,omitempty" jsonschema:"YYYY-MM-DD, YYYY-Www or YYYY-MM; default today"`
	Period string `json:"period,omitempty" jsonschema:"week is the ISO week (Monday to Sunday)" schema:"enum=day|week|month,default=day"`
}

// period is one daily, weekly or monthly note's span and names.
type period struct {
	name       string    // the note's file name without .md and its title: 2026-03-04, 2026-W10, 2026-03
	start, end time.Time // first and last day
	weekday    string    // the day's weekday (daily notes)
}

// periodOf is the period of kind ("day", "week", "month") holding day.
func periodOf(kind string, day time.Time) period {
	day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, day.Location())
	switch kind {
	case "week":
		year, week := day.ISOWeek()
		start := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // back to Monday
		return period{name: fmt.Sprintf("%04d-W%02d", year, week), start: start, end: start.AddDate(0, 0, 6)}
	case "month":
		start := day.AddDate(0, 0, 1-day.Day())
		return period{name: start.Format("2006-01"), start: start, end: start.AddDate(0, 1, -1)}
	}
	return period{name: day.Format("2006-01-02"), start: day, end: day, weekday: day.Weekday().String()}
}

// parsePeriodDate reads a date argument: YYYY-MM-DD for any period, YYYY-Www for a week,
// YYYY-MM for a month. It returns a day inside the period.
func parsePeriodDate(kind, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return d, nil
	}
	switch kind {
	case "month":
		if d, err := time.ParseInLocation("2006-01", s, time.Local); err == nil {
			return d, nil
		}
	case "week":
		var year, week int
		if _, err := fmt.Sscanf(s, "%4d-W%2d", &year, &week); err == nil && week >= 1 && week <= 53 {
			// ISO week 1 holds January 4th; go to its Monday, then forward.
			jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.Local)
			d := jan4.AddDate(0, 0, -((int(jan4.Weekday())+6)%7)+7*(week-1))
			if y, w := d.ISOWeek(); y == year && w == week {
				return d, nil
			}
		}
	}
	forms := map[string]string{"day": "YYYY-MM-DD", "week": "YYYY-MM-DD or YYYY-Www (e.g. 2026-W09)", "month": "YYYY-MM-DD or YYYY-MM"}
	return time.Time{}, kit.Errorf(kit.CodeInvalidInput, "date %q: give %s", s, forms[kind])
}

// periodTags are the tags a new periodic note gets.
var periodTags = map[string]string{"day": "daily", "week": "weekly", "month": "monthly"}

// periodDefault is the body of a new periodic note when its template note does not exist.
const periodDefault = "# {{date}}\n"

func (n *store) dailyNote(ctx context.Context, _ *mcp.CallToolRequest, in dailyInput) (*mcp.CallToolResult, noteOutput, error) {
	kind := in.Period // the schema admits day (the default), week and month
	day := n.now()
	if in.Date != "" {
		d, err := parsePeriodDate(kind, in.Date)
		if err != nil {
			return nil, noteOutput{}, err
		}
		day = d
	}
	p := periodOf(kind, day)
	pc := n.cfg.periods[kind]
	rel := p.name + vault.Ext
	if pc.folder != "" {
		rel = pc.folder + "/" + rel
	}
	isNew := false
	if !n.v.Exists(rel) {
		tmpl := periodDefault
		if pc.template != "" {
			if data, err := n.v.ReadFile(pc.template); err == nil {
				tmpl = vault.Parse(string(data)).Body
			}
		}
		body := strings.NewReplacer("{{date}}", p.name, "{{title}}", p.name, "{{weekday}}", p.weekday,
			"{{start}}", p.start.Format("2006-01-02"), "{{end}}", p.end.Format("2006-01-02")).Replace(tmpl)
		_, err := n.create(ctx, rel, vault.Note{Title: p.name, Tags: []string{periodTags[kind]}, Body: body}, false)
		var kerr *kit.Error
		lostRace := errors.As(err, &kerr) && kerr.Code == kit.CodeInvalidInput && n.v.Exists(rel) // created meanwhile
		if err != nil && !lostRace {
			return nil, noteOutput{}, err
		}
		isNew = err == nil
	}
	note, data, err := n.read(rel)
	if err != nil {
		return nil, noteOutput{}, err
	}
	out := describe(rel, note, data)
	out.New = isNew
	out.Content, out.Truncated, out.NextOffset = truncate(note.Body, 0)
	return nil, out, nil
}
