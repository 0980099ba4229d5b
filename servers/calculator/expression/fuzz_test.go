package expression

import (
	"context"
	"errors"
	"testing"
	"time"
)

// FuzzEvaluate checks that any input evaluates without panicking, within its
// deadline, with only *Error failures, and that exact results read back as
// literals give the same value.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []string{
		"2 + 3 * 4", "0.1 + 0.2", "1/3", "2^200", "50!", "sqrt(2)", "8^(1/3)", "-2^2", "2^3^2", "3!^2",
		"200 + 10%", "20% of 150", "7 % 3", "7 % -3", "sin(pi/6)", "tan(pi/2)", "x = 3; y = 4; hypot(x, y)",
		"1 < 2", "sqrt(2)^2 == 2", "round(2.675, 2)", "gcd(12, 18, 24)", "nCr(52, 5)", "log(8, 2)",
		"9^9^9^9", "100000!", "1e999999", "2pi", "sqr(4)", "(((1)))", "exp(ln(7))", "atan2(-1, -1)",
		"1e-20000", "asinh(-1e-5) + acosh(1.5) + atanh(0.9)", "5000! / 4999!", "cbrt(-27) % 4",
	} {
		f.Add(seed, false)
	}
	f.Add("sin(30) + cos(60) + tan(45)", true)
	f.Add("asin(0.5) + acos(0.5)", true)
	f.Fuzz(func(t *testing.T, src string, degrees bool) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		res, err := Evaluate(ctx, src, Options{Degrees: degrees})
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Fatalf("Evaluate(%q) took %v despite a 1s deadline", src, elapsed)
		}
		if err != nil {
			var ee *Error
			if !errors.As(err, &ee) {
				t.Fatalf("Evaluate(%q) returned %T %v, want *Error", src, err, err)
			}
			if ee.Msg == internalError().Msg {
				t.Fatalf("Evaluate(%q) hit an internal error", src)
			}
			return
		}
		if !res.Exact || res.Kind == "boolean" || len(res.Value) > maxSourceBytes {
			return
		}
		again, err := Evaluate(context.Background(), res.Value, Options{})
		if err != nil || again.Value != res.Value || !again.Exact {
			t.Fatalf("Evaluate(%q) = %q, but evaluating that gives %q, %v", src, res.Value, again.Value, err)
		}
	})
}
