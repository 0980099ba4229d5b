package stats

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// MaxValues is the largest number of values Describe accepts.
const MaxValues = 100000

// MaxPercentiles is the largest number of percentiles Describe accepts.
const MaxPercentiles = 1000

// ctxCheckInterval is how many values are processed between context checks.
const ctxCheckInterval = 4096

// Summary describes a list of numbers. Sum, Mean, Range, the variances,
// the median, quartiles, IQR and percentiles are computed exactly and
// rounded once to float64; standard deviations are square roots of the
// exact variances. Sum, Range, IQR and the variances overflow to ±Inf when
// the values are near the float64 limits (the mean and standard deviations
// do not), and a nonzero variance can underflow to 0.
type Summary struct {
	// Count is the number of values.
	Count int
	// Sum is the sum of the values.
	Sum float64
	// Mean is the arithmetic mean.
	Mean float64
	// Median is the 50th percentile.
	Median float64
	// Min is the smallest value.
	Min float64
	// Max is the largest value.
	Max float64
	// Range is Max − Min.
	Range float64
	// Mode lists, in ascending order, every value that occurs most often.
	// It is empty (not nil) when every value occurs exactly once, since
	// then no value is more typical than another.
	Mode []float64
	// VariancePopulation is the mean squared deviation from the mean (divisor n).
	VariancePopulation float64
	// VarianceSample is the unbiased sample variance (divisor n−1); 0 when Count < 2.
	VarianceSample float64
	// StdDevPopulation is the square root of VariancePopulation.
	StdDevPopulation float64
	// StdDevSample is the square root of VarianceSample; 0 when Count < 2.
	StdDevSample float64
	// SampleDefined reports whether the sample variance and standard
	// deviation are defined, that is, whether Count ≥ 2.
	SampleDefined bool
	// Q1 is the 25th percentile.
	Q1 float64
	// Q3 is the 75th percentile.
	Q3 float64
	// IQR is the interquartile range Q3 − Q1.
	IQR float64
	// Percentiles maps each requested percentile, formatted with
	// strconv.FormatFloat(p, 'f', -1, 64) (e.g. "90", "99.9"), to its value.
	// It is empty (not nil) when none were requested.
	Percentiles map[string]float64
}

// Describe computes the summary of values, including each requested
// percentile (each in [0, 100]). It returns an *Error for invalid input
// and ctx.Err() if ctx is cancelled first.
func Describe(ctx context.Context, values []float64, percentiles []float64) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	if err := validate(values, percentiles); err != nil {
		return Summary{}, err
	}

	var acc accumulator
	var buf []byte
	for i, v := range values {
		if i%ctxCheckInterval == ctxCheckInterval-1 {
			if err := ctx.Err(); err != nil {
				return Summary{}, err
			}
		}
		var d decimal
		d, buf = toDecimal(v, buf)
		acc.add(d)
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}

	n := len(values)
	s := Summary{
		Count:       n,
		Min:         sorted[0],
		Max:         sorted[n-1],
		Mode:        modes(sorted),
		Percentiles: make(map[string]float64, len(percentiles)),
	}

	sumInt, sumSqInt, scale := acc.totals()
	sum := scaled(sumInt, scale)
	s.Sum = toFloat(sum)
	s.Mean = toFloat(sum.Quo(sum, big.NewRat(int64(n), 1)))

	// n·Σx² − (Σx)², in units of 10^(2·scale); exact, so never negative.
	nBig := big.NewInt(int64(n))
	spread := new(big.Int).Mul(nBig, sumSqInt)
	spread.Sub(spread, new(big.Int).Mul(sumInt, sumInt))
	spreadRat := scaled(spread, 2*scale)

	popVar := new(big.Rat).Quo(spreadRat, new(big.Rat).SetInt(new(big.Int).Mul(nBig, nBig)))
	s.VariancePopulation = toFloat(popVar)
	s.StdDevPopulation = sqrt(popVar)
	if n >= 2 {
		denom := new(big.Int).Mul(nBig, big.NewInt(int64(n-1)))
		sampleVar := new(big.Rat).Quo(spreadRat, new(big.Rat).SetInt(denom))
		s.VarianceSample = toFloat(sampleVar)
		s.StdDevSample = sqrt(sampleVar)
		s.SampleDefined = true
	}

	q := quantiles{sorted: sorted}
	minR, maxR := q.value(0), q.value(n-1)
	s.Range = toFloat(maxR.Sub(maxR, minR))
	median := q.at(big.NewRat(50, 1))
	q1, q3 := q.at(big.NewRat(25, 1)), q.at(big.NewRat(75, 1))
	s.Median, s.Q1, s.Q3 = toFloat(median), toFloat(q1), toFloat(q3)
	s.IQR = toFloat(q3.Sub(q3, q1))
	var pbuf []byte
	for _, p := range percentiles {
		var d decimal
		d, pbuf = toDecimal(p, pbuf)
		s.Percentiles[percentileKey(p)] = toFloat(q.at(d.rat()))
	}
	return s, nil
}

// validate checks the input sizes and that every number is finite.
func validate(values, percentiles []float64) error {
	switch {
	case len(values) == 0:
		return errorf("values is empty: pass at least one number")
	case len(values) > MaxValues:
		return errorf(fmt.Sprintf("too many values (%d): pass at most %d numbers", len(values), MaxValues))
	case len(percentiles) > MaxPercentiles:
		return errorf(fmt.Sprintf("too many percentiles (%d): pass at most %d", len(percentiles), MaxPercentiles))
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errorf(fmt.Sprintf("values[%d] is %v: values must be finite numbers (no NaN or Infinity)", i, v))
		}
	}
	for i, p := range percentiles {
		if math.IsNaN(p) || p < 0 || p > 100 {
			return errorf(fmt.Sprintf("percentiles[%d] is %v: percentiles must be numbers from 0 to 100, e.g. 90 or 99.9", i, p))
		}
	}
	return nil
}

// percentileKey formats a percentile as a map key, writing -0 as "0".
func percentileKey(p float64) string {
	if p == 0 {
		p = 0
	}
	return strconv.FormatFloat(p, 'f', -1, 64)
}

// scaled returns x × 10^exp.
func scaled(x *big.Int, exp int) *big.Rat {
	r := new(big.Rat).SetInt(x)
	if exp > 0 {
		return r.Mul(r, new(big.Rat).SetInt(pow10(exp)))
	}
	if exp < 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10(-exp)))
	}
	return r
}

// toFloat rounds r to the nearest float64 (±Inf beyond the float64 range).
func toFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// sqrtPrec is the working precision, in bits, of square roots.
const sqrtPrec = 128

// sqrt returns the square root of a non-negative rational as a float64.
func sqrt(r *big.Rat) float64 {
	f := new(big.Float).SetPrec(sqrtPrec).SetRat(r)
	f.Sqrt(f)
	v, _ := f.Float64()
	return v
}
