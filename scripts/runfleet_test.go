package scripts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fleetServers are the servers the test runs, with their fixed ports.
var fleetServers = map[string]int{"calculator": 9003, "calendar": 9004}

// TestMakeRunStops runs `make run` with two real servers and stops it the two ways a user does:
// SIGTERM to the make process alone, and SIGINT to the whole process group (Ctrl-C). Either way
// every server must exit and its shutdown line must reach the output.
func TestMakeRunStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two servers and runs make")
	}
	for _, tool := range []string{"make", "bash", "sed", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for s := range fleetServers {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, s), "./servers/"+s)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", s, err, out)
		}
	}
	tests := []struct {
		name string
		stop func(makePID int) error
	}{
		{"SIGTERM to make", func(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }},
		{"Ctrl-C to the group", func(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offset := freeOffset(t)
			var out syncBuffer
			cmd := exec.Command("make", "-s", "-o", "build", "run", "SERVERS=calculator calendar")
			cmd.Dir = root
			home := t.TempDir()
			cmd.Env = append(os.Environ(), "FLEET_BIN="+bin, fmt.Sprintf("FLEET_PORT_OFFSET=%d", offset),
				"HOME="+home, "XDG_STATE_HOME="+home, "MCP_GOOGLE_TOKEN_FILE="+filepath.Join(home, "token.json"))
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as a terminal gives it
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				for _, p := range serverPIDs(bin) {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			})

			for s, port := range fleetServers {
				waitHealthy(t, port+offset, &out, s)
			}
			if n := len(serverPIDs(bin)); n != len(fleetServers) {
				t.Fatalf("%d server processes running, want %d:\n%s", n, len(fleetServers), out.String())
			}
			if err := tt.stop(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				t.Logf("make ended: %v", err) // killed by the signal it was sent, as make is meant to be
			case <-time.After(40 * time.Second):
				t.Fatalf("make still running 40s after the signal:\n%s", out.String())
			}
			if left := serverPIDs(bin); len(left) > 0 {
				t.Errorf("servers still running after make exited: pids %v", left)
			}
			text := out.String()
			for s := range fleetServers {
				if !hasLine(text, "["+s+"] ", `"msg":"shutting down"`) {
					t.Errorf("no shutdown line from %s in the output:\n%s", s, text)
				}
			}
			if !strings.Contains(text, "fleet stopped") {
				t.Errorf("run-fleet did not finish its shutdown:\n%s", text)
			}
		})
	}
}

// freeOffset is a port offset that puts every test server on a port free right now.
func freeOffset(t *testing.T) int {
	t.Helper()
	for offset := 20000 + os.Getpid()%20000; offset < 56000; offset += 97 {
		free := true
		for _, port := range fleetServers {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+offset))
			if err != nil {
				free = false
				break
			}
			ln.Close()
		}
		if free {
			return offset
		}
	}
	t.Fatal("no free ports for the fleet")
	return 0
}

// waitHealthy waits until the server on port answers /healthz.
func waitHealthy(t *testing.T, port int, out *syncBuffer, name string) {
	t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", port)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never answered on %s:\n%s", name, url, out.String())
}

// serverPIDs lists the running processes whose executable is in dir.
func serverPIDs(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || filepath.Dir(exe) != dir {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(stat) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// isZombie reads the state field of /proc/PID/stat.
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// hasLine reports whether some line of text starts with prefix and contains want.
func hasLine(text, prefix, want string) bool {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, want) {
			return true
		}
	}
	return false
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// buildServers builds the named servers into a new folder and returns it.
func buildServers(t *testing.T, names ...string) (root, bin string) {
	t.Helper()
	for _, tool := range []string{"make", "bash", "sed", "go", "od"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin = t.TempDir()
	for _, s := range names {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, s), "./servers/"+s)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", s, err, out)
		}
	}
	return root, bin
}

// makeRun starts `make run` for servers from bin at offset, with env added, in its own process
// group; the cleanup kills whatever is left.
func makeRun(t *testing.T, root, bin string, offset int, servers string, env ...string) (*exec.Cmd, *syncBuffer, <-chan error) {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command("make", "-s", "-o", "build", "run", "SERVERS="+servers)
	cmd.Dir = root
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "FLEET_BIN="+bin, fmt.Sprintf("FLEET_PORT_OFFSET=%d", offset),
		"HOME="+home, "XDG_STATE_HOME="+home, "TMPDIR="+home)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, p := range serverPIDs(bin) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	return cmd, out, done
}

// waitExit waits for make to end and returns its exit code.
func waitExit(t *testing.T, done <-chan error, out *syncBuffer) int {
	t.Helper()
	select {
	case err := <-done:
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		t.Fatalf("make: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatalf("make still running after 60s:\n%s", out.String())
	}
	return 0
}

// TestMakeRunFailsToStart: a port already taken, or a server that exits before it answers
// /healthz, makes `make run` say which and why, print no "fleet running" banner, leave no
// server behind and exit non-zero.
func TestMakeRunFailsToStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two servers and runs make")
	}
	root, bin := buildServers(t, "calculator", "calendar")
	tests := []struct {
		name string
		env  []string
		take bool // listen on calendar's port first
		want []string
	}{
		{"port taken", nil, true, []string{"port ", "(calendar) is already in use", "FLEET_PORT_OFFSET=100 make run"}},
		{"server exits", []string{"MCP_AUTH_TOKENS_FILE=/nonexistent/tokens"}, false,
			[]string{"[calculator] calculator: auth tokens file", "run-fleet: calculator exited with status 2 before answering", "FLEET_PORT_OFFSET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offset := freeOffset(t)
			if tt.take {
				ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", fleetServers["calendar"]+offset))
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
			}
			_, out, done := makeRun(t, root, bin, offset, "calculator calendar", tt.env...)
			code := waitExit(t, done, out)
			text := out.String()
			if code == 0 {
				t.Errorf("make run exited 0:\n%s", text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "fleet running") {
				t.Errorf("banner printed although a server did not start:\n%s", text)
			}
			if left := serverPIDs(bin); len(left) > 0 {
				t.Errorf("servers still running: pids %v", left)
			}
		})
	}
}

// TestMakeRunShellToken: make run gives the shell server a fresh bearer token in a private file
// and prints it after every server answers; /mcp refuses a call without it and answers one with
// it, and the file is gone once the fleet stops.
func TestMakeRunShellToken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two servers and runs make")
	}
	root, bin := buildServers(t, "calculator", "shell")
	offset := freeOffset(t)
	cmd, out, done := makeRun(t, root, bin, offset, "calculator shell")
	shellURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", 9001+offset)
	tokenLine := regexp.MustCompile(`(?m)^  ([0-9a-f]{64})$`)
	fileLine := regexp.MustCompile(`also in (\S+/shell-auth-tokens) until`)
	deadline := time.Now().Add(30 * time.Second)
	for !tokenLine.MatchString(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no token in the banner:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	text := out.String()
	token := tokenLine.FindStringSubmatch(text)[1]
	banner := strings.Index(text, "fleet running")
	for _, s := range []string{"calculator", "shell"} {
		if i := strings.Index(text, "["+s+"] "); i < 0 || i > banner || !hasLine(text, "["+s+"] ", `"msg":"serving"`) {
			t.Errorf("%s did not log serving before the banner:\n%s", s, text)
		}
	}
	for _, w := range []string{
		`claude mcp add --transport http shell ` + shellURL + ` --header "Authorization: Bearer ` + token + `"`,
		`curl -sS ` + shellURL + ` -H "Authorization: Bearer ` + token + `"`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("banner lacks %q:\n%s", w, text)
		}
	}
	m := fileLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("banner names no token file:\n%s", text)
	}
	if fi, err := os.Stat(m[1]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: %v, mode %v; want 0600", m[1], err, fi)
	}

	for _, tc := range []struct {
		auth string
		want int
	}{{"", http.StatusUnauthorized}, {"Bearer " + strings.Repeat("0", 64), http.StatusUnauthorized}, {"Bearer " + token, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodPost, shellURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: status %d, want %d: %s", tc.auth, resp.StatusCode, tc.want, body)
		}
		if tc.want == http.StatusOK && !strings.Contains(string(body), `"run_command"`) {
			t.Errorf("tools/list with the token lists no run_command: %s", body)
		}
	}

	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, done, out)
	if _, err := os.Stat(filepath.Dir(m[1])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token folder left after the fleet stopped: %v", err)
	}
}
