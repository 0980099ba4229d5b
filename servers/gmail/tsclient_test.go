package main

import (
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestTypeScriptSDKConfirm: the official TypeScript SDK's client (2025-11-25; installed and
// run by scripts/ts-client-test.sh, skipped without MCP_TS_CLIENT_DIR), over stdio, is asked
// before mail goes to an address the owner has never written to, seeing the message; the
// mail goes only when the person accepts.
func TestTypeScriptSDKConfirm(t *testing.T) {
	for _, tt := range []struct {
		action string
		sent   bool
	}{{"accept", true}, {"decline", false}} {
		t.Run(tt.action, func(t *testing.T) {
			t.Parallel()
			f := newFakeGmail(t)
			c := mcptest.StartTSClientStdio(t, spec(), nil, signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour))...)
			c.Do(t, "answer", map[string]any{"action": tt.action})
			c.Do(t, "call", map[string]any{"id": "send", "name": "send_message", "arguments": map[string]any{"to": []string{"eve@evil.example"}, "subject": "Plans", "text": "See you at 6."}})
			res, on := c.Answer(t, "send", 30*time.Second)
			var asked []string
			for _, e := range on {
				if e.Event == "asked" {
					asked = append(asked, e.Message)
				}
			}
			want := "Send this message? You have never written to eve@evil.example.\n\nTo: eve@evil.example\nSubject: Plans\n\nSee you at 6."
			if len(asked) != 1 || asked[0] != want {
				t.Errorf("asked %q, want %q", asked, want)
			}
			if sent := len(f.Sent) == 1; sent != tt.sent {
				t.Errorf("sent %v, want %v", sent, tt.sent)
			}
			if res.Event != "result" || (res.Result["isError"] == true) == tt.sent || (!tt.sent && !strings.Contains(mcptest.TSText(res), "declined")) {
				t.Errorf("answer %+v", res)
			}
		})
	}
}
