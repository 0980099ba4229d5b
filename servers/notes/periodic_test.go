package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPeriodOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, day, name, start, end string
	}{
		{"day", "2026-03-04", "2026-03-04", "2026-03-04", "2026-03-04"},
		{"week", "2026-03-04", "2026-W10", "2026-03-02", "2026-03-08"},
		{"week", "2026-03-08", "2026-W10", "2026-03-02", "2026-03-08"}, // a Sunday ends its week
		{"week", "2027-01-01", "2026-W53", "2026-12-28", "2027-01-03"}, // ISO year differs
		{"week", "2024-12-30", "2025-W01", "2024-12-30", "2025-01-05"},
		{"month", "2026-02-14", "2026-02", "2026-02-01", "2026-02-28"},
		{"month", "2024-02-29", "2024-02", "2024-02-01", "2024-02-29"},
	} {
		d, err := time.ParseInLocation("2006-01-02", tc.day, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		p := periodOf(tc.kind, d)
		if p.name != tc.name || p.start.Format("2006-01-02") != tc.start || p.end.Format("2006-01-02") != tc.end {
			t.Errorf("%s of %s = %s %s..%s, want %s %s..%s", tc.kind, tc.day, p.name, p.start.Format("2006-01-02"), p.end.Format("2006-01-02"), tc.name, tc.start, tc.end)
		}
	}
	for _, tc := range []struct{ kind, in, name string }{
		{"week", "2026-W10", "2026-W10"},
		{"week", "2026-W53", "2026-W53"},
		{"week", "2020-W53", "2020-W53"},
		{"month", "2026-11", "2026-11"},
		{"month", "2026-11-30", "2026-11"},
	} {
		d, err := parsePeriodDate(tc.kind, tc.in)
		if err != nil {
			t.Errorf("parse %s %q: %v", tc.kind, tc.in, err)
			continue
		}
		if got := periodOf(tc.kind, d).name; got != tc.name {
			t.Errorf("parse %s %q = %s, want %s", tc.kind, tc.in, got, tc.name)
		}
	}
	for _, tc := range []struct{ kind, in string }{{"week", "2025-W53"}, {"week", "2026-W00"}, {"day", "2026-11"}, {"month", "2026-13"}, {"day", "2026-W10"}} {
		if _, err := parsePeriodDate(tc.kind, tc.in); err == nil {
			t.Errorf("parse %s %q: no error", tc.kind, tc.in)
		}
	}
}

func TestWeeklyAndMonthlyNotes(t *testing.T) {
	t.Parallel()
	e := start(t, "--monthly-folder", "journal/months")
	w := call[noteOutput](e, "daily_note", map[string]any{"period": "week", "date": "2026-03-04"})
	if w.Path != "weekly/2026-W10.md" || !w.New || w.Title != "2026-W10" || w.Content != "# 2026-W10\n" || !slices.Equal(w.Tags, []string{"weekly"}) {
		t.Errorf("weekly = %+v", w)
	}
	if again := call[noteOutput](e, "daily_note", map[string]any{"period": "week", "date": "2026-W10"}); again.New || again.Hash != w.Hash {
		t.Errorf("same week by its name = %+v", again)
	}
	call[writeOutput](e, "create_note", map[string]any{"path": "templates/monthly", "content": "# {{title}}\n\nFrom {{start}} to {{end}}.\n\n## Goals\n"})
	m := call[noteOutput](e, "daily_note", map[string]any{"period": "month", "date": "2026-02-10"})
	if m.Path != "journal/months/2026-02.md" || !m.New || m.Content != "# 2026-02\n\nFrom 2026-02-01 to 2026-02-28.\n\n## Goals\n" || !slices.Equal(m.Tags, []string{"monthly"}) {
		t.Errorf("monthly = %+v", m)
	}
	now := time.Now()
	thisWeek := call[noteOutput](e, "daily_note", map[string]any{"period": "week"})
	y, wk := now.ISOWeek()
	if want := fmt.Sprintf("weekly/%04d-W%02d.md", y, wk); thisWeek.Path != want {
		t.Errorf("this week = %s, want %s", thisWeek.Path, want)
	}
	if d := call[noteOutput](e, "daily_note", map[string]any{"period": "day", "date": "2026-03-04"}); d.Path != "daily/2026-03-04.md" {
		t.Errorf("daily beside them = %+v", d)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"period": "week", "date": "2026-W60"}, "YYYY-Www"},
		{map[string]any{"period": "month", "date": "March"}, "YYYY-MM"},
		{map[string]any{"period": "year"}, `period must be one of "day", "week", "month", not "year"`},
	} {
		if msg := e.fail("daily_note", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, msg, tc.want)
		}
	}
}
