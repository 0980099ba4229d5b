package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/runner"
	"github.com/jck411/mcp-servers/servers/shell/sandbox"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

// The grammar the blocklist's differential test draws from: a deleting core (rm -r, find
// -delete) on a path spelled every way issue 29 found, in a context that runs it. Only rm and
// find are stubbed and run: Landlock keeps a real one (reached as /bin/rm, or through a
// wrapper that resets PATH) from deleting anything outside the test's directories. chmod and
// chown are not drawn: Landlock has no right for them.
var (
	blockCores = []string{"rm -rf @P@", "rm -r -- @P@", "rm -R @P@/", "find @P@ -delete", "find -P -O2 @P@ -delete",
		"find -L -D tree @P@ -maxdepth 0 -delete", "find @P@ -maxdepth 0 -exec rm -rf {} +"}
	blockProtected = []string{"/", "/etc", "/usr/", "/home/@GHOST@", "~", "$HOME", "${HOME}/", "~/.", "/proc/self/root",
		"/proc/self/root/etc", "/proc/1/root/var", "/proc/thread-self/root/boot", "/proc/self/task/@PID@/root/srv",
		"/proc/self/root/home/@GHOST@", "//etc", "/usr/bin/../..", "/./var/.", "'/etc'", `"/opt"`, `$'\x2froot'`,
		"/e''tc", "/proc/self/cwd/../../..", "$d", `"$d/"`, `"${e:-/mnt}"`, `$(echo /media)`, "`printf /srv`",
		"@LINK@/", "@LINK@/etc", `"$1"`, `"$@"`}
	blockHarmless = []string{"victim", "./victim/", "@ROOT@/victim", "/proc/self/cwd/victim", "/proc/self/root@ROOT@/victim",
		"$HOME/victim", "~/victim", `"$v"`, "@LINK@"}
	blockForms = []string{
		"%s", "env %s", "nice -n5 %s", "timeout 9 %s", "stdbuf -oL %s", "setsid -w %s", "time %s", "command %s",
		"(exec %s)", "bash -c '%s'", "sh -ec '%s'", "eval '%s'", "f() { %s; }; f", "( %s )", "{ %s; }", "true && %s",
		"false || %s", ": $(%s)", "cat <(%s)", "bash <<'EOF'\n%s\nEOF", "bash <<< '%s'", "echo '%s' | bash",
		"printf '%%s\\n' '%s' | sh", "shopt -s expand_aliases\nalias z='%s'\nz", "trap '%s' EXIT",
		"if true; then %s; fi", "for i in 1; do %s; done", "xargs -a /dev/null %s", "d=/usr; e=; %s",
		"set -- /var; g() { %s; }; g \"$1\"",
	}
)

// blockStub records, for every run, the working directory and each argument with the path
// the kernel resolves it to: whole (realpath -m) and as a directory entry (its parent
// resolved, the last component kept), one NUL-separated record per line. One realpath runs for
// all the arguments, since forks are what a busy machine makes slow.
const blockStub = `#!/bin/bash
args=() dirs=()
for a in "$@"; do
	[[ -n $a ]] || a=/nonexistent-empty-argument
	case $a in */*) d=${a%%/*}; d=${d:-/} ;; *) d=. ;; esac
	args+=("$a") dirs+=("$d")
done
mapfile -t res < <(realpath -m -- "${args[@]}" "${dirs[@]}" 2>/dev/null)
n=${#args[@]}
{
printf '%%s\0%%s' "${0##*/}" "$PWD"
for ((i = 0; i < n; i++)); do
	printf '\0%%s\0%%s\0%%s' "${args[i]}" "${res[i]}" "${res[n+i]%%/}/${args[i]##*/}"
done
printf '\n'
} >> %q
`

// TestDifferentialBlocklist is a property test of the blocklist with bash as the oracle: it
// draws lines from the grammar above, and runs every line the checker allows under bash with
// stubs for rm and find that record what they would delete. It fails when bash ran rm -r or
// find -delete on a protected directory (the checker's ProtectedDir, with the home directory)
// for a line the checker allowed: a misreading.
func TestDifferentialBlocklist(t *testing.T) {
	mcptest.Require(t, "Landlock", sandbox.Available())
	const budget = 20 * time.Second
	root, home := t.TempDir(), t.TempDir()
	trace := filepath.Join(root, "trace")
	stubs := t.TempDir()
	for _, n := range []string{"rm", "find"} {
		if err := os.WriteFile(filepath.Join(stubs, n), []byte(fmt.Sprintf(blockStub, trace)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "victim"), 0o755); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Blocklist, nil, policy.Home(home), policy.FollowSymlinks())
	if err != nil {
		t.Fatal(err)
	}
	run, err := runner.New("auto")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if err := run.Sandbox(t.Context(), selfExe(), sandbox.Rules{Write: []string{root, home, "/dev/null"}}); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + stubs + ":" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "v=" + filepath.Join(root, "victim")}
	ghost := fmt.Sprintf("mcp-diff-%d", os.Getpid())
	r := strings.NewReplacer("@GHOST@", ghost, "@PID@", fmt.Sprint(os.Getpid()), "@LINK@", link, "@ROOT@", root)

	// The oracle itself: lines run past the checker must be judged as what they delete.
	for line, protected := range map[string]bool{
		"rm -r /proc/self/root/etc": true, "cd / && rm -rf usr": true, "find -L -O3 ~ -delete": true,
		"rm -rf victim": false, "rm -rf " + link: false, "find victim -delete": false,
		"find " + link + " -maxdepth 0 -exec rm -rf {} +": false, "find -L " + link + " -maxdepth 0 -delete": true,
	} {
		_ = os.Remove(trace)
		if _, err := run.Run(t.Context(), runner.Spec{Line: line, Dir: root, Env: env}, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(trace)
		if got := deletesProtected(strings.Split(strings.TrimSuffix(string(b), "\n"), "\x00"), home) != ""; got != protected {
			t.Fatalf("the oracle judges %q (record %q) as deleting a protected directory: %v, want %v", line, b, got, protected)
		}
	}

	rng := rand.New(rand.NewPCG(29, 2026))
	deadline := time.Now().Add(budget)
	var drawn, allowed int
	for time.Now().Before(deadline) {
		drawn++
		paths := blockProtected
		if rng.IntN(3) == 0 {
			paths = blockHarmless
		}
		core := strings.ReplaceAll(blockCores[rng.IntN(len(blockCores))], "@P@", paths[rng.IntN(len(paths))])
		form := blockForms[rng.IntN(len(blockForms))]
		if strings.Contains(form, "'%s'") && strings.Contains(core, "'") {
			continue
		}
		line := r.Replace(fmt.Sprintf(form, core))
		if pol.Check(line, root) != nil {
			continue
		}
		allowed++
		_ = os.Remove(trace)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, err := run.Run(ctx, runner.Spec{Line: line, Dir: root, Env: env}, &bytes.Buffer{}, &bytes.Buffer{})
		cancel()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		b, _ := os.ReadFile(trace)
		for _, rec := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if what := deletesProtected(strings.Split(rec, "\x00"), home); what != "" {
				t.Errorf("the checker allowed %q and bash ran %s", line, what)
			}
		}
	}
	if _, err := os.Stat("/home/" + ghost); err == nil {
		t.Errorf("/home/%s exists", ghost)
	}
	t.Logf("%d lines drawn, %d allowed by the checker and run under bash", drawn, allowed)
}

// deletesProtected reads one stub record (program, cwd, then for each argument: as given,
// resolved whole, resolved as an entry) and says what it deletes that is protected, or "".
func deletesProtected(rec []string, home string) string {
	if len(rec) < 2 || (len(rec)-2)%3 != 0 {
		return ""
	}
	prog := rec[0]
	type arg struct{ raw, whole, entry string }
	var args []arg
	for i := 2; i+2 < len(rec); i += 3 {
		args = append(args, arg{rec[i], rec[i+1], rec[i+2]})
	}
	protected := func(a arg, entry bool) bool {
		p := a.whole
		if entry && !strings.HasSuffix(a.raw, "/") {
			p = a.entry
		}
		return p != "" && policy.ProtectedDir(filepath.Clean(p), home)
	}
	switch prog {
	case "rm":
		recursive, opts := false, true
		for _, a := range args {
			switch {
			case opts && a.raw == "--":
				opts = false
			case opts && strings.HasPrefix(a.raw, "--rec"):
				recursive = true
			case opts && strings.HasPrefix(a.raw, "-") && !strings.HasPrefix(a.raw, "--") && strings.ContainsAny(a.raw, "rR"):
				recursive = true
			}
		}
		opts = true
		for _, a := range args {
			if opts && a.raw == "--" {
				opts = false
				continue
			}
			if recursive && (!opts || !strings.HasPrefix(a.raw, "-")) && protected(a, true) {
				return "rm -r on " + a.whole
			}
		}
	case "find":
		// Without -H or -L (the last of -H, -L, -P wins), find does not follow a start path
		// that is a symlink: it visits, and deletes, the link itself.
		i, follow := 0, false
		for i < len(args) && slices.Contains([]string{"-H", "-L", "-P", "-D", "--"}, args[i].raw) || i < len(args) && strings.HasPrefix(args[i].raw, "-O") {
			switch args[i].raw {
			case "-H", "-L":
				follow = true
			case "-P":
				follow = false
			}
			if args[i].raw == "-D" {
				i++
			}
			i++
		}
		var starts []arg
		for ; i < len(args) && !strings.HasPrefix(args[i].raw, "-") && args[i].raw != "(" && args[i].raw != "!"; i++ {
			starts = append(starts, args[i])
		}
		deletes := false
		for _, a := range args {
			deletes = deletes || a.raw == "-delete" || a.raw == "rm"
		}
		for _, s := range starts {
			if deletes && protected(s, !follow) {
				return "find -delete from " + s.whole
			}
		}
	}
	return ""
}
