package expression

import (
	"math"
	"math/big"
)

// Angles known exactly in degrees get exact results where the answer is
// rational: an exact number in degrees mode, or an exact rational multiple of
// π (such as pi/6) in radians mode. sin(pi) is therefore exactly 0 and
// sin(30) in degrees mode exactly 0.5.

// sinTable holds the angles in [0, 360) whose sine is rational.
var sinTable = map[int64]*big.Rat{
	0: big.NewRat(0, 1), 30: big.NewRat(1, 2), 90: big.NewRat(1, 1), 150: big.NewRat(1, 2),
	180: big.NewRat(0, 1), 210: big.NewRat(-1, 2), 270: big.NewRat(-1, 1), 330: big.NewRat(-1, 2),
}

// exactSin returns sin(d degrees) for d in [0, 360) when it is rational.
func exactSin(d *big.Rat) (*big.Rat, bool) {
	if !d.IsInt() || !d.Num().IsInt64() {
		return nil, false
	}
	s, ok := sinTable[d.Num().Int64()]
	if !ok {
		return nil, false
	}
	return new(big.Rat).Set(s), true // callers own their values; the table stays untouched
}

// exactAngle returns x in exact degrees when it is known exactly.
func (ev *evaluator) exactAngle(x value) (*big.Rat, bool) {
	switch {
	case x.isRat() && (ev.degrees || x.rat.Sign() == 0):
		return x.rat, true
	case !ev.degrees && x.piq != nil:
		return new(big.Rat).Mul(x.piq, big.NewRat(180, 1)), true
	}
	return nil, false
}

// sinCos returns the sine and cosine of the angle x.
func (ev *evaluator) sinCos(n *node, x value) (value, value, error) {
	if deg, ok := ev.exactAngle(x); ok {
		return ev.sinCosDegrees(n, deg)
	}
	if x.isRat() {
		// An exact nonzero angle in radians: its sine and cosine are never 0,
		// so reduce it with as much precision as it takes.
		r, q, err := reduceRatQuadrant(ev.ctx, x.rat, ev.prec)
		if err != nil {
			return value{}, value{}, wrapRange(n, err)
		}
		return ev.sinCosQuadrant(n, r, q, nil)
	}
	rad := x.f
	if ev.degrees {
		pi, err := piFloat(ev.ctx, ev.prec+16)
		if err != nil {
			return value{}, value{}, err
		}
		rad = newFloat(ev.prec+16).Mul(x.f, pi)
		rad.Quo(rad, floatOf(180, 64))
	}
	if exp2(rad) > int(ev.prec)-ev.digitsBits()-8 {
		// The argument's rounding error would swamp the reduced angle; a more
		// precise pass may manage it.
		ev.unsure = true
		return value{}, value{}, errorf(KindTooLarge, n.pos, "",
			"the inexact argument %s of %s is too large to reduce accurately", shortString(x), n.text)
	}
	r, q, err := reduceQuadrant(ev.ctx, rad, ev.prec)
	if err != nil {
		return value{}, value{}, wrapRange(n, err)
	}
	return ev.sinCosQuadrant(n, r, q, rad)
}

// sinCosQuadrant returns sin and cos of q·π/2 + r. When the angle came from an
// inexact input (scale != nil), results that cancel to below the working
// precision relative to the input are exactly 0.
func (ev *evaluator) sinCosQuadrant(n *node, r *big.Float, q int, scale *big.Float) (value, value, error) {
	s, c, err := sinCosReduced(ev.ctx, r, ev.prec)
	if err != nil {
		return value{}, value{}, err
	}
	s, c = rotate(s, c, q)
	if scale != nil {
		for _, f := range []*big.Float{s, c} {
			if ev.negligible(f, scale) {
				f.SetInt64(0)
			}
		}
	}
	sv, err := ev.floatResult(n, s)
	if err != nil {
		return value{}, value{}, err
	}
	cv, err := ev.floatResult(n, c)
	return sv, cv, err
}

// rotate returns sin and cos of the angle advanced by q quarter turns.
func rotate(s, c *big.Float, q int) (*big.Float, *big.Float) {
	switch q {
	case 1:
		return c, s.Neg(s)
	case 2:
		return s.Neg(s), c.Neg(c)
	case 3:
		return c.Neg(c), s
	}
	return s, c
}

// sinCosDegrees returns sin and cos of an exact angle in degrees.
func (ev *evaluator) sinCosDegrees(n *node, deg *big.Rat) (value, value, error) {
	d := reduce360(deg)
	es, sinOK := exactSin(d)
	ec, cosOK := exactSin(reduce360(new(big.Rat).Add(d, big.NewRat(90, 1))))
	if sinOK && cosOK {
		return ratValue(es), ratValue(ec), nil
	}
	// d = q·90 + a; for a > 45 use the complement so the series argument is at most π/4.
	q := ratFloor(new(big.Rat).Quo(d, big.NewRat(90, 1)))
	a := new(big.Rat).Sub(d, new(big.Rat).Mul(new(big.Rat).SetInt(q), big.NewRat(90, 1)))
	swap := a.Cmp(big.NewRat(45, 1)) > 0
	if swap {
		a.Sub(big.NewRat(90, 1), a)
	}
	wp := ev.prec + 32
	pi, err := piFloat(ev.ctx, wp)
	if err != nil {
		return value{}, value{}, err
	}
	rad := newFloat(wp).Mul(pi, ratToFloat(new(big.Rat).Quo(a, big.NewRat(180, 1)), wp))
	s, c, err := sinCosReduced(ev.ctx, rad, ev.prec)
	if err != nil {
		return value{}, value{}, err
	}
	if swap {
		s, c = c, s
	}
	s, c = rotate(s, c, int(q.Int64()))
	sv, cv := ratValue(es), ratValue(ec)
	if !sinOK {
		if sv, err = ev.floatResult(n, s); err != nil {
			return value{}, value{}, err
		}
	}
	if !cosOK {
		if cv, err = ev.floatResult(n, c); err != nil {
			return value{}, value{}, err
		}
	}
	return sv, cv, nil
}

// reduce360 returns d reduced into [0, 360).
func reduce360(d *big.Rat) *big.Rat {
	turns := ratFloor(new(big.Rat).Quo(d, big.NewRat(360, 1)))
	return new(big.Rat).Sub(d, new(big.Rat).Mul(new(big.Rat).SetInt(turns), big.NewRat(360, 1)))
}

// trig evaluates sin, cos, tan, sec, csc and cot.
func (ev *evaluator) trig(n *node, x value) (value, error) {
	if deg, ok := ev.exactAngle(x); ok && (n.name == "tan" || n.name == "cot") {
		// tan and cot are ±1 at odd multiples of 45 degrees, where sin and cos are irrational.
		d := reduce360(deg)
		for _, a := range []int64{45, 225} {
			if d.Cmp(big.NewRat(a, 1)) == 0 {
				return ratValue(big.NewRat(1, 1)), nil
			}
			if d.Cmp(big.NewRat(a+90, 1)) == 0 {
				return ratValue(big.NewRat(-1, 1)), nil
			}
		}
	}
	s, c, err := ev.sinCos(n, x)
	if err != nil {
		return value{}, err
	}
	var num, den value
	switch n.name {
	case "sin":
		return s, nil
	case "cos":
		return c, nil
	case "tan":
		num, den = s, c
	case "sec":
		num, den = ratValue(big.NewRat(1, 1)), c
	case "csc":
		num, den = ratValue(big.NewRat(1, 1)), s
	case "cot":
		num, den = c, s
	}
	if den.isZero() {
		where := "where its cosine is 0 (90 degrees, π/2, plus multiples of 180 degrees, π)"
		if n.name == "csc" || n.name == "cot" {
			where = "where its sine is 0 (multiples of 180 degrees, π)"
		}
		return value{}, errorf(KindDomain, n.pos, n.text+" is undefined "+where,
			"%s(%s) is undefined", n.text, shortString(x))
	}
	return ev.div(n, num, den)
}

// angleResult returns an exact angle in degrees in the output unit.
func (ev *evaluator) angleResult(n *node, deg *big.Rat) (value, error) {
	if ev.degrees {
		return ratValue(deg), nil
	}
	return ev.piMultiple(n, new(big.Rat).Quo(deg, big.NewRat(180, 1)))
}

// radiansResult returns an angle in radians in the output unit.
func (ev *evaluator) radiansResult(n *node, rad *big.Float) (value, error) {
	if !ev.degrees {
		return ev.floatResult(n, rad)
	}
	pi, err := piFloat(ev.ctx, rad.Prec())
	if err != nil {
		return value{}, err
	}
	deg := newFloat(rad.Prec()).Mul(rad, floatOf(180, 64))
	return ev.floatResult(n, deg.Quo(deg, pi))
}

// inverseTable holds the exact results of asin, acos and atan, in degrees,
// keyed by the argument.
var inverseTable = map[string][]struct {
	x   *big.Rat
	deg int64
}{
	"asin": {{big.NewRat(0, 1), 0}, {big.NewRat(1, 2), 30}, {big.NewRat(-1, 2), -30}, {big.NewRat(1, 1), 90}, {big.NewRat(-1, 1), -90}},
	"acos": {{big.NewRat(1, 1), 0}, {big.NewRat(1, 2), 60}, {big.NewRat(0, 1), 90}, {big.NewRat(-1, 2), 120}, {big.NewRat(-1, 1), 180}},
	"atan": {{big.NewRat(0, 1), 0}, {big.NewRat(1, 1), 45}, {big.NewRat(-1, 1), -45}},
}

// inverseTrig evaluates asin, acos and atan.
func (ev *evaluator) inverseTrig(n *node, x value) (value, error) {
	if x.isRat() {
		for _, e := range inverseTable[n.name] {
			if e.x.Cmp(x.rat) == 0 {
				return ev.angleResult(n, big.NewRat(e.deg, 1))
			}
		}
	}
	wp := ev.prec + 32
	f := ev.argFloat(x, wp)
	if n.name != "atan" {
		one := floatOf(1, 64)
		excess := newFloat(max(wp, f.Prec())+64).Sub(new(big.Float).Abs(f), one)
		if excess.Sign() > 0 || (excess.Sign() == 0 && !x.isRat()) {
			if x.isRat() || !ev.negligible(excess, one) {
				return value{}, errorf(KindDomain, n.pos, n.text+" is only defined for -1 <= x <= 1",
					"%s(%s) is undefined", n.text, shortString(x))
			}
			f = newFloat(wp).SetInt64(int64(f.Sign())) // within rounding of ±1
		}
	}
	var rad *big.Float
	var err error
	switch n.name {
	case "asin":
		rad, err = ev.asin(f, wp)
	case "acos":
		rad, err = ev.acos(f, wp)
	default:
		rad, err = atanFloat(ev.ctx, f, wp)
	}
	if err != nil {
		return value{}, err
	}
	return ev.radiansResult(n, rad)
}

// asin returns asin(f) = atan(f/sqrt((1-f)(1+f))) for |f| <= 1.
func (ev *evaluator) asin(f *big.Float, wp uint) (*big.Float, error) {
	oneMinus, onePlus := oneMinusPlus(f, wp)
	d := oneMinus.Mul(oneMinus, onePlus)
	if d.Sign() == 0 {
		pi, err := piFloat(ev.ctx, wp)
		if err != nil {
			return nil, err
		}
		pi.SetMantExp(pi, -1)
		if f.Sign() < 0 {
			pi.Neg(pi)
		}
		return pi, nil
	}
	d.Sqrt(d)
	return atanFloat(ev.ctx, d.Quo(f, d), wp)
}

// acos returns acos(f) = 2·atan(sqrt((1-f)/(1+f))) for |f| <= 1.
func (ev *evaluator) acos(f *big.Float, wp uint) (*big.Float, error) {
	t, onePlus := oneMinusPlus(f, wp)
	if onePlus.Sign() == 0 {
		return piFloat(ev.ctx, wp)
	}
	t.Quo(t, onePlus)
	t.Sqrt(t)
	res, err := atanFloat(ev.ctx, t, wp)
	if err != nil {
		return nil, err
	}
	return res.SetMantExp(res, 1), nil
}

// oneMinusPlus returns 1-f and 1+f rounded to wp bits; the differences are
// formed exactly first, so f close to ±1 keeps its distance from them.
func oneMinusPlus(f *big.Float, wp uint) (*big.Float, *big.Float) {
	xp := max(wp, f.Prec()) + 64
	one := floatOf(1, 64)
	minus := newFloat(xp).Sub(one, f)
	plus := newFloat(xp).Add(one, f)
	return newFloat(wp).Set(minus), newFloat(wp).Set(plus)
}

// atan2 returns the angle of the point (x, y), in (-180, 180] degrees or (-π, π].
func (ev *evaluator) atan2(n *node, y, x value) (value, error) {
	if y.isZero() && x.isZero() {
		return value{}, errorf(KindDomain, n.pos, "the angle of the origin is not defined", "atan2(0, 0) is undefined")
	}
	if y.isRat() && x.isRat() {
		ys, xs := y.sign(), x.sign()
		switch {
		case ys == 0 && xs > 0:
			return ev.angleResult(n, big.NewRat(0, 1))
		case ys == 0:
			return ev.angleResult(n, big.NewRat(180, 1))
		case xs == 0:
			return ev.angleResult(n, big.NewRat(int64(90*ys), 1))
		case new(big.Rat).Abs(y.rat).Cmp(new(big.Rat).Abs(x.rat)) == 0:
			deg := int64(45)
			if xs < 0 {
				deg = 135
			}
			return ev.angleResult(n, big.NewRat(deg*int64(ys), 1))
		}
	}
	wp := ev.prec + 32
	fy, fx := ev.floatAt(y, wp+32), ev.floatAt(x, wp+32)
	pi, err := piFloat(ev.ctx, wp)
	if err != nil {
		return value{}, err
	}
	var rad *big.Float
	if fx.Sign() == 0 {
		rad = pi.SetMantExp(pi, -1)
		if fy.Sign() < 0 {
			rad.Neg(rad)
		}
	} else {
		rad, err = atanFloat(ev.ctx, newFloat(wp).Quo(fy, fx), wp)
		if err != nil {
			return value{}, err
		}
		if fx.Sign() < 0 {
			if fy.Sign() < 0 {
				rad.Sub(rad, pi)
			} else {
				rad.Add(rad, pi)
			}
		}
	}
	return ev.radiansResult(n, rad)
}

// expLimit is the largest |x| whose e^x stays within 10^maxExp10.
const expLimit = maxExp10 * math.Ln10

// hyperbolic evaluates sinh, cosh, tanh, asinh, acosh and atanh.
func (ev *evaluator) hyperbolic(n *node, x value) (value, error) {
	if x.ratEquals(0, 1) {
		switch n.name {
		case "cosh":
			return ratValue(big.NewRat(1, 1)), nil
		case "acosh":
		default:
			return ratValue(new(big.Rat)), nil
		}
	}
	wp := ev.prec + 16
	f := ev.argFloat(x, wp)
	one := floatOf(1, wp)
	switch n.name {
	case "sinh", "cosh":
		if math.Abs(bigFloat64(f)) > expLimit {
			return value{}, tooLargeMagnitude(n, true)
		}
	case "acosh":
		if x.ratEquals(1, 1) {
			return ratValue(new(big.Rat)), nil
		}
		d := newFloat(max(wp, f.Prec())+64).Sub(f, one)
		if d.Sign() == 0 {
			ev.unsure = true // an inexact argument that rounds to 1
		}
		if d.Sign() < 0 {
			if x.isRat() || !ev.negligible(d, one) {
				return value{}, errorf(KindDomain, n.pos, "acosh is only defined for x >= 1",
					"acosh(%s) is undefined", shortString(x))
			}
			return ev.floatResult(n, newFloat(ev.prec))
		}
	case "atanh":
		if excess := newFloat(max(wp, f.Prec())+64).Sub(new(big.Float).Abs(f), one); excess.Sign() >= 0 {
			if !x.isRat() {
				ev.negligible(excess, one) // within rounding of ±1, a more precise pass may tell
			}
			return value{}, errorf(KindDomain, n.pos, "atanh is only defined for -1 < x < 1",
				"atanh(%s) is undefined", shortString(x))
		}
	}
	var res *big.Float
	var err error
	switch n.name {
	case "sinh":
		res, err = sinhFloat(ev.ctx, f, ev.prec)
	case "cosh":
		res, err = coshFloat(ev.ctx, f, ev.prec)
	case "tanh":
		res, err = tanhFloat(ev.ctx, f, ev.prec)
	case "asinh":
		res, err = asinhFloat(ev.ctx, f, ev.prec)
	case "acosh":
		res, err = acoshFloat(ev.ctx, f, ev.prec)
	default:
		res, err = atanhFloat(ev.ctx, f, ev.prec)
	}
	if err != nil {
		return value{}, wrapRange(n, err)
	}
	return ev.floatResult(n, res)
}
