package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		os.Exit(Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// confined runs line with bash -c under r and returns its combined output and exit status.
func confined(t *testing.T, r Rules, dir, line string) (string, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := Command(self, []string{"/bin/bash", "-c", line})
	if err != nil {
		t.Fatal(err)
	}
	rules, err := r.File()
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Close()
	cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{rules}
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	return out.String(), cmd.ProcessState.ExitCode()
}

func need(t *testing.T) {
	t.Helper()
	mcptest.Require(t, "Landlock", Available())
}

func TestStrict(t *testing.T) {
	need(t)
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ls, _ := exec.LookPath("ls")
	cat, _ := exec.LookPath("cat")
	r, err := StrictRules(t.Context(), "/bin/bash", []string{ls, cat}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := exec.LookPath("id")
	idReal, _ := filepath.EvalSymlinks(id)
	loader, err := elfInterpreter(idReal)
	if err != nil || loader == "" {
		t.Fatalf("loader of %s: %q %v", idReal, loader, err)
	}
	tests := []struct {
		name, line string
		code       int    // -1: any failure
		out        string // a substring of the output
	}{
		{"allowed program reads the root", "ls; cat in.txt", 0, "inside"},
		{"write inside the root", "echo hi > new.txt && cat new.txt", 0, "hi"},
		{"unlisted program", "id", -1, "Permission denied"},
		{"unlisted program by path", idReal, -1, "Permission denied"},
		{"loader route", loader + " " + idReal, -1, "Permission denied"},
		{"substitution in a default word", `echo "${x:-'$(id)'}"`, 0, "''"},
		{"write outside", "echo x > " + filepath.Join(outside, "f"), -1, "Permission denied"},
		{"write a system path", "echo x >> /etc/hostname", -1, "Permission denied"},
		{"read outside", "cat " + filepath.Join(outside, "x") + " /usr/bin/id >/dev/null", -1, "Permission denied"},
		{"devices", "echo x > /dev/null; echo ok", 0, "ok"},
	}
	if v, _ := ABI(); v >= 6 {
		tests = append(tests, struct {
			name, line string
			code       int
			out        string
		}{"signal a process outside", "sleep 5 & kill $!; kill -0 $PPID", -1, "Operation not permitted"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := confined(t, r, root, tt.line)
			if tt.code >= 0 && code != tt.code || tt.code < 0 && code == 0 {
				t.Errorf("exit %d, want %d; output %q", code, tt.code, out)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("output %q lacks %q", out, tt.out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a file was written outside the root")
	}
}

func TestWriteGuard(t *testing.T) {
	need(t)
	root, outside := t.TempDir(), t.TempDir()
	r := Rules{Write: []string{root, "/dev/null"}}
	out, code := confined(t, r, root, "id -u >/dev/null && echo a > a && cat a && echo b > "+filepath.Join(outside, "b"))
	if code == 0 || !strings.Contains(out, "a\n") || !strings.Contains(out, "Permission denied") {
		t.Errorf("exit %d, output %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(outside, "b")); err == nil {
		t.Error("the guard let a write outside through")
	}
}

func TestHelperRefusesBadRules(t *testing.T) {
	need(t)
	out, code := confined(t, Rules{Strict: true, Execute: []string{"/nonexistent/bash"}}, t.TempDir(), "echo ran")
	if code != ExitSetup || strings.Contains(out, "ran") || !strings.Contains(out, "was not run") {
		t.Errorf("exit %d, output %q", code, out)
	}
}

// TestHelperDescriptors gives the helper, besides its rules on descriptor 3, a descriptor
// open for writing on a file outside the write guard's paths: Landlock does not check an
// open descriptor, so only closing it keeps the command from writing there.
func TestHelperDescriptors(t *testing.T) {
	need(t)
	root := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	w, err := os.OpenFile(victim, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := Rules{Write: []string{root, "/dev/null"}}.File()
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Close()
	argv, err := Command(self, []string{"/bin/bash", "-c", "echo x >&3; echo x >&4; ls /proc/$$/fd | tr '\\n' ' '"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
	cmd.ExtraFiles = []*os.File{rules, w}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if got := strings.TrimSpace(stdout.String()); got != "0 1 2" || strings.Count(stderr.String(), "Bad file descriptor") != 2 {
		t.Errorf("descriptors %q, stderr %q; want 0 1 2 and both writes refused", got, stderr.String())
	}
	if b, _ := os.ReadFile(victim); len(b) != 0 {
		t.Errorf("the command wrote %q through an inherited descriptor", b)
	}
}

// TestLargeRules passes rules of over 128 KiB, the most one argument may hold: they reach
// the helper on its descriptor, so the command still runs.
func TestLargeRules(t *testing.T) {
	need(t)
	root := t.TempDir()
	r := Rules{Write: []string{root, "/dev/null"}}
	for i := 0; len(r.Read) < 4000; i++ {
		r.Read = append(r.Read, filepath.Join(root, "missing", strings.Repeat("x", 40), strconv.Itoa(i)))
	}
	if b, _ := json.Marshal(r); len(b) <= 128<<10 {
		t.Fatalf("the rules are %d bytes; the test needs more than 128 KiB", len(b))
	}
	out, code := confined(t, r, root, "echo ran")
	if code != 0 || out != "ran\n" {
		t.Errorf("exit %d, output %q", code, out)
	}
}

// TestCheck runs the helper's check mode, which the server runs at start: rules the kernel
// can apply pass, rules it cannot fail with the reason.
func TestCheck(t *testing.T) {
	need(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rules Rules
		want  string // "" means it passes
	}{
		{Rules{Write: []string{t.TempDir()}}, ""},
		{Rules{Strict: true, Execute: []string{"/bin/bash"}}, ""},
		{Rules{Strict: true, Execute: []string{"/nonexistent/bash"}}, "cannot apply its rules: rule path: stat /nonexistent/bash"},
	}
	for _, tt := range tests {
		f, err := tt.rules.File()
		if err != nil {
			t.Fatal(err)
		}
		err = Check(t.Context(), self, f)
		f.Close()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Check(%+v) = %v, want %q", tt.rules, err, tt.want)
		}
	}
}

// TestRulesFileSealed checks that nothing can change the rules once made.
func TestRulesFileSealed(t *testing.T) {
	f, err := Rules{Write: []string{"/tmp"}}.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("{}"), 0); err == nil {
		t.Error("the rules could be rewritten")
	}
	if err := f.Truncate(0); err == nil {
		t.Error("the rules could be truncated")
	}
}

func TestPrograms(t *testing.T) {
	exe, libs, err := Programs(t.Context(), "/bin/bash")
	if err != nil {
		t.Fatal(err)
	}
	if len(exe) != 2 || len(libs) == 0 {
		t.Errorf("bash: execute %v, read %v; want bash and its loader, and its libraries", exe, libs)
	}
	for _, l := range libs {
		if strings.Contains(filepath.Base(l), "ld-linux") {
			t.Errorf("the loader %s is in the read list, want it only in execute", l)
		}
	}
	if _, _, err := Programs(t.Context(), "/etc/hostname"); err == nil {
		t.Error("a non-executable file was accepted")
	}
}
