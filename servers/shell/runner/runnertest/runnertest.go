// Package runnertest holds what the shell's tests use to start processes that try to outlive
// their command and to find and kill them afterwards: a unique marker per test, the lines that
// escape, and a scan of /proc for the marker.
package runnertest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Escapes are command lines whose descendants leave the process group or the parent and hold
// stdout open; each %s is a marker (see NewMarker) used as a sleep duration.
var Escapes = []struct{ Name, Line string }{
	{"setsid", "setsid sleep %s &"},
	{"subshell", "(sleep %s &)"},
	{"job control", "bash -c 'set -m; sleep %s & sleep 0.1'"},
	{"nohup disown", "nohup sleep %s >/dev/stdout 2>&1 & disown"},
	{"double fork setsid", "( setsid bash -c 'sleep %s & sleep %s' & ) ; sleep 0.2"},
}

// Marked lists the /proc/PID/cmdline files of live processes whose command line holds marker.
func Marked(marker string) []string {
	var found []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range paths {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte(marker)) {
			found = append(found, f)
		}
	}
	return found
}

// NewMarker returns a unique sleep duration that marks a test's processes in /proc, and kills
// whatever carries it when the test ends, so a failing test leaves nothing behind.
func NewMarker(t testing.TB) string {
	t.Helper()
	marker := fmt.Sprintf("300.%d", rand.IntN(1e9))
	t.Cleanup(func() {
		for _, f := range Marked(marker) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return marker
}
