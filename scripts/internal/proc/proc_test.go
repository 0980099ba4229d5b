package proc

import (
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestSelf(t *testing.T) {
	pid := os.Getpid()
	rss, err := RSS(pid)
	if err != nil || rss < 1<<20 || rss > 4<<30 {
		t.Errorf("RSS = %d, %v; want the test binary's few MiB", rss, err)
	}
	anon, err := PssAnon(pid)
	if err != nil || anon < 64<<10 || anon > rss {
		t.Errorf("PssAnon = %d, %v; want some, and no more than VmRSS %d", anon, err, rss)
	}
	if _, err := PssAnon(1 << 30); err == nil {
		t.Error("PssAnon of a process that does not exist answered")
	}
	// Burn CPU until the count moves: the kernel counts in clock ticks, and on a busy machine a
	// fixed spell of wall time may get less than one tick of CPU.
	start, err := CPU(pid)
	if err != nil {
		t.Fatal(err)
	}
	end := start
	for deadline := time.Now().Add(10 * time.Second); end <= start && err == nil && time.Now().Before(deadline); {
		for spin := time.Now().Add(20 * time.Millisecond); time.Now().Before(spin); {
		}
		end, err = CPU(pid)
	}
	if err != nil || end <= start {
		t.Errorf("CPU %v then %v (%v): it did not grow in 10 s of spinning", start, end, err)
	}
	if _, err := RSS(1 << 30); err == nil {
		t.Error("RSS of a process that does not exist answered")
	}
}

func TestRunTime(t *testing.T) {
	pid := os.Getpid()
	start, err := RunTime(pid)
	if err != nil || start <= 0 {
		t.Fatalf("RunTime = %v, %v", start, err)
	}
	// Spin until a millisecond of running shows (a busy machine gives less CPU than wall time).
	end := start
	for deadline := time.Now().Add(10 * time.Second); end-start < time.Millisecond && err == nil && time.Now().Before(deadline); {
		for spin := time.Now().Add(20 * time.Millisecond); time.Now().Before(spin); {
		}
		end, err = RunTime(pid)
	}
	if err != nil || end-start < time.Millisecond {
		t.Errorf("RunTime %v then %v (%v): it did not grow by 1 ms in 10 s of spinning", start, end, err)
	}
	if _, err := RunTime(1 << 30); err == nil {
		t.Error("RunTime of a process that does not exist answered")
	}
}

func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d is not free: %v", port, err)
	}
	ln.Close()
}
