package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// statmRSS is a process's resident memory as /proc/pid/statm says, in bytes.
func statmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestProcessTreeRSS checks the memory measure the --max-memory-mb cap relies on: a process
// without children is its own resident memory, and a tree adds its children's.
func TestProcessTreeRSS(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	// Wait until it sleeps: while it starts, its memory changes.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(child.Process.Pid) + "/stat")
		if strings.Contains(string(b), "(sleep) S ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child did not start sleeping: %s", b)
		}
	}

	// /proc/pid/stat's count (what processTreeRSS reads) is the kernel's quick sum, which can
	// lag the exact one of statm by some pages.
	if got, want := processTreeRSS(child.Process.Pid), statmRSS(t, child.Process.Pid); got < want*3/4 || got > want*5/4 {
		t.Errorf("a sleeping process without children: %d bytes, want about %d", got, want)
	}
	self, kid := statmRSS(t, os.Getpid()), statmRSS(t, child.Process.Pid)
	if got := processTreeRSS(os.Getpid()); got < self/2+kid || got > 2*self+kid {
		t.Errorf("this test and its child: %d bytes; the test alone holds about %d, the child %d", got, self, kid)
	}
	if got := processTreeRSS(0); got != 0 {
		t.Errorf("no process: %d bytes", got)
	}
}
