package stats

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"strconv"
	"testing"
)

// FuzzDescribe checks Describe against a direct big.Rat computation and
// against the ordering invariants of a summary.
func FuzzDescribe(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, false, 50.0)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, false, 0.0) // NaN
	f.Add([]byte{1, 1, 2, 9, 9, 9, 200}, true, 99.9)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0xff}, false, 100.0)
	f.Fuzz(func(t *testing.T, data []byte, small bool, p float64) {
		var values []float64
		if small {
			// Small integers and tenths, with many repeats.
			for _, b := range data {
				values = append(values, float64(int8(b))/10)
			}
		} else {
			for ; len(data) >= 8; data = data[8:] {
				values = append(values, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			}
		}
		// The reference below is quadratic in the size of the numbers; keep
		// it fast.
		const maxFuzzValues = 256
		if len(values) > maxFuzzValues {
			values = values[:maxFuzzValues]
		}
		s, err := Describe(context.Background(), values, []float64{p})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *Error", err)
			}
			if valid(values, p) {
				t.Fatalf("unexpected error for valid input: %v", err)
			}
			return
		}
		if !valid(values, p) {
			t.Fatalf("invalid input accepted: %v, percentile %v", values, p)
		}

		// Reference: the specification's big.Rat method, term by term.
		n := len(values)
		sum := new(big.Rat)
		rats := make([]*big.Rat, n)
		for i, v := range values {
			rats[i], _ = new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
			sum.Add(sum, rats[i])
		}
		mean := new(big.Rat).Quo(sum, big.NewRat(int64(n), 1))
		ss := new(big.Rat)
		for _, r := range rats {
			d := new(big.Rat).Sub(r, mean)
			ss.Add(ss, d.Mul(d, d))
		}
		popVar := new(big.Rat).Quo(ss, big.NewRat(int64(n), 1))
		if got, want := s.Sum, toFloat(sum); got != want {
			t.Fatalf("Sum = %v, want %v", got, want)
		}
		if got, want := s.Mean, toFloat(mean); got != want {
			t.Fatalf("Mean = %v, want %v", got, want)
		}
		if got, want := s.VariancePopulation, toFloat(popVar); got != want {
			t.Fatalf("VariancePopulation = %v, want %v", got, want)
		}
		if n >= 2 {
			sampleVar := new(big.Rat).Quo(ss, big.NewRat(int64(n-1), 1))
			if got, want := s.VarianceSample, toFloat(sampleVar); got != want || !s.SampleDefined {
				t.Fatalf("VarianceSample = %v, want %v", got, want)
			}
		} else if s.SampleDefined || s.VarianceSample != 0 || s.StdDevSample != 0 {
			t.Fatalf("sample statistics defined for one value: %+v", s)
		}

		// Order invariants.
		pv := s.Percentiles[strconv.FormatFloat(p+0, 'f', -1, 64)]
		if p == 0 {
			pv = s.Percentiles["0"]
		}
		chain := []float64{s.Min, s.Q1, s.Median, s.Q3, s.Max}
		for i := 1; i < len(chain); i++ {
			if chain[i-1] > chain[i] {
				t.Fatalf("Min ≤ Q1 ≤ Median ≤ Q3 ≤ Max violated: %v", chain)
			}
		}
		if s.Mean < s.Min || s.Mean > s.Max || pv < s.Min || pv > s.Max {
			t.Fatalf("mean %v or percentile %v outside [%v, %v]", s.Mean, pv, s.Min, s.Max)
		}
		if s.VariancePopulation < 0 || s.StdDevPopulation < 0 || s.IQR < 0 || s.Range < 0 {
			t.Fatalf("negative spread: %+v", s)
		}
		// Compare only where the variance is a normal float64: it can
		// underflow or overflow while its square root does not.
		if v := s.VariancePopulation; v >= 0x1p-1022 && !math.IsInf(v, 0) && math.Abs(math.Sqrt(v)-s.StdDevPopulation) > 1e-15*s.StdDevPopulation {
			t.Fatalf("StdDevPopulation = %v, sqrt(variance) = %v", s.StdDevPopulation, math.Sqrt(v))
		}

		// Every mode occurs as often as the most frequent value.
		counts := map[float64]int{}
		top := 0
		for _, v := range values {
			counts[v]++
			top = max(top, counts[v])
		}
		if top == 1 && len(s.Mode) != 0 {
			t.Fatalf("Mode = %v for distinct values", s.Mode)
		}
		for _, m := range s.Mode {
			if counts[m] != top {
				t.Fatalf("mode %v occurs %d times, the most frequent occurs %d", m, counts[m], top)
			}
		}
	})
}

func valid(values []float64, p float64) bool {
	if len(values) == 0 || len(values) > MaxValues || math.IsNaN(p) || p < 0 || p > 100 {
		return false
	}
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
