package progress

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder records what a Reporter sends and when.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	got   []sent
}

type sent struct {
	at time.Duration
	p  mcp.ProgressNotificationParams
}

func (r *recorder) send(_ context.Context, p *mcp.ProgressNotificationParams) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, sent{time.Since(r.start), *p})
	return nil
}

func (r *recorder) all() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sent(nil), r.got...)
}

func TestHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{start: time.Now()}
		r := Start(t.Context(), "tok", rec.send)
		out := 0
		r.Status(func() string { out += 512; return Size(int64(out)) + " of output" })
		time.Sleep(5500 * time.Millisecond)
		r.Close()
		got := rec.all()
		want := []struct {
			at  time.Duration
			msg string
		}{
			{time.Second, "running for 1s, 512 B of output"},
			{3 * time.Second, "running for 3s, 1.0 KiB of output"},
			{5 * time.Second, "running for 5s, 1.5 KiB of output"},
		}
		if len(got) != len(want) {
			t.Fatalf("sent %d notifications, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			if got[i].at != w.at || got[i].p.Message != w.msg || got[i].p.ProgressToken != "tok" || got[i].p.Progress != w.at.Seconds() {
				t.Errorf("notification %d = %+v at %s, want %q at %s", i, got[i].p, got[i].at, w.msg, w.at)
			}
		}
		time.Sleep(10 * time.Second)
		if n := len(rec.all()); n != len(want) {
			t.Errorf("%d notifications after Close, want none", n-len(want))
		}
	})
}

func TestReportsAreRateLimitedAndIncrease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{start: time.Now()}
		r := Start(t.Context(), 7, rec.send)
		r.Bytes(0, 10<<20)
		synctest.Wait()
		// A thousand chunks in one second: at most one notification per MinInterval.
		for i := 1; i <= 1000; i++ {
			r.Bytes(int64(i)*10<<10, 10<<20)
			time.Sleep(time.Millisecond)
		}
		r.Bytes(5<<10, 10<<20) // backwards: dropped
		time.Sleep(time.Second)
		r.Close()
		got := rec.all()
		if len(got) < 2 || len(got) > 6 {
			t.Fatalf("sent %d notifications for a second of reports, want at most 1 + 4/s: %+v", len(got), got)
		}
		if got[0].at != 0 || got[0].p.Message != "0 B of 10.0 MiB" || got[0].p.Total != 10<<20 {
			t.Errorf("first = %+v at %s, want 0 B of 10.0 MiB at once", got[0].p, got[0].at)
		}
		for i := 1; i < len(got); i++ {
			if got[i].p.Progress <= got[i-1].p.Progress {
				t.Errorf("progress went from %v to %v", got[i-1].p.Progress, got[i].p.Progress)
			}
			if d := got[i].at - got[i-1].at; d < MinInterval {
				t.Errorf("notifications %s apart, want at least %s", d, MinInterval)
			}
		}
		if last := got[len(got)-1].p; last.Progress != 1000*10<<10 || last.Message != "9.8 MiB of 10.0 MiB" {
			t.Errorf("last = %+v, want the last forward report", last)
		}
	})
}

func TestOwnReportsStopTheHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{start: time.Now()}
		r := Start(t.Context(), "t", rec.send)
		r.Items(0, 3, "events")
		time.Sleep(1500 * time.Millisecond)
		r.Items(1, 3, "events")
		time.Sleep(4 * time.Second)
		r.Phase(2, 3, "waiting") // moves on: 2 > 1
		synctest.Wait()
		r.Close()
		var msgs []string
		for _, s := range rec.all() {
			msgs = append(msgs, s.p.Message)
		}
		want := []string{"0 of 3 events", "1 of 3 events", "waiting (step 2 of 3)"}
		if len(msgs) != len(want) {
			t.Fatalf("messages %q, want %q (no heartbeat once the tool reports)", msgs, want)
		}
		for i := range want {
			if msgs[i] != want[i] {
				t.Errorf("message %d = %q, want %q", i, msgs[i], want[i])
			}
		}
	})
}

// TestReportsAfterHeartbeats: a tool that first reports after heartbeats went out (its work
// started late, behind a slow setup) has its units counted on from the last heartbeat, so
// that progress still only increases and none of its reports is dropped.
func TestReportsAfterHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{start: time.Now()}
		r := Start(t.Context(), "t", rec.send)
		time.Sleep(3500 * time.Millisecond) // heartbeats at 1 s and 3 s
		r.Phase(1, 3, "loading")
		time.Sleep(time.Second)
		r.Phase(2, 3, "settling")
		synctest.Wait()
		r.Close()
		var got []string
		for _, s := range rec.all() {
			got = append(got, fmt.Sprintf("%g/%g %s", s.p.Progress, s.p.Total, s.p.Message))
		}
		want := []string{"1/0 running for 1s", "3/0 running for 3s", "4/6 loading (step 1 of 3)", "5/6 settling (step 2 of 3)"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("notifications %q, want %q", got, want)
		}
	})
}

// TestReader: bytes read through Reader are reported as a transfer, rate-limited.
func TestReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{start: time.Now()}
		r := Start(t.Context(), "t", rec.send)
		in := Reader(strings.NewReader(strings.Repeat("x", 3000)), r, 3000)
		buf := make([]byte, 1000)
		for range 3 {
			if _, err := in.Read(buf); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
		}
		synctest.Wait()
		r.Close()
		var got []string
		for _, s := range rec.all() {
			got = append(got, fmt.Sprintf("%g/%g %s", s.p.Progress, s.p.Total, s.p.Message))
		}
		want := []string{"1000/3000 1000 B of 2.9 KiB", "2000/3000 2.0 KiB of 2.9 KiB", "3000/3000 2.9 KiB of 2.9 KiB"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("notifications %q, want %q", got, want)
		}
		if plain := strings.NewReader(""); Reader(plain, nil, 0) != io.Reader(plain) {
			t.Error("Reader without a reporter wraps its reader")
		}
	})
}

func TestNilReporter(t *testing.T) {
	r := From(context.Background())
	if r != nil {
		t.Fatalf("From without a reporter = %v, want nil", r)
	}
	// None of these may panic.
	r.Report(1, 2, "x")
	r.Bytes(1, 2)
	r.Items(1, 2, "x")
	r.Phase(1, 2, "x")
	r.Status(func() string { return "" })
	r.Close()
}

func TestSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {3 << 20, "3.0 MiB"}, {5 << 30, "5.0 GiB"}, {1 << 50, "1.0 PiB"}} {
		if got := Size(tt.n); got != tt.want {
			t.Errorf("Size(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
