package expression

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
)

// evaluator runs a parsed program at one working precision.
type evaluator struct {
	ctx     context.Context
	digits  int  // significant digits shown for inexact results
	prec    uint // working precision in bits
	noise   int  // an inexact result that cancels more than this many bits counts as zero
	degrees bool
	vars    map[string]value
	order   []string // variables in order of first assignment
	approx  bool     // an inexact value was produced
	unsure  bool     // a result depended on cancellation below the working precision
}

// newEvaluator prepares an evaluation showing digits digits with guard extra digits.
func newEvaluator(ctx context.Context, digits, guard int, degrees bool) *evaluator {
	prec := uint(math.Ceil(float64(digits+guard)*log2of10)) + 8
	return &evaluator{
		ctx:     ctx,
		digits:  digits,
		prec:    prec,
		noise:   int(prec) - 20,
		degrees: degrees,
		vars:    map[string]value{},
	}
}

// run evaluates every statement and returns the value of the last one.
func (ev *evaluator) run(prog []statement) (value, error) {
	var last value
	for _, st := range prog {
		if err := ev.ctx.Err(); err != nil {
			return value{}, err
		}
		v, err := ev.eval(st.expr)
		if err != nil {
			return value{}, err
		}
		if st.target != "" {
			if _, seen := ev.vars[st.target]; !seen {
				ev.order = append(ev.order, st.target)
			}
			ev.vars[st.target] = v
		}
		last = v
	}
	return last, nil
}

// eval evaluates one node.
func (ev *evaluator) eval(n *node) (value, error) {
	if err := ev.ctx.Err(); err != nil {
		return value{}, err
	}
	switch n.kind {
	case nodeNumber:
		return ratValue(n.num), nil
	case nodeName:
		return ev.name(n)
	case nodeCall:
		args := make([]value, len(n.args))
		for i, a := range n.args {
			v, err := ev.numeric(a)
			if err != nil {
				return value{}, err
			}
			args[i] = v
		}
		return ev.call(n, args)
	case nodeNeg:
		v, err := ev.numeric(n.args[0])
		if err != nil {
			return value{}, err
		}
		return ev.neg(v), nil
	case nodeFactorial:
		v, err := ev.numeric(n.args[0])
		if err != nil {
			return value{}, err
		}
		return ev.factorial(n, v)
	case nodePercent:
		v, err := ev.numeric(n.args[0])
		if err != nil {
			return value{}, err
		}
		return ev.percent(n, v)
	case nodeCompare:
		return ev.comparison(n)
	case nodeBinary:
		return ev.binary(n)
	}
	return value{}, internalError()
}

// numeric evaluates n and rejects booleans.
func (ev *evaluator) numeric(n *node) (value, error) {
	v, err := ev.eval(n)
	if err != nil {
		return value{}, err
	}
	if v.isBool() {
		return value{}, errorf(KindDomain, n.pos, "comparisons can only be used as a whole statement or with == and !=",
			"the boolean %t cannot be used as a number", v.b)
	}
	return v, nil
}

// name resolves a constant or variable.
func (ev *evaluator) name(n *node) (value, error) {
	switch n.name {
	case "pi":
		return ev.piMultiple(n, big.NewRat(1, 1))
	case "tau":
		return ev.piMultiple(n, big.NewRat(2, 1))
	case "e":
		f, err := expFloat(ev.ctx, floatOf(1, ev.prec), ev.prec)
		if err != nil {
			return value{}, err
		}
		return ev.floatResult(n, f)
	case "phi":
		f := newFloat(ev.prec).Sqrt(floatOf(5, ev.prec))
		f.Add(f, floatOf(1, ev.prec))
		f.SetMantExp(f, -1)
		return ev.floatResult(n, f)
	}
	if v, ok := ev.vars[n.name]; ok {
		return v, nil
	}
	candidates := append(append([]string{}, constants...), ev.order...)
	candidates = append(candidates, functionNames()...)
	hint := suggest(n.name, candidates)
	if hint == "" {
		hint = fmt.Sprintf("assign it first (for example %s = 2; %s * 3) or use a constant: pi, e, tau, phi", n.name, n.name)
	}
	err := errorf(KindUnknownName, n.pos, hint, "unknown name %q", n.name)
	err.Name = n.name
	return value{}, err
}

// binary evaluates + - * / % ^ and "of", including percent adjustment: a + b% is a·(1 + b/100).
func (ev *evaluator) binary(n *node) (value, error) {
	a, err := ev.numeric(n.args[0])
	if err != nil {
		return value{}, err
	}
	right := n.args[1]
	if (n.op == tokPlus || n.op == tokMinus) && right.kind == nodePercent && !right.paren {
		p, err := ev.numeric(right.args[0])
		if err != nil {
			return value{}, err
		}
		frac, err := ev.percent(right, p)
		if err != nil {
			return value{}, err
		}
		delta, err := ev.mul(n, a, frac)
		if err != nil {
			return value{}, err
		}
		return ev.add(n, a, delta, n.op == tokMinus)
	}
	b, err := ev.numeric(right)
	if err != nil {
		return value{}, err
	}
	switch n.op {
	case tokPlus:
		return ev.add(n, a, b, false)
	case tokMinus:
		return ev.add(n, a, b, true)
	case tokStar:
		return ev.mul(n, a, b)
	case tokSlash:
		return ev.div(n, a, b)
	case tokPercent:
		return ev.mod(n, a, b)
	case tokPow:
		return ev.pow(n, a, b)
	}
	return value{}, internalError()
}

// comparison evaluates a comparison to a boolean.
func (ev *evaluator) comparison(n *node) (value, error) {
	a, err := ev.eval(n.args[0])
	if err != nil {
		return value{}, err
	}
	b, err := ev.eval(n.args[1])
	if err != nil {
		return value{}, err
	}
	if a.isBool() || b.isBool() {
		if a.isBool() && b.isBool() && (n.op == tokEq || n.op == tokNe) {
			return boolValue((a.b == b.b) == (n.op == tokEq), a.sure && b.sure), nil
		}
		return value{}, errorf(KindDomain, n.pos, "booleans can only be compared with each other using == or !=",
			"cannot apply %q to a boolean", n.text)
	}
	c, sure := ev.compare(a, b)
	var res bool
	switch n.op {
	case tokEq:
		res = c == 0
	case tokNe:
		res = c != 0
	case tokLt:
		res = c < 0
	case tokLe:
		res = c <= 0
	case tokGt:
		res = c > 0
	case tokGe:
		res = c >= 0
	}
	return boolValue(res, sure), nil
}

// compare orders two numbers. Inexact values that agree to within the working
// precision compare equal, and the result is then reported as not sure.
func (ev *evaluator) compare(a, b value) (int, bool) {
	if a.isRat() && b.isRat() {
		return a.rat.Cmp(b.rat), true
	}
	if a.piq != nil && b.piq != nil {
		return a.piq.Cmp(b.piq), true
	}
	fa, fb := ev.float(a), ev.float(b)
	d := newFloat(ev.prec).Sub(fa, fb)
	if d.Sign() == 0 || ev.negligible(d, fa, fb) {
		return 0, false
	}
	return d.Sign(), true
}

// negligible reports whether d is below the cancellation noise of the
// operands. Such a decision marks the evaluation unsure, so that a more
// precise pass confirms it.
func (ev *evaluator) negligible(d *big.Float, operands ...*big.Float) bool {
	if d.Sign() == 0 {
		ev.unsure = true
		return true
	}
	scale := math.MinInt
	for _, o := range operands {
		if o.Sign() != 0 {
			scale = max(scale, exp2(o))
		}
	}
	if scale == math.MinInt || exp2(d) >= scale-ev.noise {
		return false
	}
	ev.unsure = true
	return true
}

// float returns a numeric value as a big.Float at the working precision.
func (ev *evaluator) float(v value) *big.Float {
	return ev.floatAt(v, ev.prec)
}

// floatAt returns a numeric value as a big.Float; exact values are rounded to prec bits.
func (ev *evaluator) floatAt(v value, prec uint) *big.Float {
	if v.isRat() {
		return ratToFloat(v.rat, prec)
	}
	return v.f
}

// digitsBits is the number of bits the shown digits need.
func (ev *evaluator) digitsBits() int {
	return int(math.Ceil(float64(ev.digits) * log2of10))
}

// argFloat returns v as a function argument with at least prec bits. An exact
// value close to 1 or -1 gets the extra bits that keep its distance from ±1,
// on which functions such as ln, asin, acosh and atanh depend.
func (ev *evaluator) argFloat(v value, prec uint) *big.Float {
	if !v.isRat() {
		return v.f
	}
	bits := prec + 64
	near := 0.0
	for _, one := range []int64{1, -1} {
		if d := new(big.Rat).Sub(v.rat, big.NewRat(one, 1)); d.Sign() != 0 {
			near = math.Min(near, log2Rat(d))
		}
	}
	bits += uint(-near)
	return ratToFloat(v.rat, bits)
}

// floatResult wraps an inexact result after checking its magnitude.
func (ev *evaluator) floatResult(n *node, f *big.Float) (value, error) {
	if f.IsInf() {
		return value{}, tooLargeMagnitude(n, true)
	}
	if f.Sign() != 0 {
		if e := exp2(f); e > maxExp2 || e < -maxExp2 {
			return value{}, tooLargeMagnitude(n, e > 0)
		}
	}
	ev.approx = true
	if f.Prec() != ev.prec {
		f = newFloat(ev.prec).Set(f)
	}
	return value{kind: kindFloat, f: f}, nil
}

// tooLargeMagnitude reports an inexact result outside 10^±maxExp10.
func tooLargeMagnitude(n *node, large bool) *Error {
	if large {
		return errorf(KindTooLarge, n.pos, "", "the result is too large (the limit is about 1e+%d)", maxExp10)
	}
	return errorf(KindTooLarge, n.pos, "", "the result is too close to zero to represent (the limit is about 1e-%d)", maxExp10)
}

// piMultiple returns the inexact value q·π, remembering q.
func (ev *evaluator) piMultiple(n *node, q *big.Rat) (value, error) {
	if q.Sign() == 0 {
		return ratValue(new(big.Rat)), nil
	}
	pi, err := piFloat(ev.ctx, ev.prec+16)
	if err != nil {
		return value{}, err
	}
	f := newFloat(ev.prec+16).Mul(pi, ratToFloat(q, ev.prec+16))
	v, err := ev.floatResult(n, f)
	if err != nil {
		return value{}, err
	}
	if !ratTooLarge(q) {
		v.piq = q
	}
	return v, nil
}

// checkRat wraps an exact result after checking its size.
func (ev *evaluator) checkRat(n *node, r *big.Rat) (value, error) {
	if ratTooLarge(r) {
		return value{}, errorf(KindTooLarge, n.pos, "",
			"the exact result would have more than %d digits", maxDigits)
	}
	return ratValue(r), nil
}

// neg returns -v.
func (ev *evaluator) neg(v value) value {
	if v.isRat() {
		return ratValue(new(big.Rat).Neg(v.rat))
	}
	out := value{kind: kindFloat, f: newFloat(ev.prec).Neg(v.f)}
	if v.piq != nil {
		out.piq = new(big.Rat).Neg(v.piq)
	}
	return out
}

// percent returns v/100.
func (ev *evaluator) percent(n *node, v value) (value, error) {
	return ev.div(n, v, ratValue(big.NewRat(100, 1)))
}

// add returns a+b, or a-b when sub is set.
func (ev *evaluator) add(n *node, a, b value, sub bool) (value, error) {
	op := func(z, x, y *big.Rat) *big.Rat {
		if sub {
			return z.Sub(x, y)
		}
		return z.Add(x, y)
	}
	switch {
	case a.isRat() && b.isRat():
		return ev.checkRat(n, op(new(big.Rat), a.rat, b.rat))
	case a.piq != nil && b.piq != nil:
		return ev.piMultiple(n, op(new(big.Rat), a.piq, b.piq))
	case b.isRat() && b.rat.Sign() == 0:
		return a, nil
	case a.isRat() && a.rat.Sign() == 0 && !sub:
		return b, nil
	case a.isRat() && a.rat.Sign() == 0:
		return ev.neg(b), nil
	}
	fa, fb := ev.float(a), ev.float(b)
	s := newFloat(ev.prec)
	if sub {
		s.Sub(fa, fb)
	} else {
		s.Add(fa, fb)
	}
	if ev.negligible(s, fa, fb) {
		s.SetInt64(0)
	}
	return ev.floatResult(n, s)
}

// mul returns a·b.
func (ev *evaluator) mul(n *node, a, b value) (value, error) {
	switch {
	case a.isRat() && b.isRat():
		return ev.checkRat(n, new(big.Rat).Mul(a.rat, b.rat))
	case (a.isRat() && a.rat.Sign() == 0) || (b.isRat() && b.rat.Sign() == 0):
		return ratValue(new(big.Rat)), nil
	case a.piq != nil && b.isRat():
		return ev.piMultiple(n, new(big.Rat).Mul(a.piq, b.rat))
	case b.piq != nil && a.isRat():
		return ev.piMultiple(n, new(big.Rat).Mul(a.rat, b.piq))
	}
	return ev.floatResult(n, newFloat(ev.prec).Mul(ev.float(a), ev.float(b)))
}

// div returns a/b.
func (ev *evaluator) div(n *node, a, b value) (value, error) {
	if b.isZero() {
		return value{}, divisionByZero(n, b, "division")
	}
	switch {
	case a.isRat() && b.isRat():
		return ev.checkRat(n, new(big.Rat).Quo(a.rat, b.rat))
	case a.isRat() && a.rat.Sign() == 0:
		return ratValue(new(big.Rat)), nil
	case a.piq != nil && b.isRat():
		return ev.piMultiple(n, new(big.Rat).Quo(a.piq, b.rat))
	case a.piq != nil && b.piq != nil:
		return ev.checkRat(n, new(big.Rat).Quo(a.piq, b.piq))
	}
	return ev.floatResult(n, newFloat(ev.prec).Quo(ev.float(a), ev.float(b)))
}

// divisionByZero reports a zero divisor.
func divisionByZero(n *node, divisor value, what string) *Error {
	hint := ""
	if divisor.isFloat() {
		hint = "the divisor is zero to within the working precision"
	}
	return errorf(KindDivisionByZero, n.pos, hint, "%s by zero", what)
}

// mod returns a - trunc(a/b)·b: the remainder has the sign of the dividend.
func (ev *evaluator) mod(n *node, a, b value) (value, error) {
	if b.isZero() {
		return value{}, divisionByZero(n, b, "modulo")
	}
	switch {
	case a.isRat() && b.isRat():
		return ev.checkRat(n, ratMod(a.rat, b.rat))
	case a.piq != nil && b.piq != nil:
		return ev.piMultiple(n, ratMod(a.piq, b.piq))
	case a.isRat() && a.rat.Sign() == 0:
		return ratValue(new(big.Rat)), nil
	}
	fa, fb := ev.float(a), ev.float(b)
	q := newFloat(ev.prec).Quo(fa, fb)
	if exp2(q) > int(ev.prec)-ev.digitsBits()-8 {
		// The remainder would lose more digits than the guard digits hold;
		// a more precise pass may manage it.
		ev.unsure = true
		return value{}, errorf(KindTooLarge, n.pos, "",
			"the quotient of this inexact modulo is too large to give an accurate remainder")
	}
	if near := newFloat(ev.prec).SetInt(roundFloat(q)); ev.negligible(newFloat(ev.prec).Sub(q, near), q) {
		return ev.floatResult(n, newFloat(ev.prec))
	}
	t, _ := q.Int(nil)
	wp := ev.prec + uint(t.BitLen()) + 16
	r := newFloat(wp).Mul(fb, newFloat(wp).SetInt(t))
	r.Sub(fa, r)
	return ev.floatResult(n, r)
}

// ratMod returns a - trunc(a/b)·b for b != 0.
func ratMod(a, b *big.Rat) *big.Rat {
	q := ratTrunc(new(big.Rat).Quo(a, b))
	t := new(big.Rat).Mul(b, new(big.Rat).SetInt(q))
	return t.Sub(a, t)
}

// exactInteger returns v as an integer. It accepts an inexact value that is an
// integer to within the working precision, and then reports it as snapped:
// results built on it must not claim to be exact.
func (ev *evaluator) exactInteger(n *node, v value, what string) (i *big.Int, snapped bool, err error) {
	if v.isRat() {
		if v.rat.IsInt() {
			return new(big.Int).Set(v.rat.Num()), false, nil
		}
	} else {
		if exp2(v.f) > int(ev.prec)-8 {
			ev.unsure = true // a more precise pass may tell
			return nil, false, errorf(KindDomain, n.pos, "",
				"%s needs an integer, and the inexact %s is too large to tell whether it is one", what, shortString(v))
		}
		near := roundFloat(v.f)
		if ev.negligible(newFloat(ev.prec).Sub(v.f, newFloat(ev.prec).SetInt(near)), v.f) {
			return near, true, nil
		}
	}
	return nil, false, errorf(KindDomain, n.pos, "", "%s needs an integer, got %s", what, shortString(v))
}

// inexact makes an exact result that rests on a snapped argument inexact.
func (ev *evaluator) inexact(n *node, v value, err error) (value, error) {
	if err != nil || !v.isRat() {
		return v, err
	}
	return ev.floatResult(n, ratToFloat(v.rat, ev.prec))
}

// smallInt returns v as an int within ±limit.
func (ev *evaluator) smallInt(n *node, v value, what string, limit int) (int, bool, error) {
	i, snapped, err := ev.exactInteger(n, v, what)
	if err != nil {
		return 0, false, err
	}
	if !i.IsInt64() || i.Int64() > int64(limit) || i.Int64() < -int64(limit) {
		return 0, false, errorf(KindDomain, n.pos, "", "%s must be between %d and %d", what, -limit, limit)
	}
	return int(i.Int64()), snapped, nil
}

// factorial returns v! for a non-negative integer v.
func (ev *evaluator) factorial(n *node, v value) (value, error) {
	k, snapped, err := ev.exactInteger(n, v, "factorial")
	if err != nil {
		return value{}, err
	}
	if k.Sign() < 0 {
		return value{}, errorf(KindDomain, n.pos, "", "factorial needs a non-negative integer, got %s", k)
	}
	if !k.IsInt64() || k.Int64() > 1<<40 {
		return value{}, factorialTooLarge(n, math.Inf(1))
	}
	kk := k.Int64()
	lg, _ := math.Lgamma(float64(kk) + 1)
	if d := lg / math.Ln10; d > maxDigits+1 {
		return value{}, factorialTooLarge(n, d)
	}
	res, err := ev.checkRat(n, new(big.Rat).SetInt(new(big.Int).MulRange(1, kk)))
	if snapped {
		return ev.inexact(n, res, err)
	}
	return res, err
}

// factorialTooLarge reports a factorial beyond the digit limit.
func factorialTooLarge(n *node, digits float64) *Error {
	return errorf(KindTooLarge, n.pos, "", "the factorial would have %s digits, more than the %d-digit limit",
		digitsText(digits), maxDigits)
}

// wrapRange turns errRange from the numeric code into a positioned error.
func wrapRange(n *node, err error) error {
	if errors.Is(err, errRange) {
		return errorf(KindTooLarge, n.pos, "", "the argument of %s is too large to evaluate accurately", n.text)
	}
	return err
}
