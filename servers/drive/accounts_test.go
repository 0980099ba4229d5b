package main

import (
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestAccountArgument: Drive and Sheets calls (a search, an export, a new spreadsheet) go out with
// the token of the account the tool was given, else the default's.
func TestAccountArgument(t *testing.T) {
	t.Parallel()
	f := newFakeDrive(t)
	f.Accept("work-token")
	args := signIn(t, f)
	googletest.AddAccount(t, args, "work", "ada@work.example", "work-token", time.Now().Add(time.Hour), time.Time{}, "https://www.googleapis.com/auth/drive")
	h := mcptest.Start(t, spec(), args...)
	cs := h.Connect(t, "")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search_files", map[string]any{"query": "plan"}, "Bearer " + googlefake.Token},
		{"search_files", map[string]any{"query": "plan", "account": "work"}, "Bearer work-token"},
		{"read_file", map[string]any{"file_id": "sheet1", "account": "work"}, "Bearer work-token"},
		{"create_spreadsheet", map[string]any{"title": "Expenses", "account": "work"}, "Bearer work-token"}, // the Sheets API, through Account.For
	} {
		before := f.Requests()
		if res := mcptest.Call(t, cs, tc.tool, tc.args); res.IsError {
			t.Fatalf("%s %v: %s", tc.tool, tc.args, mcptest.Text(res))
		}
		calls := f.Calls("", "")
		if len(calls) == before {
			t.Fatalf("%s %v: no request", tc.tool, tc.args)
		}
		for _, c := range calls[before:] {
			if c.Auth != tc.want {
				t.Errorf("%s %v: %s %s went with %q, want %q", tc.tool, tc.args, c.Method, c.Path, c.Auth, tc.want)
			}
		}
	}
	if msg := mcptest.CallError(t, cs, "search_files", map[string]any{"query": "x", "account": "home"}); !strings.Contains(msg, "(signed in: default, work)") {
		t.Errorf("unknown account: %s", msg)
	}
}
