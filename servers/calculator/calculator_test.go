package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests start the calculator over real HTTP and drive it with the go-sdk client.

func TestToolList(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	want := map[string]bool{"evaluate": true, "convert_units": true, "statistics": true}
	n := 0
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !want[tool.Name] {
			t.Errorf("unexpected tool %q", tool.Name)
		}
		a := tool.Annotations
		if !a.ReadOnlyHint || !a.IdempotentHint || *a.DestructiveHint || *a.OpenWorldHint {
			t.Errorf("%s: want read-only, idempotent, closed-world; got %+v", tool.Name, a)
		}
		if tool.OutputSchema != nil || len(tool.Description) > 300 {
			t.Errorf("%s: output schema listed %v (the kit lists none), description %d bytes", tool.Name, tool.OutputSchema != nil, len(tool.Description))
		}
	}
	if n != len(want) {
		t.Errorf("got %d tools, want %d", n, len(want))
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "calculator" {
		t.Errorf("server name %q", got)
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	tests := []struct {
		name      string
		args      map[string]any
		want      string
		wantExact bool
		wantText  string
	}{
		{"exact decimal", map[string]any{"expression": "0.1+0.2"}, "0.3", true, "0.3"},
		{"big power", map[string]any{"expression": "2^200"}, "1606938044258990275541962092341162602522202993782792835301376", true, ""},
		{"factorial", map[string]any{"expression": "50!"}, "30414093201713378043612608166064768844377641568960512000000000000", true, ""},
		{"third", map[string]any{"expression": "1/3", "precision": 10}, "0.3333333333", false, "1/3 = 0.3333333333 (rounded)"},
		{"sqrt2", map[string]any{"expression": "sqrt(2)", "precision": 20}, "1.4142135623730950488", false, "1.4142135623730950488 (rounded)"},
		{"degrees", map[string]any{"expression": "sin(30)", "degrees": true}, "0.5", true, "0.5"},
		{"variables", map[string]any{"expression": "r = 3; r^2 * 2"}, "18", true, ""},
		{"percent of", map[string]any{"expression": "15% of 80"}, "12", true, ""},
		{"comparison", map[string]any{"expression": "2^10 > 1000"}, "true", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mcptest.Call(t, cs, "evaluate", tt.args)
			var out evaluateOutput
			mcptest.Decode(t, res, &out)
			if out.Result != tt.want || out.Exact != tt.wantExact {
				t.Errorf("got %q exact=%v, want %q exact=%v", out.Result, out.Exact, tt.want, tt.wantExact)
			}
			if tt.wantText != "" && mcptest.Text(res) != tt.wantText {
				t.Errorf("text %q, want %q", mcptest.Text(res), tt.wantText)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	tests := []struct {
		name string
		args map[string]any
		want string // in the error text
	}{
		{"syntax", map[string]any{"expression": "2 + * 3"}, "position 5"},
		{"division by zero", map[string]any{"expression": "1/0"}, "zero"},
		{"domain", map[string]any{"expression": "sqrt(-1)"}, "sqrt"},
		{"too large", map[string]any{"expression": "9^9^9^9"}, "20000-digit limit"},
		{"unknown function", map[string]any{"expression": "sqr(4)"}, "sqrt"},
		{"precision out of range", map[string]any{"expression": "1/3", "precision": 5000}, "1000"},
		{"missing expression", map[string]any{}, "expression"},
		{"unknown argument", map[string]any{"expression": "1", "digits": 3}, "digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mcptest.Call(t, cs, "evaluate", tt.args)
			if !res.IsError || !strings.Contains(mcptest.Text(res), tt.want) {
				t.Errorf("want a tool error mentioning %q, got isError=%v %q", tt.want, res.IsError, mcptest.Text(res))
			}
		})
	}
	// The server keeps answering after every kind of bad input.
	var out evaluateOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "evaluate", map[string]any{"expression": "6*7"}), &out)
	if out.Result != "42" {
		t.Errorf("after errors: %q", out.Result)
	}
}

func TestConvertUnits(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	tests := []struct {
		name     string
		args     map[string]any
		want     string
		wantText string
		wantErr  string
	}{
		{"inches", map[string]any{"value": 1, "from": "in", "to": "cm"}, "2.54", "1 in = 2.54 cm", ""},
		{"temperature offset", map[string]any{"value": 100, "from": "°C", "to": "°F"}, "212", "", ""},
		{"minus forty", map[string]any{"value": -40, "from": "celsius", "to": "fahrenheit"}, "-40", "", ""},
		{"data IEC to SI", map[string]any{"value": 1, "from": "GiB", "to": "MB"}, "1073.741824", "", ""},
		{"mismatch", map[string]any{"value": 1, "from": "kg", "to": "m"}, "", "", "same kind"},
		{"unknown unit", map[string]any{"value": 1, "from": "meterz", "to": "ft"}, "", "", "meter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mcptest.Call(t, cs, "convert_units", tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(mcptest.Text(res), tt.wantErr) {
					t.Errorf("want error with %q, got %v %q", tt.wantErr, res.IsError, mcptest.Text(res))
				}
				return
			}
			var out convertOutput
			mcptest.Decode(t, res, &out)
			if out.Result != tt.want {
				t.Errorf("got %q, want %q", out.Result, tt.want)
			}
			if tt.wantText != "" && mcptest.Text(res) != tt.wantText {
				t.Errorf("text %q, want %q", mcptest.Text(res), tt.wantText)
			}
		})
	}
}

func TestStatistics(t *testing.T) {
	t.Parallel()
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	res := mcptest.Call(t, cs, "statistics", map[string]any{"values": []float64{2, 4, 4, 4, 5, 5, 7, 9}, "percentiles": []float64{90}})
	var out statisticsOutput
	mcptest.Decode(t, res, &out)
	if out.Count != 8 || out.Mean != 5 || out.StdDevPopulation != 2 || out.Median != 4.5 {
		t.Errorf("summary = %+v", out)
	}
	if out.VarianceSample == nil || *out.VarianceSample != 32.0/7 {
		t.Errorf("sample variance = %v, want 32/7", out.VarianceSample)
	}
	if len(out.Mode) != 1 || out.Mode[0] != 4 {
		t.Errorf("mode = %v, want [4]", out.Mode)
	}
	if p := out.Percentiles["90"]; p != 7.6 {
		t.Errorf("p90 = %v, want 7.6", p)
	}
	if !strings.Contains(mcptest.Text(res), "mean 5") {
		t.Errorf("text = %q", mcptest.Text(res))
	}

	res = mcptest.Call(t, cs, "statistics", map[string]any{"values": []float64{0.1, 0.2}})
	mcptest.Decode(t, res, &out)
	if out.Sum != 0.3 || out.VarianceSample == nil {
		t.Errorf("exact sum: got %v", out.Sum)
	}

	res = mcptest.Call(t, cs, "statistics", map[string]any{"values": []float64{}})
	if !res.IsError {
		t.Error("empty list: want a tool error")
	}
}

// TestStdio runs the built binary over stdio, as Claude Desktop or an MCP host spawning it would.
func TestStdio(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "calculator")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--transport", "stdio", "--state-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "evaluate", Arguments: map[string]any{"expression": "2^64"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := mcptest.Text(res); got != "18446744073709551616" {
		t.Errorf("2^64 over stdio = %q", got)
	}
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
// Every calculator tool is read-only: --read-only leaves the list as it is.
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{})
}
