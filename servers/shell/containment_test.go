package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/servers/shell/runner/runnertest"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modes lists the --containment values this machine can run: cgroup needs a writable cgroup
// v2 tree (root here, systemd delegation in production).
func modes(t *testing.T) []string {
	t.Helper()
	out := []string{"subreaper"}
	r, err := runner.New("cgroup")
	if mcptest.Want(t, "cgroup containment (a writable cgroup v2 hierarchy)", err) {
		r.Close()
		out = append(out, "cgroup")
	}
	return out
}

// Timeout and grace the tests allow: the call must return within the command's timeout plus
// the kill wait and output drain (1.5 s), plus HTTP and scheduling slack on a busy machine.
const (
	testTimeout = time.Second
	returnBound = testTimeout + 3*time.Second
)

func TestRunCommandEscapesDoNotOutliveTheCall(t *testing.T) {
	for _, mode := range modes(t) {
		_, cs, _ := start(t, "--containment", mode)
		var env getEnvironmentOutput
		mcptest.Decode(t, mcptest.Call(t, cs, "get_environment", map[string]any{}), &env)
		if env.Containment != mode {
			t.Errorf("%s: get_environment says containment %q", mode, env.Containment)
		}
		for _, e := range runnertest.Escapes {
			for _, timesOut := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/timeout=%v", mode, e.Name, timesOut), func(t *testing.T) {
					marker := runnertest.NewMarker(t)
					line := strings.ReplaceAll(e.Line, "%s", marker) + "\necho started"
					if timesOut {
						line += "\nsleep " + marker
					}
					began := time.Now()
					out := run(t, cs, map[string]any{"command": line, "timeout_seconds": testTimeout.Seconds()})
					took := time.Since(began)
					if out.TimedOut != timesOut || !strings.Contains(out.Stdout, "started") {
						t.Errorf("timed_out %v, stdout %q, stderr %q", out.TimedOut, out.Stdout, out.Stderr)
					}
					bound := returnBound
					if !timesOut {
						bound -= testTimeout
					}
					if took > bound {
						t.Errorf("returned after %s; a descendant holding the pipe must not hold the call past %s", took, bound)
					}
					if len(out.Survivors) > 0 || out.Note != "" {
						t.Errorf("survivors %v note %q", out.Survivors, out.Note)
					}
					if left := runnertest.Marked(marker); len(left) > 0 {
						t.Errorf("processes outlived run_command: %v", left)
						for _, f := range left {
							st, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "stat"))
							cl, _ := os.ReadFile(f)
							env, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "environ"))
							t.Logf("survivor: stat %s cmdline %q environ %q", st, cl, env)
						}
					}
					t.Logf("returned after %s", took.Round(time.Millisecond))
				})
			}
		}
	}
}

func TestStopProcessKillsEscapedDescendants(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			_, cs, _ := start(t, "--containment", mode)
			marker := runnertest.NewMarker(t)
			var started processOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "start_process", map[string]any{
				"command":  fmt.Sprintf("setsid sleep %s & (setsid bash -c 'sleep %s & sleep %s' &); echo up; sleep %s", marker, marker, marker, marker),
				"wait_for": "up",
			}), &started)
			deadline := time.Now().Add(5 * time.Second)
			// bash, the setsid sleep, the inner bash and its two sleeps, the last sleep.
			for len(runnertest.Marked(marker)) < 5 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := len(runnertest.Marked(marker)); n < 5 {
				t.Fatalf("%d marked processes, want at least 5", n)
			}
			var stopped processOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "stop_process", map[string]any{"handle": started.Process.Handle, "grace_seconds": 1}), &stopped)
			if stopped.Process.State != "exited" || len(stopped.Process.Survivors) > 0 {
				t.Errorf("state %s survivors %v", stopped.Process.State, stopped.Process.Survivors)
			}
			if left := runnertest.Marked(marker); len(left) > 0 {
				t.Errorf("escaped descendants outlived stop_process: %v", left)
			}
		})
	}
}

func TestProcessesAreTheCallersOwn(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("alice:0123456789abcdef0123456789abcdef\nbob:fedcba9876543210fedcba9876543210\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := mcptest.Start(t, spec(), "--state-dir", t.TempDir(), "--auth-tokens-file", tokens)
	alice := h.Connect(t, "0123456789abcdef0123456789abcdef")
	bob := h.Connect(t, "fedcba9876543210fedcba9876543210")
	marker := runnertest.NewMarker(t)
	var started processOutput
	mcptest.Decode(t, mcptest.Call(t, alice, "start_process", map[string]any{"command": "cat; sleep " + marker}), &started)
	handle := started.Process.Handle

	var list listProcessesOutput
	mcptest.Decode(t, mcptest.Call(t, bob, "list_processes", map[string]any{}), &list)
	if len(list.Processes) != 0 {
		t.Errorf("bob lists alice's processes: %+v", list.Processes)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_process_output", map[string]any{}},
		{"send_process_input", map[string]any{"input": "x\n"}},
		{"stop_process", map[string]any{"signal": "KILL"}},
	}
	for _, c := range calls {
		c.args["handle"] = handle
		got := mcptest.CallError(t, bob, c.tool, c.args)
		c.args["handle"] = "proc-00000000"
		unknown := mcptest.CallError(t, bob, c.tool, c.args)
		if strings.ReplaceAll(got, handle, "proc-00000000") != unknown {
			t.Errorf("%s: another caller's handle answers %q, an unknown one %q", c.tool, got, unknown)
		}
	}
	mcptest.Decode(t, mcptest.Call(t, alice, "list_processes", map[string]any{}), &list)
	if len(list.Processes) != 1 || list.Processes[0].State != "running" || list.Processes[0].Owner != "alice" {
		t.Fatalf("alice's list after bob's attempts: %+v", list.Processes)
	}
	mcptest.Decode(t, mcptest.Call(t, alice, "send_process_input", map[string]any{"handle": handle, "input": "hi\n", "wait_seconds": 5}), &started)
	if started.Output != "hi\n" {
		t.Errorf("alice's own input: %q", started.Output)
	}
}

func TestTimedOutCallFreesItsSlot(t *testing.T) {
	_, cs, _ := start(t, "--max-concurrent", "1")
	marker := runnertest.NewMarker(t)
	first := make(chan time.Duration, 1)
	began := time.Now()
	go func() {
		_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{
			"command": fmt.Sprintf("setsid sleep %s &\nsleep %s", marker, marker), "timeout_seconds": testTimeout.Seconds(),
		}})
		first <- time.Since(began)
	}()
	time.Sleep(200 * time.Millisecond) // the first call holds the only slot
	out := run(t, cs, map[string]any{"command": "echo next"})
	second := time.Since(began)
	took := <-first
	if out.Stdout != "next\n" {
		t.Errorf("second call: %+v", out)
	}
	if took > returnBound || second > returnBound {
		t.Errorf("first call returned after %s, the waiting one after %s; want both within %s", took, second, returnBound)
	}
	t.Logf("timed-out call returned after %s; the call waiting for its slot after %s", took, second)
}

func TestStopProcessSignalsEscapedDescendantsFirst(t *testing.T) {
	for _, mode := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			_, cs, _ := start(t, "--containment", mode)
			marker := runnertest.NewMarker(t)
			var started processOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "start_process", map[string]any{
				"command":  fmt.Sprintf(`setsid bash -c 'trap "echo escaped got TERM; exit 0" TERM; echo ready; sleep %s & wait' & sleep %s`, marker, marker),
				"wait_for": "ready",
			}), &started)
			var stopped processOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "stop_process", map[string]any{"handle": started.Process.Handle, "grace_seconds": 2}), &stopped)
			var page processOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "read_process_output", map[string]any{"handle": started.Process.Handle}), &page)
			if !strings.Contains(page.Output, "escaped got TERM") {
				t.Errorf("the escaped descendant did not get the stop signal before KILL: output %q", page.Output)
			}
			if left := runnertest.Marked(marker); len(left) > 0 {
				t.Errorf("processes outlived stop_process: %v", left)
			}
		})
	}
}

// TestCgroupEscapesByMovingAreRefused: a command cannot leave its cgroup by writing to the
// cgroup tree, not even with --policy off (no write guard): Landlock withholds the tree from
// commands under cgroup containment. Without Landlock the moves succeed and the runner's sweep
// kills the movers (runner.TestEscapesByMovingAreKilled).
func TestCgroupEscapesByMovingAreRefused(t *testing.T) {
	r, err := runner.New("cgroup")
	mcptest.Require(t, "cgroup containment (a writable cgroup v2 hierarchy)", err)
	r.Close()
	mcptest.Require(t, "Landlock", sandbox.Available())
	_, cs, _ := start(t, "--containment", "cgroup", "--policy", "off")
	// $PPID is the server; the command's cgroup is .../shell-jobs-…/JOB.
	const locate = `mnt=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
own=$mnt$(sed -n 's/^0:://p' /proc/self/cgroup)
jobs=$(dirname "$own")
base=$(dirname "$jobs")
`
	for _, tc := range []struct{ name, move string }{
		{"into the server's cgroup", `echo $! > "$base/shell-server-$PPID/cgroup.procs"`},
		{"into a cgroup it made beside the command cgroups", `mkdir "$base/mine" && echo $! > "$base/mine/cgroup.procs"`},
		{"into a cgroup it made beside its own", `mkdir "$jobs/mine" && echo $! > "$jobs/mine/cgroup.procs"`},
		{"into a cgroup it made below its own", `mkdir "$own/below" && echo $! > "$own/below/cgroup.procs"`},
		{"into the cgroup above", `echo $! > "$base/cgroup.procs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := runnertest.NewMarker(t)
			line := locate + "setsid sleep " + marker + " >/dev/null 2>&1 &\n" + tc.move + " && echo moved"
			out := run(t, cs, map[string]any{"command": line, "timeout_seconds": 10})
			if strings.Contains(out.Stdout, "moved") || !strings.Contains(out.Stderr, "Permission denied") {
				t.Errorf("the kernel did not refuse the move: %+v", out)
			}
			if left := runnertest.Marked(marker); len(left) > 0 || len(out.Survivors) > 0 {
				t.Errorf("a process outlived its command: %v (survivors %v)", left, out.Survivors)
			}
		})
	}
	var env getEnvironmentOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "get_environment", map[string]any{}), &env)
	if env.Enforcement != "landlock-cgroup-guard" {
		t.Errorf("get_environment reports enforcement %q, want landlock-cgroup-guard", env.Enforcement)
	}
}
