package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// processTreeRSS sums the resident memory of process pid and all its descendants, from /proc.
// It returns 0 when pid is 0 or /proc cannot be read.
func processTreeRSS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	parent := map[int]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize())
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... ; comm may hold spaces, so split after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 22 {
			continue
		}
		p, err1 := strconv.Atoi(strings.TrimSpace(s[:strings.IndexByte(s, ' ')]))
		pp, err2 := strconv.Atoi(fields[1])
		pages, err3 := strconv.ParseInt(fields[21], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
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
