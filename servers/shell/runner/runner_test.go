package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner/runnertest"
	"github.com/jck411/mcp-servers/shared/mcptest"
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

// runners returns a runner for each containment mode this machine offers; cgroup needs a
// writable cgroup v2 hierarchy (root, or systemd delegation).
func runners(t *testing.T) map[Mode]*Runner {
	t.Helper()
	out := map[Mode]*Runner{}
	for _, m := range []Mode{ModeCgroup, ModeSubreaper} {
		r, err := New(string(m))
		if !mcptest.Want(t, string(m)+" containment", err) {
			continue
		}
		t.Cleanup(r.Close)
		out[m] = r
	}
	if len(out) == 0 {
		t.Fatal("no containment mode available")
	}
	return out
}

func TestNewRefusesUnknownMode(t *testing.T) {
	if _, err := New("chroot"); err == nil || !strings.Contains(err.Error(), "auto, cgroup or subreaper") {
		t.Errorf("got %v", err)
	}
}

func TestEscapesAreKilled(t *testing.T) {
	for mode, r := range runners(t) {
		for _, e := range runnertest.Escapes {
			for _, timeout := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/timeout=%v", mode, e.Name, timeout), func(t *testing.T) {
					marker := runnertest.NewMarker(t)
					line := strings.ReplaceAll(e.Line, "%s", marker) + "\necho started"
					if timeout {
						line += "\nsleep " + marker
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Second)
					defer cancel()
					began := time.Now()
					out := NewCapture(1024)
					res, err := r.Run(ctx, Spec{Line: line, Dir: t.TempDir()}, out, NewCapture(1024))
					took := time.Since(began)
					if err != nil {
						t.Fatal(err)
					}
					if limit := time.Second + killWait + drainWait; took > limit {
						t.Errorf("returned after %s, more than %s", took, limit)
					}
					if !strings.Contains(out.String(), "started") || len(res.Survivors) > 0 {
						t.Errorf("output %q, survivors %v", out.String(), res.Survivors)
					}
					if left := runnertest.Marked(marker); len(left) > 0 {
						t.Errorf("processes survived: %v", left)
					}
				})
			}
		}
	}
}

func TestKillReachesEscapedBackgroundDescendants(t *testing.T) {
	for mode, r := range runners(t) {
		t.Run(string(mode), func(t *testing.T) {
			marker := runnertest.NewMarker(t)
			p, err := r.Start(Spec{Line: fmt.Sprintf("setsid sleep %s & (sleep %s &); echo up; sleep %s", marker, marker, marker), Dir: t.TempDir()}, NewRing(1024))
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(runnertest.Marked(marker)) < 3 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := len(runnertest.Marked(marker)); n != 3 { // three sleeps (bash execs the last one)
				t.Fatalf("%d marked processes running, want 3", n)
			}
			p.Kill()
			select {
			case <-p.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("not done 5 s after Kill")
			}
			if left := runnertest.Marked(marker); len(left) > 0 || len(p.Result().Survivors) > 0 {
				t.Errorf("survivors %v, still running %v", p.Result().Survivors, left)
			}
		})
	}
}

func TestRunStreamsBoundedOutput(t *testing.T) {
	r, err := New("auto")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, errOut := NewCapture(1024), NewCapture(1024)
	res, err := r.Run(context.Background(), Spec{Line: "head -c 10000000 /dev/zero; echo oops >&2; exit 7", Dir: t.TempDir()}, out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 7 || out.Total() != 10000000 || len(out.String()) > 1100 || errOut.String() != "oops\n" {
		t.Errorf("exit %d, total %d, kept %d, stderr %q", res.ExitCode, out.Total(), len(out.String()), errOut.String())
	}
}

func TestRunCancel(t *testing.T) {
	r, err := New("auto")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	res, err := r.Run(ctx, Spec{Line: "sleep 30 & sleep 30", Dir: t.TempDir()}, NewCapture(64), NewCapture(64))
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "killed" || time.Since(began) > 10*time.Second {
		t.Errorf("signal %q after %s", res.Signal, time.Since(began))
	}
}

func TestChildrenBothWays(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for name, list := range map[string]func(int) []int{"scan": scanChildren, "task files": taskChildren} {
		if !slices.Contains(list(os.Getpid()), cmd.Process.Pid) {
			t.Errorf("%s: child %d not listed in %v", name, cmd.Process.Pid, list(os.Getpid()))
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{`/sys/fs/cgroup`: "/sys/fs/cgroup", `/a\040b`: "/a b", `/a\134b`: `/a\b`, `/x\0`: `/x\0`} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAutoFallsBackToSubreaper runs itself again in a mount namespace without the cgroup v2
// mount: auto must then choose subreaper and say why, and cgroup must be refused.
func TestAutoFallsBackToSubreaper(t *testing.T) {
	if os.Getenv("RUNNER_TEST_NO_CGROUP") == "1" {
		r, err := New("auto")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if r.Mode() != ModeSubreaper || !strings.Contains(r.Note(), "no cgroup") {
			t.Errorf("mode %s, note %q", r.Mode(), r.Note())
		}
		if _, err := New("cgroup"); err == nil {
			t.Error("cgroup containment accepted without a cgroup v2 mount")
		}
		return
	}
	mnt, _, err := cgroupMount()
	mcptest.Require(t, "a cgroup v2 hierarchy", err)
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		`grep ' - cgroup2 ' /proc/self/mountinfo | cut -d' ' -f5 | while read -r m; do umount -l "$m"; done
		exec "$0" -test.run '^TestAutoFallsBackToSubreaper$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "RUNNER_TEST_NO_CGROUP=1")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "unshare failed") {
		mcptest.Require(t, "a mount namespace (to hide the cgroup hierarchy)", fmt.Errorf("%s", out))
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestAutoFallsBackToSubreaper") {
		t.Errorf("in a namespace without %s: %v\n%s", mnt, err, out)
	}
}
