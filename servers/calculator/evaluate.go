package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/expression"
	"github.com/jck411/mcp-servers/servers/calculator/units"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// evaluateInput is evaluate's arguments; the default precision its schema states is the
// engine's DefaultPrecision (TestEvaluateLimitsAgree).
type evaluateInput struct {
	Expression string `json:"expression" jsonschema:"e.g. '2^200', '0.1+0.2', 'sqrt(2)', '15% of 80', 'r = 3; pi*r^2', '50!', 'log(8, 2)'" schema:"minLength=1,maxLength=4096"`
	Precision  int    `json:"precision,omitempty" jsonschema:"significant digits; default 34 when rounded, exact in full" schema:"minimum=1,maximum=1000"`
	Exact      bool   `json:"exact,omitempty" jsonschema:"also the exact form: any-length fraction or all digits"`
	Degrees    bool   `json:"degrees,omitempty" jsonschema:"trig functions take and return degrees instead of radians"`
}

// shortExact is the longest exact fraction shown without exact: true.
const shortExact = 40

type evaluateOutput struct {
	Result        string            `json:"result" jsonschema:"the value: exact when exact is true, else rounded to precision"`
	Kind          string            `json:"kind" jsonschema:"integer, decimal or boolean"`
	Exact         bool              `json:"exact"`
	Fraction      string            `json:"fraction,omitempty" jsonschema:"the exact value as a fraction when its decimal does not terminate: when short, or asked for with exact"`
	Full          string            `json:"full,omitempty" jsonschema:"every digit of an exact value that precision rounded, when asked for with exact"`
	Approximation float64           `json:"approximation,omitempty" jsonschema:"nearest float64, absent when out of range"`
	Variables     map[string]string `json:"variables,omitempty" jsonschema:"variables assigned in the expression"`

	digits     int // the significant digits of a rounded result
	longFrac   int // characters of the exact fraction left out (exact: true gives it)
	moreDigits int // significant digits of the exact value precision cut (exact: true gives them)
}

// Text leads with the decimal value; a rounded one says so, and the exact form follows when it
// is short or was asked for.
func (o evaluateOutput) Text() string {
	if o.Exact {
		return o.Result
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (rounded to %d digits", o.Result, o.digits)
	switch {
	case o.Fraction != "" && len(o.Fraction) <= shortExact:
		fmt.Fprintf(&b, "; exactly %s)", o.Fraction)
	case o.longFrac > 0:
		fmt.Fprintf(&b, "; exact: true gives the %d-character fraction)", o.longFrac)
	case o.moreDigits > 0:
		fmt.Fprintf(&b, "; exact: true gives all %d digits)", o.moreDigits)
	default:
		b.WriteString(")")
	}
	if len(o.Fraction) > shortExact {
		b.WriteString("\nexactly: " + o.Fraction)
	}
	if o.Full != "" {
		b.WriteString("\nexactly: " + o.Full)
	}
	return b.String()
}

func addEvaluate(s *kit.Server) {
	kit.AddTool(s, kit.Tool{
		Name:        "evaluate",
		Toolset:     toolsetMath,
		Title:       "Evaluate expression",
		Description: evaluateDescription(),
		ReadOnly:    true,
		Idempotent:  true,
		Timeout:     5 * time.Second,
	}, evaluate)
}

// evaluateDescription is the tool description, its limits taken from the engine's constants.
func evaluateDescription() string {
	return fmt.Sprintf("Evaluate math: + - * / %% ^ ! comparisons, percentages, variables, sqrt cbrt exp ln log trig hyperbolic round gcd lcm min max nCr nPr. "+
		"Exact to %d digits, magnitudes to 1e±%d; irrational results to precision digits. Use for any arithmetic.",
		expression.MaxDigits, expression.MaxExponent)
}

func evaluate(ctx context.Context, _ *mcp.CallToolRequest, in evaluateInput) (*mcp.CallToolResult, evaluateOutput, error) {
	digits := cmp.Or(in.Precision, expression.DefaultPrecision)
	res, err := expression.Evaluate(ctx, in.Expression, expression.Options{Precision: digits, Degrees: in.Degrees, Round: in.Precision > 0})
	if err != nil {
		return nil, evaluateOutput{}, evalError(err)
	}
	out := evaluateOutput{
		Result:    res.Value,
		Kind:      res.Kind,
		Exact:     res.Exact,
		Variables: res.Variables,
		digits:    digits,
	}
	switch {
	case in.Exact:
		out.Fraction, out.Full = res.Fraction, res.Full
	case len(res.Fraction) <= shortExact:
		out.Fraction, out.moreDigits = res.Fraction, significantDigits(res.Full)
	default:
		out.longFrac = len(res.Fraction)
	}
	if res.Kind != "boolean" && !res.FloatOverflow {
		out.Approximation = res.Float
	}
	return nil, out, nil
}

// significantDigits counts the digits of a decimal string from its first non-zero one to its
// last, exponent left out.
func significantDigits(s string) int {
	s, _, _ = strings.Cut(s, "e")
	s = strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
	return len(s)
}

// evalError turns an engine error into a tool error with the right code.
func evalError(err error) error {
	var ee *expression.Error
	if !errors.As(err, &ee) {
		return kit.Errorf(kit.CodeInternal, "evaluate: %w", err)
	}
	code := kit.CodeInvalidInput
	switch ee.Kind {
	case "too_large", "limit":
		code = kit.CodeLimit
	case expression.KindUnknownName:
		if msg := otherTool(ee.Name, ee.Call); msg != "" {
			return kit.Errorf(code, "%s", msg)
		}
	}
	return &kit.Error{Code: code, Err: ee}
}

// statisticsNames are what a model calls a statistic of a list, which evaluate does not
// compute and the statistics tool does.
var statisticsNames = map[string]bool{
	"mean": true, "average": true, "avg": true, "median": true, "mode": true, "sum": true,
	"stdev": true, "stddev": true, "std": true, "sd": true, "pstdev": true, "stdevp": true,
	"variance": true, "var": true, "pvariance": true, "quantile": true, "percentile": true,
	"quartile": true, "iqr": true, "count": true, "range": true,
}

// otherTool is the error for an unknown name that another of the server's tools handles: a
// statistic of a list, or a unit (called as a function, or two letters and longer, so that x
// or m meant as a variable is not taken for one).
func otherTool(name string, call bool) string {
	lower := strings.ToLower(name)
	switch {
	case statisticsNames[lower]:
		return fmt.Sprintf("evaluate has no %s function: use the statistics tool with the numbers as values, e.g. {\"values\": [3, 1, 4]}; it gives count, sum, mean, median, mode, min, max, range, variance, standard deviation, quartiles and percentiles", name)
	case lower == "convert" || lower == "to" || ((call || len(name) > 1) && units.Known(name)):
		return fmt.Sprintf("evaluate does not convert units (%q): use convert_units, e.g. {\"value\": 5, \"from\": \"km\", \"to\": \"mi\"}", name)
	}
	return ""
}
