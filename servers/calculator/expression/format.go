package expression

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Exact values print in plain notation when their decimal exponent is in
// [plainExactMin, plainExactMax); rounded values when it is in
// [-plainRoundedLimit, plainRoundedLimit] and below the number of digits shown.
const (
	plainExactMin     = -30
	plainExactMax     = 1000
	plainRoundedLimit = 40
)

// decimal is the finite decimal d1.d2d3…dn × 10^exp.
type decimal struct {
	neg    bool
	digits string // significant digits without leading or trailing zeros; "" is zero
	exp    int    // decimal exponent of the first digit
}

// newDecimal builds a decimal from the integer coefficient n (n != 0) times 10^scale.
func newDecimal(neg bool, n *big.Int, scale int) decimal {
	s := new(big.Int).Abs(n).String()
	t := strings.TrimRight(s, "0")
	return decimal{neg: neg, digits: t, exp: len(s) - 1 + scale}
}

// plain renders d without an exponent.
func (d decimal) plain() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp < 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -d.exp-1))
		b.WriteString(d.digits)
	case d.exp+1 >= len(d.digits):
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", d.exp+1-len(d.digits)))
	default:
		b.WriteString(d.digits[:d.exp+1])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp+1:])
	}
	return b.String()
}

// scientific renders d as m.mmm e±x.
func (d decimal) scientific() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(d.digits[:1])
	if len(d.digits) > 1 {
		b.WriteByte('.')
		b.WriteString(d.digits[1:])
	}
	b.WriteByte('e')
	if d.exp >= 0 {
		b.WriteByte('+')
	}
	b.WriteString(strconv.Itoa(d.exp))
	return b.String()
}

// exactString renders an exact terminating decimal.
func (d decimal) exactString() string {
	if d.exp >= plainExactMin && d.exp < plainExactMax {
		return d.plain()
	}
	return d.scientific()
}

// roundedString renders a decimal rounded to digits significant digits.
func (d decimal) roundedString(digits int) string {
	if d.exp >= -plainRoundedLimit && d.exp <= plainRoundedLimit && d.exp < digits {
		return d.plain()
	}
	return d.scientific()
}

// pow10 returns 10^n for n >= 0.
func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// terminatingDecimal returns r as an exact decimal when its expansion terminates.
func terminatingDecimal(r *big.Rat) (decimal, bool) {
	if r.Sign() == 0 {
		return decimal{}, true
	}
	den := r.Denom()
	twos := int(den.TrailingZeroBits())
	rest := new(big.Int).Rsh(den, uint(twos))
	fives := 0
	if rest.BitLen() > 1 {
		// rest must be 5^fives; estimate fives from the size and check it.
		guess := int(math.Round(float64(rest.BitLen()-1) / math.Log2(5)))
		found := false
		for _, f := range []int{guess - 1, guess, guess + 1} {
			if f > 0 && new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(f)), nil).Cmp(rest) == 0 {
				fives, found = f, true
				break
			}
		}
		if !found {
			return decimal{}, false
		}
	}
	k := max(twos, fives)
	m := new(big.Int).Abs(r.Num())
	m.Lsh(m, uint(k-twos))
	m.Mul(m, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k-fives)), nil))
	return newDecimal(r.Sign() < 0, m, -k), true
}

// roundRat returns r rounded to digits significant digits, halves away from zero.
func roundRat(r *big.Rat, digits int) decimal {
	if r.Sign() == 0 {
		return decimal{}
	}
	num := new(big.Int).Abs(r.Num())
	den := r.Denom()
	e := int(math.Floor((log2Int(num) - log2Int(den)) / log2of10))
	// Correct the estimate so that 10^e <= |r| < 10^(e+1).
	for range 4 {
		switch {
		case cmpScaled(num, den, e) < 0:
			e--
		case cmpScaled(num, den, e+1) >= 0:
			e++
		default:
			return roundRatAt(r.Sign() < 0, num, den, e, digits)
		}
	}
	return roundRatAt(r.Sign() < 0, num, den, e, digits)
}

// cmpScaled compares num/den with 10^e.
func cmpScaled(num, den *big.Int, e int) int {
	if e >= 0 {
		return num.Cmp(new(big.Int).Mul(den, pow10(e)))
	}
	return new(big.Int).Mul(num, pow10(-e)).Cmp(den)
}

// roundRatAt rounds num/den, whose leading digit is at 10^e, to digits digits.
func roundRatAt(neg bool, num, den *big.Int, e, digits int) decimal {
	shift := digits - 1 - e
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if shift >= 0 {
		n.Mul(n, pow10(shift))
	} else {
		d.Mul(d, pow10(-shift))
	}
	q, rem := n.QuoRem(n, d, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return newDecimal(neg, q, -shift)
}

// roundFloatDecimal returns x rounded to digits significant digits.
func roundFloatDecimal(x *big.Float, digits int) decimal {
	if x.Sign() == 0 {
		return decimal{}
	}
	ax := new(big.Float).Abs(x)
	prec := max(x.Prec(), uint(float64(digits)*log2of10)) + 64
	e := int(math.Floor(log2Float(ax) / log2of10))
	lo := newFloat(prec).SetInt(pow10(digits - 1))
	hi := newFloat(prec).SetInt(pow10(digits))
	// Find e with 10^e <= |x| < 10^(e+1) from the scaled value before rounding;
	// rounding up to 10^digits is then handled by newDecimal.
	var y *big.Float
	for range 4 {
		y = scaleByPow10(ax, digits-1-e, prec)
		switch {
		case y.Cmp(lo) < 0:
			e--
		case y.Cmp(hi) >= 0:
			e++
		default:
			return newDecimal(x.Sign() < 0, roundFloat(y), e-(digits-1))
		}
	}
	return newDecimal(x.Sign() < 0, roundFloat(y), e-(digits-1))
}

// scaleByPow10 returns x·10^k rounded to prec bits.
func scaleByPow10(x *big.Float, k int, prec uint) *big.Float {
	p := pow10Float(absInt(k), prec)
	if k >= 0 {
		return newFloat(prec).Mul(x, p)
	}
	return newFloat(prec).Quo(x, p)
}

// pow10Float returns 10^k (k >= 0) rounded to prec bits.
func pow10Float(k int, prec uint) *big.Float {
	if k <= 4000 {
		return newFloat(prec).SetInt(pow10(k))
	}
	wp := prec + 32
	result := floatOf(1, wp)
	base := floatOf(10, wp)
	for k > 0 {
		if k&1 == 1 {
			result.Mul(result, base)
		}
		base.Mul(base, base)
		k >>= 1
	}
	return newFloat(prec).Set(result)
}

// formatted is a value rendered for the Result.
type formatted struct {
	value    string
	kind     string
	exact    bool
	fraction string
	full     string // the exact decimal value rounded into value
	float    float64
	overflow bool
}

// formatValue renders v with digits significant digits for inexact output, and for exact
// output too when round is set.
func formatValue(v value, digits int, round bool) formatted {
	switch v.kind {
	case kindBool:
		return formatted{value: strconv.FormatBool(v.b), kind: "boolean", exact: v.sure}
	case kindRat:
		out := formatted{kind: "decimal"}
		if v.rat.IsInt() {
			out.kind = "integer"
		}
		if d, ok := terminatingDecimal(v.rat); ok {
			out.value, out.exact = d.exactString(), true
			if round && len(d.digits) > digits {
				out.full, out.exact = out.value, false
				out.value = roundRat(v.rat, digits).roundedString(digits)
			}
		} else {
			out.value = roundRat(v.rat, digits).roundedString(digits)
			out.fraction = v.rat.RatString()
		}
		f, _ := v.rat.Float64()
		out.float, out.overflow = finiteFloat(f)
		return out
	default:
		out := formatted{kind: "decimal", value: roundFloatDecimal(v.f, digits).roundedString(digits)}
		f, _ := v.f.Float64()
		out.float, out.overflow = finiteFloat(f)
		return out
	}
}

// finiteFloat maps an infinite float64 to 0 and reports the overflow.
func finiteFloat(f float64) (float64, bool) {
	if math.IsInf(f, 0) {
		return 0, true
	}
	if f == 0 {
		return 0, false // drop the sign of -0
	}
	return f, false
}

// shortString renders v briefly for error messages.
func shortString(v value) string {
	const digits = 12
	switch v.kind {
	case kindBool:
		return strconv.FormatBool(v.b)
	case kindRat:
		if d, ok := terminatingDecimal(v.rat); ok && len(d.digits) <= digits {
			return d.exactString()
		}
		return roundRat(v.rat, digits).roundedString(digits)
	default:
		return roundFloatDecimal(v.f, digits).roundedString(digits)
	}
}
