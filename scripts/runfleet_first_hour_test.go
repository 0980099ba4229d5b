package scripts_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMakeRunNames: a server make run does not run is refused before anything starts, with
// the names it does run; run-fleet.sh --help prints its usage.
func TestMakeRunNames(t *testing.T) {
	for _, tool := range []string{"make", "bash", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mcp := "browser calculator calendar drive gmail notes shell spotify"
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"misspelt", []string{"make", "-s", "run", "SERVERS=calclator"}, 2,
			[]string{"there is no server named calclator; the servers are: auth " + mcp}},
		{"auth", []string{"make", "-s", "-o", "build", "run", "SERVERS=auth"}, 2,
			[]string{"auth is the authorization server", "start it as docs/auth.md says", "The servers make run runs: " + mcp}},
		{"auth among others", []string{"scripts/run-fleet.sh", "calculator", "auth"}, 2, []string{"auth is the authorization server"}},
		{"misspelt to the script", []string{"scripts/run-fleet.sh", "notse"}, 2, []string{"there is no server named 'notse'; the servers make run runs: " + mcp}},
		{"an option", []string{"scripts/run-fleet.sh", "--verbose"}, 2, []string{"unknown option --verbose"}},
		{"help", []string{"scripts/run-fleet.sh", "--help"}, 0, []string{"Usage: scripts/run-fleet.sh [server ...]", "FLEET_STATE_DIR", "BROWSER_FLAGS="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.args[0], tt.args[1:]...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "FLEET_BIN="+t.TempDir()) // no binaries: nothing may start
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "is missing; run make build") {
				t.Errorf("looked for binaries before refusing:\n%s", out)
			}
		})
	}
}

// TestMakeRunStateAndFlags: make run keeps the servers' state in a throwaway folder it names
// and removes at the end, or in FLEET_STATE_DIR, kept; NAME_FLAGS reaches that server only.
func TestMakeRunStateAndFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two servers and runs make")
	}
	root, bin := buildServers(t, "calculator", "notes")
	kept := t.TempDir()
	for _, tt := range []struct {
		name  string
		env   []string
		state *regexp.Regexp
		keep  bool
	}{
		{"throwaway", nil, regexp.MustCompile(`State \(notes, the shell's work folder, browser profiles\) is in (\S+), removed when the fleet stops`), false},
		{"FLEET_STATE_DIR", []string{"FLEET_STATE_DIR=" + kept}, regexp.MustCompile(`State is in (\S+)/NAME \(FLEET_STATE_DIR\), kept`), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			offset := freeOffset(t)
			env := append([]string{"NOTES_FLAGS=--read-only --log-level debug"}, tt.env...)
			cmd, out, done := makeRun(t, root, bin, offset, "calculator notes", env...)
			deadline := time.Now().Add(60 * time.Second)
			for !tt.state.MatchString(out.String()) {
				if time.Now().After(deadline) {
					t.Fatalf("no state line in the banner:\n%s", out.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			text := out.String()
			state := tt.state.FindStringSubmatch(text)[1]
			if tt.keep && state != kept {
				t.Errorf("state in %s, want FLEET_STATE_DIR %s", state, kept)
			}
			if fi, err := os.Stat(filepath.Join(state, "notes")); err != nil || !fi.IsDir() {
				t.Errorf("no notes state folder in %s: %v", state, err)
			}
			if !strings.Contains(text, "flags: --read-only --log-level debug") {
				t.Errorf("banner does not show notes' flags:\n%s", text)
			}
			// --read-only reached notes: no create_note; calculator has its tools.
			for _, c := range []struct {
				port  int
				tool  string
				wants bool
			}{{9009, "create_note", false}, {9009, "get_note", true}, {9003, "evaluate", true}} {
				body := toolsList(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", c.port+offset))
				if got := strings.Contains(body, `"`+c.tool+`"`); got != c.wants {
					t.Errorf("port %d lists %s: %v, want %v", c.port, c.tool, got, c.wants)
				}
			}
			if err := syscall.Kill(cmd.Process.Pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitExit(t, done, out)
			_, err := os.Stat(state)
			if tt.keep != (err == nil) {
				t.Errorf("state folder %s after the fleet stopped: %v, want kept %v", state, err, tt.keep)
			}
		})
	}
}

// toolsList posts tools/list to an MCP URL and returns the body.
func toolsList(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}
