package stats

import "math/big"

// quantiles computes order statistics of sorted values exactly.
type quantiles struct {
	sorted []float64
	buf    []byte
}

// value returns sorted[i] as an exact rational.
func (q *quantiles) value(i int) *big.Rat {
	var d decimal
	d, q.buf = toDecimal(q.sorted[i], q.buf)
	return d.rat()
}

// at returns the p-th percentile (0 ≤ p ≤ 100) by linear interpolation
// between closest ranks: rank h = (n−1)·p/100 (R-7, NumPy's default).
func (q *quantiles) at(p *big.Rat) *big.Rat {
	n := len(q.sorted)
	h := new(big.Rat).Mul(big.NewRat(int64(n-1), 100), p)
	lo := new(big.Int).Quo(h.Num(), h.Denom()) // floor, since h ≥ 0
	i := int(lo.Int64())
	frac := h.Sub(h, new(big.Rat).SetInt(lo))
	x := q.value(i)
	if frac.Sign() == 0 || i+1 >= n {
		return x
	}
	// x + frac·(next − x)
	step := q.value(i + 1)
	step.Sub(step, x)
	step.Mul(step, frac)
	return x.Add(x, step)
}

// modes returns the values that occur most often in sorted, in ascending
// order, or an empty slice when every value occurs once. 0 and -0 count
// as the same value and are reported as 0.
func modes(sorted []float64) []float64 {
	out := []float64{}
	best := 1
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		v := sorted[i]
		if v == 0 {
			v = 0 // drop the sign of -0
		}
		switch run := j - i; {
		case run > best:
			best = run
			out = append(out[:0], v)
		case run == best && best > 1:
			out = append(out, v)
		}
		i = j
	}
	return out
}
