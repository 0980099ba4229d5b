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
)

// TestEvaluateLimitsAgree: the limits evaluate's description and schema state are the engine's,
// and its refusals at those limits state the same numbers.
func TestEvaluateLimitsAgree(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	var desc, precisionDesc string
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != "evaluate" {
			continue
		}
		desc = tool.Description
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		precisionDesc = schema.Properties["precision"].Description
	}
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
		{"exact digits", stated(`Exact up to (\d+) digits`, desc), []int{expression.MaxDigits}},
		{"precision", stated(`\(default (\d+), max (\d+)\)`, desc), []int{expression.DefaultPrecision, expression.MaxPrecision}},
		{"magnitude", stated(`1e±(\d+)`, desc), []int{expression.MaxExponent}},
		{"precision argument", stated(`(\d+)-(\d+) \(default (\d+)\)`, precisionDesc), []int{1, expression.MaxPrecision, expression.DefaultPrecision}},
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
		{map[string]any{"expression": "1", "precision": expression.MaxPrecision + 1}, fmt.Sprintf("use 1 to %d, or 0 for the default of %d", expression.MaxPrecision, expression.DefaultPrecision)},
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
		{"expression": fmt.Sprintf("exp(%d*ln(10))", expression.MaxExponent-1)},
	} {
		mcptest.CallFor[evaluateOutput](t, cs, "evaluate", args) // fails the test on a tool error
	}
}
