package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// stdinReaders are command lines that would read their commands from what the caller sends
// later: start_process must refuse every one of them under the blocklist.
var stdinReaders = []string{
	"bash", "sh", "dash", "bash -s", "bash -i", "bash --norc --noprofile", "sh -", "bash /dev/stdin",
	"env bash", "env -i sh", "exec bash", "nohup bash", "setsid -w bash", "stdbuf -i0 bash", "timeout 60 sh",
	"busybox sh", "script -q /dev/null", "cat | bash", "tee /dev/null | sh", "(bash)", "{ sh; }",
	"f() { bash; }; f", "bash -c bash", "bash -c 'exec sh -i'", "python3", "python3 -i", "python3 -m code",
	"perl", "su", "sudo -s", "ssh localhost", "nsenter -t 1", "unshare", "at now", "parallel",
	`while read -r l; do eval "$l"; done`, "xargs -I{} sh -c {}", "awk '{system($0)}'",
	"python3 -c 'exec(input())'", "perl -ne 'system $_'", "source /dev/stdin", "python3 <(cat)", `python3 -c "$(cat)"`,
	"bash /dev/fd/3 3<&0", "expect -c 'spawn bash; interact'",
}

// TestBlocklistAttacks drives a server under the default blocklist over HTTP with what the
// review of issue 29 found and more of its kind: shells started to take commands from
// send_process_input, run_command with stdin fed to a shell, and destructive commands spelled
// through /proc, home directories, variables and wrappers. The destructive lines name paths
// that do not exist, so one the checker missed would fail harmlessly, and the test would
// report it. The server must answer throughout.
func TestBlocklistAttacks(t *testing.T) {
	h, cs, work := start(t)
	for _, line := range stdinReaders {
		t.Run("start_process "+line, func(t *testing.T) {
			msg := mcptest.CallError(t, cs, "start_process", map[string]any{"command": line})
			if !strings.Contains(msg, "refused by policy rule stdin-commands") {
				t.Errorf("start_process %q: %s", line, msg)
			}
		})
	}
	var listed listProcessesOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "list_processes", map[string]any{}), &listed)
	if len(listed.Processes) != 0 {
		t.Errorf("refused start_process calls left processes: %+v", listed.Processes)
	}

	// run_command: stdin fed to a shell is refused; a shell with no stdin reads nothing.
	msg := mcptest.CallError(t, cs, "run_command", map[string]any{"command": "bash", "stdin": "echo PWNED\n"})
	if !strings.Contains(msg, "stdin-commands") {
		t.Errorf("run_command bash with stdin: %s", msg)
	}
	if o := run(t, cs, map[string]any{"command": "bash"}); o.ExitCode != 0 || o.Stdout != "" {
		t.Errorf("run_command bash without stdin: %+v", o)
	}
	if o := run(t, cs, map[string]any{"command": "sort", "stdin": "b\na\n"}); o.Stdout != "a\nb\n" {
		t.Errorf("run_command sort with stdin: %+v", o)
	}

	// A background process that reads data still gets its input, which stays data.
	var started processOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "start_process", map[string]any{"command": "cat", "wait_seconds": 0.2}), &started)
	var sent processOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "send_process_input", map[string]any{"handle": started.Process.Handle, "input": "echo PWNED; rm -rf /\n", "close_stdin": true, "wait_seconds": 5}), &sent)
	if !strings.Contains(sent.Output, "echo PWNED; rm -rf /") || strings.Contains(strings.ReplaceAll(sent.Output, "echo PWNED", ""), "PWNED") {
		t.Errorf("cat's input: %q", sent.Output)
	}

	ghost := fmt.Sprintf("mcp-attack-%d", os.Getpid()) // a home directory that does not exist
	for _, line := range []string{
		"rm -r /home/" + ghost,
		"rm -rf /proc/self/root/home/" + ghost,
		"rm -rf /proc/1/root/home/" + ghost + "/",
		"rm -rf /proc/thread-self/root/home/" + ghost,
		"find -P /home/" + ghost + " -delete",
		"find -L -H -O3 -D tree /proc/self/root/home/" + ghost + " -delete",
		"chmod -R 777 /proc/self/root/home/" + ghost,
		"d=/home/" + ghost + "; rm -rf \"$d\"",
		"for d in /home/" + ghost + "; do rm -rf $d; done",
		"f() { rm -rf \"$1\"; }; f /home/" + ghost,
		"bash -c 'rm -rf \"$1\"' _ /home/" + ghost,
		"echo /home/" + ghost + " | xargs rm -rf",
		"parallel rm -rf ::: /home/" + ghost,
		"echo 'rm -rf /home/" + ghost + "' | bash",
		"bash <<'EOF'\nread x\ncat <<'E'\nrm -rf /home/" + ghost + "\nE\nEOF",
		"shopt -s expand_aliases\nalias r='rm -rf'\nr /home/" + ghost,
		"ln -s /home/" + ghost + " " + ghost + "; rm -rf " + ghost + "/",
		// kill -9 -1 and fork bombs stay in the policy's unit tests: a regression here would run
		// them on the test machine. kill $PPID could only kill this test.
		"kill -9 $PPID",
	} {
		t.Run(line, func(t *testing.T) {
			msg := mcptest.CallError(t, cs, "run_command", map[string]any{"command": line, "timeout_seconds": 5})
			if !strings.Contains(msg, "refused by policy rule") {
				t.Errorf("%q ran: %s", line, msg)
			}
		})
	}

	// Where the kernel has Landlock the write guard holds below the checker, through any
	// spelling: the server's state directory is not writable, even as /proc/self/root/….
	if mcptest.Want(t, "Landlock", sandbox.Available()) {
		state := filepath.Dir(work)
		o := run(t, cs, map[string]any{"command": "echo x > /proc/self/root" + state + "/planted; cat " + state + "/planted"})
		if _, err := os.Stat(filepath.Join(state, "planted")); err == nil || o.ExitCode == 0 {
			t.Errorf("a command wrote into the server's state directory through /proc/self/root: %+v", o)
		}
	}

	o := run(t, cs, map[string]any{"command": "sleep 30", "timeout_seconds": 1})
	if !o.TimedOut {
		t.Errorf("sleep 30 was not stopped by its timeout: %+v", o)
	}
	if o := run(t, cs, map[string]any{"command": "echo alive"}); o.Stdout != "alive\n" {
		t.Errorf("the server stopped answering: %+v (logs: %s)", o, h.Logs())
	}
}
