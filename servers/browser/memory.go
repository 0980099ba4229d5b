package main

import (
	"bytes"
	"os"
	"strconv"
)

// processTreeRSS sums the resident memory of process pid and all its descendants, from /proc.
// It returns 0 when pid is 0 or /proc cannot be read. It runs before every navigation, so it
// lists /proc once and reads each process's stat into one buffer: no per-entry stat calls (as
// filepath.Glob and os.ReadFile make), which cost several times the reads themselves.
func processTreeRSS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize())
	buf := make([]byte, 1024)
	for _, e := range procs {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		pp, pages, ok := readStat(e.Name(), buf)
		if !ok {
			continue
		}
		parent[p] = pp
		rss[p] = pages * page
	}
	var total int64
	for p := range rss {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += rss[p]
				break
			}
		}
	}
	return total
}

// readStat reads /proc/name/stat into buf and returns the process's parent and resident pages.
func readStat(name string, buf []byte) (ppid int, pages int64, ok bool) {
	f, err := os.Open("/proc/" + name + "/stat")
	if err != nil {
		return 0, 0, false // the process ended
	}
	n, err := f.Read(buf)
	_ = f.Close()
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ... ; comm may hold spaces, so split after the last ')'.
	s := buf[:n]
	i := bytes.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(s[i+1:])
	if len(fields) < 22 {
		return 0, 0, false
	}
	pp, err1 := strconv.Atoi(string(fields[1]))
	pages, err2 := strconv.ParseInt(string(fields[21]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return pp, pages, true
}
