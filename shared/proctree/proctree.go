// Package proctree reads the Linux process tree from a proc filesystem: one process's
// /proc/PID/stat, a process's children and its descendants.
package proctree

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Tree reads processes from the proc filesystem at Root; the zero Tree reads /proc.
type Tree struct {
	Root string // the proc filesystem; "" means /proc
}

// Stat is what /proc/PID/stat says about one process.
type Stat struct {
	PID   int
	PPID  int
	PGID  int
	State byte   // R, S, D, Z, X, ...
	Start uint64 // start time in clock ticks after boot, which tells a reused pid apart
}

// Dead reports whether the process has exited and waits to be reaped (state Z or X).
func (s Stat) Dead() bool { return s.State == 'Z' || s.State == 'X' }

func (t Tree) root() string {
	if t.Root == "" {
		return "/proc"
	}
	return t.Root
}

func (t Tree) path(pid int, elem ...string) string {
	return filepath.Join(append([]string{t.root(), strconv.Itoa(pid)}, elem...)...)
}

// Stat reads and parses /proc/PID/stat.
func (t Tree) Stat(pid int) (Stat, error) {
	data, err := os.ReadFile(t.path(pid, "stat"))
	if err != nil {
		return Stat{}, err
	}
	s, err := parseStat(data)
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", t.path(pid, "stat"), err)
	}
	s.PID = pid
	return s, nil
}

// parseStat reads the fields of a stat line. The command name is in parentheses and may
// hold anything, spaces and ')' included, so the fields are read after its last ')'.
func parseStat(data []byte) (Stat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || bytes.IndexByte(data[:i], '(') < 0 {
		return Stat{}, fmt.Errorf("no command name in parentheses")
	}
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[2] field 5 (pgrp), f[19] field 22 (starttime).
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("%d fields after the command name, want at least 20", len(f))
	}
	if len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("state %q is not one letter", f[0])
	}
	s := Stat{State: f[0][0]}
	var err error
	if s.PPID, err = strconv.Atoi(f[1]); err != nil {
		return Stat{}, fmt.Errorf("ppid: %w", err)
	}
	if s.PGID, err = strconv.Atoi(f[2]); err != nil {
		return Stat{}, fmt.Errorf("pgrp: %w", err)
	}
	if s.Start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return Stat{}, fmt.Errorf("starttime: %w", err)
	}
	return s, nil
}

// HasChildrenFiles reports whether the kernel lists pid's children in
// /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN); without them children are found by
// ScanChildren.
func (t Tree) HasChildrenFiles(pid int) bool {
	_, err := os.Stat(t.path(pid, "task", strconv.Itoa(pid), "children"))
	return err == nil
}

// TaskChildren lists pid's children from /proc/PID/task/*/children (the fast path); it is
// empty where the kernel has no children files.
func (t Tree) TaskChildren(pid int) []int {
	tasks, _ := filepath.Glob(t.path(pid, "task", "*", "children"))
	var out []int
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(field); err == nil {
				out = append(out, child)
			}
		}
	}
	return out
}

// ScanChildren lists pid's children by reading every process's parent (the fallback).
func (t Tree) ScanChildren(pid int) []int {
	procs, _ := t.Procs()
	var out []int
	for _, p := range procs {
		if p.PPID == pid {
			out = append(out, p.PID)
		}
	}
	return out
}

// Procs lists every process the proc filesystem shows; processes that vanish or whose stat
// cannot be read while it reads are skipped.
func (t Tree) Procs() ([]Stat, error) {
	ents, err := os.ReadDir(t.root())
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	out := make([]Stat, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := t.Stat(pid); err == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// Descendants lists at most limit of pid's descendants, nearest first, from the children
// files, or from every process's parent, read once, when the kernel has no children files.
func (t Tree) Descendants(pid, limit int) []int {
	children := t.TaskChildren
	if !t.HasChildrenFiles(pid) {
		byParent := map[int][]int{}
		procs, _ := t.Procs()
		for _, p := range procs {
			byParent[p.PPID] = append(byParent[p.PPID], p.PID)
		}
		children = func(pid int) []int { return byParent[pid] }
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 && len(out) < limit {
		kids := children(queue[0])
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
