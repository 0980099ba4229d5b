package metrics

import (
	"strings"
	"testing"
	"time"
)

func TestExposition(t *testing.T) {
	t.Parallel()
	r := NewRegistry("calc\"ulator", "v1")
	r.ObserveCall("evaluate", "ok", 300*time.Microsecond)
	r.ObserveCall("evaluate", "ok", 20*time.Millisecond)
	r.ObserveCall("evaluate", "error", 2*time.Second)
	r.ObserveCall("statistics", "ok", 100*time.Second)
	r.ObserveAbandoned("evaluate")
	var b strings.Builder
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`mcp_build_info{server="calc\"ulator",version="v1",goversion="go`,
		"# TYPE mcp_tool_calls_total counter",
		`mcp_tool_calls_total{tool="evaluate",outcome="error"} 1`,
		`mcp_tool_calls_total{tool="evaluate",outcome="ok"} 2`,
		"# TYPE mcp_tool_call_duration_seconds histogram",
		`mcp_tool_call_duration_seconds_bucket{tool="evaluate",le="0.001"} 1`,
		`mcp_tool_call_duration_seconds_bucket{tool="evaluate",le="0.05"} 2`,
		`mcp_tool_call_duration_seconds_bucket{tool="evaluate",le="2.5"} 3`,
		`mcp_tool_call_duration_seconds_bucket{tool="evaluate",le="+Inf"} 3`,
		`mcp_tool_call_duration_seconds_count{tool="evaluate"} 3`,
		`mcp_tool_call_duration_seconds_bucket{tool="statistics",le="90"} 0`,
		`mcp_tool_call_duration_seconds_bucket{tool="statistics",le="+Inf"} 1`,
		"# TYPE mcp_tool_calls_abandoned_total counter",
		`mcp_tool_calls_abandoned_total{tool="evaluate"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `mcp_tool_calls_abandoned_total{tool="statistics"}`) {
		t.Errorf("a tool never abandoned has an abandoned series:\n%s", out)
	}
	if got := r.Abandoned("evaluate"); got != 1 {
		t.Errorf("Abandoned = %d, want 1", got)
	}
	if got := r.Calls("evaluate", "ok"); got != 2 {
		t.Errorf("Calls = %d, want 2", got)
	}
}
