package expression

import (
	"context"
	"math"
	"math/big"
)

// intRoot returns the k-th root of n >= 0 when n is a perfect k-th power.
func intRoot(ctx context.Context, n *big.Int, k int64) (*big.Int, bool, error) {
	if n.Sign() == 0 || n.Cmp(big.NewInt(1)) == 0 {
		return new(big.Int).Set(n), true, nil
	}
	bl := n.BitLen()
	if k >= int64(bl) {
		return nil, false, nil // 1 < root < 2
	}
	var cand *big.Int
	if k == 2 {
		cand = new(big.Int).Sqrt(n)
	} else {
		// Round a floating-point root that is accurate well beyond its integer part.
		prec := uint(int64(bl)/k) + 64
		l, err := lnFloat(ctx, newFloat(prec).SetInt(n), prec)
		if err != nil {
			return nil, false, err
		}
		l.Quo(l, newFloat(64).SetInt64(k))
		r, err := expFloat(ctx, l, prec)
		if err != nil {
			return nil, false, err
		}
		cand = roundFloat(r)
	}
	if new(big.Int).Exp(cand, big.NewInt(k), nil).Cmp(n) != 0 {
		return nil, false, nil
	}
	return cand, true, nil
}

// exactRoot returns the real k-th root of r when it is rational. For even k, r must be >= 0.
func exactRoot(ctx context.Context, r *big.Rat, k *big.Int) (*big.Rat, bool, error) {
	if !k.IsInt64() || k.Int64() > maxDigitBits+1 {
		if r.Sign() == 0 || r.Cmp(big.NewRat(1, 1)) == 0 {
			return new(big.Rat).Set(r), true, nil
		}
		return nil, false, nil
	}
	kk := k.Int64()
	num, ok, err := intRoot(ctx, new(big.Int).Abs(r.Num()), kk)
	if err != nil || !ok {
		return nil, false, err
	}
	den, ok, err := intRoot(ctx, r.Denom(), kk)
	if err != nil || !ok {
		return nil, false, err
	}
	if r.Sign() < 0 {
		num.Neg(num)
	}
	return new(big.Rat).SetFrac(num, den), true, nil
}

// ratPowDigits estimates the decimal digits of the larger of numerator and
// denominator of r^e.
func ratPowDigits(r *big.Rat, e *big.Int) float64 {
	ef, _ := new(big.Float).SetInt(e).Float64()
	ef = math.Abs(ef)
	size := math.Max(log10Int(r.Num()), log10Int(r.Denom()))
	return ef * size
}

// ratPowInt returns r^e exactly; the caller has checked the size with ratPowDigits
// and handled r = 0 with e < 0.
func ratPowInt(r *big.Rat, e *big.Int) *big.Rat {
	ae := new(big.Int).Abs(e)
	num := new(big.Int).Exp(r.Num(), ae, nil)
	den := new(big.Int).Exp(r.Denom(), ae, nil)
	if e.Sign() < 0 {
		num, den = den, num
		if den.Sign() < 0 {
			num.Neg(num)
			den.Neg(den)
		}
	}
	return new(big.Rat).SetFrac(num, den)
}

// exactLog returns log_b(x) when it is a rational p/q with small q, by finding
// a candidate from floating point and verifying b^p == x^q exactly.
func exactLog(x, b *big.Rat) (*big.Rat, bool) {
	if x.Cmp(big.NewRat(1, 1)) == 0 {
		return new(big.Rat), true
	}
	lb := log2Rat(b)
	if lb == 0 {
		return nil, false
	}
	target := log2Rat(x) / lb
	if math.IsNaN(target) || math.IsInf(target, 0) || math.Abs(target) > 1e9 {
		return nil, false
	}
	// Continued-fraction convergents of target with denominators up to 64.
	h0, h1 := 0.0, 1.0
	k0, k1 := 1.0, 0.0
	t := target
	for range 12 {
		a := math.Floor(t)
		h0, h1 = h1, a*h1+h0
		k0, k1 = k1, a*k1+k0
		if k1 > 64 {
			break
		}
		if math.Abs(target-h1/k1) < 1e-9*math.Max(1, math.Abs(target)) {
			p, q := big.NewInt(int64(h1)), big.NewInt(int64(k1))
			if verifyLog(x, b, p, q) {
				return new(big.Rat).SetFrac(p, q), true
			}
			return nil, false
		}
		frac := t - a
		if frac < 1e-12 {
			break
		}
		t = 1 / frac
	}
	return nil, false
}

// verifyLog reports whether b^p == x^q, skipping checks whose powers would be huge.
func verifyLog(x, b *big.Rat, p, q *big.Int) bool {
	const limit = 4 * maxDigits
	if ratPowDigits(b, p) > limit || ratPowDigits(x, q) > limit {
		return false
	}
	return ratPowInt(b, p).Cmp(ratPowInt(x, q)) == 0
}
