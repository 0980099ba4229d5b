package expression

import (
	"fmt"
	"math"
	"math/big"
)

// pow returns a^b. Integer exponents of exact bases are exact; rational
// exponents p/q of exact bases are exact when the q-th root is rational; a
// negative base needs an integer exponent or a rational one with an odd
// denominator (then the real root is used, so (-8)^(1/3) = -2). 0^0 is 1.
func (ev *evaluator) pow(n *node, a, b value) (value, error) {
	if b.isRat() {
		if b.rat.IsInt() {
			return ev.powInt(n, a, b.rat.Num())
		}
		return ev.powRational(n, a, b.rat)
	}
	// Inexact exponent.
	switch {
	case a.ratEquals(1, 1):
		return ratValue(big.NewRat(1, 1)), nil
	case a.isZero():
		return ev.powZero(n, a, b.sign(), false)
	}
	if a.sign() < 0 {
		m, _, err := ev.exactInteger(n, b, "the exponent of a negative base")
		if err != nil {
			return value{}, errorf(KindDomain, n.pos, "a negative base needs an integer exponent",
				"%s^%s is not a real number", baseString(a), shortString(b))
		}
		v, err := ev.powInt(n, a, m)
		return ev.inexact(n, v, err) // the exponent was inexact
	}
	return ev.powFloat(n, ev.argFloat(a, ev.prec), b.f, false)
}

// powZero returns 0^y for an exponent of sign ys; the result is exact when
// both the zero and the exponent are.
func (ev *evaluator) powZero(n *node, zero value, ys int, exactExp bool) (value, error) {
	var res int64
	switch {
	case ys > 0:
		res = 0
	case ys == 0:
		res = 1
	default:
		return value{}, errorf(KindDomain, n.pos, "0 to a negative power would divide by zero",
			"0 cannot be raised to a negative power")
	}
	if zero.isRat() && exactExp {
		return ratValue(big.NewRat(res, 1)), nil
	}
	return ev.floatResult(n, floatOf(res, ev.prec))
}

// powInt returns a^e for an integer e.
func (ev *evaluator) powInt(n *node, a value, e *big.Int) (value, error) {
	if e.Sign() == 0 {
		return ratValue(big.NewRat(1, 1)), nil
	}
	if a.isZero() {
		if e.Sign() < 0 {
			return ev.powZero(n, a, -1, true)
		}
		if a.isRat() {
			return ratValue(new(big.Rat)), nil
		}
		return ev.floatResult(n, newFloat(ev.prec))
	}
	if a.isRat() {
		r := a.rat
		if r.Cmp(big.NewRat(1, 1)) == 0 {
			return ratValue(big.NewRat(1, 1)), nil
		}
		if r.Cmp(big.NewRat(-1, 1)) == 0 {
			return ratValue(big.NewRat(int64(1-2*int(e.Bit(0))), 1)), nil
		}
		if d := ratPowDigits(r, e); d > maxDigits+1 {
			what := "this power"
			if b, x := exactBaseString(r), e.String(); len(b)+len(x) <= 30 {
				what = b + "^" + x
			}
			return value{}, errorf(KindTooLarge, n.pos, ev.approximatePowerHint(r, e),
				"the exact result of %s would have %s digits, more than the %d-digit limit", what, digitsText(d), maxDigits)
		}
		return ev.checkRat(n, ratPowInt(r, e))
	}
	if e.Cmp(big.NewInt(1)) == 0 {
		return a, nil
	}
	ef, _ := new(big.Float).SetInt(e).Float64()
	if mag := math.Abs(ef * log2Float(a.f) / log2of10); mag > maxExp10 {
		return value{}, tooLargeMagnitude(n, (ef > 0) == (exp2(a.f) > 0))
	}
	neg := a.f.Sign() < 0 && e.Bit(0) == 1
	x := newFloat(ev.prec).Abs(a.f)
	if x.Cmp(big.NewFloat(1)) == 0 {
		ev.unsure = true // a base that rounds to 1 may hide a large power
	}
	var res *big.Float
	if e.BitLen() > 20 {
		v, err := ev.powFloat(n, x, newFloat(uint(e.BitLen())+64).SetInt(e), neg)
		return v, err
	}
	wp := ev.prec + uint(e.BitLen()) + 16
	res = floatOf(1, wp)
	base := newFloat(wp).Set(x)
	ae := new(big.Int).Abs(e)
	for i := ae.BitLen() - 1; i >= 0; i-- {
		res.Mul(res, res)
		if ae.Bit(i) == 1 {
			res.Mul(res, base)
		}
	}
	if e.Sign() < 0 {
		res.Quo(floatOf(1, wp), res)
	}
	if neg {
		res.Neg(res)
	}
	return ev.floatResult(n, res)
}

// powRational returns a^y for a non-integer rational y = p/q.
func (ev *evaluator) powRational(n *node, a value, y *big.Rat) (value, error) {
	p, q := y.Num(), y.Denom()
	switch {
	case a.isZero():
		return ev.powZero(n, a, y.Sign(), true)
	case a.ratEquals(1, 1):
		return ratValue(big.NewRat(1, 1)), nil
	}
	neg := a.sign() < 0
	if neg && q.Bit(0) == 0 {
		return value{}, errorf(KindDomain, n.pos, "a negative base needs an integer exponent or a root with an odd denominator",
			"%s^%s is not a real number", baseString(a), shortString(ratValue(y)))
	}
	negResult := neg && p.Bit(0) == 1
	if a.isRat() {
		root, ok, err := exactRoot(ev.ctx, new(big.Rat).Abs(a.rat), q)
		if err != nil {
			return value{}, err
		}
		if ok {
			v, err := ev.powInt(n, ratValue(root), p)
			if err != nil || !negResult {
				return v, err
			}
			return ev.neg(v), nil
		}
	}
	x := new(big.Float).Abs(ev.argFloat(a, ev.prec))
	return ev.powFloat(n, x, ratToFloat(y, ev.prec+96), negResult)
}

// powFloat returns ±x^y for x > 0 via e^(y·ln x), after checking the magnitude.
func (ev *evaluator) powFloat(n *node, x, y *big.Float, negate bool) (value, error) {
	if x.Cmp(big.NewFloat(1)) == 0 {
		ev.unsure = true // a base that rounds to 1 may hide a large power
	}
	yf, _ := y.Float64()
	mag := yf * log2Float(x) / log2of10
	if math.Abs(mag) > maxExp10 || math.IsNaN(mag) {
		return value{}, tooLargeMagnitude(n, mag > 0)
	}
	res, err := powFloat(ev.ctx, x, y, ev.prec)
	if err != nil {
		return value{}, wrapRange(n, err)
	}
	if negate {
		res.Neg(res)
	}
	return ev.floatResult(n, res)
}

// maxHintBytes bounds the length of a rewrite offered in a hint.
const maxHintBytes = 120

// approximatePowerHint is the hint for an exact power r^e too large to compute: the rewrite
// that gives its approximate value, written out for these operands, when that rewrite is short
// and evaluates; else why no rewrite helps, or "".
func (ev *evaluator) approximatePowerHint(r *big.Rat, e *big.Int) string {
	if exp10 := float64Of(e) * log2Rat(r) / log2of10; math.Abs(exp10) > maxExp10 {
		if math.Abs(exp10) > 1e15 {
			return fmt.Sprintf("its approximate value is beyond the 1e±%d limit of approximate results too", maxExp10)
		}
		return fmt.Sprintf("its approximate value, about 1e%+.0f, is beyond the 1e±%d limit of approximate results too", exp10, maxExp10)
	}
	rewrite := fmt.Sprintf("exp(%s*ln(%s))", e, new(big.Rat).Abs(r).RatString())
	if r.Sign() < 0 && e.Bit(0) == 1 {
		rewrite = "-" + rewrite
	}
	if len(rewrite) > maxHintBytes {
		return ""
	}
	if _, err := Evaluate(ev.ctx, rewrite, Options{Precision: ev.digits, Degrees: ev.degrees}); err != nil {
		return ""
	}
	return "for an approximate value write " + rewrite
}

// float64Of is n as a float64, ±Inf when out of range.
func float64Of(n *big.Int) float64 {
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// exactBaseString renders an exact base for messages in full, in parentheses unless it is a
// non-negative integer: 2, (-2), (2/3).
func exactBaseString(r *big.Rat) string {
	if r.IsInt() && r.Sign() >= 0 {
		return r.RatString()
	}
	return "(" + r.RatString() + ")"
}

// baseString renders a power's base for messages, in parentheses when negative.
func baseString(v value) string {
	if v.sign() < 0 {
		return "(" + shortString(v) + ")"
	}
	return shortString(v)
}
