package memtrim

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// trimCode unmaps the pages of the server's own executable that are mapped read-only (its code
// and constant data) with madvise(MADV_DONTNEED), after marking them MADV_RANDOM. Those pages
// are a clean, unmodified copy of the file, so nothing is lost: the ones a later call uses fault
// back in from the page cache (a minor fault, microseconds each), one page at a time instead of
// with the kernel's fault-around and readahead. What it removes is what readahead mapped and the
// server never uses — with large page-cache folios and a large readahead window (8 MiB on this
// project's virtual disks) that is most of the binary, several MiB of resident memory per server.
// Writable mappings are never touched.
func trimCode() error {
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &exe); err != nil {
		return fmt.Errorf("stat own executable: %w", err)
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return fmt.Errorf("read own mappings: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		start, end, ok := codeMapping(sc.Text(), exe.Dev, exe.Ino)
		if !ok {
			continue
		}
		for _, advice := range []uintptr{syscall.MADV_RANDOM, syscall.MADV_DONTNEED} {
			if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, advice); e != 0 {
				return fmt.Errorf("madvise(%d) %x-%x: %w", advice, start, end, e)
			}
		}
	}
	return sc.Err()
}

// codeMapping parses one /proc/self/maps line and reports the range when it maps the file
// dev:ino privately and read-only ("r-xp" or "r--p").
func codeMapping(line string, dev, ino uint64) (start, end uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 5 || (f[1] != "r-xp" && f[1] != "r--p") {
		return 0, 0, false
	}
	if i, err := strconv.ParseUint(f[4], 10, 64); err != nil || i != ino || ino == 0 {
		return 0, 0, false
	}
	maj, mnr, found := strings.Cut(f[3], ":")
	ma, err1 := strconv.ParseUint(maj, 16, 32)
	mi, err2 := strconv.ParseUint(mnr, 16, 32)
	// The kernel's dev_t encoding, as glibc's makedev builds it.
	if !found || err1 != nil || err2 != nil || (mi&0xff)|((ma&0xfff)<<8)|((mi&^0xff)<<12)|((ma&^0xfff)<<32) != dev {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
