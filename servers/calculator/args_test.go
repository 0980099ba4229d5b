package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/calculator/stats"
	"github.com/jck411/mcp-servers/servers/calculator/units"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestArgumentsRefusedBySchema: arguments outside the input schema's ranges, lengths and list
// sizes are refused with the kit's message before the engine runs.
func TestArgumentsRefusedBySchema(t *testing.T) {
	h := mcptest.Start(t, spec())
	cs := h.Connect(t, "")
	numbers := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i % 7)
		}
		return out
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"evaluate", map[string]any{"expression": ""}, "expression must not be empty"},
		{"evaluate", map[string]any{"expression": "1/3", "precision": 0}, "precision must be at least 1, not 0"},
		{"evaluate", map[string]any{"expression": "1/3", "precision": 2.5}, "precision must be a whole number, not 2.5"},
		{"convert_units", map[string]any{"value": 1, "from": "", "to": "ft"}, "from must not be empty"},
		{"convert_units", map[string]any{"value": 1, "from": "m", "to": ""}, "to must not be empty"},
		{"convert_units", map[string]any{"value": 1, "from": "m", "to": "ft", "precision": 101}, "precision must be at most 100, not 101"},
		{"convert_units", map[string]any{"value": 1, "from": "m", "to": "ft", "precision": 0}, "precision must be at least 1, not 0"},
		{"statistics", map[string]any{"values": []float64{}}, "values must have at least 1 item"},
		{"statistics", map[string]any{"values": numbers(stats.MaxValues + 1)}, "values must have at most 100000 items, not 100001"},
		{"statistics", map[string]any{"values": []float64{1, 2}, "percentiles": []float64{50, 101}}, "percentiles[1] must be at most 100, not 101"},
		{"statistics", map[string]any{"values": []float64{1, 2}, "percentiles": []float64{-1}}, "percentiles[0] must be at least 0, not -1"},
		{"statistics", map[string]any{"values": []float64{1, 2}, "percentiles": numbers(stats.MaxPercentiles + 1)}, "percentiles must have at most 1000 items, not 1001"},
		// Not the schema: JSON has no number this large, so decoding refuses it.
		{"convert_units", map[string]any{"value": json1e400{}, "from": "m", "to": "ft"}, "cannot unmarshal number 1e400"},
		// A list sent as null passes the schema; the statistics engine refuses it.
		{"statistics", map[string]any{"values": nil}, "values must be an array, not null"},
	} {
		t.Run(tc.tool+"/"+tc.want, func(t *testing.T) {
			if msg := mcptest.CallError(t, cs, tc.tool, tc.args); !strings.Contains(msg, tc.want) {
				t.Errorf("message = %q, want %q", msg, tc.want)
			}
		})
	}
	// At the limits the calls succeed.
	mcptest.CallFor[statisticsOutput](t, cs, "statistics", map[string]any{"values": numbers(stats.MaxValues), "percentiles": []float64{0, 100}})
	mcptest.CallFor[convertOutput](t, cs, "convert_units", map[string]any{"value": 1, "from": "m", "to": "ft", "precision": 100})
}

// json1e400 encodes as a number beyond float64's range.
type json1e400 struct{}

func (json1e400) MarshalJSON() ([]byte, error) { return []byte("1e400"), nil }

// TestConvertLimitsAgree: the precision range and default convert_units states are the units
// package's own.
func TestConvertLimitsAgree(t *testing.T) {
	h := mcptest.Start(t, spec())
	_, props := inputSchemas(t, h.Connect(t, ""))
	p := props["convert_units"]["precision"]
	lo, hi := int(*p.Minimum), int(*p.Maximum)
	for _, tc := range []struct {
		precision int
		ok        bool
	}{{lo, true}, {hi, true}, {hi + 1, false}} {
		_, err := units.Convert("1", "m", "ft", tc.precision)
		if (err == nil) != tc.ok {
			t.Errorf("units.Convert at precision %d: %v, schema says %d to %d", tc.precision, err, lo, hi)
		}
	}
	def, err := units.Convert("1", "m", "ft", 0) // 0: the package's default
	if err != nil {
		t.Fatal(err)
	}
	stated, err := units.Convert("1", "m", "ft", int(p.Default.(float64)))
	if err != nil || stated.Value != def.Value {
		t.Errorf("schema default %v gives %q, the package's default %q", p.Default, stated.Value, def.Value)
	}
	s := props["statistics"]
	if *s["values"].MaxItems != stats.MaxValues || *s["percentiles"].MaxItems != stats.MaxPercentiles {
		t.Errorf("statistics states %d values and %d percentiles, the package takes %d and %d",
			*s["values"].MaxItems, *s["percentiles"].MaxItems, stats.MaxValues, stats.MaxPercentiles)
	}
}
