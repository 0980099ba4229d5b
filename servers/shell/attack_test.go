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

// stubNames are the tracing stubs: programs not on the allowlist that record in the trace
// file, inside the root, that they ran.
var stubNames = []string{"id", "touch", "rm", "sh", "env", "nice", "timeout", "xargs", "find", "perl", "awk", "script", "setpriv", "tee", "cp"}

// tracingStubs writes the stubs into a directory of their own, outside the root, and returns
// it. A stub is a bash script; a command that manages to execute one leaves its name in trace.
func tracingStubs(t *testing.T, trace string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range stubNames {
		script := fmt.Sprintf("#!/bin/bash\necho %q >> %q\n", n, trace)
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// attackLines are command lines that try to run an unlisted program, write outside the root
// or kill the server; @ID@ is a tracing stub, @STUBS@ their directory, @OUT@ a file outside
// the root and @HOMEMARK@ a file name in the home directory. They hold every case of issue 22.
var attackLines = []string{
	// command substitution in every position
	`@ID@`, `/usr/bin/id`, `$(@ID@)`, "`@ID@`", `ls $(@ID@)`, `ls "$(@ID@)"`, `cat <(@ID@)`, `ls >(@ID@)`,
	`echo "${x:-'$(@ID@)'}"`, `echo "${x-'$(@ID@)'}"`, `echo "${x:='$(@ID@)'}"`, `x=1; echo "${x+'$(@ID@)'}"`,
	`x=1; echo "${x:+'$(@ID@)'}"`, "echo \"${x:-'`@ID@`'}\"", `echo "${x:-"$(echo $(@ID@))"}"`,
	`echo "${x:-'$((1+$(@ID@)))'}"`, `echo "${x:-'${!y}'}"`, `echo "${x#'$(@ID@)'}"`, `echo "${x/'$(@ID@)'/y}"`,
	"cat <<EOF\n$(@ID@)\nEOF", "cat <<EOF\n`@ID@`\nEOF", "cat <<EOF\n${x:-'$(@ID@)'}\nEOF",
	`[[ $(@ID@) ]]`, `case $(@ID@) in *) ;; esac`, `for i in $(@ID@); do :; done`, `x=$(@ID@)`, `ls ${x:-$(@ID@)}`,
	// builtins that evaluate or assign indirectly
	`eval @ID@`, `eval "$(echo @ID@)"`, `builtin eval @ID@`, `command @ID@`, `exec @ID@`,
	`declare -a "a=($(@ID@))"`, `typeset "a=(\$(@ID@))"`, `declare "a[\$(@ID@)]=1"`,
	`x='\$(@ID@)'; echo ${x@P}`, `PS4='$(@ID@)'; set -x; true`, `trap @ID@ EXIT`, `trap '@ID@' DEBUG; true`,
	`mapfile -C @ID@ -c 1 a < in.txt`, `readarray -C @ID@ -c 1 a < in.txt`, `printf -v 'a[$(@ID@)]' x`,
	`a='x[$(@ID@)]'; (( a ))`, `a='x[$(@ID@)]'; echo $((a))`, `a='x[$(@ID@)]'; let a`, `a='x[$(@ID@)]'; [[ a -eq 0 ]]`,
	`x='a[$(@ID@)]'; echo ${!x}`, `declare -n r='a[$(@ID@)]'; echo $r`, `read -r 'a[$(@ID@)]' < in.txt`,
	`alias l=@ID@; l`, `hash -p @ID@ ls; ls`, `enable -f @STUBS@/x.so x`, `source @ID@`, `. @ID@`, `coproc @ID@`,
	// the loader and other ways to a program
	`/lib64/ld-linux-x86-64.so.2 /usr/bin/id`, `ld-linux-x86-64.so.2 /usr/bin/id`,
	`"/usr/bin/id"`, `\/usr/bin/id`, `$'\x2fusr/bin/id'`, `x=@ID@; $x`, `"${x:-@ID@}"`, `PATH=@STUBS@:$PATH id`,
	`export PATH=@STUBS@; id`, `BASH_ENV=@ID@ bash -c true`, `bash -c @ID@`, `sh -c @ID@`,
	// programs that run programs
	`env @ID@`, `xargs @ID@ < in.txt`, `find . -exec @ID@ \;`, `find . -execdir @ID@ {} +`, `find . -ok @ID@ \;`,
	`nice @ID@`, `timeout 5 @ID@`, `script -qc @ID@ /dev/null`, `setpriv @ID@`, `perl -e 'system("@ID@")'`,
	`awk 'BEGIN{system("@ID@")}'`, `grep -f <(@ID@) in.txt`, `ls | @ID@`, `ls && @ID@`, `@ID@ &`, `( @ID@ )`, `{ @ID@; }`,
	`f() { @ID@; }; f`, `while @ID@; do break; done`,
	// writes outside the root
	`echo x > @OUT@`, `echo x >> @OUT@`, `cat in.txt > @OUT@`, `echo x >| @OUT@`, `echo x &> @OUT@`, `cat in.txt 1<> @OUT@`,
	`exec 3> @OUT@; echo x >&3`, `exec {fd}> @OUT@`, `ls > @OUT@ 2>&1`, `cat in.txt | tee @OUT@`, `cp in.txt @OUT@`,
	// issue 29: /proc and descriptor spellings, input fed to a shell, aliases, loops, the
	// cgroup tree
	`/proc/self/root@ID@`, `/proc/1/root@ID@`, `exec 3<@ID@; /dev/fd/3`, `exec 3<@ID@; /proc/self/fd/3`,
	`ls /proc/self/root/usr/bin`, `cat /proc/self/root@OUT@`, `grep -r x /proc/thread-self/root/usr/bin`,
	`cat in.txt > /proc/self/root@OUT@`, `cat in.txt | grep -f /dev/stdin > /proc/1/root@OUT@`,
	`echo @ID@ | bash`, `printf '%s\n' @ID@ | sh`, "cat <<'E' | bash\n@ID@\nE", `bash <(echo @ID@)`,
	"bash <<'E'\nread x\ncat <<'F'\n@ID@\nF\nE", `x=$(echo @ID@); eval "$x"`, `echo @ID@ | xargs -I{} sh -c {}`,
	"shopt -s expand_aliases\nalias l=@ID@\nl", `f(){ eval "$FUNCNAME" @ID@; }; f`, `ls | parallel @ID@`,
	`echo $$ > /sys/fs/cgroup/cgroup.procs`, `ls /sys/fs/cgroup | grep -c x`, `cat /proc/self/cgroup`,
	`find . -fprint @OUT@`, `ls ; cat in.txt | grep x > /dev/fd/1`, `ln -s @STUBS@ s; ls s/`,
	// the server itself
	`kill -9 $PPID`, `echo "${x:-'$(kill -9 $PPID)'}"`,
	`echo x >> ~/@HOMEMARK@`, `echo "${x:-'$(echo x > @OUT@)'}"`, `cd /tmp && ls`, `rm -rf @OUT@`, `find / -delete`,
}

// TestAllowlistAttacks runs command lines that try to run an unlisted program or write
// outside the root, spelled every way the checker has been misread before, against
// --policy allowlist --allow-commands ls,cat,grep over HTTP. Whatever the checker says, no
// stub may run, nothing may be written outside the root, and the server must keep answering.
func TestAllowlistAttacks(t *testing.T) {
	mcptest.Require(t, "Landlock", sandbox.Available())
	root, outside := t.TempDir(), t.TempDir()
	trace := filepath.Join(root, "trace")
	stubs := tracingStubs(t, trace)
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	homeMark := fmt.Sprintf(".mcp-shell-attack-%d", os.Getpid())
	home, _ := os.UserHomeDir()
	t.Cleanup(func() { _ = os.Remove(filepath.Join(home, homeMark)) })
	h := mcptest.Start(t, spec(), "--state-dir", t.TempDir(), "--policy", "allowlist", "--allow-commands", "ls,cat,grep",
		"--allowed-roots", root, "--work-dir", root)
	cs := h.Connect(t, "")

	id := filepath.Join(stubs, "id")
	out := filepath.Join(outside, "out")
	r := strings.NewReplacer("@ID@", id, "@STUBS@", stubs, "@OUT@", out, "@HOMEMARK@", homeMark)
	for _, a := range attackLines {
		line := r.Replace(a)
		t.Run(a, func(t *testing.T) {
			res := mcptest.Call(t, cs, "run_command", map[string]any{"command": line, "timeout_seconds": 10})
			text := mcptest.Text(res)
			if strings.Contains(text, "uid=") {
				t.Errorf("id ran: %s", text)
			}
			if b, err := os.ReadFile(trace); err == nil {
				t.Errorf("unlisted programs ran: %q (result: %s)", b, text)
				_ = os.Remove(trace)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("a file was written outside the root (result: %s)", text)
				_ = os.RemoveAll(out)
			}
			if _, err := os.Stat(filepath.Join(home, homeMark)); err == nil {
				t.Errorf("a file was written in the home directory (result: %s)", text)
			}
		})
	}

	// Background processes run under the same enforcement: the checker admits ls /usr/bin, the
	// kernel refuses to read it.
	var started processOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "start_process", map[string]any{"command": "cat in.txt; ls /usr/bin", "wait_seconds": 2}), &started)
	if !strings.Contains(started.Output, "inside") || !strings.Contains(started.Output, "Permission denied") {
		t.Errorf("start_process is not confined like run_command: %q", started.Output)
	}

	// The allowed programs still work inside the root, and the server still answers.
	for line, want := range map[string]string{
		"ls":                                   "in.txt",
		"cat in.txt":                           "inside",
		"grep -c inside in.txt":                "1",
		"ls -la " + root + " | grep in.txt":    "in.txt",
		"cat " + filepath.Join(root, "in.txt"): "inside",
	} {
		o := run(t, cs, map[string]any{"command": line})
		if o.ExitCode != 0 || !strings.Contains(o.Stdout, want) {
			t.Errorf("%s: %+v", line, o)
		}
	}
	o := run(t, cs, map[string]any{"command": "cat /dev/zero | grep x", "timeout_seconds": 1})
	if !o.TimedOut {
		t.Errorf("cat /dev/zero | grep x was not stopped by its timeout: %+v", o)
	}
	if o := run(t, cs, map[string]any{"command": "ls"}); o.ExitCode != 0 {
		t.Errorf("the server stopped answering after the timeout: %+v", o)
	}
}
