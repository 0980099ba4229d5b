package mcptest

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Refusal is a tool call that the tool's input schema must refuse, and the message the kit
// must give for it (the text after "invalid arguments: ").
type Refusal struct {
	Tool string
	Args map[string]any
	Want string
}

// CheckRefusals makes each call and fails the test unless it is refused with its message
// before the handler reaches upstream: requests, the number of requests the upstream fake has
// answered so far, must not change.
func CheckRefusals(t testing.TB, cs *mcp.ClientSession, requests func() int, calls []Refusal) {
	t.Helper()
	for _, c := range calls {
		before := requests()
		if msg := CallError(t, cs, c.Tool, c.Args); msg != "invalid arguments: "+c.Want {
			t.Errorf("%s(%v): %q, want %q", c.Tool, c.Args, msg, "invalid arguments: "+c.Want)
		}
		if n := requests() - before; n != 0 {
			t.Errorf("%s(%v): upstream got %d requests, want none", c.Tool, c.Args, n)
		}
	}
}
