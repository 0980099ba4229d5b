package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDeleteAsksTheOwner: delete_event asks the person behind a client that can ask, shows
// which event and occurrence, and deletes nothing when they decline; a client that cannot
// ask deletes as before.
func TestDeleteAsksTheOwner(t *testing.T) {
	t.Parallel()
	const id = "standup_20260323T080000Z"
	for _, tt := range []struct {
		name, version, action string
		asked, deleted        bool
	}{
		{"accepted", mcptest.Stateless, "accept", true, true},
		{"declined", mcptest.Stateless, "decline", true, false},
		{"a client that cannot ask", mcptest.ProtocolVersion, "", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeCalendar(t)
			h := mcptest.Start(t, spec(), signIn(t, f)...)
			var asked []string
			opts := &mcp.ClientOptions{}
			if tt.action != "" {
				opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, r.Params.Message)
					return &mcp.ElicitResult{Action: tt.action}, nil
				}
			}
			res := mcptest.Call(t, h.ConnectAs(t, "", tt.version, opts), "delete_event", map[string]any{"event_id": id})
			if tt.asked != (len(asked) == 1) || (tt.asked && (!strings.HasPrefix(asked[0], "Delete the occurrence on 2026-03-23") || !strings.Contains(asked[0], "from the calendar"))) {
				t.Errorf("asked %q, want a question naming the occurrence: %v", asked, tt.asked)
			}
			if deleted := len(f.Calls("DELETE", "/events/"+id)) == 1; deleted != tt.deleted {
				t.Errorf("deleted %v, want %v", deleted, tt.deleted)
			}
			if res.IsError == tt.deleted {
				t.Errorf("answer %v %q", res.IsError, mcptest.Text(res))
			}
		})
	}
}
