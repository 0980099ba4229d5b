// Package memory holds the servers' memory settings: the runtime's soft memory limit taken
// from the unit's cgroup, and the release of the free heap after a quiet spell.
package memory

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// GCPercent is the collector's pace (GOGC) the servers run with unless the environment sets one
// or the server asks for another (kit.Spec.GCPercent). Measured side by side with
// scripts/bench-gc.sh (docs/performance.md, "Collector settings"): against Go's 100 it takes
// about a third off the calculator's CPU per call under load and leaves about 11 MiB of
// anonymous memory after a burst instead of 7.5, which the quiet-spell release brings back down;
// higher values cost more memory than the budget allows, and a soft memory limit near the
// budget makes a server whose live heap reaches it collect without pause.
const GCPercent = 200

// Pace sets the collector's pace to percent, or to GCPercent when percent is 0, unless the
// environment sets GOGC, which wins. It returns the percent it set, 0 when it left GOGC's.
func Pace(getenv func(string) string, percent int) int {
	if getenv("GOGC") != "" {
		return 0
	}
	if percent == 0 {
		percent = GCPercent
	}
	debug.SetGCPercent(percent)
	return percent
}

// Limit sets Go's soft memory limit to the memory.high, else memory.max, of the cgroup
// the process runs in (systemd's MemoryHigh=/MemoryMax=), so that the collector works harder
// as the server nears the limit instead of the kernel reclaiming or killing it. GOMEMLIMIT, when
// set, wins; without a limit (or outside a cgroup v2 tree) nothing changes. procCgroup is
// /proc/self/cgroup and root the cgroup v2 mount.
func Limit(getenv func(string) string, procCgroup, root string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit := cgroupMemoryLimit(procCgroup, root)
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// cgroupMemoryLimit reads the process's cgroup v2 memory.high, else memory.max, in bytes; 0
// when neither is set ("max") or the files are not there.
func cgroupMemoryLimit(procCgroup, root string) int64 {
	f, err := os.Open(procCgroup)
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	var dir string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "0::"); ok { // the v2 unified hierarchy
			dir = filepath.Join(root, filepath.Clean("/"+rest))
			break
		}
	}
	if dir == "" {
		return 0
	}
	for _, name := range []string{"memory.high", "memory.max"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 0
}
