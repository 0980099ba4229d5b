package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestUntilBefore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		orig *eventDateTime
		want string
	}{
		{"timed in UTC", &eventDateTime{DateTime: "2026-03-16T08:00:00Z"}, "20260316T075959Z"},
		{"timed with an offset is written in UTC", &eventDateTime{DateTime: "2026-03-30T09:00:00+02:00", TimeZone: "Europe/Berlin"}, "20260330T065959Z"},
		{"timed at midnight UTC ends the day before", &eventDateTime{DateTime: "2026-01-01T00:00:00Z"}, "20251231T235959Z"},
		{"all-day ends the day before, as a date", &eventDateTime{Date: "2026-03-01"}, "20260228"},
		{"all-day across a year", &eventDateTime{Date: "2026-01-01"}, "20251231"},
	}
	for _, tc := range tests {
		got, err := untilBefore(tc.orig)
		if err != nil || got != tc.want {
			t.Errorf("%s: untilBefore = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []*eventDateTime{nil, {Date: "2026-13-01"}, {DateTime: "tomorrow"}, {}} {
		if got, err := untilBefore(bad); err == nil {
			t.Errorf("untilBefore(%+v) = %q, want an error", bad, got)
		}
	}
}

func TestEndSeries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rec   []string
		until string
		want  []string
	}{
		{"COUNT dropped, other parts kept in order", []string{"RRULE:FREQ=DAILY;COUNT=10;INTERVAL=2"}, "20260310", []string{"RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20260310"}},
		{"an earlier UNTIL replaced", []string{"RRULE:FREQ=WEEKLY;UNTIL=20261231T000000Z;BYDAY=MO,WE"}, "20260316T075959Z", []string{"RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260316T075959Z"}},
		{"ordinal BYDAY and BYSETPOS untouched", []string{"RRULE:FREQ=MONTHLY;BYDAY=-1FR"}, "20260401T000000Z", []string{"RRULE:FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20260401T000000Z"}},
		{"lower-case keys and an empty part", []string{"rrule:freq=weekly;count=3;"}, "20260316", []string{"RRULE:freq=weekly;UNTIL=20260316"}},
		{"EXDATE, RDATE and EXRULE lines kept as they are", []string{"EXDATE;TZID=Europe/Berlin:20260305T090000", "RRULE:FREQ=DAILY", "RDATE;VALUE=DATE:20260320", "EXRULE:FREQ=WEEKLY;BYDAY=SU"},
			"20260310", []string{"EXDATE;TZID=Europe/Berlin:20260305T090000", "RRULE:FREQ=DAILY;UNTIL=20260310", "RDATE;VALUE=DATE:20260320", "EXRULE:FREQ=WEEKLY;BYDAY=SU"}},
	}
	for _, tc := range tests {
		if got := endSeries(tc.rec, tc.until); !slices.Equal(got, tc.want) {
			t.Errorf("%s: endSeries = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCountRewrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rec       []string
		count     int
		wantCount int
		want      []string
	}{
		{"COUNT replaced in place", []string{"RRULE:FREQ=DAILY;COUNT=10;INTERVAL=2", "EXDATE:20260305T080000Z"}, 3, 10, []string{"RRULE:FREQ=DAILY;COUNT=3;INTERVAL=2", "EXDATE:20260305T080000Z"}},
		{"lower-case count", []string{"RRULE:FREQ=WEEKLY;count=6"}, 4, 6, []string{"RRULE:FREQ=WEEKLY;COUNT=4"}},
		{"no COUNT: unchanged, counted as 0", []string{"RRULE:FREQ=WEEKLY;UNTIL=20260401T000000Z"}, 4, 0, []string{"RRULE:FREQ=WEEKLY;UNTIL=20260401T000000Z"}},
		{"EXDATE before the rule", []string{"EXDATE:20260305T080000Z", "RRULE:FREQ=DAILY;COUNT=5"}, 2, 5, []string{"EXDATE:20260305T080000Z", "RRULE:FREQ=DAILY;COUNT=2"}},
		{"no rule at all", []string{"RDATE:20260305T080000Z"}, 2, 0, []string{"RDATE:20260305T080000Z"}},
	}
	for _, tc := range tests {
		if got := ruleCount(tc.rec); got != tc.wantCount {
			t.Errorf("%s: ruleCount = %d, want %d", tc.name, got, tc.wantCount)
		}
		if got := withCount(tc.rec, tc.count); !slices.Equal(got, tc.want) {
			t.Errorf("%s: withCount = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNormalizeRecurrence(t *testing.T) {
	t.Parallel()
	in := []string{" FREQ=WEEKLY;BYDAY=MO ", "", "RRULE:FREQ=DAILY", "rrule:freq=daily", "EXDATE:20260101", "EXDATE;VALUE=DATE:20260102", "RDATE:20260103", "EXRULE:FREQ=YEARLY", "   "}
	want := []string{"RRULE:FREQ=WEEKLY;BYDAY=MO", "RRULE:FREQ=DAILY", "rrule:freq=daily", "EXDATE:20260101", "EXDATE;VALUE=DATE:20260102", "RDATE:20260103", "EXRULE:FREQ=YEARLY"}
	if got := normalizeRecurrence(in); !slices.Equal(got, want) {
		t.Errorf("normalizeRecurrence = %q, want %q", got, want)
	}
}

func TestScopeOf(t *testing.T) {
	t.Parallel()
	single := &event{Id: "dentist"}
	series := &event{Id: "standup", Recurrence: []string{"RRULE:FREQ=WEEKLY"}}
	occurrence := &event{Id: "standup_20260316T080000Z", RecurringEventId: "standup"}
	tests := []struct {
		scope   string
		ev      *event
		want    string
		wantErr string
	}{
		{"", occurrence, "this", ""},
		{"", series, "all", ""},
		{"", single, "all", ""},
		{"this", occurrence, "this", ""},
		{"following", occurrence, "following", ""},
		{"all", occurrence, "all", ""},
		{"all", series, "all", ""},
		{"this", single, "all", ""},
		{"following", single, "all", ""},
		{"this", series, "", "occurrence id"},
		{"following", series, "", "recurring_event_id standup"},
	}
	for _, tc := range tests {
		got, err := scopeOf(tc.scope, tc.ev)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("scopeOf(%q, %s) error %v, want %q", tc.scope, tc.ev.Id, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("scopeOf(%q, %s) = %q, %v; want %q", tc.scope, tc.ev.Id, got, err, tc.want)
		}
	}
}

// TestRecurringScopeCases runs update_event and delete_event on the fake's weekly stand-up
// (Mondays 09:00 Berlin, COUNT=6 from 2026-03-02; Berlin moves to summer time on 2026-03-29)
// and checks every write the server sent.
func TestRecurringScopeCases(t *testing.T) {
	t.Parallel()
	const (
		first  = "standup_20260302T080000Z"
		third  = "standup_20260316T080000Z"
		fifth  = "standup_20260330T070000Z"
		last   = "standup_20260406T070000Z"
		master = "/events/standup"
	)
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr string
		writes  []string            // "METHOD /path" of every write, in order
		rec     map[string][]string // recurrence sent by a write
	}{
		{name: "update an occurrence: this by default", tool: "update_event", args: map[string]any{"event_id": third, "summary": "x"},
			writes: []string{"PATCH /events/" + third}},
		{name: "update the series id: all by default", tool: "update_event", args: map[string]any{"event_id": "standup", "summary": "x"},
			writes: []string{"PATCH " + master}},
		{name: "update an occurrence, scope all, patches the series", tool: "update_event", args: map[string]any{"event_id": third, "scope": "all", "summary": "x"},
			writes: []string{"PATCH " + master}},
		{name: "update following: series ends before it, a new one has the remaining COUNT", tool: "update_event", args: map[string]any{"event_id": third, "scope": "following", "summary": "x"},
			writes: []string{"PATCH " + master, "POST /events"},
			rec:    map[string][]string{"PATCH " + master: {"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260316T075959Z"}, "POST /events": {"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"}}},
		{name: "update following from the last occurrence, after the DST change", tool: "update_event", args: map[string]any{"event_id": last, "scope": "following", "summary": "x"},
			writes: []string{"PATCH " + master, "POST /events"},
			rec:    map[string][]string{"PATCH " + master: {"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260406T065959Z"}, "POST /events": {"RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=1"}}},
		{name: "update following from the first occurrence is the whole series", tool: "update_event", args: map[string]any{"event_id": first, "scope": "following", "summary": "x"},
			writes: []string{"PATCH " + master}},
		{name: "update following with a new rule", tool: "update_event", args: map[string]any{"event_id": third, "scope": "following", "recurrence": []string{"FREQ=WEEKLY;BYDAY=TU;COUNT=2"}},
			writes: []string{"PATCH " + master, "POST /events"},
			rec:    map[string][]string{"PATCH " + master: {"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260316T075959Z"}, "POST /events": {"RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=2"}}},
		{name: "a new rule needs all or following", tool: "update_event", args: map[string]any{"event_id": third, "recurrence": []string{"FREQ=DAILY"}},
			wantErr: "need scope all or following"},
		{name: "a series id cannot take following", tool: "update_event", args: map[string]any{"event_id": "standup", "scope": "following", "summary": "x"},
			wantErr: "needs an occurrence id"},
		{name: "a single event takes any scope as itself", tool: "update_event", args: map[string]any{"event_id": "dentist", "scope": "following", "summary": "x"},
			writes: []string{"PATCH /events/dentist"}},
		{name: "an unknown scope", tool: "update_event", args: map[string]any{"event_id": third, "scope": "next", "summary": "x"},
			wantErr: `scope must be one of "this", "following", "all", not "next"`},
		{name: "delete an occurrence: this by default", tool: "delete_event", args: map[string]any{"event_id": third},
			writes: []string{"DELETE /events/" + third}},
		{name: "delete an occurrence, scope all, deletes the series", tool: "delete_event", args: map[string]any{"event_id": third, "scope": "all"},
			writes: []string{"DELETE " + master}},
		{name: "delete following ends the series before it", tool: "delete_event", args: map[string]any{"event_id": fifth, "scope": "following"},
			writes: []string{"PATCH " + master},
			rec:    map[string][]string{"PATCH " + master: {"RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20260330T065959Z"}}},
		{name: "delete following from the first occurrence deletes the series", tool: "delete_event", args: map[string]any{"event_id": first, "scope": "following"},
			writes: []string{"DELETE " + master}},
		{name: "delete the series id with scope this", tool: "delete_event", args: map[string]any{"event_id": "standup", "scope": "this"},
			wantErr: "needs an occurrence id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, cs := start(t)
			if tc.wantErr != "" {
				if msg := mcptest.CallError(t, cs, tc.tool, tc.args); !strings.Contains(msg, tc.wantErr) {
					t.Errorf("error %q, want %q", msg, tc.wantErr)
				}
			} else if res := mcptest.Call(t, cs, tc.tool, tc.args); res.IsError {
				t.Fatalf("tool error: %v", res.Content)
			}
			var writes []string
			for _, r := range f.Calls("", "") {
				if r.Method == "GET" {
					continue
				}
				key := r.Method + " " + r.Path[strings.LastIndex(r.Path, "/events"):]
				writes = append(writes, key)
				if want, ok := tc.rec[key]; ok {
					if got := anyStrings(r.Body["recurrence"]); !slices.Equal(got, want) {
						t.Errorf("%s recurrence %q, want %q", key, got, want)
					}
				}
			}
			if !slices.Equal(writes, tc.writes) {
				t.Errorf("writes %q, want %q", writes, tc.writes)
			}
		})
	}
}
