package mcptest

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of ending it.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }

func TestRequire(t *testing.T) {
	for _, tc := range []struct {
		ci            string
		err           error
		failed, skips bool
	}{
		{"true", errors.New("no Landlock"), true, false},
		{"1", errors.New("no Landlock"), true, false},
		{"", errors.New("no Landlock"), false, true},
		{"false", errors.New("no Landlock"), false, true},
		{"true", nil, false, false},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		Require(r, "Landlock", tc.err)
		if r.failed != tc.failed || r.skipped != tc.skips {
			t.Errorf("CI=%q, err %v: failed %v skipped %v, want %v %v", tc.ci, tc.err, r.failed, r.skipped, tc.failed, tc.skips)
		}
	}
}
