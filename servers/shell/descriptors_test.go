package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveEnv makes this test binary serve as the shell server (TestMain), so a test can start
// the real server process with descriptors of its own choosing.
const serveEnv = "MCP_SHELL_TEST_SERVE"

// TestInheritedDescriptors starts the server as its own process, as a parent that forgot
// descriptors would: file descriptors 3 to 7 open for writing on a file no command may
// write, 8 open for reading on a secret. A command then writes to every one of them, reads
// the secret and lists its own descriptors, in each way the server runs commands: through
// the sandbox helper (the blocklist's write guard, whose Landlock rules do not cover an
// already-open descriptor; the cgroup guard) and straight through bash (under systemd, and
// with --policy off, where no cgroup guard is set).
func TestInheritedDescriptors(t *testing.T) {
	modes := []struct {
		name string
		args []string
		env  []string
		want string // get_environment's enforcement
	}{
		{"sandbox helper", nil, nil, "landlock-write-guard"},
		{"bash under systemd", []string{"--containment", "subreaper"}, []string{"INVOCATION_ID=0123456789abcdef"}, "none"},
		{"policy off", []string{"--policy", "off", "--containment", "subreaper"}, nil, "none"},
		{"policy off, cgroup guard", []string{"--policy", "off"}, nil, ""}, // the helper when cgroups are withheld, else bash
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if m.want == "landlock-write-guard" {
				if err := sandbox.Available(); err != nil {
					t.Skipf("Landlock: %v", err)
				}
			}
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			secret := filepath.Join(dir, "secret")
			if err := os.WriteFile(secret, []byte("inherited-secret"), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := os.OpenFile(victim, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			r, err := os.Open(secret)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			work := filepath.Join(dir, "work")
			if err := os.Mkdir(work, 0o700); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], append([]string{"--transport", "stdio", "--state-dir", filepath.Join(dir, "state"), "--work-dir", work}, m.args...)...)
			cmd.Env = append(append(os.Environ(), serveEnv+"=1"), m.env...)
			cmd.ExtraFiles = []*os.File{w, w, w, w, w, r} // 3-7 and 8
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("start the server: %v\n%s", err, stderr.String())
			}
			defer cs.Close()
			var env getEnvironmentOutput
			mcptest.Decode(t, mcptest.Call(t, cs, "get_environment", map[string]any{}), &env)
			if m.want != "" && env.Enforcement != m.want {
				t.Fatalf("enforcement %q (%s), want %q", env.Enforcement, env.EnforceNote, m.want)
			}
			line := "echo x >&3; echo x >&4; echo x >&5; echo x >&6; echo x >&7; echo x >&9; cat <&8; ls /proc/$$/fd | tr '\\n' ' '"
			out := run(t, cs, map[string]any{"command": line})
			if got := strings.TrimSpace(out.Stdout); got != "0 1 2" {
				t.Errorf("the command's descriptors: %q, want 0 1 2 (stderr %q)", got, out.Stderr)
			}
			if n := strings.Count(out.Stderr, "Bad file descriptor"); n != 7 {
				t.Errorf("%d of 7 redirections failed as they should: %q", n, out.Stderr)
			}
			if strings.Contains(out.Stdout+out.Stderr, "inherited-secret") {
				t.Error("the command read the secret through an inherited descriptor")
			}
			started := mcptest.Call(t, cs, "start_process", map[string]any{"command": "echo x >&3; echo x >&7", "wait_seconds": 1})
			if text := mcptest.Text(started); !strings.Contains(text, "Bad file descriptor") {
				t.Errorf("start_process: %s", text)
			}
			if b, err := os.ReadFile(victim); err != nil || len(b) != 0 {
				t.Errorf("a command wrote to an inherited descriptor: %q %v", b, err)
			}
		})
	}
}
