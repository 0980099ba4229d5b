package expression

import (
	"context"
	"fmt"
	"maps"
)

// Options bound one evaluation.
type Options struct {
	Precision int  // significant digits for inexact results; 0 means DefaultPrecision; at most MaxPrecision
	Degrees   bool // trig functions take degrees, inverse trig functions return degrees
	// Round bounds exact results too: an integer or terminating decimal of more than
	// Precision significant digits is rounded to Precision, its every digit kept in
	// Result.Full.
	Round bool
}

// Result is the value of the last statement.
type Result struct {
	Value         string            // decimal string such as "0.3" or "1.414213562373095048801688724209698", or "true"/"false"
	Kind          string            // "integer", "decimal" or "boolean"
	Exact         bool              // Value is exactly the mathematical result (false when rounded to Precision)
	Fraction      string            // the exact value as "p/q" when it is a non-terminating rational such as 1/3; else ""
	Full          string            // the exact decimal when Options.Round rounded it into Value; else ""
	Float         float64           // nearest float64 (0 for booleans and for values beyond the float64 range)
	FloatOverflow bool              // the value is beyond the float64 range
	Variables     map[string]string // every variable assigned in the call, rendered like Value; nil if none
}

// outcome is the result of one evaluation pass.
type outcome struct {
	res    Result
	err    *Error
	approx bool // the pass produced an inexact value, so a more precise pass could differ
	unsure bool // the pass relied on cancellation below its precision, so it needs confirming
}

// same reports whether two passes gave the same answer.
func (o outcome) same(p outcome) bool {
	if (o.err == nil) != (p.err == nil) {
		return false
	}
	if o.err != nil {
		return o.err.Kind == p.err.Kind && o.err.Msg == p.err.Msg
	}
	a, b := o.res, p.res
	return a.Value == b.Value && a.Kind == b.Kind && a.Exact == b.Exact &&
		a.Fraction == b.Fraction && a.Full == b.Full && maps.Equal(a.Variables, b.Variables)
}

// Evaluate parses and evaluates src, returning the value of its last statement.
// Errors are *Error; when ctx ends first the *Error has Kind "limit" and wraps ctx.Err().
func Evaluate(ctx context.Context, src string, opts Options) (res Result, err error) {
	defer func() {
		if recover() != nil {
			res, err = Result{}, internalError()
		}
	}()
	digits := opts.Precision
	if digits == 0 {
		digits = DefaultPrecision
	}
	if digits < 1 || digits > MaxPrecision {
		return Result{}, errorf(KindLimit, 0, fmt.Sprintf("use 1 to %d, or 0 for the default of %d", MaxPrecision, DefaultPrecision),
			"precision %d is out of range", opts.Precision)
	}
	if len(src) > maxSourceBytes {
		return Result{}, errorf(KindLimit, 0, "split the work into several calls",
			"the expression is %d bytes long, more than the %d-byte limit", len(src), maxSourceBytes)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, contextError(err)
	}
	prog, perr := parse(src)
	if perr != nil {
		return Result{}, asError(perr)
	}
	// Inexact results are computed with guard digits and then recomputed with
	// more (Ziv's strategy); the answer is accepted once two passes agree on
	// everything shown. A pass that treated a cancelled difference as zero must
	// also have enough guard digits to make that believable.
	var prev *outcome
	for _, guard := range guardSchedule(digits) {
		out := runPass(ctx, prog, digits, guard, opts.Degrees, opts.Round)
		if out.err != nil && out.err.Kind == KindLimit && out.err.Err != nil {
			return Result{}, out.err
		}
		if !out.approx || (prev != nil && prev.same(out) && (!out.unsure || guard >= 3*digits+120)) {
			return out.result()
		}
		prev = &out
	}
	return prev.result()
}

// maxPassDigits bounds the working precision, in digits, of the most precise pass.
const maxPassDigits = 20000

// guardSchedule returns the guard digits of successive passes: 12, 40, then
// doubling the working precision up to maxPassDigits.
func guardSchedule(digits int) []int {
	guards := []int{12, 40}
	for wp := 2 * (digits + 40); wp <= maxPassDigits; wp *= 2 {
		guards = append(guards, wp-digits)
	}
	return guards
}

// result returns the outcome in Evaluate's form.
func (o outcome) result() (Result, error) {
	if o.err != nil {
		return Result{}, o.err
	}
	return o.res, nil
}

// runPass evaluates the program once with guard extra digits of working precision.
func runPass(ctx context.Context, prog []statement, digits, guard int, degrees, round bool) outcome {
	ev := newEvaluator(ctx, digits, guard, degrees)
	v, err := ev.run(prog)
	if err != nil {
		return outcome{err: asError(err), approx: ev.approx, unsure: ev.unsure}
	}
	f := formatValue(v, digits, round)
	res := Result{
		Value:         f.value,
		Kind:          f.kind,
		Exact:         f.exact,
		Fraction:      f.fraction,
		Full:          f.full,
		Float:         f.float,
		FloatOverflow: f.overflow,
	}
	if len(ev.order) > 0 {
		res.Variables = make(map[string]string, len(ev.order))
		for _, name := range ev.order {
			res.Variables[name] = formatValue(ev.vars[name], digits, round).value
		}
	}
	return outcome{res: res, approx: ev.approx, unsure: ev.unsure}
}
