package confirm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call is a tools/call as the go-sdk hands it to a handler, from a client speaking version
// with caps.
func call(tool, args, version string, caps map[string]any) *mcp.CallToolRequest {
	meta := mcp.Meta{}
	if version != "" {
		meta[mcp.MetaKeyProtocolVersion] = version
	}
	if caps != nil {
		meta[mcp.MetaKeyClientCapabilities] = caps
	}
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta, Name: tool, Arguments: json.RawMessage(args)}}
}

var elicits = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

// retry is req called again with the person's answer and the state of the question asked.
func retry(req *mcp.CallToolRequest, action, state string) *mcp.CallToolRequest {
	p := *req.Params
	p.RequestState = state
	p.InputResponses = mcp.InputResponseMap{inputID: &mcp.ElicitResult{Action: action}}
	return &mcp.CallToolRequest{Params: &p}
}

// ask calls Ask and requires the question to go out, returning its state.
func ask(t *testing.T, ctx context.Context, req *mcp.CallToolRequest, msg string) string {
	t.Helper()
	ans, err := Ask(ctx, req, msg)
	var ir *InputRequired
	if !errors.As(err, &ir) {
		t.Fatalf("Ask = %v, %v; want the question asked", ans, err)
	}
	el, ok := ir.Result.InputRequests[inputID].(*mcp.ElicitParams)
	if !ok || el.Message != msg || el.Mode != "form" || ir.Result.RequestState == "" || ir.Result.Content != nil {
		t.Fatalf("input request = %+v, state %q; want a form showing %q", ir.Result.InputRequests, ir.Result.RequestState, msg)
	}
	return ir.Result.RequestState
}

func TestAskAcceptDecline(t *testing.T) {
	a := NewAsker()
	ctx := a.Bind(t.Context(), "laptop", false)
	req := call("run_command", `{"command":"rm -rf /srv/x"}`, "2026-07-28", elicits)
	const msg = "Run rm -rf /srv/x?"

	state := ask(t, ctx, req, msg)
	if ans, err := Ask(ctx, retry(req, "accept", state), msg); ans != Accepted || err != nil {
		t.Fatalf("accepted answer: %v, %v; want Accepted", ans, err)
	}
	// The same answer again (a replay) is not an acceptance: the question goes out afresh.
	if ans, err := Ask(ctx, retry(req, "accept", state), msg); ans == Accepted {
		t.Fatalf("replayed answer accepted: %v, %v", ans, err)
	}

	for _, action := range []string{"decline", "cancel"} {
		state := ask(t, ctx, req, msg)
		ans, err := Ask(ctx, retry(req, action, state), msg)
		if ans == Accepted || !errors.Is(err, ErrDeclined) {
			t.Errorf("%s: %v, %v; want ErrDeclined", action, ans, err)
		}
	}
}

// TestAnswerIsBound: an accepted answer counts only for the caller, tool, arguments and
// question it was given for, only from this process, only before it expires.
func TestAnswerIsBound(t *testing.T) {
	a := NewAsker()
	now := time.Unix(1_800_000_000, 0)
	a.now = func() time.Time { return now }
	ctx := a.Bind(t.Context(), "laptop", false)
	req := call("run_command", `{"command":"rm -rf /srv/x","cwd":"/srv"}`, "2026-07-28", elicits)
	const msg = "Run rm -rf /srv/x in /srv?"

	tamper := func(state string) string {
		raw, _ := base64.RawURLEncoding.DecodeString(state)
		raw[nonceSize+8] ^= 1 // the binding, under the MAC
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	other := NewAsker()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		req  func(state string) *mcp.CallToolRequest
		msg  string
		wait time.Duration
	}{
		{"another caller", a.Bind(t.Context(), "backend", false), func(s string) *mcp.CallToolRequest { return retry(req, "accept", s) }, msg, 0},
		{"another tool", ctx, func(s string) *mcp.CallToolRequest {
			r := retry(req, "accept", s)
			r.Params.Name = "start_process"
			return r
		}, msg, 0},
		{"other arguments", ctx, func(s string) *mcp.CallToolRequest {
			r := retry(req, "accept", s)
			r.Params.Arguments = json.RawMessage(`{"command":"rm -rf /","cwd":"/srv"}`)
			return r
		}, msg, 0},
		{"another question", ctx, func(s string) *mcp.CallToolRequest { return retry(req, "accept", s) }, "Run ls?", 0},
		{"a tampered state", ctx, func(s string) *mcp.CallToolRequest { return retry(req, "accept", tamper(s)) }, msg, 0},
		{"another process's key", other.Bind(t.Context(), "laptop", false), func(s string) *mcp.CallToolRequest { return retry(req, "accept", s) }, msg, 0},
		{"no answer", ctx, func(s string) *mcp.CallToolRequest {
			r := retry(req, "accept", s)
			r.Params.InputResponses = nil
			return r
		}, msg, 0},
		{"an expired question", ctx, func(s string) *mcp.CallToolRequest { return retry(req, "accept", s) }, msg, Expiry},
	} {
		t.Run(tt.name, func(t *testing.T) {
			state := ask(t, ctx, req, msg)
			now = now.Add(tt.wait)
			ans, err := Ask(tt.ctx, tt.req(state), tt.msg)
			var ir *InputRequired
			if ans == Accepted || !errors.As(err, &ir) {
				t.Errorf("%v, %v; want the question asked afresh", ans, err)
			}
		})
	}

	// The same arguments spelled differently (key order, spacing) are the same arguments.
	state := ask(t, ctx, req, msg)
	respelled := retry(req, "accept", state)
	respelled.Params.Arguments = json.RawMessage(`{ "cwd": "/srv", "command": "rm -rf /srv/x" }`)
	if ans, err := Ask(ctx, respelled, msg); ans != Accepted || err != nil {
		t.Errorf("respelled arguments: %v, %v; want Accepted", ans, err)
	}
}

func TestUnavailable(t *testing.T) {
	a := NewAsker()
	legacy := map[string]any{"elicitation": map[string]any{}} // 2025 clients may send {}
	urlOnly := map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		req     *mcp.CallToolRequest
		canAsk  bool
		comment string
	}{
		{"no kit binding", t.Context(), call("t", `{}`, "2026-07-28", elicits), false, "in-process use"},
		{"2026 without elicitation", a.Bind(t.Context(), "c", false), call("t", `{}`, "2026-07-28", map[string]any{}), false, ""},
		{"2026 with URL elicitation only", a.Bind(t.Context(), "c", false), call("t", `{}`, "2026-07-28", urlOnly), false, ""},
		{"2025 over stateless HTTP", a.Bind(t.Context(), "c", false), call("t", `{}`, "", nil), false, "no server→client requests"},
		{"2026 with elicitation", a.Bind(t.Context(), "c", false), call("t", `{}`, "2026-07-28", elicits), true, ""},
		{"2026 with empty elicitation", a.Bind(t.Context(), "c", false), call("t", `{}`, "2026-07-28", legacy), true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ans, err := Ask(tt.ctx, tt.req, "Do it?")
			var ir *InputRequired
			switch {
			case tt.canAsk && !errors.As(err, &ir):
				t.Errorf("%v, %v; want the question asked", ans, err)
			case !tt.canAsk && (ans != Unavailable || err != nil):
				t.Errorf("%v, %v; want Unavailable (%s)", ans, err, tt.comment)
			}
			if got := Possible(tt.ctx, tt.req); got != tt.canAsk {
				t.Errorf("Possible = %v, want %v", got, tt.canAsk)
			}
			if err := Confirm(tt.ctx, tt.req, "Do it?"); tt.canAsk != errors.As(err, &ir) || (!tt.canAsk && err != nil) {
				t.Errorf("Confirm = %v; want the question when it can be asked, else nil", err)
			}
		})
	}
}
