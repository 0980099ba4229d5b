package units

import (
	"math/big"
	"strconv"
	"strings"
)

// isTerminating reports whether r has a finite decimal expansion, that is,
// whether its reduced denominator has no prime factors other than 2 and 5.
func isTerminating(r *big.Rat) bool {
	d := new(big.Int).Set(r.Denom())
	d.Rsh(d, d.TrailingZeroBits())
	five := big.NewInt(5)
	m := new(big.Int)
	for d.Cmp(big.NewInt(1)) != 0 {
		q, rem := new(big.Int).QuoRem(d, five, m)
		if rem.Sign() != 0 {
			return false
		}
		d = q
	}
	return true
}

// formatExact prints a rational with a terminating decimal expansion exactly.
func formatExact(r *big.Rat) string {
	if r.Sign() == 0 {
		return "0"
	}
	d := r.Denom()
	twos := int(d.TrailingZeroBits())
	fives := 0
	rest := new(big.Int).Rsh(d, uint(twos))
	five := big.NewInt(5)
	m := new(big.Int)
	for rest.Cmp(big.NewInt(1)) != 0 {
		q, _ := new(big.Int).QuoRem(rest, five, m)
		rest = q
		fives++
	}
	k := max(twos, fives)
	n := new(big.Int).Mul(r.Num(), pow10(k))
	n.Quo(n, d)
	digits := n.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	trimmed := strings.TrimRight(digits, "0")
	// value = trimmed × 10^(len(digits)-len(trimmed)-k)
	exp := len(digits) - 1 - k
	return layout(neg, trimmed, exp)
}

// formatRounded prints r rounded half away from zero to sig significant
// digits, with trailing zeros removed.
func formatRounded(r *big.Rat, sig int) string {
	if r.Sign() == 0 {
		return "0"
	}
	neg := r.Sign() < 0
	num := new(big.Int).Abs(r.Num())
	den := r.Denom()
	// floor(log10(num/den)) is exp or exp-1.
	exp := len(num.String()) - len(den.String())
	if cmpScaled(num, den, exp) < 0 {
		exp--
	}
	// q = round(num/den × 10^(sig-1-exp)).
	shift := sig - 1 - exp
	n, d := new(big.Int).Set(num), new(big.Int).Set(den)
	if shift >= 0 {
		n.Mul(n, pow10(shift))
	} else {
		d.Mul(d, pow10(-shift))
	}
	q, rem := new(big.Int).QuoRem(n, d, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	digits := q.String()
	if len(digits) > sig { // rounding carried into a new digit, e.g. 9.99 → 10.0
		exp++
		digits = digits[:sig]
	}
	return layout(neg, strings.TrimRight(digits, "0"), exp)
}

// cmpScaled compares num/den with 10^exp.
func cmpScaled(num, den *big.Int, exp int) int {
	if exp >= 0 {
		return num.Cmp(new(big.Int).Mul(den, pow10(exp)))
	}
	return new(big.Int).Mul(num, pow10(-exp)).Cmp(den)
}

// layout prints the number whose significant digits are digits (no leading
// or trailing zeros) and whose leading digit has place value 10^exp. Plain
// notation is used unless |exp| exceeds sciThreshold.
func layout(neg bool, digits string, exp int) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case exp > sciThreshold || exp < -sciThreshold:
		b.WriteString(digits[:1])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if exp > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(exp))
	case exp < 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp-1))
		b.WriteString(digits)
	case len(digits) <= exp+1:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp+1-len(digits)))
	default:
		b.WriteString(digits[:exp+1])
		b.WriteByte('.')
		b.WriteString(digits[exp+1:])
	}
	return b.String()
}
