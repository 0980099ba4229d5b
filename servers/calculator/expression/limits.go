package expression

import (
	"math"
	"math/big"
)

// DefaultPrecision is the number of significant digits used when Options.Precision is 0.
const DefaultPrecision = 34

// MaxPrecision is the largest accepted Options.Precision.
const MaxPrecision = 1000

// MaxDigits is the most decimal digits the numerator or denominator of an exact value may have.
const MaxDigits = 20000

// MaxExponent bounds inexact magnitudes: they lie within about 1e±MaxExponent.
const MaxExponent = 1_000_000

// MaxSourceBytes is the longest accepted expression, in bytes.
const MaxSourceBytes = 4096

const (
	maxSourceBytes = MaxSourceBytes
	maxStatements  = 100  // most statements in one call
	maxDepth       = 64   // deepest nesting of parentheses, unary operators and powers
	maxNodes       = 2000 // most syntax-tree nodes in one call
	maxDigits      = MaxDigits

	// maxDigitBits is the bit length of 10^maxDigits: an integer with fewer bits
	// has at most maxDigits digits, one with more has more.
	maxDigitBits = 66439

	// maxExp10 bounds the decimal exponent of inexact values in both directions.
	maxExp10 = MaxExponent

	// maxInternalBits bounds the precision used internally, for example to reduce
	// a huge trigonometric argument.
	maxInternalBits = 1 << 18

	// maxRoundDigits bounds the digits argument of round, floor, ceil and trunc.
	maxRoundDigits = maxDigits
)

// log2of10 is log2(10).
const log2of10 = 3.321928094887362

// maxExp2 bounds the binary exponent of inexact values; it is ceil(maxExp10 * log2of10).
const maxExp2 = 3321929

// tooManyDigits reports whether |n| has more than maxDigits decimal digits.
func tooManyDigits(n *big.Int) bool {
	bl := n.BitLen()
	if bl != maxDigitBits {
		return bl > maxDigitBits
	}
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(maxDigits), nil)
	return n.CmpAbs(limit) >= 0
}

// ratTooLarge reports whether r's numerator or denominator has more than maxDigits digits.
func ratTooLarge(r *big.Rat) bool {
	return tooManyDigits(r.Num()) || tooManyDigits(r.Denom())
}

// log10Int returns an approximation of log10|n| for n != 0, good to about 1e-15 relative.
func log10Int(n *big.Int) float64 {
	return log2Int(n) / log2of10
}

// log2Int returns an approximation of log2|n| for n != 0.
func log2Int(n *big.Int) float64 {
	bl := n.BitLen()
	if bl <= 64 {
		a := new(big.Int).Abs(n)
		return math.Log2(float64(a.Uint64()))
	}
	shift := uint(bl - 64)
	top := new(big.Int).Rsh(new(big.Int).Abs(n), shift)
	return math.Log2(float64(top.Uint64())) + float64(shift)
}

// log2Rat returns an approximation of log2|r| for r != 0.
func log2Rat(r *big.Rat) float64 {
	return log2Int(r.Num()) - log2Int(r.Denom())
}

// log2Float returns an approximation of log2|x| for x != 0.
func log2Float(x *big.Float) float64 {
	var mant big.Float
	e := x.MantExp(&mant)
	m, _ := mant.Float64()
	return math.Log2(math.Abs(m)) + float64(e)
}

// digitsText renders an estimated digit count for messages.
func digitsText(d float64) string {
	if d > 1e15 || math.IsInf(d, 0) || math.IsNaN(d) {
		return "an astronomical number of"
	}
	return "about " + big.NewInt(int64(math.Ceil(d))).String()
}
