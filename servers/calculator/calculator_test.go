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
		{"third", map[string]any{"expression": "1/3", "precision": 10}, "0.3333333333", false, "0.3333333333 (rounded to 10 digits; exactly 1/3)"},
		{"sqrt2", map[string]any{"expression": "sqrt(2)", "precision": 20}, "1.4142135623730950488", false, "1.4142135623730950488 (rounded to 20 digits)"},
		{"sqrt2 default precision", map[string]any{"expression": "sqrt(2)"}, "1.414213562373095048801688724209698", false, "1.414213562373095048801688724209698 (rounded to 34 digits)"},
		{"precision rounds an exact value", map[string]any{"expression": "2^200", "precision": 10}, "1.606938044e+60", false, "1.606938044e+60 (rounded to 10 digits; exact: true gives all 61 digits)"},
		{"exact asked", map[string]any{"expression": "2^200", "precision": 10, "exact": true}, "1.606938044e+60", false,
			"1.606938044e+60 (rounded to 10 digits)\nexactly: 1606938044258990275541962092341162602522202993782792835301376"},
		{"exact decimal within precision", map[string]any{"expression": "100*1.07^2", "precision": 10}, "114.49", true, "114.49"},
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

// TestEvaluateMortgage: a monthly payment is a rational with thousands of digits; the answer
// leads with its decimal value, bounded by precision, and gives the fraction only when asked.
func TestEvaluateMortgage(t *testing.T) {
	t.Parallel()
	cs := mcptest.Start(t, spec()).Connect(t, "")
	const payment = "300000 * (0.05/12) * (1+0.05/12)^360 / ((1+0.05/12)^360 - 1)"
	tests := []struct {
		name     string
		args     map[string]any
		wantText string
	}{
		{"precision 6", map[string]any{"expression": payment, "precision": 6},
			"1610.46 (rounded to 6 digits; exact: true gives the 1720-character fraction)"},
		{"default precision", map[string]any{"expression": payment},
			"1610.464869036416954485477737337664 (rounded to 34 digits; exact: true gives the 1720-character fraction)"},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, "evaluate", tt.args)
		var out evaluateOutput
		mcptest.Decode(t, res, &out)
		if got := mcptest.Text(res); got != tt.wantText {
			t.Errorf("%s: text %q, want %q", tt.name, got, tt.wantText)
		}
		if out.Fraction != "" {
			t.Errorf("%s: the structured result carries the %d-character fraction nobody asked for", tt.name, len(out.Fraction))
		}
	}
	res := mcptest.Call(t, cs, "evaluate", map[string]any{"expression": payment, "precision": 6, "exact": true})
	var out evaluateOutput
	mcptest.Decode(t, res, &out)
	text := mcptest.Text(res)
	if len(out.Fraction) != 1720 || !strings.HasPrefix(text, "1610.46 (rounded to 6 digits)\nexactly: ") || !strings.HasSuffix(text, out.Fraction) {
		t.Errorf("exact: true: fraction of %d characters, text %.80q…", len(out.Fraction), text)
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
		{"a statistic", map[string]any{"expression": "mean(1, 2, 3)"}, "evaluate has no mean function: use the statistics tool"},
		{"a statistic, other case", map[string]any{"expression": "STDEV(1, 2, 3)"}, "evaluate has no STDEV function: use the statistics tool"},
		{"a unit called", map[string]any{"expression": "km(5)"}, `evaluate does not convert units ("km"): use convert_units`},
		{"a unit named", map[string]any{"expression": "5 * miles"}, `evaluate does not convert units ("miles"): use convert_units`},
		{"a one-letter unit is a variable", map[string]any{"expression": "m * 2"}, `unknown name "m"`},
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
