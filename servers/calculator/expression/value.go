package expression

import (
	"math/big"
)

// valueKind tells which representation a value uses.
type valueKind int

const (
	kindRat   valueKind = iota // exact rational
	kindFloat                  // inexact, rounded to the working precision
	kindBool                   // comparison result
)

// value is the result of evaluating a node.
type value struct {
	kind valueKind
	rat  *big.Rat   // kindRat: the exact value
	f    *big.Float // kindFloat: the value at the working precision
	piq  *big.Rat   // kindFloat: when non-nil the value is exactly piq·π
	b    bool       // kindBool: the truth value
	sure bool       // kindBool: false when decided within the working-precision tolerance
}

// ratValue wraps an exact rational.
func ratValue(r *big.Rat) value { return value{kind: kindRat, rat: r} }

// intValue wraps an exact integer.
func intValue(n *big.Int) value { return ratValue(new(big.Rat).SetInt(n)) }

// boolValue wraps a comparison result.
func boolValue(b, sure bool) value { return value{kind: kindBool, b: b, sure: sure} }

func (v value) isRat() bool   { return v.kind == kindRat }
func (v value) isFloat() bool { return v.kind == kindFloat }
func (v value) isBool() bool  { return v.kind == kindBool }

// sign returns -1, 0 or +1 for a numeric value.
func (v value) sign() int {
	if v.isRat() {
		return v.rat.Sign()
	}
	return v.f.Sign()
}

// isZero reports whether a numeric value is zero.
func (v value) isZero() bool { return v.sign() == 0 }

// ratEquals reports whether v is exactly the rational a/b.
func (v value) ratEquals(a, b int64) bool {
	return v.isRat() && v.rat.Cmp(big.NewRat(a, b)) == 0
}

// newFloat returns a zero big.Float with precision prec.
func newFloat(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

// floatOf returns x as a big.Float rounded to prec bits.
func floatOf(x int64, prec uint) *big.Float { return newFloat(prec).SetInt64(x) }

// ratToFloat returns r rounded to prec bits.
func ratToFloat(r *big.Rat, prec uint) *big.Float { return newFloat(prec).SetRat(r) }

// exp2 returns the binary exponent of x: |x| is in [2^(e-1), 2^e). It is 0 for x == 0.
func exp2(x *big.Float) int { return x.MantExp(nil) }

// roundFloat returns x rounded to the nearest integer, halves away from zero.
func roundFloat(x *big.Float) *big.Int {
	n, _ := x.Int(nil)
	prec := max(x.Prec(), 64)
	frac := newFloat(prec).Sub(x, newFloat(prec).SetInt(n))
	half := big.NewFloat(0.5)
	switch {
	case frac.Cmp(half) >= 0:
		n.Add(n, big.NewInt(1))
	case frac.Cmp(half.Neg(half)) <= 0:
		n.Sub(n, big.NewInt(1))
	}
	return n
}

// ratTrunc returns r rounded toward zero.
func ratTrunc(r *big.Rat) *big.Int { return new(big.Int).Quo(r.Num(), r.Denom()) }

// ratFloor returns the largest integer <= r.
func ratFloor(r *big.Rat) *big.Int {
	// Div is Euclidean division, which is floor division for the positive denominator.
	return new(big.Int).Div(r.Num(), r.Denom())
}

// ratCeil returns the smallest integer >= r.
func ratCeil(r *big.Rat) *big.Int {
	f := ratFloor(r)
	if !r.IsInt() {
		f.Add(f, big.NewInt(1))
	}
	return f
}

// ratRound returns r rounded to the nearest integer, halves away from zero.
func ratRound(r *big.Rat) *big.Int {
	t := ratTrunc(r)
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(t))
	frac.Abs(frac)
	if frac.Cmp(big.NewRat(1, 2)) >= 0 {
		if r.Sign() < 0 {
			t.Sub(t, big.NewInt(1))
		} else {
			t.Add(t, big.NewInt(1))
		}
	}
	return t
}
