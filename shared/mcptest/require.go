package mcptest

import (
	"os"
	"testing"
)

// InCI reports whether the tests run in CI: the CI variable is set to anything but "" or
// "false" (.ci/run sets CI=true).
func InCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// Require ends a test whose requirement is missing: err says why what (Landlock, a writable
// cgroup v2 hierarchy, Chromium …) is not available. Outside CI the test is skipped; in CI it
// fails, since a CI machine that lacks what a test needs would otherwise pass without
// running it. A nil err does nothing.
func Require(tb testing.TB, what string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if InCI() {
		tb.Fatalf("%s is required in CI (CI=%s) and missing: %v", what, os.Getenv("CI"), err)
		return
	}
	tb.Skipf("%s is missing, so this test does not run: %v", what, err)
}

// Want reports whether an optional part of a test can run: err says why what is missing. In
// CI a missing part fails the test (as Require does); elsewhere it is logged and the test goes
// on without it.
func Want(tb testing.TB, what string, err error) bool {
	tb.Helper()
	if err == nil {
		return true
	}
	if InCI() {
		tb.Fatalf("%s is required in CI (CI=%s) and missing: %v", what, os.Getenv("CI"), err)
		return false
	}
	tb.Logf("%s is missing, so that part is not tested: %v", what, err)
	return false
}
