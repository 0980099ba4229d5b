package expression

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRefusalHintsWork: every refusal whose hint proposes a rewrite is followed by hand, and
// the followed input must evaluate.
func TestRefusalHintsWork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, hint, followed string
	}{
		{"2^100000", "for an approximate value write exp(100000*ln(2))", "exp(100000*ln(2))"},
		{"(-2)^100001", "write -exp(100001*ln(2))", "-exp(100001*ln(2))"},
		{"(-2)^100000", "write exp(100000*ln(2))", "exp(100000*ln(2))"},
		{"(2/3)^50000 + 1", "write exp(50000*ln(2/3))", "exp(50000*ln(2/3)) + 1"},
		{"1.5^-100000", "write exp(-100000*ln(3/2))", "exp(-100000*ln(3/2))"},
		{"pow(7, 40000)", "write exp(40000*ln(7))", "exp(40000*ln(7))"},
		{"12345678901234567890^3000", "write exp(3000*ln(12345678901234567890))", "exp(3000*ln(12345678901234567890))"},
		{"3 pi", "write 3*pi", "3*pi"},
		{"2 sin(1)", "write 2*sin(...)", "2*sin(1)"},
		{"2 x", "write 2*x, after assigning x (for example x = 2)", "x = 2; 2*x"},
		{"x = 2 x", "write 2*x, after assigning x", "x = 2; x = 2*x"},
		{"2(3)", "write 2*(...)", "2*(3)"},
		{"pi(2)", "write pi*(...)", "pi*(2)"},
		{"1 = 2", "use == to compare", "1 == 2"},
		{"1 < 2 < 3", "p = a < b; q = b < c", "p = 1 < 2; q = 2 < 3"},
		{"sqr(4)", `did you mean "sqrt"?`, "sqrt(4)"},
		{"sine(1, 2)", `did you mean "min"?`, "min(1, 2)"}, // not sin, which takes one argument
		{"mx(1, 2, 3)", `did you mean "max"?`, "max(1, 2, 3)"},
		{"atan3(1, 2)", `did you mean "atan2"?`, "atan2(1, 2)"},
		{"√2", "write sqrt(x)", "sqrt(2)"},
		{"2²", "write x^2", "2^2"},
		{"[1+2]*3", "use ( and ) for grouping", "(1+2)*3"},
		{"1,000 + 1", "write numbers without thousands separators", "1000 + 1"},
		{"y", "assign it first (for example y = 2; y * 3)", "y = 2; y * 3"},
		{"", "for example 2 + 2", "2 + 2"},
		{"(1", `add a matching ")"`, "(1)"},
		{"1)", `remove it or add a matching "("`, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Evaluate(context.Background(), tt.in, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.hint) {
				t.Fatalf("error %v, want the hint %q", err, tt.hint)
			}
			if _, err := Evaluate(context.Background(), tt.followed, Options{}); err != nil {
				t.Errorf("the hint followed, %q, fails: %v", tt.followed, err)
			}
		})
	}
	// "y = 4; 2 y": y is assigned, so the hint asks for nothing more.
	if _, err := Evaluate(context.Background(), "y = 4; 2 y", Options{}); err == nil || strings.Contains(err.Error(), "after assigning") {
		t.Errorf("assigned variable: %v", err)
	}
}

// suggestion matches a hint that proposes a rewrite.
var suggestion = regexp.MustCompile(`\b(write|use|try)\b`)

// TestRefusalsWithoutRewrite: where no rewrite helps, the refusal proposes none.
func TestRefusalsWithoutRewrite(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"10^(10^7)",                // even the approximate value is beyond the magnitude limit
		"2^(-(10^7))",              // and below it
		"(10^19999)^2",             // a rewrite would be 20000 digits long
		"sin(sqrt(2)*1e300)",       // an inexact argument too large to reduce
		"exp(1000)*sqrt(2) % 7",    // an inexact quotient too large
		"factorial(sqrt(2)*1e300)", // an inexact integer too large to tell
		"100000!",
		"ncr(10^6, 5*10^5)",
		"sine()", // no function takes no arguments
	} {
		t.Run(in, func(t *testing.T) {
			_, err := Evaluate(context.Background(), in, Options{})
			if err == nil {
				t.Fatal("evaluated; want a refusal")
			}
			if m := suggestion.FindString(err.Error()); m != "" {
				t.Errorf("refusal proposes a rewrite (%q): %v", m, err)
			}
		})
	}
}

// TestPowerHintsOverOperands: for powers too large to compute exactly, over many bases and
// exponents, a hint's rewrite evaluates to the power's approximate value (sign and decimal
// exponent), and where there is no such rewrite the hint says why.
func TestPowerHintsOverOperands(t *testing.T) {
	t.Parallel()
	bases := []string{"2", "(-3)", "(3/7)", "1.5", "(-0.001)", "12345678901234567890", "(-1/9)"}
	exps := []string{"30001", "-30001", "100000", "-100001", "999999", "1000000", "10^7", "-(10^8)"}
	rewrites := 0
	for _, b := range bases {
		for _, e := range exps {
			in := b + "^(" + e + ")"
			_, err := Evaluate(context.Background(), in, Options{Precision: 20})
			if err == nil {
				continue
			}
			msg := err.Error()
			_, rewrite, ok := strings.Cut(msg, "for an approximate value write ")
			if !ok {
				if suggestion.MatchString(msg) {
					t.Errorf("%s: a suggestion that is not the verified rewrite: %s", in, msg)
				}
				if !strings.Contains(msg, "limit of approximate results") && !strings.Contains(msg, "digits") {
					t.Errorf("%s: unexpected refusal %s", in, msg)
				}
				continue
			}
			rewrites++
			res, err := Evaluate(context.Background(), rewrite, Options{Precision: 20})
			if err != nil {
				t.Errorf("%s: the hint's rewrite %q fails: %v", in, rewrite, err)
				continue
			}
			// Compare sign and decimal exponent with the power's, from the operands.
			base, _ := Evaluate(context.Background(), b, Options{})
			exp, _ := Evaluate(context.Background(), e, Options{})
			br, _ := new(big.Rat).SetString(base.Value)
			ei, _ := new(big.Int).SetString(exp.Value, 10)
			wantNeg := br.Sign() < 0 && ei.Bit(0) == 1
			ef, _ := new(big.Float).SetInt(ei).Float64()
			bf, _ := br.Float64()
			wantExp10 := math.Floor(ef * math.Log10(math.Abs(bf)))
			mant, exp10, _ := strings.Cut(res.Value, "e")
			gotExp10, _ := strconv.ParseFloat(exp10, 64)
			if strings.HasPrefix(mant, "-") != wantNeg || math.Abs(gotExp10-wantExp10) > 1 || res.Exact {
				t.Errorf("%s: rewrite %s = %s, want sign negative=%v and exponent about %.0f", in, rewrite, res.Value, wantNeg, wantExp10)
			}
		}
	}
	if rewrites < 20 {
		t.Errorf("only %d rewrites offered; the table should exercise more", rewrites)
	}
}

// TestLimitsAgree: the exported limits are the ones the engine enforces and its errors state.
func TestLimitsAgree(t *testing.T) {
	t.Parallel()
	if got := new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxDigits), nil).BitLen(); got != maxDigitBits {
		t.Errorf("maxDigitBits = %d, want the bit length of 10^MaxDigits, %d", maxDigitBits, got)
	}
	if want := int(math.Ceil(MaxExponent * log2of10)); maxExp2 != want {
		t.Errorf("maxExp2 = %d, want %d", maxExp2, want)
	}
	ev := func(src string, prec int) (Result, error) {
		return Evaluate(context.Background(), src, Options{Precision: prec})
	}
	if r, err := ev(fmt.Sprintf("9*10^%d + (10^%d - 1)", MaxDigits-1, MaxDigits-1), 0); err != nil || !r.Exact || r.Kind != "integer" {
		t.Errorf("the largest %d-digit integer: %+v, %v", MaxDigits, r, err)
	}
	limit := fmt.Sprintf("more than the %d-digit limit", MaxDigits)
	for _, src := range []string{fmt.Sprintf("10^%d", MaxDigits), fmt.Sprintf("1/10^%d", MaxDigits), fmt.Sprintf("%d!", 6000)} {
		if _, err := ev(src, 0); err == nil || !strings.Contains(err.Error(), limit) && !strings.Contains(err.Error(), fmt.Sprintf("more than %d digits", MaxDigits)) {
			t.Errorf("%s: %v, want %q", src, err, limit)
		}
	}
	if r, err := ev(fmt.Sprintf("1e%d", MaxDigits-1), 0); err != nil || !r.Exact {
		t.Errorf("a %d-digit literal: %v", MaxDigits, err)
	}
	if _, err := ev(fmt.Sprintf("1e%d", MaxDigits), 0); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("limited to %d digits", MaxDigits)) {
		t.Errorf("a %d-digit literal: %v", MaxDigits+1, err)
	}
	if _, err := ev("sqrt(2)", MaxPrecision); err != nil {
		t.Errorf("precision %d: %v", MaxPrecision, err)
	}
	want := fmt.Sprintf("use 1 to %d, or 0 for the default of %d", MaxPrecision, DefaultPrecision)
	for _, p := range []int{MaxPrecision + 1, -1} {
		if _, err := ev("1", p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("precision %d: %v, want %q", p, err, want)
		}
	}
	if r, err := ev(fmt.Sprintf("exp(%d*ln(10))", MaxExponent-1), 0); err != nil || !strings.HasSuffix(r.Value, fmt.Sprintf("e+%d", MaxExponent-2)) && !strings.HasSuffix(r.Value, fmt.Sprintf("e+%d", MaxExponent-1)) {
		t.Errorf("1e+%d: %v %v", MaxExponent-1, r.Value, err)
	}
	if _, err := ev(fmt.Sprintf("exp(%d*ln(10))", MaxExponent+1), 0); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("1e+%d", MaxExponent)) {
		t.Errorf("1e+%d: %v", MaxExponent+1, err)
	}
}

// TestFunctionSuggestionsFitTheCall: for misspelt calls of every function with one to three
// arguments, every suggested function accepts the call as written.
func TestFunctionSuggestionsFitTheCall(t *testing.T) {
	t.Parallel()
	quoted := regexp.MustCompile(`"([a-zA-Z0-9]+)"`)
	offered := 0
	for _, name := range functionNames() {
		for _, typo := range []string{name + "q", name[:len(name)-1], strings.ToUpper(name)} {
			for _, args := range []string{"3", "3, 4", "3, 4, 5"} {
				_, err := Evaluate(context.Background(), typo+"("+args+")", Options{})
				if err == nil {
					continue // the typo is a function too
				}
				_, hint, ok := strings.Cut(err.Error(), "did you mean ")
				if !ok {
					continue
				}
				for _, m := range quoted.FindAllStringSubmatch(hint, -1) {
					offered++
					_, err := Evaluate(context.Background(), m[1]+"("+args+")", Options{})
					var ee *Error
					if errors.As(err, &ee) && (ee.Kind == KindArity || ee.Kind == KindUnknownName || ee.Kind == KindSyntax) {
						t.Errorf("%s(%s) suggests %s, which fails: %v", typo, args, m[1], err)
					}
				}
			}
		}
	}
	if offered < 50 {
		t.Errorf("only %d suggestions checked", offered)
	}
}
