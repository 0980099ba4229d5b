package main

import (
	"context"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDeleteDraftAsksTheOwner: delete_draft, which Gmail does for good, asks the person behind
// a client that can ask, naming the draft, and keeps the draft when they decline; a client
// that cannot ask deletes as before.
func TestDeleteDraftAsksTheOwner(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, version, action string
		asked, deleted        bool
	}{
		{"accepted", mcptest.Stateless, "accept", true, true},
		{"declined", mcptest.Stateless, "decline", true, false},
		{"a client that cannot ask", mcptest.ProtocolVersion, "", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, cs, h := start(t)
			d, _ := mcptest.CallFor[draftOutput](t, cs, "save_draft", map[string]any{"to": []string{"bob@example.com"}, "subject": "Quarterly plan", "text": "v1"})
			var asked []string
			opts := &mcp.ClientOptions{}
			if tt.action != "" {
				opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = append(asked, r.Params.Message)
					return &mcp.ElicitResult{Action: tt.action}, nil
				}
			}
			res := mcptest.Call(t, h.ConnectAs(t, "", tt.version, opts), "delete_draft", map[string]any{"id": d.ID})
			if tt.asked != (len(asked) == 1) || (tt.asked && asked[0] != `Delete the draft "Quarterly plan" to <bob@example.com> for good? Gmail keeps no copy of a deleted draft.`) {
				t.Errorf("asked %q, want a question naming the draft: %v", asked, tt.asked)
			}
			if _, kept := f.Drafts[d.ID]; kept == tt.deleted {
				t.Errorf("draft kept %v, want deleted %v", kept, tt.deleted)
			}
			if res.IsError == tt.deleted {
				t.Errorf("answer %v %q", res.IsError, mcptest.Text(res))
			}
		})
	}
}
