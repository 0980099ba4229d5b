package kit_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolCalls(t *testing.T) {
	tokens := writeTokens(t)
	h := mcptest.Start(t, testSpec(nil), "--auth-tokens-file", tokens)
	cs := h.Connect(t, "fedcba9876543210fedcba9876543210")

	res := mcptest.Call(t, cs, "echo", map[string]any{"text": "hi"})
	var out echoOut
	mcptest.Decode(t, res, &out)
	if out.Echo != "hi" || out.Caller != "backend" {
		t.Errorf("echo = %+v, want hi from backend", out)
	}
	if got := mcptest.Text(res); got != "echo: hi" {
		t.Errorf("text = %q, want the Texter rendering", got)
	}

	res = mcptest.Call(t, cs, "echo", map[string]any{"text": ""})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "text is empty") {
		t.Errorf("empty text: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "echo", map[string]any{"text": 5})
	if !res.IsError {
		t.Errorf("wrong argument type: want a tool error")
	}

	res = mcptest.Call(t, cs, "boom", nil)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "internal error") {
		t.Fatalf("panic: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "echo", map[string]any{"text": "still here"})
	if res.IsError {
		t.Fatalf("server stopped answering after a panic: %s", mcptest.Text(res))
	}

	// An unknown tool is a protocol error, and the server survives it.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: want a protocol error naming it, got %v", err)
	}

	start := time.Now()
	res = mcptest.Call(t, cs, "stuck", nil)
	took := time.Since(start)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "stuck was abandoned after 300ms") {
		t.Fatalf("timeout: want a tool error, got %v %q", res.IsError, mcptest.Text(res))
	}
	if took > 2*time.Second {
		t.Errorf("timeout answered after %s, want shortly after 300ms", took)
	}

	logs := h.Logs()
	for _, want := range []string{
		`"tool":"echo","caller":"backend"`, `"outcome":"ok"`, `"code":"invalid_input"`,
		`"code":"invalid_arguments"`, `"code":"internal"`, `"code":"timeout"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "session connected") {
		t.Error("the go-sdk's per-session info lines reach the log; stateless mode would log them on every request")
	}
	if strings.Contains(logs, "0123456789abcdef") || strings.Contains(logs, "fedcba98765") {
		t.Error("a token appears in the logs")
	}

	m := h.Server.Metrics()
	if got := m.Calls("echo", "ok"); got != 2 {
		t.Errorf("echo ok calls = %d, want 2", got)
	}
	if got := m.Calls("stuck", "error"); got != 1 {
		t.Errorf("stuck error calls = %d, want 1", got)
	}
	req, _ := http.NewRequest(http.MethodGet, h.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer fedcba9876543210fedcba9876543210")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`mcp_tool_calls_total{outcome="ok",tool="echo"} 2`,
		`mcp_tool_call_duration_seconds_count{tool="echo"} 4`,
		`mcp_build_info{goversion="go`,
		`server="kittest"`,
		"process_resident_memory_bytes ",
		"go_goroutines ",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

func TestAnnotationsAndReadOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"all", nil, []string{"boom", "echo", "stuck", "write_thing"}},
		{"read-only", []string{"--read-only"}, []string{"boom", "echo", "stuck"}},
		{"enable", []string{"--enable-tools", "echo,write_thing"}, []string{"echo", "write_thing"}},
		{"disable", []string{"--disable-tools", "boom"}, []string{"echo", "stuck", "write_thing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, testSpec(nil), tt.args...)
			cs := h.Connect(t, "")
			var got []string
			for tool, err := range cs.Tools(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tool.Name)
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
					t.Fatalf("%s: annotations incomplete: %+v", tool.Name, a)
				}
				if tool.Name == "write_thing" && (a.ReadOnlyHint || !*a.DestructiveHint) {
					t.Errorf("write_thing annotations = %+v", a)
				}
				if tool.Name == "echo" && (!a.ReadOnlyHint || *a.DestructiveHint || !a.IdempotentHint) {
					t.Errorf("echo annotations = %+v", a)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("tools = %v, want %v", got, tt.want)
			}
			if n := h.Server.Health(t.Context()).Tools; n != len(tt.want) {
				t.Errorf("health tool count = %d, want %d", n, len(tt.want))
			}
		})
	}
}

// TestAbandonedCalls: a handler that outlives its timeout is abandoned, not stopped, and the
// answer says so; for a tool that can change things it says to check before retrying. Each
// part runs in a synctest bubble over in-memory transports: the timeouts and the grace are
// fake time.
func TestAbandonedCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool    string
		want    string
		mustNot string
	}{
		{"slow_read", "slow_read was abandoned after 200ms: it did not answer in time and may still complete in the background; ask for less", "changed things"},
		{"slow_send", "slow_send was abandoned after 200ms: it did not answer in time and may still complete in the background — it may still have changed things: check before retrying", "ask for less"},
		{"slow_write", "may still have changed things: check before retrying", "ask for less"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				logs := &mcptest.LogBuffer{}
				srv, cs := startInMemory(t, abandonSpec(release), logs)
				start := time.Now()
				res := mcptest.Call(t, cs, tt.tool, nil)
				text := mcptest.Text(res)
				if !res.IsError || !strings.Contains(text, tt.want) || strings.Contains(text, tt.mustNot) {
					t.Errorf("answer %v %q, want an error with %q", res.IsError, text, tt.want)
				}
				if took := time.Since(start); took < 200*time.Millisecond || took > time.Second {
					t.Errorf("abandoned after %v, want its 200ms timeout and the short grace", took)
				}
				if got := srv.Metrics().Abandoned(tt.tool); got != 1 {
					t.Errorf("abandoned count = %d, want 1", got)
				}
				if got := srv.Metrics().Calls(tt.tool, "error"); got != 1 {
					t.Errorf("error count = %d, want 1", got)
				}
				if body := getMetrics(t, srv); !strings.Contains(body, `mcp_tool_calls_abandoned_total{tool="`+tt.tool+`"} 1`) {
					t.Errorf("/metrics lacks the abandoned count:\n%s", body)
				}
				if !strings.Contains(logs.String(), `"code":"timeout"`) {
					t.Errorf("the log lacks code timeout:\n%s", logs.String())
				}
				close(release)
				synctest.Wait() // the abandoned handler returns and its late finish is logged
				if n := strings.Count(logs.String(), "abandoned tool call finished"); n != 1 {
					t.Errorf("%d late finishes logged, want 1:\n%s", n, logs.String())
				}
			})
		})
	}
	// A tool that honours its context stops at the timeout: not abandoned, and the answer says so.
	synctest.Test(t, func(t *testing.T) {
		srv, cs := startInMemory(t, abandonSpec(nil), &mcptest.LogBuffer{})
		for _, tt := range []struct{ tool, want string }{
			{"stop_read", "stop_read stopped at its 200ms timeout before finishing (listing messages: context deadline exceeded); ask for less"},
			{"stop_send", "stop_send stopped at its 200ms timeout before finishing (listing messages: context deadline exceeded) — it may have done part of its work: check before retrying"},
		} {
			res := mcptest.Call(t, cs, tt.tool, nil)
			if text := mcptest.Text(res); !res.IsError || !strings.Contains(text, tt.want) {
				t.Errorf("%s: %v %q, want %q", tt.tool, res.IsError, text, tt.want)
			}
			if got := srv.Metrics().Abandoned(tt.tool); got != 0 {
				t.Errorf("%s: abandoned count = %d, want 0 (it stopped)", tt.tool, got)
			}
		}
	})
}

// abandonSpec is a server whose slow_* tools ignore their 200ms timeout until release is
// closed and whose stop_* tools stop at it.
func abandonSpec(release chan struct{}) kit.Spec {
	hang := func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, empty, error) {
		<-release // ignores its context, as a handler blocked in a syscall would
		return nil, empty{}, nil
	}
	return kit.Spec{Name: "abandon", Port: 9997, Setup: func(s *kit.Server) error {
		kit.AddTool(s, kit.Tool{Name: "slow_read", Description: "Read slowly.", ReadOnly: true, Timeout: 200 * time.Millisecond}, hang)
		kit.AddTool(s, kit.Tool{Name: "slow_send", Description: "Send slowly.", Destructive: true, Timeout: 200 * time.Millisecond}, hang)
		kit.AddTool(s, kit.Tool{Name: "slow_write", Description: "Write slowly.", Timeout: 200 * time.Millisecond}, hang)
		honour := func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, empty, error) {
			<-ctx.Done()
			return nil, empty{}, fmt.Errorf("listing messages: %w", ctx.Err())
		}
		kit.AddTool(s, kit.Tool{Name: "stop_read", Description: "Read until told to stop.", ReadOnly: true, Timeout: 200 * time.Millisecond}, honour)
		kit.AddTool(s, kit.Tool{Name: "stop_send", Description: "Send until told to stop.", Destructive: true, Timeout: 200 * time.Millisecond}, honour)
		return nil
	}}
}
