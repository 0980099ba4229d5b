package units

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Result of a conversion.
type Result struct {
	// Value is the converted value as a decimal string: exact when Exact,
	// otherwise rounded half away from zero to the requested number of
	// significant digits. Trailing zeros are trimmed and plain notation is
	// used unless the decimal exponent exceeds ±30 ("2.54e+1001").
	Value string
	// Exact reports whether Value is the exact result.
	Exact bool
	// Float is the nearest float64 to the result; it is ±Inf or 0 when the
	// result lies outside the float64 range.
	Float float64
	// From and To are the canonical symbols of the units, e.g. "in" and "cm".
	From, To string
	// Dimension is the kind of quantity, e.g. "length".
	Dimension string
}

// Unit describes one known unit.
type Unit struct {
	// Symbol is the canonical symbol, e.g. "km".
	Symbol string
	// Name is the long name, with its definition where it is not obvious.
	Name string
	// Dimension is the kind of quantity, e.g. "length".
	Dimension string
	// Aliases are the other accepted spellings.
	Aliases []string
}

// Convert converts value (a decimal string such as "12.5", "-40" or "1e3")
// from one unit to another. precision is the number of significant digits
// of an inexact result: 0 means 15, otherwise 1 to 100. Exact results are
// never rounded.
func Convert(value, from, to string, precision int) (Result, error) {
	if precision == 0 {
		precision = defaultDigits
	}
	if precision < 1 || precision > maxPrecision {
		return Result{}, errorf(fmt.Sprintf("precision %d is out of range: use 1 to %d significant digits, or 0 for the default of %d",
			precision, maxPrecision, defaultDigits))
	}
	v, err := parseValue(value)
	if err != nil {
		return Result{}, err
	}
	// Each side's suggestions, if it is misspelt, fit the other side's dimension.
	var toDim string
	if d, err := knownUnits.lookup(to); err == nil {
		toDim = d.Dimension
	}
	src, err := knownUnits.lookupFor(from, toDim)
	if err != nil {
		return Result{}, err
	}
	dst, err := knownUnits.lookupFor(to, src.Dimension)
	if err != nil {
		return Result{}, err
	}
	if src.Dimension != dst.Dimension {
		return Result{}, errorf(fmt.Sprintf("cannot convert %q (%s) to %q (%s): units must measure the same kind of quantity",
			src.Symbol, src.Dimension, dst.Symbol, dst.Dimension))
	}

	base := new(big.Rat).Mul(v, src.factor)
	base.Add(base, src.offset)
	if src.Dimension == dimTemperature && base.Sign() < 0 {
		return Result{}, errorf(fmt.Sprintf("%s %s is below absolute zero (0 K = %s %s): a temperature cannot be lower than that",
			strings.TrimSpace(value), src.Symbol, formatRounded(new(big.Rat).Quo(new(big.Rat).Neg(src.offset), src.factor), defaultDigits), src.Symbol))
	}
	out := base.Sub(base, dst.offset)
	out.Quo(out, dst.factor)
	if src == dst {
		out = v // the inexact factors of the parsec cancel
	}

	res := Result{From: src.Symbol, To: dst.Symbol, Dimension: src.Dimension}
	res.Float, _ = out.Float64()
	res.Exact = (src == dst || src.exact && dst.exact) && isTerminating(out)
	if res.Exact {
		res.Value = formatExact(out)
	} else {
		res.Value = formatRounded(out, precision)
	}
	return res, nil
}

// parseValue parses the value argument of Convert.
func parseValue(value string) (*big.Rat, error) {
	s := strings.TrimSpace(value)
	if len(s) > maxValueLen {
		return nil, errorf(fmt.Sprintf("value is too long (%d characters): the value must be a decimal number of at most %d characters", len(s), maxValueLen))
	}
	v, err := parseDecimalReason(s)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, errExponent):
		return nil, errorf(fmt.Sprintf("invalid value %q: the exponent must be between -%d and %d", s, maxExponent, maxExponent))
	default:
		return nil, errorf(fmt.Sprintf("invalid value %q: the value must be a decimal number such as \"12.5\", \"-40\" or \"1e3\" (no units, thousands separators or fractions)", s))
	}
}

// Known reports whether spelling names a unit, or several units when case is ignored.
func Known(spelling string) bool {
	key := normalizeKey(strings.TrimSpace(spelling))
	return key != "" && (knownUnits.exact[key] != nil || len(knownUnits.folded[strings.ToLower(key)]) > 0)
}

// Units lists every known unit, or only those of one dimension when
// dimension is not empty, sorted by dimension and then symbol. It returns
// nil for an unknown dimension.
func Units(dimension string) []Unit {
	var out []Unit
	for _, d := range knownUnits.units {
		if dimension != "" && !strings.EqualFold(d.Dimension, strings.TrimSpace(dimension)) {
			continue
		}
		u := d.Unit
		u.Aliases = append([]string(nil), d.Aliases...)
		out = append(out, u)
	}
	return out
}

// Dimensions lists the dimension names in alphabetical order.
func Dimensions() []string {
	return append([]string(nil), knownUnits.dims...)
}
