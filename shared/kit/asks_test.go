package kit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/confirm"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type countIn struct {
	N int `json:"n" jsonschema:"how many"`
}

type eraseIn struct {
	Name string `json:"name" jsonschema:"what to erase"`
}

type erased struct {
	Erased string `json:"erased"`
}

// asksSpec is a server with a tool that reports progress, one that reports nothing for 1.3 s,
// and one that asks the owner before it erases (and refuses when it cannot ask).
func asksSpec(erasures *[]string, mu *sync.Mutex) kit.Spec {
	return kit.Spec{Name: "asks", Port: 9995, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "count", Description: "Count slowly.", ReadOnly: true},
			func(ctx context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, countIn, error) {
				p := progress.From(ctx)
				for i := range in.N {
					p.Items(i, in.N, "items")
					time.Sleep(300 * time.Millisecond)
				}
				return nil, in, nil
			})
		kit.AddTool(s, kit.Tool{Name: "quiet", Description: "Work silently.", ReadOnly: true},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
				time.Sleep(1300 * time.Millisecond)
				return nil, empty{}, nil
			})
		kit.AddTool(s, kit.Tool{Name: "erase", Description: "Erase a thing for good.", Destructive: true},
			func(ctx context.Context, req *mcp.CallToolRequest, in eraseIn) (*mcp.CallToolResult, erased, error) {
				ans, err := confirm.Ask(ctx, req, "Erase "+in.Name+" for good?")
				if err != nil {
					return nil, erased{}, err
				}
				if ans != confirm.Accepted {
					return nil, erased{}, kit.Errorf(kit.CodeInvalidInput, "erasing needs the owner's confirmation, and this client cannot ask for it")
				}
				mu.Lock()
				*erasures = append(*erasures, in.Name)
				mu.Unlock()
				return nil, erased{Erased: in.Name}, nil
			})
		return nil
	}}
}

// progressLog collects a client's progress notifications.
type progressLog struct {
	mu  sync.Mutex
	got []mcp.ProgressNotificationParams
}

func (p *progressLog) handler(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, *r.Params)
}

func (p *progressLog) messages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, n := range p.got {
		out = append(out, n.Message)
	}
	return out
}

func TestProgress(t *testing.T) {
	var mu sync.Mutex
	h := mcptest.Start(t, asksSpec(new([]string), &mu))
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		t.Run(version, func(t *testing.T) {
			pl := &progressLog{}
			cs := h.ConnectAs(t, "", version, &mcp.ClientOptions{ProgressNotificationHandler: pl.handler})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 4}, Meta: mcp.Meta{"progressToken": "c1"}})
			if err != nil || res.IsError {
				t.Fatalf("count: %v %+v", err, res)
			}
			// 300 ms apart, each report goes out (at most one per 250 ms); a busy machine may
			// fold one into the next, never reorder them.
			want := "0 of 4 items|1 of 4 items|2 of 4 items|3 of 4 items"
			if got := pl.messages(); len(got) < 3 || got[0] != "0 of 4 items" || !isSubsequence(got, strings.Split(want, "|")) {
				t.Errorf("progress %q, want %s", got, want)
			}

			pl = &progressLog{}
			cs = h.ConnectAs(t, "", version, &mcp.ClientOptions{ProgressNotificationHandler: pl.handler})
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "quiet", Meta: mcp.Meta{"progressToken": 9}}); err != nil {
				t.Fatal(err)
			}
			if got := pl.messages(); len(got) != 1 || !strings.HasPrefix(got[0], "running for 1") {
				t.Errorf("a silent tool's progress %q, want one heartbeat after a second", got)
			}

			// No token, no notifications.
			pl = &progressLog{}
			cs = h.ConnectAs(t, "", version, &mcp.ClientOptions{ProgressNotificationHandler: pl.handler})
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 2}}); err != nil {
				t.Fatal(err)
			}
			if got := pl.messages(); len(got) != 0 {
				t.Errorf("progress without a token: %q", got)
			}
		})
	}
}

// isSubsequence reports whether got is want with some items left out.
func isSubsequence(got, want []string) bool {
	i := 0
	for _, g := range got {
		for i < len(want) && want[i] != g {
			i++
		}
		if i == len(want) {
			return false
		}
		i++
	}
	return true
}

// elicitor answers elicitations with action and records their messages.
type elicitor struct {
	mu     sync.Mutex
	action string
	asked  []string
}

func (e *elicitor) handler(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, r.Params.Message)
	return &mcp.ElicitResult{Action: e.action}, nil
}

func TestConfirm(t *testing.T) {
	var (
		mu       sync.Mutex
		erasures []string
	)
	spec := asksSpec(&erasures, &mu)
	h := mcptest.Start(t, spec)
	for _, tt := range []struct {
		name    string
		cs      func(e *elicitor) *mcp.ClientSession
		action  string
		asked   bool
		erased  bool
		errText string
	}{
		{"2026-07-28, accepted", func(e *elicitor) *mcp.ClientSession {
			return h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{ElicitationHandler: e.handler})
		}, "accept", true, true, ""},
		{"2026-07-28, declined", func(e *elicitor) *mcp.ClientSession {
			return h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{ElicitationHandler: e.handler})
		}, "decline", true, false, "declined it, so it was not done"},
		{"2026-07-28, dismissed", func(e *elicitor) *mcp.ClientSession {
			return h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{ElicitationHandler: e.handler})
		}, "cancel", true, false, "declined it, so it was not done"},
		{"2026-07-28 without elicitation", func(*elicitor) *mcp.ClientSession {
			return h.ConnectAs(t, "", mcptest.Stateless, nil)
		}, "", false, false, "this client cannot ask"},
		{"2025-11-25 over stateless HTTP", func(e *elicitor) *mcp.ClientSession {
			return h.ConnectAs(t, "", mcptest.ProtocolVersion, &mcp.ClientOptions{ElicitationHandler: e.handler})
		}, "accept", false, false, "this client cannot ask"},
		{"2025-11-25 over stdio", func(e *elicitor) *mcp.ClientSession {
			_, cs := mcptest.StartStdio(t, spec, &mcp.ClientOptions{ElicitationHandler: e.handler}, nil)
			return cs
		}, "accept", true, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			erasures = nil
			mu.Unlock()
			e := &elicitor{action: tt.action}
			res := mcptest.Call(t, tt.cs(e), "erase", map[string]any{"name": "the-report"})
			if tt.asked != (len(e.asked) == 1) || (tt.asked && e.asked[0] != "Erase the-report for good?") {
				t.Errorf("asked %q, want a question: %v", e.asked, tt.asked)
			}
			mu.Lock()
			got := fmt.Sprint(erasures)
			mu.Unlock()
			if want := map[bool]string{true: "[the-report]", false: "[]"}[tt.erased]; got != want {
				t.Errorf("erased %s, want %s", got, want)
			}
			if text := mcptest.Text(res); res.IsError != (tt.errText != "") || !strings.Contains(text, tt.errText) {
				t.Errorf("answer %v %q, want error %q", res.IsError, text, tt.errText)
			}
		})
	}
	if logs := h.Logs(); !strings.Contains(logs, `"tool":"erase"`) || !strings.Contains(logs, `"input_required":true`) || !strings.Contains(logs, `"code":"declined"`) {
		t.Errorf("the log lines do not show the question and the refusal:\n%s", logs)
	}
}

// TestConfirmCannotBeForged: a retried call whose answer and state the server did not issue
// is asked afresh, never run.
func TestConfirmCannotBeForged(t *testing.T) {
	var mu sync.Mutex
	var erasures []string
	h := mcptest.Start(t, asksSpec(&erasures, &mu))
	client := mcp.NewClient(&mcp.Implementation{Name: "forger", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("unused")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "erase", Arguments: map[string]any{"name": "a"}})
	if err != nil || !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("first call: %v %+v; want an input request", err, first)
	}
	accept := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}
	for _, tt := range []struct {
		name  string
		state string
		args  map[string]any
	}{
		{"a made-up state", "forged", map[string]any{"name": "a"}},
		{"the state of another question", first.RequestState, map[string]any{"name": "b"}},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "erase", Arguments: tt.args, InputResponses: accept, RequestState: tt.state})
		if err != nil || !res.NeedsInput() {
			t.Errorf("%s: %v %+v; want the question asked again", tt.name, err, res)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "erase", Arguments: map[string]any{"name": "a"}, InputResponses: accept, RequestState: first.RequestState})
	if err != nil || res.IsError || res.NeedsInput() {
		t.Fatalf("the genuine answer: %v %+v", err, res)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "erase", Arguments: map[string]any{"name": "a"}, InputResponses: accept, RequestState: first.RequestState})
	if err != nil || !res.NeedsInput() {
		t.Errorf("the genuine answer replayed: %v %+v; want the question asked again", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(erasures) != "[a]" {
		t.Errorf("erased %v, want [a] once", erasures)
	}
}
