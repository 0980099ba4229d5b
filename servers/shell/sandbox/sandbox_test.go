package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
	argv, err := r.Command(self, []string{"/bin/bash", "-c", line})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
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
