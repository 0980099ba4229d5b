package expression

import (
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// digitsOf renders a big.Float with n significant digits for comparison.
func digitsOf(x *big.Float, n int) string {
	d := roundFloatDecimal(x, n)
	return d.scientific()
}

// apdDigits renders an apd.Decimal with n significant digits in the same form.
func apdDigits(t *testing.T, d *apd.Decimal, n int) string {
	t.Helper()
	var r apd.Decimal
	c := apd.BaseContext.WithPrecision(uint32(n))
	c.Rounding = apd.RoundHalfUp
	if _, err := c.Round(&r, d); err != nil {
		t.Fatal(err)
	}
	f, _, err := new(big.Float).SetPrec(uint(n)*4+64).Parse(r.Text('e'), 10)
	if err != nil {
		t.Fatal(err)
	}
	return digitsOf(f, n)
}

// TestElementaryAgainstAPD compares exp, ln and pow with apd at 300 digits.
func TestElementaryAgainstAPD(t *testing.T) {
	t.Parallel()
	const digits = 300
	prec := uint(digits*10/3) + 16
	c := apd.BaseContext.WithPrecision(digits + 30)
	ctx := context.Background()
	args := []string{"1e-30", "0.001", "0.3", "0.5", "0.9999999", "1.0000001", "1.5", "2", "3", "10", "123.456", "1e20", "7e-300"}
	for _, s := range args {
		x, _, _ := new(big.Float).SetPrec(prec+64).Parse(s, 10)
		ax, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		var want apd.Decimal
		got, err := lnFloat(ctx, x, prec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Ln(&want, ax); err != nil {
			t.Fatal(err)
		}
		if g, w := digitsOf(got, digits), apdDigits(t, &want, digits); g != w {
			t.Errorf("ln(%s):\n got %s\nwant %s", s, g, w)
		}
		if x.Cmp(big.NewFloat(500)) < 0 {
			got, err = expFloat(ctx, x, prec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exp(&want, ax); err != nil {
				t.Fatal(err)
			}
			if g, w := digitsOf(got, digits), apdDigits(t, &want, digits); g != w {
				t.Errorf("exp(%s):\n got %s\nwant %s", s, g, w)
			}
			neg := new(big.Float).Neg(x)
			got, err = expFloat(ctx, neg, prec)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exp(&want, new(apd.Decimal).Neg(ax)); err != nil {
				t.Fatal(err)
			}
			if g, w := digitsOf(got, digits), apdDigits(t, &want, digits); g != w {
				t.Errorf("exp(-%s):\n got %s\nwant %s", s, g, w)
			}
		}
		y, _, _ := new(big.Float).SetPrec(prec+64).Parse("2.345", 10)
		got, err = powFloat(ctx, x, y, prec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Pow(&want, ax, apd.New(2345, -3)); err != nil {
			t.Fatal(err)
		}
		if g, w := digitsOf(got, digits), apdDigits(t, &want, digits); g != w {
			t.Errorf("%s^2.345:\n got %s\nwant %s", s, g, w)
		}
	}
}

// TestTrigIdentities checks the series and reductions against each other at high precision.
func TestTrigIdentities(t *testing.T) {
	t.Parallel()
	const digits = 400
	prec := uint(digits*10/3) + 16
	ctx := context.Background()
	one := floatOf(1, prec)
	for _, s := range []string{"1e-40", "0.1", "0.7853", "1", "1.5707963", "2", "3.14159", "10", "-7.5", "1e15"} {
		x, _, _ := new(big.Float).SetPrec(prec).Parse(s, 10)
		r, q, err := reduceQuadrant(ctx, x, prec)
		if err != nil {
			t.Fatal(err)
		}
		sin, cos, err := sinCosReduced(ctx, r, prec)
		if err != nil {
			t.Fatal(err)
		}
		sin, cos = rotate(sin, cos, q)
		// sin² + cos² = 1
		sum := newFloat(prec).Mul(sin, sin)
		sum.Add(sum, newFloat(prec).Mul(cos, cos))
		if d := newFloat(prec).Sub(sum, one); d.Sign() != 0 && exp2(d) > -int(prec)+8 {
			t.Errorf("sin²+cos² of %s differs from 1 by %s", s, d.Text('e', 5))
		}
		// atan(tan x) = x reduced into (-π/2, π/2).
		tan := newFloat(prec).Quo(sin, cos)
		at, err := atanFloat(ctx, tan, prec)
		if err != nil {
			t.Fatal(err)
		}
		pi, _ := piFloat(ctx, prec+64)
		want := newFloat(prec + 64).Set(x)
		n := roundFloat(newFloat(prec+64).Quo(x, pi))
		want.Sub(want, newFloat(prec+64).Mul(pi, newFloat(prec+64).SetInt(n)))
		if d := newFloat(prec).Sub(at, want); d.Sign() != 0 && exp2(d) > exp2(want)-int(prec)+16 {
			t.Errorf("atan(tan(%s)) = %s, want %s", s, at.Text('g', 30), want.Text('g', 30))
		}
	}
}

// TestConstCacheConcurrent exercises the shared constant caches from many goroutines.
func TestConstCacheConcurrent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	ref, err := piFloat(context.Background(), 5000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prec := uint(200 + 300*i)
			pi, err := piFloat(context.Background(), prec)
			if err != nil {
				t.Error(err)
				return
			}
			if want := newFloat(prec).Set(ref); pi.Cmp(want) != 0 {
				t.Errorf("pi at %d bits differs from the 5000-bit value", prec)
			}
			if _, err := ln2Cache.get(context.Background(), prec); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// TestCancelledMath checks that the numeric loops stop on a cancelled context.
func TestCancelledMath(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := floatOf(3, 200)
	if _, err := expFloat(ctx, x, 200); err == nil {
		t.Error("expFloat ignored the cancelled context")
	}
	if _, err := atanFloat(ctx, x, 200); err == nil {
		t.Error("atanFloat ignored the cancelled context")
	}
	if _, err := piFixed(ctx, 1<<20); err == nil {
		t.Error("piFixed ignored the cancelled context")
	}
}
