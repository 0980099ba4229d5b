package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

var sandboxAvailable = sandbox.Available

func TestSetupEnforcement(t *testing.T) {
	allow, _ := policy.New(policy.Allowlist, []string{"ls"})
	block, _ := policy.New(policy.Blocklist, nil)
	off, _ := policy.New(policy.Off, nil)
	noLandlock := func() error { return errors.New("the kernel was built without Landlock") }
	state := t.TempDir()
	tests := []struct {
		name      string
		in        enforcementInput
		mode, err string // the enforcement's mode, or a substring of the error
	}{
		{"allowlist without Landlock refuses to start", enforcementInput{policy: allow, available: noLandlock}, "", "--policy allowlist is enforced by the kernel with Landlock, and here it cannot be: the kernel was built without Landlock"},
		{"blocklist without Landlock says so", enforcementInput{policy: block, available: noLandlock}, "none", ""},
		{"blocklist under systemd leaves it to the unit", enforcementInput{policy: block, systemd: true}, "none", ""},
		{"off", enforcementInput{policy: off}, "none", ""},
		{"a root holding the state directory", enforcementInput{policy: block, roots: []string{filepath.Dir(state)}, protected: []string{state}}, "", "holds " + state},
		{"an unknown program", enforcementInput{policy: mustPolicy(t, "no-such-program-xyz"), path: "/usr/bin", available: func() error { return nil }}, "", "--allow-commands no-such-program-xyz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := runner.New("subreaper")
			mcptest.Require(t, "subreaper containment", err)
			defer run.Close()
			tt.in.self = selfExe()
			e, err := setupEnforcement(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil)), run, tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				if tt.in.policy.Mode() == policy.Allowlist && !strings.Contains(err.Error(), "blocklist") && strings.Contains(tt.err, "Landlock") {
					t.Errorf("the error does not say what to do: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			if e.mode != tt.mode || run.Sandboxed() {
				t.Errorf("mode %q, confined %v; want %q, not confined", e.mode, run.Sandboxed(), tt.mode)
			}
			if tt.mode == "none" && tt.in.policy.Mode() != policy.Off && e.note == "" {
				t.Error("no note says why commands are not confined")
			}
		})
	}
}

func mustPolicy(t *testing.T, allow ...string) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Allowlist, allow)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExcept(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".local/state/mcp-servers/shell", ".local/share", "src/repo/bin", "docs"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".bashrc", "src/repo/bin/shell", "src/repo/go.mod"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	protected := []string{filepath.Join(home, ".local/state/mcp-servers"), filepath.Join(home, "src/repo/bin/shell")}
	got, err := except(home, protected, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(home, got[i])
	}
	slices.Sort(got)
	want := []string{".bashrc", ".local/share", "docs", "src/repo/go.mod"}
	if !slices.Equal(got, want) {
		t.Errorf("writable %v, want %v", got, want)
	}
	if _, err := except(home, protected, 2); err == nil {
		t.Error("no error past the rule limit")
	}
	if got, _ := except(home, []string{"/elsewhere"}, 10); !slices.Equal(got, []string{home}) {
		t.Errorf("nothing protected inside: %v, want the home directory itself", got)
	}
}

// TestWriteGuard runs the default blocklist server outside systemd: commands write in the
// work directory and the temporary directories, not in the server's state directory, its
// token file or a system path. (The state directory is under /tmp here, so the guard grants
// /tmp entry by entry around it; mktemp uses the private TMPDIR.)
func TestWriteGuard(t *testing.T) {
	mcptest.Require(t, "Landlock", sandboxAvailable())
	t.Setenv("INVOCATION_ID", "")
	state, other := t.TempDir(), t.TempDir()
	tokens := filepath.Join(state, "tokens")
	if err := os.WriteFile(tokens, []byte("me:"+strings.Repeat("x", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := mcptest.Start(t, spec(), "--state-dir", state, "--auth-tokens-file", tokens)
	cs := h.Connect(t, strings.Repeat("x", 40))
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"echo x > f && cat f", true},
		{"echo x > " + filepath.Join(other, "f"), true},
		{`echo x > "$(mktemp)"`, true},
		{"echo x >> " + tokens, false},
		{"echo x > " + filepath.Join(state, "new"), false},
		{"rm -f " + tokens, false},
		{"echo x >> /etc/hostname", false},
		{"touch /usr/local/mcp-guard-test", false},
	} {
		out := run(t, cs, map[string]any{"command": tc.line})
		if (out.ExitCode == 0) != tc.ok {
			t.Errorf("%s: exit %d, want success %v: %s", tc.line, out.ExitCode, tc.ok, out.Stderr)
		}
	}
	msg := mcptest.CallError(t, cs, "run_command", map[string]any{"command": "(( a ))", "env": map[string]string{"a": "x[$(id)]"}})
	if !strings.Contains(msg, "evaluated-code") {
		t.Errorf("an env value shaped like a[$(cmd)]: %s", msg)
	}
	if b, err := os.ReadFile(tokens); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Errorf("the token file changed: %q %v", b, err)
	}
}

func TestAllowlistByPath(t *testing.T) {
	mcptest.Require(t, "Landlock", sandboxAvailable())
	ls, err := filepath.EvalSymlinks("/bin/ls")
	if err != nil {
		t.Fatal(err)
	}
	_, cs, _ := start(t, "--policy", "allowlist", "--allow-commands", ls+",cat")
	if out := run(t, cs, map[string]any{"command": "ls -d . && cat /dev/null"}); out.ExitCode != 0 || out.Stdout != ".\n" {
		t.Errorf("a program listed by path does not run by its name: %+v", out)
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "ls")
	if err := os.Symlink("/bin/true", other); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if code := runMain(t, []string{"--policy", "allowlist", "--allow-commands", ls + "," + other, "--state-dir", t.TempDir()}, &stderr); code != 2 || !strings.Contains(stderr.String(), "are both named ls") {
		t.Errorf("two programs named ls: exit %d, %s", code, stderr.String())
	}
}
