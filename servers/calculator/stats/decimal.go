package stats

import (
	"math/big"
	"strconv"
)

// decimal is the shortest decimal form of a finite float64: mant × 10^exp.
type decimal struct {
	mant int64
	exp  int
}

// toDecimal returns the shortest decimal that rounds to v, as printed by
// strconv with format 'e' and precision -1. buf is scratch space.
func toDecimal(v float64, buf []byte) (decimal, []byte) {
	buf = strconv.AppendFloat(buf[:0], v, 'e', -1, 64)
	// buf is "-d.ddde±xx" or "de±xx"; at most 17 significant digits.
	var d decimal
	i := 0
	neg := buf[0] == '-'
	if neg {
		i++
	}
	digits := 0
	for ; buf[i] != 'e'; i++ {
		if buf[i] == '.' {
			continue
		}
		d.mant = d.mant*10 + int64(buf[i]-'0')
		digits++
	}
	i++ // 'e'
	expNeg := buf[i] == '-'
	e := 0
	for i++; i < len(buf); i++ {
		e = e*10 + int(buf[i]-'0')
	}
	if expNeg {
		e = -e
	}
	d.exp = e - (digits - 1)
	if neg {
		d.mant = -d.mant
	}
	return d, buf
}

// rat returns d as an exact rational.
func (d decimal) rat() *big.Rat {
	r := new(big.Rat).SetInt64(d.mant)
	if d.exp == 0 || d.mant == 0 {
		return r
	}
	p := new(big.Rat).SetInt(pow10(abs(d.exp)))
	if d.exp > 0 {
		return r.Mul(r, p)
	}
	return r.Quo(r, p)
}

// Decimal exponents of float64 values lie in [minExp, maxExp].
const (
	minExp = -324 - 16
	maxExp = 308
)

// accumulator sums decimals and their squares exactly. Values are grouped
// by exponent so that each addition is a small integer addition; the
// groups are combined once at the end.
type accumulator struct {
	sum, sumSq [maxExp - minExp + 1]*big.Int
	tmp        big.Int
}

func (a *accumulator) add(d decimal) {
	if d.mant == 0 {
		return
	}
	k := d.exp - minExp
	if a.sum[k] == nil {
		a.sum[k], a.sumSq[k] = new(big.Int), new(big.Int)
	}
	a.tmp.SetInt64(d.mant)
	a.sum[k].Add(a.sum[k], &a.tmp)
	a.tmp.Mul(&a.tmp, &a.tmp)
	a.sumSq[k].Add(a.sumSq[k], &a.tmp)
}

// totals returns the exact sum and sum of squares as sum = s × 10^scale
// and sumSq = sq × 10^(2·scale), with s and sq integers.
func (a *accumulator) totals() (s, sq *big.Int, scale int) {
	s, sq = new(big.Int), new(big.Int)
	first := -1
	var term big.Int
	for k := range a.sum {
		if a.sum[k] == nil {
			continue
		}
		if first < 0 {
			first = k
		}
		shift := k - first
		term.Mul(a.sum[k], pow10(shift))
		s.Add(s, &term)
		term.Mul(a.sumSq[k], pow10(2*shift))
		sq.Add(sq, &term)
	}
	if first < 0 {
		return s, sq, 0
	}
	return s, sq, first + minExp
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
