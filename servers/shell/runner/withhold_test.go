package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/runner/runnertest"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestWithhold(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b/c", "a/d", "e"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(dir, filepath.Join(dir, "a/link")); err != nil {
		t.Fatal(err)
	}
	got, err := withhold([]string{dir, filepath.Join(dir, "a/b/c/x"), "/nonexistent"}, []string{filepath.Join(dir, "a/b/c")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a/d"), filepath.Join(dir, "e"), "/nonexistent"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("withhold = %v, want %v (a/b/c and what is inside it left out, a/link not followed)", got, want)
	}
}

// TestCgroupsWithheld: under cgroup containment a sandboxed command cannot make a cgroup or
// move itself into another one, whatever the rules grant (here all of /), and still runs.
func TestCgroupsWithheld(t *testing.T) {
	r, err := New(string(ModeCgroup))
	mcptest.Require(t, "a writable cgroup v2 hierarchy", err)
	defer r.Close()
	mcptest.Require(t, "Landlock", sandbox.Available())
	if err := r.WithholdCgroups(t.Context(), selfExe(t)); err != nil {
		t.Fatal(err)
	}
	if !r.CgroupsWithheld() {
		t.Fatal("CgroupsWithheld is false after WithholdCgroups")
	}
	base := filepath.Dir(r.cg.jobsDir)
	line := `own=` + r.cg.jobsDir + `/$MCP_SHELL_JOB
mkdir "` + base + `/escape-$$" && echo made
echo $$ > "` + base + `/cgroup.procs" && echo moved-base
echo $$ > "` + r.cg.serverDir + `/cgroup.procs" && echo moved-server
mkdir "$own/below" && echo made-below
echo $$ > "$own/cgroup.procs" && echo own
touch ` + t.TempDir() + `/x && echo wrote`
	out, errOut := NewCapture(4096), NewCapture(4096)
	res, err := r.Run(context.Background(), Spec{Line: line, Dir: t.TempDir()}, out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"made", "moved-base", "moved-server", "made-below", "own"} {
		if slices.Contains(strings.Fields(out.String()), bad) {
			t.Errorf("the command could %s in the cgroup tree: stdout %q, stderr %q", bad, out.String(), errOut.String())
		}
	}
	if !strings.Contains(out.String(), "wrote") || !strings.Contains(errOut.String(), "Permission denied") {
		t.Errorf("exit %d, stdout %q, stderr %q: want writes elsewhere to work and the cgroup tree to be refused", res.ExitCode, out.String(), errOut.String())
	}
	_ = os.Remove(filepath.Join(base, "escape-"+strconv.Itoa(os.Getpid())))
}

// TestSweepForeign: in a service's own cgroup, a process that moved into a cgroup the runner
// did not make, or into the service's cgroup itself, is killed and that cgroup removed; the
// server's leaf and the command cgroups are left to the rest of the sweep.
func TestSweepForeign(t *testing.T) {
	r, err := New(string(ModeCgroup))
	mcptest.Require(t, "a writable cgroup v2 hierarchy", err)
	defer r.Close()
	// A delegated subtree of the test's own, laid out as under systemd: base, the server's leaf,
	// the command cgroups' parent, and what a command made.
	base := filepath.Join(filepath.Dir(r.cg.jobsDir), "sweep-test-"+randomID())
	tree := &cgroupTree{base: base, serverDir: filepath.Join(base, "shell-server-1"), jobsDir: filepath.Join(base, "shell-jobs-1-x"), ownsBase: true}
	for _, d := range []string{base, tree.serverDir, filepath.Join(tree.jobsDir, "live"), filepath.Join(base, "escape", "deeper")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = removeCgroup(base) })
	marker := runnertest.NewMarker(t)
	place := func(dir string) int {
		cmd := exec.Command("sleep", marker)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = cmd.Wait() }()
		if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(cmd.Process.Pid)); err != nil {
			t.Fatal(err)
		}
		return cmd.Process.Pid
	}
	escaped, deeper, inBase := place(filepath.Join(base, "escape")), place(filepath.Join(base, "escape", "deeper")), place(base)
	kept := []int{place(tree.serverDir), place(filepath.Join(tree.jobsDir, "live"))}

	if left := tree.sweepForeign(os.Getpid()); len(left) == 0 {
		t.Errorf("sweepForeign reported nothing it killed")
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range []int{escaped, deeper, inBase} {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("pid %d, which left its command's cgroup, survived the sweep", pid)
		}
	}
	for _, pid := range kept {
		if !alive(pid) {
			t.Errorf("pid %d in the server's leaf or a command cgroup was killed by the foreign sweep", pid)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "escape")); err == nil {
		t.Errorf("the cgroup a command made was not removed")
	}
}

// selfExe is the test binary, which runs the sandbox helper (TestMain).
func selfExe(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEscapesByMovingAreKilled: where no sandbox withholds the cgroup tree (a kernel without
// Landlock), a command may move a process out of its cgroup; the kill then finds it in the
// server's cgroup, or in a cgroup the command made beside or below its own.
func TestEscapesByMovingAreKilled(t *testing.T) {
	r, err := New(string(ModeCgroup))
	mcptest.Require(t, "a writable cgroup v2 hierarchy", err)
	defer r.Close()
	jobs, server := r.cg.jobsDir, r.cg.serverDir
	for _, tc := range []struct{ name, move string }{
		{"into the server's cgroup", `echo $! > "` + server + `/cgroup.procs"`},
		{"into a cgroup it made beside its own", `mkdir "` + jobs + `/mine-$$" && echo $! > "` + jobs + `/mine-$$/cgroup.procs"`},
		{"into a cgroup it made below its own", `own=` + jobs + `/$MCP_SHELL_JOB; mkdir "$own/below" && echo $! > "$own/below/cgroup.procs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := runnertest.NewMarker(t)
			line := "setsid sleep " + marker + " >/dev/null 2>&1 &\n" + tc.move + " && echo moved"
			out := NewCapture(1024)
			res, err := r.Run(context.Background(), Spec{Line: line, Dir: t.TempDir()}, out, NewCapture(1024))
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != "moved\n" {
				t.Fatalf("the move failed, so this test proves nothing: %q", out.String())
			}
			if left := runnertest.Marked(marker); len(left) > 0 || len(res.Survivors) > 0 {
				t.Errorf("a process that moved itself out of its cgroup survived: %v (survivors %v)", left, res.Survivors)
			}
		})
	}
}
