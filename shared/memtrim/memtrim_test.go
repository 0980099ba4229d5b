package memtrim

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestTrimmer: memory is released at start and once after each spell of requests that is
// followed by a quiet period, never while requests keep coming.
func TestTrimmer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var released, heap atomic.Int64
		heap.Store(10 << 20)
		m := &Trimmer{release: func() { released.Add(1) }, heap: heap.Load}
		h := m.Track(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		call := func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil)) }
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go m.Run(ctx, time.Minute)
		synctest.Wait()
		steps := []struct {
			name string
			act  func()
			want int64
		}{
			{"released at start", func() {}, 1},
			{"quiet without requests: nothing new to release", func() { time.Sleep(3 * time.Minute) }, 1},
			{"busy for a while: not yet", func() {
				for range 8 {
					call()
					time.Sleep(20 * time.Second)
				}
			}, 1},
			{"less than a quiet period after the last request: not yet", func() { time.Sleep(30 * time.Second) }, 1},
			{"a quiet period (and a look) after the last request: released", func() { time.Sleep(30 * time.Second) }, 2},
			{"still quiet: once per quiet spell", func() { time.Sleep(5 * time.Minute) }, 2},
			{"another spell and quiet: released again", func() { call(); time.Sleep(75 * time.Second) }, 3},
			{"background work grows the heap a little: kept", func() { heap.Add(heapSlack); time.Sleep(time.Minute) }, 3},
			{"background work grows the heap more: released", func() { heap.Add(1); time.Sleep(10 * time.Second) }, 4},
			{"grown heap while requests keep coming: not yet", func() {
				heap.Add(10 << 20)
				for range 4 {
					call()
					time.Sleep(10 * time.Second)
				}
			}, 4},
		}
		for _, st := range steps {
			st.act()
			synctest.Wait()
			if got := released.Load(); got != st.want {
				t.Fatalf("%s: released %d times, want %d", st.name, got, st.want)
			}
		}
	})
}

func TestCodeMapping(t *testing.T) {
	t.Parallel()
	const dev, ino = 0xfe00, 10004420 // fe:00 as the kernel shows it
	tests := []struct {
		line   string
		ok     bool
		lo, hi uintptr
	}{
		{"00400000-00899000 r-xp 00000000 fe:00 10004420 /opt/mcp/bin/calculator", true, 0x400000, 0x899000},
		{"00899000-00dae000 r--p 00499000 fe:00 10004420 /opt/mcp/bin/calculator", true, 0x899000, 0xdae000},
		{"00dae000-00e0f000 rw-p 009ae000 fe:00 10004420 /opt/mcp/bin/calculator", false, 0, 0},   // writable: never
		{"00400000-00899000 r-xs 00000000 fe:00 10004420 /opt/mcp/bin/calculator", false, 0, 0},   // shared
		{"7ff0-7ff1 r-xp 00026000 fe:00 326269 /usr/lib/x86_64-linux-gnu/libc.so.6", false, 0, 0}, // another file
		{"00400000-00899000 r-xp 00000000 fe:01 10004420 /other/disk/calculator", false, 0, 0},    // another device
		{"213408c00000-213409400000 rw-p 00000000 00:00 0", false, 0, 0},                          // anonymous
		{"00899000-00400000 r--p 00499000 fe:00 10004420 /opt/mcp/bin/calculator", false, 0, 0},   // empty range
		{"zz-00400000 r--p 00499000 fe:00 10004420 /opt/mcp/bin/calculator", false, 0, 0},         // malformed
		{"00400000-00899000 r-xp", false, 0, 0},                                                   // short
		{"00400000-00899000 r-xp 00000000 fe:00 10004420 /opt/mcp/bin/calculator (deleted)", true, 0x400000, 0x899000},
	}
	for _, tt := range tests {
		lo, hi, ok := codeMapping(tt.line, dev, ino)
		if ok != tt.ok || lo != tt.lo || hi != tt.hi {
			t.Errorf("codeMapping(%q) = %x, %x, %v; want %x, %x, %v", tt.line, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
}

// TestTrimCode: the test binary's file-backed resident memory falls, and its code keeps running.
func TestTrimCode(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the trim reads Linux's /proc/self/maps")
	}
	before := rssFile(t)
	if err := trimCode(); err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	if after >= before {
		t.Errorf("RssFile %d kB before the trim, %d kB after: nothing was unmapped", before, after)
	}
	// Code and constants fault back in: a fresh formatting and parse still work.
	if got := strconv.Quote(strings.Repeat("ok", 2)); got != `"okok"` {
		t.Errorf("after the trim: %s", got)
	}
}

func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// The cost of the trim to the call after it: a loopback HTTP round trip with a JSON answer,
// warm and right after trimCode (its code pages fault back in from the page cache).
func BenchmarkCallAfterTrim(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"content": []any{map[string]string{"type": "text", "text": "14"}}}})
	}))
	defer srv.Close()
	call := func(b *testing.B) {
		resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			call(b)
		}
	})
	b.Run("after-trim", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if err := trimCode(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			call(b)
		}
	})
	b.Run("trim", func(b *testing.B) {
		for b.Loop() {
			if err := trimCode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
