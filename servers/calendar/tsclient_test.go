package main

import (
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestTypeScriptSDKConfirm: the official TypeScript SDK's client (2025-11-25; installed and
// run by scripts/ts-client-test.sh, skipped without MCP_TS_CLIENT_DIR) is asked over stdio,
// where the go-sdk turns the input request into elicitation/create, before delete_event
// deletes an occurrence for good, and the event is deleted only when the person accepts. Over
// stateless HTTP the server cannot ask a 2025-11-25 client, so it deletes as before.
func TestTypeScriptSDKConfirm(t *testing.T) {
	const id = "standup_20260323T080000Z"
	for _, tt := range []struct {
		name, action   string
		stdio          bool
		asked, deleted bool
	}{
		{"stdio accepted", "accept", true, true, true},
		{"stdio declined", "decline", true, true, false},
		{"http", "decline", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeCalendar(t)
			var c *mcptest.TSClient
			if tt.stdio {
				c = mcptest.StartTSClientStdio(t, spec(), nil, signIn(t, f)...)
			} else {
				c = mcptest.StartTSClientHTTP(t, mcptest.Start(t, spec(), signIn(t, f)...).URL+"/mcp")
			}
			c.Do(t, "answer", map[string]any{"action": tt.action})
			c.Do(t, "call", map[string]any{"id": "del", "name": "delete_event", "arguments": map[string]any{"event_id": id}})
			res, on := c.Answer(t, "del", 30*time.Second)
			var asked []string
			for _, e := range on {
				if e.Event == "asked" {
					asked = append(asked, e.Message)
				}
			}
			if tt.asked != (len(asked) == 1) || (tt.asked && (!strings.HasPrefix(asked[0], "Delete the occurrence on 2026-03-23") || !strings.Contains(asked[0], "from the calendar"))) {
				t.Errorf("asked %q, want a question naming the occurrence: %v", asked, tt.asked)
			}
			if deleted := len(f.Calls("DELETE", "/events/"+id)) == 1; deleted != tt.deleted {
				t.Errorf("deleted %v, want %v", deleted, tt.deleted)
			}
			if res.Event != "result" || (res.Result["isError"] == true) == tt.deleted {
				t.Errorf("answer %+v", res)
			}
		})
	}
}
