package main

import (
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestAccountArgument: a tool called with account reaches Calendar with that account's token,
// without it with the default's; an expired account's call names its own login, and the
// time zone read for get_current_time comes from the account asked.
func TestAccountArgument(t *testing.T) {
	t.Parallel()
	f := newFakeCalendar(t)
	f.Accept("work-token")
	args := signIn(t, f)
	scope := "https://www.googleapis.com/auth/calendar"
	googletest.AddAccount(t, args, "work", "ada@work.example", "work-token", time.Now().Add(time.Hour), time.Time{}, scope)
	googletest.AddAccount(t, args, "old", "ada@old.example", "old-token", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute), scope)
	h := mcptest.Start(t, spec(), args...)
	cs := h.Connect(t, "")

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_calendars", nil, "Bearer " + googlefake.Token},
		{"list_calendars", map[string]any{"account": "work"}, "Bearer work-token"},
		{"list_events", map[string]any{"account": "work", "time_min": "2026-03-01", "time_max": "2026-03-31"}, "Bearer work-token"},
		{"get_current_time", map[string]any{"account": "work"}, "Bearer work-token"},
		{"get_current_time", nil, "Bearer " + googlefake.Token},
	} {
		before := f.Requests()
		if res := mcptest.Call(t, cs, tc.tool, tc.args); res.IsError {
			t.Fatalf("%s %v: %s", tc.tool, tc.args, mcptest.Text(res))
		}
		calls := f.Calls("", "")
		if len(calls) == before || calls[len(calls)-1].Auth != tc.want {
			t.Errorf("%s %v went with %v, want %q", tc.tool, tc.args, calls[before:], tc.want)
		}
	}
	before := f.Requests()
	msg := mcptest.CallError(t, cs, "list_calendars", map[string]any{"account": "old"})
	if !strings.Contains(msg, "Google sign-in for ada@old.example expired: run `calendar auth login --account old`") || f.Requests() != before {
		t.Errorf("expired account: %s (%d requests)", msg, f.Requests()-before)
	}
	now, _ := mcptest.CallFor[currentTimeOutput](t, cs, "get_current_time", map[string]any{"account": "old"})
	if now.ZoneSource != zoneFromServer || !strings.Contains(now.Note, "calendar auth login --account old") {
		t.Errorf("current time for an expired account: %+v", now)
	}
	if msg := mcptest.CallError(t, cs, "list_calendars", map[string]any{"account": "home"}); !strings.Contains(msg, "(signed in: default, old, work)") {
		t.Errorf("unknown account: %s", msg)
	}
}
