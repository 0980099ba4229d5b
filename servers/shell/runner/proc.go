package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procInfo is what /proc/PID/stat says about one process.
type procInfo struct {
	pid, ppid, pgid int
	zombie          bool
}

// readStat parses /proc/PID/stat; the command name may hold spaces and parentheses, so the
// fields are read after its last ')'.
func readStat(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	p := procInfo{pid: pid, zombie: f[0] == "Z" || f[0] == "X"}
	if p.ppid, err = strconv.Atoi(f[1]); err != nil {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: ppid: %w", pid, err)
	}
	if p.pgid, err = strconv.Atoi(f[2]); err != nil {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: pgid: %w", pid, err)
	}
	return p, nil
}

// taskChildren lists the children of pid from /proc/PID/task/*/children.
func taskChildren(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(field); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// hasTaskChildren reports whether the kernel has /proc/PID/task/TID/children
// (CONFIG_PROC_CHILDREN); without it children are found by scanning every process.
func hasTaskChildren() bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
}

// scanChildren lists the children of pid by reading every process's parent.
func scanChildren(pid int) []int {
	procs, _ := allProcs()
	var out []int
	for _, p := range procs {
		if p.ppid == pid {
			out = append(out, p.pid)
		}
	}
	return out
}

// allProcs lists every process /proc shows; processes that vanish while it reads are skipped.
func allProcs() ([]procInfo, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := make([]procInfo, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readStat(pid); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

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
	return err == nil && !p.zombie
}
