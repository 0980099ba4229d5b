package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/expression"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// evaluateInput is evaluate's arguments; precision's schema default is the engine's
// DefaultPrecision (TestEvaluateLimitsAgree).
type evaluateInput struct {
	Expression string `json:"expression" jsonschema:"e.g. '2^200', '0.1+0.2', 'sqrt(2)', '15% of 80', 'r = 3; pi*r^2', '50!', 'log(8, 2)'" schema:"minLength=1,maxLength=4096"`
	Precision  int    `json:"precision,omitempty" jsonschema:"significant digits for irrational results" schema:"minimum=1,maximum=1000,default=34"`
	Degrees    bool   `json:"degrees,omitempty" jsonschema:"trig functions take and return degrees instead of radians"`
}

type evaluateOutput struct {
	Result        string            `json:"result" jsonschema:"the value: exact when exact is true, else rounded to precision"`
	Kind          string            `json:"kind" jsonschema:"integer, decimal or boolean"`
	Exact         bool              `json:"exact"`
	Fraction      string            `json:"fraction,omitempty" jsonschema:"the exact value as a fraction when its decimal does not terminate"`
	Approximation float64           `json:"approximation,omitempty" jsonschema:"nearest float64, absent when out of range"`
	Variables     map[string]string `json:"variables,omitempty" jsonschema:"variables assigned in the expression"`
}

// Text renders the answer as a model reads it best: the value, flagged when rounded.
func (o evaluateOutput) Text() string {
	switch {
	case o.Exact:
		return o.Result
	case o.Fraction != "":
		return fmt.Sprintf("%s = %s (rounded)", o.Fraction, o.Result)
	default:
		return o.Result + " (rounded)"
	}
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
		"Exact up to %d digits; irrational results rounded to precision digits; magnitudes to about 1e±%d. Use for any arithmetic.",
		expression.MaxDigits, expression.MaxExponent)
}

func evaluate(ctx context.Context, _ *mcp.CallToolRequest, in evaluateInput) (*mcp.CallToolResult, evaluateOutput, error) {
	res, err := expression.Evaluate(ctx, in.Expression, expression.Options{Precision: in.Precision, Degrees: in.Degrees})
	if err != nil {
		return nil, evaluateOutput{}, evalError(err)
	}
	out := evaluateOutput{
		Result:    res.Value,
		Kind:      res.Kind,
		Exact:     res.Exact,
		Fraction:  res.Fraction,
		Variables: res.Variables,
	}
	if res.Kind != "boolean" && !res.FloatOverflow {
		out.Approximation = res.Float
	}
	return nil, out, nil
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
	}
	return &kit.Error{Code: code, Err: ee}
}
