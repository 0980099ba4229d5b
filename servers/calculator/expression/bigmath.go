package expression

import (
	"context"
	"errors"
	"math"
	"math/big"
	"sync"
)

// This file holds the arbitrary-precision elementary functions. Each takes a
// target precision in bits and returns a result whose relative error is a few
// units in the last place of that precision; internally it works with guard
// bits. Every loop checks the context so that evaluation can be stopped.

// errRange reports an argument whose result would leave the supported magnitude
// range; callers turn it into a positioned too_large error.
var errRange = errors.New("magnitude out of range")

// constCache holds a constant in binary fixed point (value·2^bits) at the largest
// precision computed so far. It is safe for concurrent use; computing happens
// outside the lock so a slow computation never blocks another caller.
type constCache struct {
	compute func(ctx context.Context, bits uint) (*big.Int, error)

	mu   sync.Mutex
	bits uint
	val  *big.Int // never modified once stored
}

var (
	piCache  = &constCache{compute: piFixed}
	ln2Cache = &constCache{compute: ln2Fixed}
)

// get returns the constant rounded to prec bits.
func (c *constCache) get(ctx context.Context, prec uint) (*big.Float, error) {
	want := prec + 16
	c.mu.Lock()
	bits, val := c.bits, c.val
	c.mu.Unlock()
	if val == nil || bits < want {
		bits = (want + 1023) &^ 1023 // round up so nearby precisions share one computation
		v, err := c.compute(ctx, bits)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if bits > c.bits {
			c.bits, c.val = bits, v
		}
		c.mu.Unlock()
		val = v
	}
	m := new(big.Int).Rsh(val, bits-want)
	f := new(big.Float).SetInt(m)
	f.SetMantExp(f, -int(want))
	return newFloat(prec).Set(f), nil
}

// piFixed returns π·2^bits (truncated) by the Chudnovsky series, summed by
// binary splitting:
//
//	π = 426880·sqrt(10005)·Q(0,N) / T(0,N)
//
// where each term adds about 47 bits.
func piFixed(ctx context.Context, bits uint) (*big.Int, error) {
	const guard = 64
	wp := bits + guard
	terms := int64(wp/47) + 2
	_, q, t, err := chudnovsky(ctx, 0, terms)
	if err != nil {
		return nil, err
	}
	root := new(big.Int).Lsh(big.NewInt(10005), 2*wp)
	root.Sqrt(root)
	num := root.Mul(root, q)
	num.Mul(num, big.NewInt(426880))
	num.Quo(num, t)
	return num.Rsh(num, guard), nil
}

// chudnovsky returns P, Q and T of the Chudnovsky series over terms [a, b).
func chudnovsky(ctx context.Context, a, b int64) (p, q, t *big.Int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if b-a == 1 {
		if a == 0 {
			return big.NewInt(1), big.NewInt(1), big.NewInt(13591409), nil
		}
		p = big.NewInt(6*a - 5)
		p.Mul(p, big.NewInt(2*a-1))
		p.Mul(p, big.NewInt(6*a-1))
		p.Neg(p)
		q = big.NewInt(a)
		q.Mul(q, q).Mul(q, big.NewInt(a))
		q.Mul(q, big.NewInt(10939058860032000)) // 640320³/24
		t = big.NewInt(545140134)
		t.Mul(t, big.NewInt(a))
		t.Add(t, big.NewInt(13591409))
		t.Mul(t, p)
		return p, q, t, nil
	}
	m := (a + b) / 2
	p1, q1, t1, err := chudnovsky(ctx, a, m)
	if err != nil {
		return nil, nil, nil, err
	}
	p2, q2, t2, err := chudnovsky(ctx, m, b)
	if err != nil {
		return nil, nil, nil, err
	}
	t = t1.Mul(t1, q2)
	t.Add(t, new(big.Int).Mul(p1, t2))
	return p1.Mul(p1, p2), q1.Mul(q1, q2), t, nil
}

// ln2Fixed returns ln(2)·2^bits (truncated) by
// ln 2 = 18·artanh(1/26) - 2·artanh(1/4801) + 8·artanh(1/8749).
func ln2Fixed(ctx context.Context, bits uint) (*big.Int, error) {
	const guard = 64
	wp := bits + guard
	sum := new(big.Int)
	for _, c := range []struct{ m, coef int64 }{{26, 18}, {4801, -2}, {8749, 8}} {
		s, err := artanhInvFixed(ctx, c.m, wp)
		if err != nil {
			return nil, err
		}
		sum.Add(sum, s.Mul(s, big.NewInt(c.coef)))
	}
	return sum.Rsh(sum, guard), nil
}

// artanhInvFixed returns artanh(1/m)·2^bits (truncated), the sum over k of
// 1/((2k+1)·m^(2k+1)), by binary splitting.
func artanhInvFixed(ctx context.Context, m int64, bits uint) (*big.Int, error) {
	terms := int64(float64(bits)/(2*math.Log2(float64(m)))) + 2
	b, q, t, err := artanhSplit(ctx, m, 0, terms)
	if err != nil {
		return nil, err
	}
	t.Lsh(t, bits)
	return t.Quo(t, b.Mul(b, q)), nil
}

// artanhSplit returns B, Q and T over terms [a, b) of the artanh(1/m) series,
// whose partial sum is T/(B·Q).
func artanhSplit(ctx context.Context, m, a, b int64) (bb, q, t *big.Int, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if b-a == 1 {
		q = big.NewInt(m * m)
		if a == 0 {
			q.SetInt64(m)
		}
		return big.NewInt(2*a + 1), q, big.NewInt(1), nil
	}
	mid := (a + b) / 2
	b1, q1, t1, err := artanhSplit(ctx, m, a, mid)
	if err != nil {
		return nil, nil, nil, err
	}
	b2, q2, t2, err := artanhSplit(ctx, m, mid, b)
	if err != nil {
		return nil, nil, nil, err
	}
	// T = B2·Q2·T1 + B1·T2
	t = t1.Mul(t1, b2)
	t.Mul(t, q2)
	t.Add(t, t2.Mul(t2, b1))
	return b1.Mul(b1, b2), q1.Mul(q1, q2), t, nil
}

// piFloat returns π rounded to prec bits.
func piFloat(ctx context.Context, prec uint) (*big.Float, error) {
	return piCache.get(ctx, prec)
}

// expFloat returns e^x rounded to prec bits; |x| must stay below about 1.4e9.
func expFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	if x.Sign() == 0 {
		return floatOf(1, prec), nil
	}
	wp := prec + 64
	if e := exp2(x); e > 0 {
		wp += uint(e)
	}
	if wp > maxInternalBits {
		return nil, errRange
	}
	ln2, err := ln2Cache.get(ctx, wp)
	if err != nil {
		return nil, err
	}
	// x = n·ln2 + r with |r| <= ln2/2, so e^x = 2^n·e^r.
	n := roundFloat(newFloat(wp).Quo(x, ln2))
	if !n.IsInt64() || n.Int64() > math.MaxInt32 || n.Int64() < math.MinInt32 {
		return nil, errRange
	}
	r := newFloat(wp).Mul(ln2, newFloat(wp).SetInt(n))
	r.Sub(x, r)
	// e^r = (e^(r/2^s))^(2^s): the series converges faster on the smaller argument.
	s := int(math.Sqrt(float64(prec))/2) + 1
	wp += uint(s)
	r.SetPrec(wp)
	r.SetMantExp(r, -s)
	sum, term := floatOf(1, wp), floatOf(1, wp)
	div := newFloat(64)
	for k := int64(1); ; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		term.Mul(term, r)
		term.Quo(term, div.SetInt64(k))
		if term.Sign() == 0 || exp2(term) < -int(wp)-2 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < s; i++ {
		sum.Mul(sum, sum)
	}
	sum.SetMantExp(sum, int(n.Int64()))
	return newFloat(prec).Set(sum), nil
}

// lnFloat returns ln(x) for x > 0, rounded to prec bits.
func lnFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	if x.Sign() <= 0 {
		return nil, errRange
	}
	wp := prec + 64
	mant := new(big.Float)
	k := x.MantExp(mant) // x = mant·2^k, mant in [0.5, 1), exactly
	if mant.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		mant.SetMantExp(mant, 1)
		k--
	}
	// Now mant is in [0.707, 1.415) and ln x = k·ln2 + ln mant. The difference
	// mant-1 is computed exactly, so arguments very close to 1 keep their
	// relative accuracy when x carries the bits to show it.
	one := floatOf(1, wp)
	d := newFloat(max(wp, mant.Prec()+2)).Sub(mant, one)
	if d.Sign() == 0 && k == 0 {
		return newFloat(prec), nil
	}
	var z *big.Float
	s := 0
	if d.Sign() != 0 && exp2(d) > -12 {
		// ln m = 2^s·ln(m^(1/2^s)): square roots bring m close to 1.
		s = 10
		wp += uint(s)
		m := newFloat(wp).Set(mant)
		for i := 0; i < s; i++ {
			m.Sqrt(m)
		}
		z = newFloat(wp).Sub(m, one)
		z.Quo(z, newFloat(wp).Add(m, one))
	} else {
		z = newFloat(wp).Quo(d, newFloat(wp).Add(mant, one))
	}
	// ln m = 2·artanh((m-1)/(m+1)).
	sum, err := atanhSeries(ctx, z, wp)
	if err != nil {
		return nil, err
	}
	sum.SetMantExp(sum, s+1)
	if k != 0 {
		kw := wp + 64
		ln2, err := ln2Cache.get(ctx, kw)
		if err != nil {
			return nil, err
		}
		t := newFloat(kw).Mul(ln2, newFloat(64).SetInt64(int64(k)))
		sum = newFloat(kw).Add(t, sum)
	}
	return newFloat(prec).Set(sum), nil
}

// atanhSeries returns z + z^3/3 + z^5/5 + ... at wp bits, for small |z|.
func atanhSeries(ctx context.Context, z *big.Float, wp uint) (*big.Float, error) {
	return oddSeries(ctx, z, wp, false)
}

// atanSeries returns z - z^3/3 + z^5/5 - ... at wp bits, for small |z|.
func atanSeries(ctx context.Context, z *big.Float, wp uint) (*big.Float, error) {
	return oddSeries(ctx, z, wp, true)
}

// oddSeries sums (±1)^k z^(2k+1)/(2k+1) until the terms fall below the precision.
func oddSeries(ctx context.Context, z *big.Float, wp uint, alternate bool) (*big.Float, error) {
	sum := newFloat(wp).Set(z)
	if z.Sign() == 0 {
		return sum, nil
	}
	z2 := newFloat(wp).Mul(z, z)
	if alternate {
		z2.Neg(z2)
	}
	p := newFloat(wp).Set(z)
	t := newFloat(wp)
	div := newFloat(64)
	for k := int64(1); ; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.Mul(p, z2)
		t.Quo(p, div.SetInt64(2*k+1))
		if t.Sign() == 0 || exp2(t) < exp2(sum)-int(wp)-2 {
			return sum, nil
		}
		sum.Add(sum, t)
	}
}

// atanFloat returns atan(x) in radians, rounded to prec bits.
func atanFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	if x.Sign() == 0 {
		return newFloat(prec), nil
	}
	wp := prec + 64
	one := floatOf(1, wp)
	y := newFloat(wp).Abs(x)
	invert := y.Cmp(one) > 0
	if invert {
		y.Quo(one, y) // atan(x) = π/2 - atan(1/x)
	}
	// atan(y) = 2·atan(y/(1+sqrt(1+y²))): halve the angle until the series is quick.
	s := 0
	t := newFloat(wp)
	for exp2(y) > -10 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t.Mul(y, y)
		t.Add(t, one)
		t.Sqrt(t)
		t.Add(t, one)
		y.Quo(y, t)
		s++
	}
	sum, err := atanSeries(ctx, y, wp)
	if err != nil {
		return nil, err
	}
	sum.SetMantExp(sum, s)
	if invert {
		pi, err := piFloat(ctx, wp)
		if err != nil {
			return nil, err
		}
		pi.SetMantExp(pi, -1)
		sum.Sub(pi, sum)
	}
	if x.Sign() < 0 {
		sum.Neg(sum)
	}
	return newFloat(prec).Set(sum), nil
}

// sinCosReduced returns sin(r) and cos(r) for |r| <= π/4, rounded to prec bits.
func sinCosReduced(ctx context.Context, r *big.Float, prec uint) (sin, cos *big.Float, err error) {
	if r.Sign() == 0 {
		return newFloat(prec), floatOf(1, prec), nil
	}
	wp := prec + 32
	x := newFloat(wp).Set(r)
	x2 := newFloat(wp).Mul(x, x)
	sum := newFloat(wp).Set(x)
	term := newFloat(wp).Set(x)
	div := newFloat(64)
	for k := int64(1); ; k++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		term.Mul(term, x2)
		term.Quo(term, div.SetInt64((2*k)*(2*k+1)))
		term.Neg(term)
		if term.Sign() == 0 || exp2(term) < exp2(sum)-int(wp)-2 {
			break
		}
		sum.Add(sum, term)
	}
	// cos r = sqrt((1-sin r)(1+sin r)) is positive and well conditioned for |r| <= π/4.
	one := floatOf(1, wp)
	c := newFloat(wp).Sub(one, sum)
	c.Mul(c, newFloat(wp).Add(one, sum))
	c.Sqrt(c)
	return newFloat(prec).Set(sum), newFloat(prec).Set(c), nil
}

// reduceQuadrant writes x = q·π/2 + r with |r| <= π/4 and returns r (to about
// prec bits of absolute accuracy) and q mod 4.
func reduceQuadrant(ctx context.Context, x *big.Float, prec uint) (*big.Float, int, error) {
	wp := prec + 64
	if e := exp2(x); e > 0 {
		wp += uint(e)
	}
	if wp > maxInternalBits {
		return nil, 0, errRange
	}
	halfPi, err := piFloat(ctx, wp)
	if err != nil {
		return nil, 0, err
	}
	halfPi.SetMantExp(halfPi, -1)
	n := roundFloat(newFloat(wp).Quo(x, halfPi))
	r := newFloat(wp).Mul(halfPi, new(big.Float).SetInt(n))
	r.Sub(x, r)
	q := int(new(big.Int).Mod(n, big.NewInt(4)).Int64())
	return r, q, nil
}

// reduceRatQuadrant is reduceQuadrant for an exact argument: it raises the
// precision until the reduced argument keeps prec bits of relative accuracy.
func reduceRatQuadrant(ctx context.Context, x *big.Rat, prec uint) (*big.Float, int, error) {
	if new(big.Rat).Abs(x).Cmp(big.NewRat(3, 4)) <= 0 {
		return ratToFloat(x, prec+64), 0, nil // already within π/4
	}
	mag := uint(max(0, int(math.Ceil(log2Rat(x)))+1))
	extra := uint(64)
	for {
		wp := prec + mag + extra
		if wp > maxInternalBits {
			return nil, 0, errRange
		}
		r, q, err := reduceQuadrant(ctx, ratToFloat(x, wp), prec+extra)
		if err != nil {
			return nil, 0, err
		}
		if r.Sign() != 0 && exp2(r) >= 40-int(extra) {
			return r, q, nil
		}
		if r.Sign() == 0 {
			extra *= 2
		} else {
			extra = 2*extra + uint(-exp2(r))
		}
	}
}

// sinhFloat returns sinh(x) rounded to prec bits.
func sinhFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	e := exp2(x)
	if x.Sign() == 0 || e < -int(prec)/2-2 {
		return newFloat(prec).Set(x), nil // sinh x = x(1 + x²/6 + ...)
	}
	wp := prec + 16 + uint(max(0, -e))
	ex, err := expFloat(ctx, x, wp)
	if err != nil {
		return nil, err
	}
	inv := newFloat(wp).Quo(floatOf(1, wp), ex)
	ex.Sub(ex, inv)
	ex.SetMantExp(ex, -1)
	return newFloat(prec).Set(ex), nil
}

// coshFloat returns cosh(x) rounded to prec bits.
func coshFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	wp := prec + 16
	ex, err := expFloat(ctx, x, wp)
	if err != nil {
		return nil, err
	}
	inv := newFloat(wp).Quo(floatOf(1, wp), ex)
	ex.Add(ex, inv)
	ex.SetMantExp(ex, -1)
	return newFloat(prec).Set(ex), nil
}

// tanhFloat returns tanh(x) rounded to prec bits.
func tanhFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	e := exp2(x)
	if x.Sign() == 0 || e < -int(prec)/2-2 {
		return newFloat(prec).Set(x), nil // tanh x = x(1 - x²/3 + ...)
	}
	ax := new(big.Float).Abs(x)
	var res *big.Float
	if limit := big.NewFloat(0.35 * float64(prec+8)); ax.Cmp(limit) > 0 {
		res = floatOf(1, prec) // 1 - tanh|x| < 2^-(prec+4)
	} else {
		wp := prec + 16 + uint(max(0, -e))
		t := newFloat(wp).SetMantExp(ax, 1)
		t, err := expFloat(ctx, t, wp)
		if err != nil {
			return nil, err
		}
		one := floatOf(1, wp)
		num := newFloat(wp).Sub(t, one)
		res = num.Quo(num, t.Add(t, one))
	}
	if x.Sign() < 0 {
		res.Neg(res)
	}
	return newFloat(prec).Set(res), nil
}

// asinhFloat returns asinh(x) = sign(x)·ln(|x| + sqrt(x²+1)) rounded to prec bits.
func asinhFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	e := exp2(x)
	if x.Sign() == 0 || e < -int(prec)/2-2 {
		return newFloat(prec).Set(x), nil
	}
	wp := prec + 16 + uint(max(0, -e))
	ax := newFloat(wp).Abs(x)
	s := newFloat(wp).Mul(ax, ax)
	s.Add(s, floatOf(1, wp))
	s.Sqrt(s)
	s.Add(s, ax)
	res, err := lnFloat(ctx, s, wp)
	if err != nil {
		return nil, err
	}
	if x.Sign() < 0 {
		res.Neg(res)
	}
	return newFloat(prec).Set(res), nil
}

// acoshFloat returns acosh(x) = ln(x + sqrt((x-1)(x+1))) for x >= 1, rounded to prec bits.
func acoshFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	xp := max(x.Prec(), prec) + 64
	d := newFloat(xp).Sub(x, floatOf(1, xp))
	if d.Sign() <= 0 {
		return newFloat(prec), nil
	}
	wp := prec + 16 + uint(max(0, -exp2(d)))
	s := newFloat(wp).Add(x, floatOf(1, wp))
	s.Mul(s, d)
	s.Sqrt(s)
	s.Add(s, d)
	s.Add(s, floatOf(1, wp)) // x + sqrt(x²-1), written as 1 + d + sqrt to keep the small part exact
	res, err := lnFloat(ctx, s, wp)
	if err != nil {
		return nil, err
	}
	return newFloat(prec).Set(res), nil
}

// atanhFloat returns atanh(x) = ln((1+x)/(1-x))/2 for |x| < 1, rounded to prec bits.
func atanhFloat(ctx context.Context, x *big.Float, prec uint) (*big.Float, error) {
	e := exp2(x)
	if x.Sign() == 0 || e < -int(prec)/2-2 {
		return newFloat(prec).Set(x), nil
	}
	wp := prec + 16 + uint(max(0, -e))
	xp := max(x.Prec(), wp) + 64
	one := floatOf(1, xp)
	num := newFloat(xp).Add(one, x)
	den := newFloat(xp).Sub(one, x)
	q := newFloat(wp).Quo(num, den)
	res, err := lnFloat(ctx, q, wp)
	if err != nil {
		return nil, err
	}
	res.SetMantExp(res, -1)
	return newFloat(prec).Set(res), nil
}

// powFloat returns x^y = e^(y·ln x) for x > 0, rounded to prec bits. The caller
// bounds |y·log10 x|; y should carry at least prec+64 bits.
func powFloat(ctx context.Context, x, y *big.Float, prec uint) (*big.Float, error) {
	est := math.Abs(log2Float(x) * math.Ln2 * bigFloat64(y))
	wp := prec + 16
	if est > 1 {
		wp += uint(math.Ceil(math.Log2(est)))
	}
	lx, err := lnFloat(ctx, x, wp)
	if err != nil {
		return nil, err
	}
	t := newFloat(wp).Mul(lx, y)
	return expFloat(ctx, t, prec)
}

// bigFloat64 returns the float64 nearest to x (±Inf beyond range).
func bigFloat64(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}
