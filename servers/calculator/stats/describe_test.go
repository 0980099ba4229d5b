package stats

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		values      []float64
		percentiles []float64
		want        Summary
	}{
		{
			name:        "textbook",
			values:      []float64{2, 4, 4, 4, 5, 5, 7, 9},
			percentiles: []float64{0, 50, 90, 100},
			want: Summary{
				Count: 8, Sum: 40, Mean: 5, Median: 4.5, Min: 2, Max: 9, Range: 7, Mode: []float64{4},
				VariancePopulation: 4, VarianceSample: 32.0 / 7, StdDevPopulation: 2, StdDevSample: 2.138089935299395077476427847038028172432,
				SampleDefined: true, Q1: 4, Q3: 5.5, IQR: 1.5,
				Percentiles: map[string]float64{"0": 2, "50": 4.5, "90": 7.6, "100": 9},
			},
		},
		{
			name:   "decimal inputs are exact",
			values: []float64{0.1, 0.2},
			want: Summary{
				Count: 2, Sum: 0.3, Mean: 0.15, Median: 0.15, Min: 0.1, Max: 0.2, Range: 0.1, Mode: []float64{},
				VariancePopulation: 0.0025, VarianceSample: 0.005, StdDevPopulation: 0.05, StdDevSample: 0.07071067811865475244008443621048490392848,
				SampleDefined: true, Q1: 0.125, Q3: 0.175, IQR: 0.05, Percentiles: map[string]float64{},
			},
		},
		{
			name:   "odd count",
			values: []float64{3, 1, 2},
			want: Summary{
				Count: 3, Sum: 6, Mean: 2, Median: 2, Min: 1, Max: 3, Range: 2, Mode: []float64{},
				VariancePopulation: 2.0 / 3, VarianceSample: 1, StdDevPopulation: 0.8164965809277260327324280249019637973220, StdDevSample: 1,
				SampleDefined: true, Q1: 1.5, Q3: 2.5, IQR: 1, Percentiles: map[string]float64{},
			},
		},
		{
			name:        "even count, two modes",
			values:      []float64{3, 1, 3, 2, 1, 4},
			percentiles: []float64{10, 99.9},
			want: Summary{
				Count: 6, Sum: 14, Mean: 14.0 / 6, Median: 2.5, Min: 1, Max: 4, Range: 3, Mode: []float64{1, 3},
				VariancePopulation: 11.0 / 9, VarianceSample: 22.0 / 15,
				StdDevPopulation: 1.105541596785133283038310912223562227976, StdDevSample: 1.211060141638996666169013123887277479678,
				SampleDefined: true, Q1: 1.25, Q3: 3, IQR: 1.75,
				// h = 5·0.1 = 0.5 → 1; h = 5·0.999 = 4.995 → 3 + 0.995·1.
				Percentiles: map[string]float64{"10": 1, "99.9": 3.995},
			},
		},
		{
			name:        "single value",
			values:      []float64{42},
			percentiles: []float64{90},
			want: Summary{
				Count: 1, Sum: 42, Mean: 42, Median: 42, Min: 42, Max: 42, Mode: []float64{},
				Q1: 42, Q3: 42, Percentiles: map[string]float64{"90": 42},
			},
		},
		{
			name:   "all equal",
			values: []float64{-0.5, -0.5, -0.5},
			want: Summary{
				Count: 3, Sum: -1.5, Mean: -0.5, Median: -0.5, Min: -0.5, Max: -0.5, Mode: []float64{-0.5},
				SampleDefined: true, Q1: -0.5, Q3: -0.5, Percentiles: map[string]float64{},
			},
		},
		{
			name:   "no cancellation near a large offset",
			values: []float64{1000000000.1, 1000000000.2, 1000000000.3},
			want: Summary{
				Count: 3, Sum: 3000000000.6, Mean: 1000000000.2, Median: 1000000000.2, Min: 1000000000.1, Max: 1000000000.3,
				Range: 0.2, Mode: []float64{}, VariancePopulation: 1.0 / 150, VarianceSample: 0.01,
				StdDevPopulation: 0.08164965809277260327324280249019637973220, StdDevSample: 0.1, SampleDefined: true,
				Q1: 1000000000.15, Q3: 1000000000.25, IQR: 0.1, Percentiles: map[string]float64{},
			},
		},
		{
			name:   "zero and negative zero are one mode",
			values: []float64{0, math.Copysign(0, -1), 1},
			want: Summary{
				Count: 3, Sum: 1, Mean: 1.0 / 3, Median: 0, Min: 0, Max: 1, Range: 1, Mode: []float64{0},
				VariancePopulation: 2.0 / 9, VarianceSample: 1.0 / 3, StdDevPopulation: 0.4714045207910316829338962414032326928565,
				StdDevSample: 0.5773502691896257645091487805019574556476, SampleDefined: true, Q1: 0, Q3: 0.5, IQR: 0.5,
				Percentiles: map[string]float64{},
			},
		},
	}
	// Square roots are written as decimals computed to 40 digits elsewhere:
	// math.Sqrt of a rounded quotient can be one ulp off.
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(context.Background(), tc.values, tc.percentiles)
			if err != nil {
				t.Fatal(err)
			}
			checkSummary(t, got, tc.want)
		})
	}
}

func checkSummary(t *testing.T, got, want Summary) {
	t.Helper()
	fields := []struct {
		name      string
		got, want float64
	}{
		{"Sum", got.Sum, want.Sum}, {"Mean", got.Mean, want.Mean}, {"Median", got.Median, want.Median},
		{"Min", got.Min, want.Min}, {"Max", got.Max, want.Max}, {"Range", got.Range, want.Range},
		{"VariancePopulation", got.VariancePopulation, want.VariancePopulation},
		{"VarianceSample", got.VarianceSample, want.VarianceSample},
		{"StdDevPopulation", got.StdDevPopulation, want.StdDevPopulation},
		{"StdDevSample", got.StdDevSample, want.StdDevSample},
		{"Q1", got.Q1, want.Q1}, {"Q3", got.Q3, want.Q3}, {"IQR", got.IQR, want.IQR},
	}
	for _, f := range fields {
		if f.got != f.want {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if got.Count != want.Count || got.SampleDefined != want.SampleDefined {
		t.Errorf("Count, SampleDefined = %d, %v; want %d, %v", got.Count, got.SampleDefined, want.Count, want.SampleDefined)
	}
	if got.Mode == nil || !slices.Equal(got.Mode, want.Mode) {
		t.Errorf("Mode = %#v, want %#v", got.Mode, want.Mode)
	}
	if got.Percentiles == nil || len(got.Percentiles) != len(want.Percentiles) {
		t.Errorf("Percentiles = %#v, want %#v", got.Percentiles, want.Percentiles)
	}
	for k, v := range want.Percentiles {
		if got.Percentiles[k] != v {
			t.Errorf("Percentiles[%q] = %v, want %v", k, got.Percentiles[k], v)
		}
	}
}

func TestDescribeExactness(t *testing.T) {
	t.Parallel()
	got, err := Describe(context.Background(), []float64{0.1, 0.2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := strconv.FormatFloat(got.Sum, 'g', -1, 64); s != "0.3" {
		t.Errorf("sum of 0.1 and 0.2 prints as %s, want 0.3", s)
	}
	tenths := slices.Repeat([]float64{0.1}, 10)
	got, err = Describe(context.Background(), tenths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sum != 1 || got.Mean != 0.1 || got.VariancePopulation != 0 {
		t.Errorf("ten times 0.1: sum %v, mean %v, variance %v", got.Sum, got.Mean, got.VariancePopulation)
	}
	values := make([]float64, 10)
	for i := range values {
		values[i] = float64(i + 1)
	}
	got, err = Describe(context.Background(), values, []float64{99.9, 12.5, math.Copysign(0, -1), 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	// h = 9·0.999 = 8.991 → 9 + 0.991, exactly.
	want := map[string]float64{"99.9": 9.991, "12.5": 2.125, "0": 1, "0.0000001": 1.000000009}
	for k, v := range want {
		if got.Percentiles[k] != v {
			t.Errorf("Percentiles[%q] = %v, want %v", k, got.Percentiles[k], v)
		}
	}
}

func TestDescribeExtremes(t *testing.T) {
	t.Parallel()
	got, err := Describe(context.Background(), []float64{-math.MaxFloat64, math.MaxFloat64}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sum != 0 || got.Mean != 0 || got.Median != 0 {
		t.Errorf("sum, mean, median = %v, %v, %v; want 0", got.Sum, got.Mean, got.Median)
	}
	if !math.IsInf(got.Range, 1) || !math.IsInf(got.VariancePopulation, 1) {
		t.Errorf("range %v and variance %v should overflow to +Inf", got.Range, got.VariancePopulation)
	}
	if got.StdDevPopulation != math.MaxFloat64 {
		t.Errorf("StdDevPopulation = %v, want %v", got.StdDevPopulation, math.MaxFloat64)
	}
	tiny := math.SmallestNonzeroFloat64
	got, err = Describe(context.Background(), []float64{tiny, 3 * tiny, 1e300}, []float64{25})
	if err != nil {
		t.Fatal(err)
	}
	if got.Min != tiny || got.Q1 != 2*tiny || got.Max != 1e300 {
		t.Errorf("Min %v, Q1 %v, Max %v", got.Min, got.Q1, got.Max)
	}
}

func TestDescribeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		values      []float64
		percentiles []float64
		want        string
	}{
		{"nil", nil, nil, "values is empty: pass at least one number"},
		{"empty", []float64{}, nil, "values is empty"},
		{"too many", make([]float64, MaxValues+1), nil, "too many values (100001): pass at most 100000 numbers"},
		{"NaN", []float64{1, math.NaN()}, nil, "values[1] is NaN: values must be finite numbers"},
		{"+Inf", []float64{math.Inf(1)}, nil, "values[0] is +Inf: values must be finite numbers"},
		{"-Inf", []float64{1, 2, math.Inf(-1)}, nil, "values[2] is -Inf"},
		{"negative percentile", []float64{1}, []float64{50, -1}, "percentiles[1] is -1: percentiles must be numbers from 0 to 100"},
		{"percentile above 100", []float64{1}, []float64{100.5}, "percentiles[0] is 100.5"},
		{"NaN percentile", []float64{1}, []float64{math.NaN()}, "percentiles[0] is NaN"},
		{"too many percentiles", []float64{1}, make([]float64, MaxPercentiles+1), "too many percentiles (1001): pass at most 1000"},
	}
	for _, tc := range tests {
		_, err := Describe(context.Background(), tc.values, tc.percentiles)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v is not *Error", tc.name, err)
			continue
		}
		if !strings.Contains(e.Msg, tc.want) || e.Error() != e.Msg {
			t.Errorf("%s: message %q does not contain %q", tc.name, e.Msg, tc.want)
		}
	}
}

// cancelAfter is a context whose Err starts failing after a number of calls.
type cancelAfter struct {
	context.Context
	calls int
}

func (c *cancelAfter) Err() error {
	c.calls--
	if c.calls < 0 {
		return context.Canceled
	}
	return nil
}

func TestDescribeContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Describe(ctx, []float64{1, 2}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	values := make([]float64, MaxValues)
	// The first check passes, a later one during the scan fails.
	if _, err := Describe(&cancelAfter{Context: context.Background(), calls: 2}, values, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("context cancelled mid-way: err = %v, want context.Canceled", err)
	}
}

func TestDescribeDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	values := []float64{3, 1, 2}
	if _, err := Describe(context.Background(), values, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(values, []float64{3, 1, 2}) {
		t.Errorf("input reordered: %v", values)
	}
}

func TestToDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		mant int64
		exp  int
	}{
		{0, 0, 0}, {1, 1, 0}, {0.1, 1, -1}, {-12.5, -125, -1}, {1e21, 1, 21}, {123456789, 123456789, 0},
		{math.MaxFloat64, 17976931348623157, 292}, {math.SmallestNonzeroFloat64, 5, -324},
		{0.30000000000000004, 30000000000000004, -17},
	}
	for _, tc := range tests {
		d, _ := toDecimal(tc.in, nil)
		if d.mant != tc.mant || d.exp != tc.exp {
			t.Errorf("toDecimal(%v) = %d e%d, want %d e%d", tc.in, d.mant, d.exp, tc.mant, tc.exp)
		}
	}
}

func benchmarkValues(wide bool) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	values := make([]float64, MaxValues)
	for i := range values {
		if wide {
			values[i] = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(600)-300))
		} else {
			values[i] = r.Float64() * 1e6 // 16–17 significant digits
		}
	}
	return values
}

func BenchmarkDescribe100k(b *testing.B) {
	values := benchmarkValues(false)
	ctx := context.Background()
	for b.Loop() {
		if _, err := Describe(ctx, values, []float64{50, 90, 99, 99.9}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDescribe100kWideRange uses magnitudes from 1e-300 to 1e300, the
// worst case for exact summation.
func BenchmarkDescribe100kWideRange(b *testing.B) {
	values := benchmarkValues(true)
	ctx := context.Background()
	for b.Loop() {
		if _, err := Describe(ctx, values, []float64{50, 90, 99, 99.9}); err != nil {
			b.Fatal(err)
		}
	}
}
