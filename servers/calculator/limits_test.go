package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/calculator/expression"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// property is the part of an argument's input schema the limit tests read.
type property struct {
	Description string   `json:"description"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	MaxLength   *int     `json:"maxLength"`
	MaxItems    *int     `json:"maxItems"`
	Default     any      `json:"default"`
	Items       *property
}

// inputSchemas lists the server's tools: each one's description and argument schemas.
func inputSchemas(t *testing.T, cs *mcp.ClientSession) (map[string]string, map[string]map[string]property) {
	t.Helper()
	descs, props := map[string]string{}, map[string]map[string]property{}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]property `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		descs[tool.Name], props[tool.Name] = tool.Description, schema.Properties
	}
	return descs, props
}

// TestEvaluateLimitsAgree: the limits evaluate's description and schema state are the engine's,
// and its refusals at those limits state the same numbers.
func TestEvaluateLimitsAgree(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	descs, props := inputSchemas(t, cs)
	desc, precision, expr := descs["evaluate"], props["evaluate"]["precision"], props["evaluate"]["expression"]
	stated := func(pattern, text string) []int {
		m := regexp.MustCompile(pattern).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%q does not state %s", text, pattern)
		}
		var out []int
		for _, s := range m[1:] {
			n, _ := strconv.Atoi(s)
			out = append(out, n)
		}
		return out
	}
	checks := []struct {
		name string
		got  []int
		want []int
	}{
		{"exact digits", stated(`Exact to (\d+) digits`, desc), []int{expression.MaxDigits}},
		{"magnitude", stated(`1e±(\d+)`, desc), []int{expression.MaxExponent}},
		{"precision default", stated(`default (\d+)`, precision.Description), []int{expression.DefaultPrecision}},
		{"precision range", []int{int(*precision.Minimum), int(*precision.Maximum)}, []int{1, expression.MaxPrecision}},
		{"expression length", []int{*expr.MaxLength}, []int{expression.MaxSourceBytes}},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: stated %v, engine %v", c.name, c.got, c.want)
		}
	}

	refusals := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"expression": fmt.Sprintf("10^%d", expression.MaxDigits)}, fmt.Sprintf("more than %d digits", expression.MaxDigits)},
		{map[string]any{"expression": fmt.Sprintf("10^%d", 2*expression.MaxDigits)}, fmt.Sprintf("more than the %d-digit limit", expression.MaxDigits)},
		{map[string]any{"expression": "1", "precision": expression.MaxPrecision + 1}, fmt.Sprintf("precision must be at most %d, not %d", expression.MaxPrecision, expression.MaxPrecision+1)},
		{map[string]any{"expression": strings.Repeat("1", expression.MaxSourceBytes+1)}, fmt.Sprintf("expression must be at most %d characters long, not %d", expression.MaxSourceBytes, expression.MaxSourceBytes+1)},
		{map[string]any{"expression": strings.Repeat("×", expression.MaxSourceBytes/2+1)}, fmt.Sprintf("more than the %d-byte limit", expression.MaxSourceBytes)},
		{map[string]any{"expression": fmt.Sprintf("exp(%d*ln(10))", expression.MaxExponent+1)}, fmt.Sprintf("the limit is about 1e+%d", expression.MaxExponent)},
	}
	for _, r := range refusals {
		if msg := mcptest.CallError(t, cs, "evaluate", r.args); !strings.Contains(msg, r.want) {
			t.Errorf("%v: %q, want %q", r.args, msg, r.want)
		}
	}
	for _, args := range []map[string]any{
		{"expression": fmt.Sprintf("10^%d", expression.MaxDigits-1)},
		{"expression": "sqrt(2)", "precision": expression.MaxPrecision},
		{"expression": "sqrt(2)", "precision": 1},
		{"expression": strings.Repeat("1", expression.MaxSourceBytes-2) + "+1"},
		{"expression": fmt.Sprintf("exp(%d*ln(10))", expression.MaxExponent-1)},
	} {
		mcptest.CallFor[evaluateOutput](t, cs, "evaluate", args) // fails the test on a tool error
	}
}
