package expression

import (
	"math"
	"math/big"
)

// call applies a built-in function to evaluated arguments; the parser has checked the count.
func (ev *evaluator) call(n *node, args []value) (value, error) {
	x := args[0]
	switch n.name {
	case "sqrt":
		return ev.root(n, x, 2)
	case "cbrt":
		return ev.root(n, x, 3)
	case "abs":
		if x.sign() < 0 {
			return ev.neg(x), nil
		}
		return x, nil
	case "round", "floor", "ceil", "trunc":
		return ev.roundTo(n, args)
	case "exp":
		return ev.exp(n, x)
	case "ln":
		return ev.log(n, x, nil)
	case "log":
		if len(args) == 2 {
			return ev.log(n, x, &args[1])
		}
		return ev.log(n, x, ratBase(10))
	case "log2":
		return ev.log(n, x, ratBase(2))
	case "log10":
		return ev.log(n, x, ratBase(10))
	case "sin", "cos", "tan", "sec", "csc", "cot":
		return ev.trig(n, x)
	case "asin", "acos", "atan":
		return ev.inverseTrig(n, x)
	case "atan2":
		return ev.atan2(n, args[0], args[1])
	case "sinh", "cosh", "tanh", "asinh", "acosh", "atanh":
		return ev.hyperbolic(n, x)
	case "gcd", "lcm":
		return ev.gcdLcm(n, args)
	case "min", "max":
		return ev.minMax(n, args), nil
	case "ncr", "npr":
		return ev.choose(n, args[0], args[1])
	case "factorial":
		return ev.factorial(n, x)
	case "mod":
		return ev.mod(n, args[0], args[1])
	case "hypot":
		return ev.hypot(n, args[0], args[1])
	case "pow":
		return ev.pow(n, args[0], args[1])
	}
	return value{}, internalError()
}

// root returns the square (k = 2) or real cube (k = 3) root of x, exactly when it is rational.
func (ev *evaluator) root(n *node, x value, k int64) (value, error) {
	if x.sign() < 0 && k == 2 {
		return value{}, errorf(KindDomain, n.pos, "sqrt is only real for x >= 0",
			"sqrt of the negative number %s is not a real number", shortString(x))
	}
	if x.isZero() {
		return x, nil
	}
	if x.isRat() {
		r, ok, err := exactRoot(ev.ctx, x.rat, big.NewInt(k))
		if err != nil {
			return value{}, err
		}
		if ok {
			return ratValue(r), nil
		}
	}
	f := new(big.Float).Abs(ev.floatAt(x, ev.prec+64))
	var res *big.Float
	if k == 2 {
		res = newFloat(ev.prec).Sqrt(f)
	} else {
		l, err := lnFloat(ev.ctx, f, ev.prec+16)
		if err != nil {
			return value{}, err
		}
		l.Quo(l, floatOf(3, 64))
		if res, err = expFloat(ev.ctx, l, ev.prec); err != nil {
			return value{}, err
		}
		if x.sign() < 0 {
			res.Neg(res)
		}
	}
	return ev.floatResult(n, res)
}

// hypot returns sqrt(x² + y²).
func (ev *evaluator) hypot(n *node, x, y value) (value, error) {
	x2, err := ev.mul(n, x, x)
	if err != nil {
		return value{}, err
	}
	y2, err := ev.mul(n, y, y)
	if err != nil {
		return value{}, err
	}
	s, err := ev.add(n, x2, y2, false)
	if err != nil {
		return value{}, err
	}
	return ev.root(n, s, 2)
}

// roundTo implements round, floor, ceil and trunc with an optional number of
// decimal places (negative rounds to tens, hundreds, ...). round rounds halves
// away from zero. The result is exact.
func (ev *evaluator) roundTo(n *node, args []value) (value, error) {
	x := args[0]
	places, snapped := 0, false
	if len(args) == 2 {
		p, s, err := ev.smallInt(n, args[1], "the number of digits", maxRoundDigits)
		if err != nil {
			return value{}, err
		}
		places, snapped = p, s
	}
	scale := new(big.Rat).SetInt(pow10(absInt(places)))
	if places < 0 {
		scale.Inv(scale)
	}
	var i *big.Int
	if x.isRat() {
		s := new(big.Rat).Mul(x.rat, scale)
		switch n.name {
		case "floor":
			i = ratFloor(s)
		case "ceil":
			i = ratCeil(s)
		case "trunc":
			i = ratTrunc(s)
		default:
			i = ratRound(s)
		}
	} else {
		s := newFloat(ev.prec).Mul(x.f, ratToFloat(scale, ev.prec+16))
		if exp2(s) >= int(ev.prec)-8 {
			ev.unsure = true // no digits at this position are known; a more precise pass may know them
			return x, nil
		}
		if exp2(s) > maxDigitBits {
			return value{}, errorf(KindTooLarge, n.pos, "", "the exact result would have more than %d digits", maxDigits)
		}
		var near bool
		i, near = ev.roundFloatBy(n.name, s)
		snapped = snapped || near
	}
	res, err := ev.checkRat(n, new(big.Rat).Quo(new(big.Rat).SetInt(i), scale))
	if snapped {
		return ev.inexact(n, res, err)
	}
	return res, err
}

// roundFloatBy rounds an inexact s to an integer. A value within the working
// precision of an integer counts as that integer, reported as snapped because
// the true value may lie on either side.
func (ev *evaluator) roundFloatBy(mode string, s *big.Float) (*big.Int, bool) {
	near := roundFloat(s)
	if ev.negligible(newFloat(ev.prec).Sub(s, newFloat(ev.prec).SetInt(near)), s) {
		return near, true
	}
	t, _ := s.Int(nil)
	one := big.NewInt(1)
	switch mode {
	case "floor":
		if s.Sign() < 0 {
			t.Sub(t, one)
		}
	case "ceil":
		if s.Sign() > 0 {
			t.Add(t, one)
		}
	case "round":
		return near, false
	}
	return t, false
}

// exp returns e^x.
func (ev *evaluator) exp(n *node, x value) (value, error) {
	if x.ratEquals(0, 1) {
		return ratValue(big.NewRat(1, 1)), nil
	}
	f := ev.floatAt(x, ev.prec+96)
	if mag := bigFloat64(f) / math.Ln10; math.Abs(mag) > maxExp10 {
		return value{}, tooLargeMagnitude(n, mag > 0)
	}
	res, err := expFloat(ev.ctx, f, ev.prec)
	if err != nil {
		return value{}, wrapRange(n, err)
	}
	return ev.floatResult(n, res)
}

// ratBase returns an exact logarithm base.
func ratBase(b int64) *value {
	v := ratValue(big.NewRat(b, 1))
	return &v
}

// log returns the logarithm of x to base b, or the natural logarithm when b is
// nil. It is exact when the answer is a simple rational, e.g. log(1000) = 3.
func (ev *evaluator) log(n *node, x value, base *value) (value, error) {
	if x.sign() <= 0 {
		what := "zero"
		if !x.isZero() {
			what = "the negative number " + shortString(x)
		}
		return value{}, errorf(KindDomain, n.pos, "logarithms are only defined for x > 0",
			"%s of %s is undefined", n.text, what)
	}
	natural := base == nil
	var b value
	if !natural {
		b = *base
		if b.sign() <= 0 || b.ratEquals(1, 1) {
			return value{}, errorf(KindDomain, n.pos, "the base must be positive and not 1",
				"invalid logarithm base %s", shortString(b))
		}
		if b.isFloat() {
			if d := newFloat(ev.prec).Sub(b.f, floatOf(1, ev.prec)); ev.negligible(d, b.f) {
				return value{}, errorf(KindDomain, n.pos, "the base must be positive and not 1",
					"invalid logarithm base %s", shortString(b))
			}
		}
	}
	if x.ratEquals(1, 1) {
		return ratValue(new(big.Rat)), nil
	}
	if x.isFloat() && x.f.Cmp(big.NewFloat(1)) == 0 {
		ev.unsure = true // an inexact argument that rounds to 1 has lost its logarithm
	}
	if !natural && x.isRat() && b.isRat() {
		if r, ok := exactLog(x.rat, b.rat); ok {
			return ratValue(r), nil
		}
	}
	wp := ev.prec + 16
	lx, err := lnFloat(ev.ctx, ev.argFloat(x, wp), wp)
	if err != nil {
		return value{}, err
	}
	if !natural {
		lb, err := lnFloat(ev.ctx, ev.argFloat(b, wp), wp)
		if err != nil {
			return value{}, err
		}
		lx.Quo(lx, lb)
	}
	return ev.floatResult(n, lx)
}

// gcdLcm returns the greatest common divisor or least common multiple of integers.
func (ev *evaluator) gcdLcm(n *node, args []value) (value, error) {
	acc := new(big.Int)
	snapped := false
	for i, a := range args {
		k, s, err := ev.exactInteger(n, a, n.text)
		if err != nil {
			return value{}, err
		}
		snapped = snapped || s
		k.Abs(k)
		switch {
		case i == 0:
			acc = k
		case n.name == "gcd":
			acc.GCD(nil, nil, acc, k)
		case acc.Sign() == 0 || k.Sign() == 0:
			acc.SetInt64(0)
		default:
			g := new(big.Int).GCD(nil, nil, acc, k)
			acc.Mul(acc, k.Quo(k, g))
			if tooManyDigits(acc) {
				return value{}, errorf(KindTooLarge, n.pos, "", "the exact result would have more than %d digits", maxDigits)
			}
		}
	}
	if snapped {
		return ev.inexact(n, intValue(acc), nil)
	}
	return intValue(acc), nil
}

// minMax returns the smallest or largest argument.
func (ev *evaluator) minMax(n *node, args []value) value {
	best := args[0]
	for _, a := range args[1:] {
		c, _ := ev.compare(a, best)
		if (n.name == "min" && c < 0) || (n.name == "max" && c > 0) {
			best = a
		}
	}
	return best
}

// choose returns the binomial coefficient ncr(n, k) or the permutation count npr(n, k).
func (ev *evaluator) choose(n *node, nv, kv value) (value, error) {
	nn, snappedN, err := ev.exactInteger(n, nv, n.text)
	if err != nil {
		return value{}, err
	}
	k, snappedK, err := ev.exactInteger(n, kv, n.text)
	if err != nil {
		return value{}, err
	}
	if nn.Sign() < 0 || k.Sign() < 0 {
		return value{}, errorf(KindDomain, n.pos, "", "%s needs non-negative integers, got %s and %s", n.text, nn, k)
	}
	if k.Cmp(nn) > 0 {
		return value{}, errorf(KindDomain, n.pos, "", "%s needs k <= n, got n = %s and k = %s", n.text, nn, k)
	}
	binomial := n.name == "ncr"
	kk := new(big.Int).Set(k)
	if rest := new(big.Int).Sub(nn, k); binomial && rest.Cmp(k) < 0 {
		kk = rest // ncr(n, k) = ncr(n, n-k)
	}
	if d := chooseDigits(nn, kk, binomial); d > maxDigits+20 {
		return value{}, errorf(KindTooLarge, n.pos, "", "the result would have %s digits, more than the %d-digit limit",
			digitsText(d), maxDigits)
	}
	// The estimate bounds kk to a few tens of thousands here.
	res := big.NewInt(1)
	if nn.IsInt64() {
		if binomial {
			res.Binomial(nn.Int64(), kk.Int64())
		} else {
			res.MulRange(nn.Int64()-kk.Int64()+1, nn.Int64())
		}
	} else {
		term := new(big.Int)
		for i := int64(0); i < kk.Int64(); i++ {
			if err := ev.ctx.Err(); err != nil {
				return value{}, err
			}
			res.Mul(res, term.Sub(nn, big.NewInt(i)))
			if binomial {
				res.Quo(res, big.NewInt(i+1))
			}
		}
	}
	v, err := ev.checkRat(n, new(big.Rat).SetInt(res))
	if snappedN || snappedK {
		return ev.inexact(n, v, err)
	}
	return v, err
}

// chooseDigits estimates the digits of ncr(n, k) (binomial) or npr(n, k).
func chooseDigits(n, k *big.Int, binomial bool) float64 {
	if !k.IsInt64() {
		return math.Inf(1)
	}
	kf := float64(k.Int64())
	if n.IsInt64() && n.Int64() < 1<<52 {
		nf := float64(n.Int64())
		a, _ := math.Lgamma(nf + 1)
		b, _ := math.Lgamma(nf - kf + 1)
		d := a - b
		if binomial {
			c, _ := math.Lgamma(kf + 1)
			d -= c
		}
		return d / math.Ln10
	}
	d := kf * log10Int(n)
	if binomial {
		c, _ := math.Lgamma(kf + 1)
		d -= c / math.Ln10
	}
	return d
}
