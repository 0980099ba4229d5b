package units

import (
	"errors"
	"math/big"
	"strings"
)

// Limits on the value string accepted by Convert.
const (
	maxValueLen   = 100
	maxExponent   = 1000
	maxPrecision  = 100
	defaultDigits = 15
	// sciThreshold is the largest |exponent| printed in plain notation.
	sciThreshold = 30
)

// parseDecimal parses an optionally signed decimal number with an optional
// exponent ("12.5", "-40", ".5", "1e3", "2.5E-7") into an exact rational.
// It reports false for anything else, including an exponent beyond maxExponent.
func parseDecimal(s string) (*big.Rat, bool) {
	r, err := parseDecimalReason(s)
	return r, err == nil
}

// Reasons a decimal string is rejected.
var (
	errSyntax   = errors.New("not a decimal number")
	errExponent = errors.New("exponent out of range")
)

// parseDecimalReason is parseDecimal reporting why a string was rejected:
// errSyntax or errExponent.
func parseDecimalReason(s string) (*big.Rat, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	fracPart := ""
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracPart = s[start:i]
	}
	if intPart == "" && fracPart == "" {
		return nil, errSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if start == i || i != len(s) {
			return nil, errSyntax
		}
		digits := strings.TrimLeft(s[start:i], "0")
		if len(digits) > 4 {
			return nil, errExponent
		}
		for _, c := range digits {
			exp = exp*10 + int(c-'0')
		}
		if exp > maxExponent {
			return nil, errExponent
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != len(s) {
		return nil, errSyntax
	}
	mant, ok := new(big.Int).SetString(intPart+fracPart, 10)
	if !ok {
		return nil, errSyntax
	}
	if neg {
		mant.Neg(mant)
	}
	return scaleRat(mant, exp-len(fracPart)), nil
}

// scaleRat returns mant × 10^exp.
func scaleRat(mant *big.Int, exp int) *big.Rat {
	r := new(big.Rat).SetInt(mant)
	if exp == 0 {
		return r
	}
	p := pow10(abs(exp))
	if exp > 0 {
		return r.Mul(r, new(big.Rat).SetInt(p))
	}
	return r.Quo(r, new(big.Rat).SetInt(p))
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
