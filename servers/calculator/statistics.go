package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/stats"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type statisticsInput struct {
	Values      []float64 `json:"values" jsonschema:"the numbers to summarize" schema:"minItems=1,maxItems=100000"`
	Percentiles []float64 `json:"percentiles,omitempty" jsonschema:"percentiles to compute, e.g. [90, 99.9]" schema:"minimum=0,maximum=100,maxItems=1000"`
}

type statisticsOutput struct {
	Count              int                `json:"count"`
	Sum                float64            `json:"sum"`
	Mean               float64            `json:"mean"`
	Median             float64            `json:"median"`
	Mode               []float64          `json:"mode" jsonschema:"most frequent values; empty when every value occurs once"`
	Min                float64            `json:"min"`
	Max                float64            `json:"max"`
	Range              float64            `json:"range"`
	VariancePopulation float64            `json:"variance_population"`
	StdDevPopulation   float64            `json:"stddev_population"`
	VarianceSample     *float64           `json:"variance_sample,omitempty" jsonschema:"absent with fewer than 2 values"`
	StdDevSample       *float64           `json:"stddev_sample,omitempty" jsonschema:"absent with fewer than 2 values"`
	Q1                 float64            `json:"q1"`
	Q3                 float64            `json:"q3"`
	IQR                float64            `json:"iqr"`
	Percentiles        map[string]float64 `json:"percentiles,omitempty" jsonschema:"requested percentiles, linear interpolation between closest ranks"`
}

// Text renders the summary compactly.
func (o statisticsOutput) Text() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	fmt.Fprintf(&b, "count %d, sum %s, mean %s, median %s, min %s, max %s, range %s", o.Count, g(o.Sum), g(o.Mean), g(o.Median), g(o.Min), g(o.Max), g(o.Range))
	if len(o.Mode) > 0 {
		ms := make([]string, len(o.Mode))
		for i, m := range o.Mode {
			ms[i] = g(m)
		}
		fmt.Fprintf(&b, ", mode %s", strings.Join(ms, " "))
	}
	fmt.Fprintf(&b, "\npopulation variance %s, sd %s", g(o.VariancePopulation), g(o.StdDevPopulation))
	if o.VarianceSample != nil {
		fmt.Fprintf(&b, "; sample variance %s, sd %s", g(*o.VarianceSample), g(*o.StdDevSample))
	}
	fmt.Fprintf(&b, "\nQ1 %s, Q3 %s, IQR %s", g(o.Q1), g(o.Q3), g(o.IQR))
	keys := make([]string, 0, len(o.Percentiles))
	for k := range o.Percentiles {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, _ := strconv.ParseFloat(keys[i], 64)
		c, _ := strconv.ParseFloat(keys[j], 64)
		return a < c
	})
	for _, k := range keys {
		fmt.Fprintf(&b, "\np%s %s", k, g(o.Percentiles[k]))
	}
	return b.String()
}

func addStatistics(s *kit.Server) {
	kit.AddTool(s, kit.Tool{
		Name:        "statistics",
		Toolset:     toolsetMath,
		Title:       "Describe numbers",
		Description: "Summarize numbers: count, sum, mean, median, mode, min, max, range, variance, standard deviation, quartiles, percentiles.",
		ReadOnly:    true,
		Idempotent:  true,
		Timeout:     10 * time.Second,
	}, statistics)
}

func statistics(ctx context.Context, _ *mcp.CallToolRequest, in statisticsInput) (*mcp.CallToolResult, statisticsOutput, error) {
	sum, err := stats.Describe(ctx, in.Values, in.Percentiles)
	if err != nil {
		var se *stats.Error
		if errors.As(err, &se) {
			return nil, statisticsOutput{}, &kit.Error{Code: kit.CodeInvalidInput, Err: se}
		}
		return nil, statisticsOutput{}, fmt.Errorf("statistics: %w", err)
	}
	if overflows(sum) {
		return nil, statisticsOutput{}, kit.Errorf(kit.CodeLimit, "the values are too close to the float64 limits (±1.8e308) to summarize: sums or variances overflow; scale them down (e.g. divide by 1e300) and scale the results back")
	}
	out := statisticsOutput{
		Count: sum.Count, Sum: sum.Sum, Mean: sum.Mean, Median: sum.Median, Mode: sum.Mode,
		Min: sum.Min, Max: sum.Max, Range: sum.Range,
		VariancePopulation: sum.VariancePopulation, StdDevPopulation: sum.StdDevPopulation,
		Q1: sum.Q1, Q3: sum.Q3, IQR: sum.IQR, Percentiles: sum.Percentiles,
	}
	if out.Mode == nil {
		out.Mode = []float64{}
	}
	if sum.SampleDefined {
		v, sd := sum.VarianceSample, sum.StdDevSample
		out.VarianceSample, out.StdDevSample = &v, &sd
	}
	return nil, out, nil
}

// overflows reports whether any summary field is infinite, which JSON cannot carry.
func overflows(s stats.Summary) bool {
	for _, v := range []float64{s.Sum, s.Mean, s.Range, s.VariancePopulation, s.VarianceSample, s.StdDevPopulation, s.StdDevSample, s.IQR} {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}
