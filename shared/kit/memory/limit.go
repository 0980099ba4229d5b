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

// The servers run with Go's default garbage collector settings (GOGC=100, no memory limit):
// measured at this fleet's load, a higher GOGC bought a little CPU per call for memory that
// stayed resident after every burst (docs/performance.md). The one setting added is a soft
// memory limit where the unit has a hard one.

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
