package runner

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"hello"}, "hello"},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd"},
		{"cut in one write", 4, []string{"abcdefgh"}, "ab\n[… 4 bytes cut …]\ngh"},
		{"cut over many writes", 4, []string{"a", "b", "c", "d", "e", "f"}, "ab\n[… 2 bytes cut …]\nef"},
		{"utf-8 boundary", 6, []string{"ééééééé"}, "é\n[… 10 bytes cut …]\né"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCapture(tt.limit)
			for _, w := range tt.writes {
				if _, err := c.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRing(t *testing.T) {
	r := NewRing(8)
	for _, w := range []string{"0123", "4567", "89"} {
		_, _ = r.Write([]byte(w))
	}
	tests := []struct {
		offset    int64
		limit     int
		want      string
		wantStart int64
	}{
		{0, 100, "23456789", 2},
		{4, 3, "456", 4},
		{9, 100, "9", 9},
		{10, 100, "", 10},
		{50, 100, "", 10},
	}
	for _, tt := range tests {
		got, start := r.Read(tt.offset, tt.limit)
		if string(got) != tt.want || start != tt.wantStart {
			t.Errorf("Read(%d, %d) = %q at %d, want %q at %d", tt.offset, tt.limit, got, start, tt.want, tt.wantStart)
		}
	}
	if got, start := r.Tail(3); string(got) != "789" || start != 7 {
		t.Errorf("Tail(3) = %q at %d", got, start)
	}
}

func TestEnvironment(t *testing.T) {
	e := NewEnvironment("/usr/bin:relative::/bin:/usr/bin", "/home/u", "u", "")
	if got := e.Get("PATH"); got != "/usr/bin:/bin" {
		t.Errorf("PATH %q", got)
	}
	env, err := e.With(map[string]string{"FOO": "1", "HOME": "/tmp/h"})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(env, "\n")
	if !strings.Contains(joined, "FOO=1") || !strings.Contains(joined, "HOME=/tmp/h") || strings.Contains(joined, "HOME=/home/u") {
		t.Errorf("env %q", env)
	}
	for _, bad := range []string{"PATH", "LD_PRELOAD", "BASH_ENV", "ENV", "IFS", "PROMPT_COMMAND", "1X", "A B", ""} {
		if _, err := e.With(map[string]string{bad: "x"}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRunStreamsBoundedOutput(t *testing.T) {
	out, errOut := NewCapture(1024), NewCapture(1024)
	res, err := Run(context.Background(), Spec{Line: "head -c 10000000 /dev/zero; echo oops >&2; exit 7", Dir: t.TempDir()}, out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 7 || out.Total() != 10000000 || len(out.String()) > 1100 || errOut.String() != "oops\n" {
		t.Errorf("exit %d, total %d, kept %d, stderr %q", res.ExitCode, out.Total(), len(out.String()), errOut.String())
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	res, err := Run(ctx, Spec{Line: "sleep 30 & sleep 30", Dir: t.TempDir()}, NewCapture(64), NewCapture(64))
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "killed" || time.Since(began) > 10*time.Second {
		t.Errorf("signal %q after %s", res.Signal, time.Since(began))
	}
}
