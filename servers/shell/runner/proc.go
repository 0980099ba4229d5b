package runner

import (
	"bytes"
	"os"
	"strconv"

	"github.com/jck411/mcp-servers/shared/proctree"
)

// readStat parses /proc/PID/stat.
func readStat(pid int) (proctree.Stat, error) { return proctree.Tree{}.Stat(pid) }

// taskChildren lists the children of pid from /proc/PID/task/*/children.
func taskChildren(pid int) []int { return proctree.Tree{}.TaskChildren(pid) }

// hasTaskChildren reports whether the kernel has /proc/PID/task/TID/children
// (CONFIG_PROC_CHILDREN); without it children are found by scanning every process.
func hasTaskChildren() bool { return proctree.Tree{}.HasChildrenFiles(os.Getpid()) }

// scanChildren lists the children of pid by reading every process's parent.
func scanChildren(pid int) []int { return proctree.Tree{}.ScanChildren(pid) }

// allProcs lists every process /proc shows; processes that vanish while it reads are skipped.
func allProcs() ([]proctree.Stat, error) { return proctree.Tree{}.Procs() }

// envHas reports whether the environment of pid contains the entry kv ("NAME=value").
func envHas(pid int, kv string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// envHasName reports whether the environment of pid sets the variable name.
func envHasName(pid int, name string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	return bytes.HasPrefix(b, []byte(name+"=")) || bytes.Contains(b, []byte("\x00"+name+"="))
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	p, err := readStat(pid)
	return err == nil && !p.Dead()
}
