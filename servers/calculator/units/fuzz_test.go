package units

import (
	"errors"
	"math/big"
	"strings"
	"testing"
)

// FuzzConvert checks that Convert never panics, reports every failure as an
// *Error, and that converting a→b→a returns the original value to within
// the requested precision.
func FuzzConvert(f *testing.F) {
	f.Add("1", "in", "cm", uint16(0), uint16(1), uint8(0))
	f.Add("-40", "°C", "°F", uint16(3), uint16(7), uint8(15))
	f.Add("98.6", "degrees F", "kelvin", uint16(40), uint16(41), uint8(30))
	f.Add("1e1000", "ly", "nm", uint16(100), uint16(2), uint8(100))
	f.Add("1e-1000", "mb", "gal_imp", uint16(9), uint16(99), uint8(1))
	f.Add(".5", "km per hour", "knots", uint16(7), uint16(8), uint8(200))
	f.Add("abc", "", "µm", uint16(1), uint16(1), uint8(3))
	all := Units("")
	f.Fuzz(func(t *testing.T, value, from, to string, i, j uint16, precision uint8) {
		p := int(precision) % 102
		if res, err := Convert(value, from, to, p); err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("Convert(%q, %q, %q, %d): error %v (%T) is not a non-empty *Error", value, from, to, p, err, err)
			}
		} else if res.Value == "" || res.From == "" || res.To == "" || res.Dimension == "" {
			t.Fatalf("Convert(%q, %q, %q, %d): incomplete result %+v", value, from, to, p, res)
		}

		// Round trip between two units of the same dimension.
		a := all[int(i)%len(all)]
		dim := Units(a.Dimension)
		b := dim[int(j)%len(dim)]
		v, ok := parseDecimal(strings.TrimSpace(value))
		if !ok || len(strings.TrimSpace(value)) > maxValueLen {
			return
		}
		const digits = 30
		there, err := Convert(value, a.Symbol, b.Symbol, digits)
		if err != nil {
			if a.Dimension == dimTemperature && strings.Contains(err.Error(), "below absolute zero") {
				return
			}
			t.Fatalf("Convert(%q, %q, %q): %v", value, a.Symbol, b.Symbol, err)
		}
		back, err := Convert(there.Value, b.Symbol, a.Symbol, digits)
		if err != nil {
			if tooLongToReparse(there.Value) {
				return
			}
			if a.Dimension == dimTemperature && strings.Contains(err.Error(), "below absolute zero") {
				return // rounding just below 0 K
			}
			t.Fatalf("Convert(%q, %q, %q) = %q, which does not convert back: %v", value, a.Symbol, b.Symbol, there.Value, err)
		}
		got, ok := new(big.Rat).SetString(back.Value)
		if !ok {
			t.Fatalf("result %q is not a decimal", back.Value)
		}
		// Allow two roundings at 30 digits, relative to the value or, for
		// temperatures, to the size of the offsets involved.
		scale := new(big.Rat).Abs(v)
		if a.Dimension == dimTemperature {
			scale.Add(scale, big.NewRat(1000, 1))
		}
		tol := new(big.Rat).Mul(scale, mustRat("1e-27"))
		diff := new(big.Rat).Sub(got, v)
		if diff.Abs(diff).Cmp(tol) > 0 {
			t.Fatalf("%s %s → %s %s → %s %s: drifted by %s", value, a.Symbol, there.Value, b.Symbol, back.Value, a.Symbol, diff.FloatString(40))
		}
		if there.Exact && back.Exact && diff.Sign() != 0 {
			t.Fatalf("%s %s → %s %s → %s %s: exact round trip changed the value", value, a.Symbol, there.Value, b.Symbol, back.Value, a.Symbol)
		}
	})
}

// tooLongToReparse reports whether a result string exceeds the limits that
// Convert puts on its input.
func tooLongToReparse(s string) bool {
	if len(s) > maxValueLen {
		return true
	}
	_, err := parseDecimalReason(s)
	return errors.Is(err, errExponent)
}
