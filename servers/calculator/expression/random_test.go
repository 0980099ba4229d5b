package expression

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exprGen builds random expressions from the grammar, reaching deeper
// combinations of functions and operators than byte-level fuzzing does.
type exprGen struct{ r *rand.Rand }

var (
	genNumbers = []string{"0", "1", "2", "3", "-1", "0.5", "1.5", "10", "100", "1e-5", "1e10", "7/3", "2/3", "pi", "e",
		"tau", "phi", "0.001", "123.456", "1e-30", "45", "90", "180", "30"}
	genUnary = []string{"sqrt", "cbrt", "abs", "exp", "ln", "log", "log2", "log10", "sin", "cos", "tan", "sec", "csc", "cot",
		"asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "round", "floor", "ceil", "trunc", "factorial"}
	genBinary = []string{"atan2", "gcd", "lcm", "min", "max", "ncr", "npr", "mod", "hypot", "pow", "log", "round"}
	genOps    = []string{" + ", " - ", " * ", " / ", " % ", "^", " of "}
)

func (g exprGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g exprGen) expr(depth int) string {
	if depth <= 0 {
		return g.pick(genNumbers)
	}
	switch g.r.IntN(8) {
	case 0:
		return g.pick(genNumbers)
	case 1:
		return fmt.Sprintf("%s(%s)", g.pick(genUnary), g.expr(depth-1))
	case 2:
		return fmt.Sprintf("%s(%s, %s)", g.pick(genBinary), g.expr(depth-1), g.expr(depth-1))
	case 3:
		return "(" + g.expr(depth-1) + ")" + g.pick([]string{"!", "%", ""})
	case 4:
		return "-" + g.expr(depth-1)
	default:
		return "(" + g.expr(depth-1) + g.pick(genOps) + g.expr(depth-1) + ")"
	}
}

// TestRandomExpressions evaluates generated expressions and checks that
// failures are clean and that inexact results agree across precisions: the
// 34-digit answer must be the 60-digit answer rounded to 34 digits, except
// where more precision legitimately changes the outcome.
func TestRandomExpressions(t *testing.T) {
	t.Parallel()
	g := exprGen{rand.New(rand.NewPCG(1, 2))}
	n := 2000
	if testing.Short() {
		n = 300
	}
	mismatches := 0
	for range n {
		src := g.expr(5)
		for _, degrees := range []bool{false, true} {
			lo, errLo := evalWithin(t, src, Options{Degrees: degrees})
			hi, errHi := evalWithin(t, src, Options{Degrees: degrees, Precision: 60})
			if errLo != nil || errHi != nil {
				// An inexact value may be an integer at one precision and not at another.
				snap := (errLo == nil && !lo.Exact && notInteger(errHi)) || (errHi == nil && !hi.Exact && notInteger(errLo))
				if (errLo == nil) != (errHi == nil) && !precisionBound(errLo) && !precisionBound(errHi) && !snap {
					t.Errorf("%q (degrees %v): 34 digits gives %v / %v, 60 digits gives %v / %v",
						src, degrees, lo.Value, errLo, hi.Value, errHi)
				}
				continue
			}
			if lo.Kind == "boolean" || lo.Exact {
				if lo.Value != hi.Value && lo.Exact {
					t.Errorf("%q: exact result %s at 34 digits but %s at 60", src, lo.Value, hi.Value)
				}
				continue
			}
			if !sameRounded(hi.Value, lo.Value, 34) && (lo.Value != "0" || !tiny(hi.Value)) {
				mismatches++
				t.Errorf("%q (degrees %v):\n34 digits %s\n60 digits %s", src, degrees, lo.Value, hi.Value)
			}
		}
	}
	t.Logf("%d expressions, %d precision mismatches", n, mismatches)
}

// evalWithin evaluates with a deadline and checks the error contract.
func evalWithin(t *testing.T, src string, opts Options) (Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := Evaluate(ctx, src, opts)
	if err != nil {
		var ee *Error
		if !errors.As(err, &ee) || ee.Msg == internalError().Msg {
			t.Fatalf("Evaluate(%q, %+v): bad error %v", src, opts, err)
		}
	}
	return res, err
}

// notInteger reports the error for an argument that is not an integer.
func notInteger(err error) bool {
	var ee *Error
	return errors.As(err, &ee) && ee.Kind == KindDomain && strings.Contains(ee.Msg, "needs an integer")
}

// tiny reports whether a value is below the cancellation that any pass at 34
// digits can resolve, so that 0 is the expected 34-digit answer.
func tiny(v string) bool {
	digits, exp, _ := splitDecimal(v)
	return digits == "" || exp < -(3*34+120)
}

// precisionBound reports errors that more precision can avoid: an evaluation
// stopped by its deadline, or an inexact argument too large for the precision.
func precisionBound(err error) bool {
	var ee *Error
	return errors.As(err, &ee) && (ee.Kind == KindLimit || (ee.Kind == KindTooLarge && strings.Contains(ee.Msg, "inexact")))
}

// sameRounded reports whether hi rounded to n significant digits equals lo.
func sameRounded(hi, lo string, n int) bool {
	hd, he, hneg := splitDecimal(hi)
	ld, le, lneg := splitDecimal(lo)
	if hd == "" || ld == "" {
		return hd == ld
	}
	if len(hd) > n {
		d := []byte(hd[:n])
		if hd[n] >= '5' {
			i := n - 1
			for ; i >= 0 && d[i] == '9'; i-- {
				d[i] = '0'
			}
			if i < 0 {
				d = append([]byte{'1'}, d[:n-1]...)
				he++
			} else {
				d[i]++
			}
		}
		hd = strings.TrimRight(string(d), "0")
	}
	return hd == ld && he == le && hneg == lneg
}

// splitDecimal returns the significant digits (no leading or trailing zeros),
// the exponent of the first one and the sign of a Result.Value.
func splitDecimal(s string) (string, int, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	digits := strings.TrimRight(all[lead:], "0")
	return digits, exp + len(intPart) - lead - 1, neg
}
