package expression

import (
	"context"
	"testing"
)

// benchmarkEvaluate evaluates src repeatedly.
func benchmarkEvaluate(b *testing.B, src string, opts Options) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := Evaluate(ctx, src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvaluateSimple(b *testing.B) {
	benchmarkEvaluate(b, "2 + 3 * 4", Options{})
}

func BenchmarkEvaluateSqrt2Precision50(b *testing.B) {
	benchmarkEvaluate(b, "sqrt(2)", Options{Precision: 50})
}

func BenchmarkEvaluateMixed(b *testing.B) {
	benchmarkEvaluate(b, "r = 2.5; h = 10; v = pi * r^2 * h; a = atan2(h, r); sin(a)^2 + cos(a) * v / 3", Options{})
}

func BenchmarkEvaluateFactorial1000(b *testing.B) {
	benchmarkEvaluate(b, "1000!", Options{})
}

func BenchmarkEvaluatePi1000(b *testing.B) {
	benchmarkEvaluate(b, "4*(atan(1/2) + atan(1/3))", Options{Precision: 1000})
}

func BenchmarkEvaluateTrigPrecision1000(b *testing.B) {
	benchmarkEvaluate(b, "sin(1) + ln(3) + exp(0.5)", Options{Precision: 1000})
}
