package main

import (
	"fmt"
	"io"
	"log/slog"
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

// The grammar the differential test draws command lines from: programs (allowed and not),
// spellings of a command name, constructs that run a command somewhere bash evaluates, and
// redirections.
var (
	diffAllowed = []string{"ls", "cat in.txt", "grep -c inside in.txt"}
	diffDenied  = []string{"id", "@ID@", "touch @OUT@", "@LOADER@ /usr/bin/id", "env id", "xargs id", "find . -exec id \\;",
		"nice id", "timeout 1 id", "script -qc id /dev/null", "sh -c id", "perl -e 1", "setpriv id", "awk 'BEGIN{system(\"id\")}'",
		"/proc/self/root@ID@", "parallel id ::: x", "ssh -o BatchMode=yes localhost id"}
	diffSpellings = []func(string) string{
		func(w string) string { return w },
		func(w string) string { return "'" + w + "'" },
		func(w string) string { return `"` + w + `"` },
		func(w string) string { return `\` + w },
		func(w string) string { return w[:1] + `""` + w[1:] },
		func(w string) string { return "$'" + w + "'" },
	}
	diffForms = []string{
		"%s", "$(%s)", "`%s`", `echo "$(%s)"`, `echo "${v:-'$(%s)'}"`, `echo "${v-'$(%s)'}"`, `echo "${v:='$(%s)'}"`,
		`v=1; echo "${v+'$(%s)'}"`, "echo \"${v:-'`%s`'}\"", `echo "${v:-"$(%s)"}"`, "cat <<E\n$(%s)\nE",
		"cat <<E\n${v:-'$(%s)'}\nE", `eval '%s'`, `eval "%s"`, `trap '%s' EXIT`, `PS4='$(%s)'; set -x; :`,
		`a='v[$(%s)]'; (( a ))`, `x='v[$(%s)]'; : ${!x}`, `printf -v 'v[$(%s)]' 1`, `declare "v=($(%s))"`,
		`command %s`, `{ %s; }`, `( %s )`, `%s | cat`, `ls && %s`, `ls; %s`, `if ls; then %s; fi`,
		`f() { %s; }; f`, `cat <(%s)`, `: $((1+$(%s)))`, `mapfile -C '%s' -c 1 a < in.txt`, `x=$(%s)`,
		`[[ -n $(%s) ]]`, `for i in 1; do %s; done`, `case x in x) %s;; esac`,
		"bash <<< '%s'", "echo '%s' | bash", "bash <(echo '%s')", "shopt -s expand_aliases\nalias z='%s'\nz",
		`x='%s'; eval "$x"`, `f() { eval "$1"; }; f '%s'`, "a() { %s; }; b() { a; }; b",
	}
	diffRedirs = []string{"", "", "", "", " 2>&1", " > @OUT@", " >> @OUT@", " 2> @OUT@", " &> @OUT@", " > keep.txt", " 2>/dev/null"}
)

// diffLine draws one command line from the grammar.
func diffLine(rng *rand.Rand) string {
	progs := diffDenied
	if rng.IntN(2) == 0 {
		progs = diffAllowed
	}
	cmd := progs[rng.IntN(len(progs))]
	name, rest, _ := strings.Cut(cmd, " ")
	if !strings.ContainsAny(name, "/@") {
		name = diffSpellings[rng.IntN(len(diffSpellings))](name)
	}
	line := strings.TrimSpace(name + " " + rest)
	for range 1 + rng.IntN(2) {
		line = fmt.Sprintf(diffForms[rng.IntN(len(diffForms))], line)
	}
	return line + diffRedirs[rng.IntN(len(diffRedirs))]
}

// TestDifferentialAllowlist is a property test with bash as the oracle. It draws command
// lines from a grammar of quoting, expansions and builtins (after every case of
// attackLines), asks the allowlist checker (ls, cat, grep), and runs every line under the
// server's enforcement with the tracing stubs on PATH, behind the links to the allowed
// programs. It fails when a stub ran or a file outside the root was written, whatever the
// checker said, and when the checker allowed a line on which bash tried to execute a stub,
// which is a misreading the kernel caught. A line that kills $PPID kills this test unless
// Landlock scopes signals, so this also proves the scope.
func TestDifferentialAllowlist(t *testing.T) {
	mcptest.Require(t, "Landlock", sandbox.Available())
	const budget = 25 * time.Second
	root, outside := t.TempDir(), t.TempDir()
	trace := filepath.Join(root, "trace")
	stubs := tracingStubs(t, trace)
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Allowlist, []string{"ls", "cat", "grep"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := runner.New("auto")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	enf, err := setupEnforcement(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil)), run, enforcementInput{
		policy: pol, roots: []string{root}, path: os.Getenv("PATH"), self: selfExe(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer enf.close()
	env, err := runner.NewEnvironment(enf.path+":"+stubs, root, "nobody", enf.tmpDir).With(nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outside, "out")
	idReal, err := filepath.EvalSymlinks("/usr/bin/id")
	if err != nil {
		t.Fatal(err)
	}
	loader := mustInterp(t, idReal)
	r := strings.NewReplacer("@ID@", filepath.Join(stubs, "id"), "@STUBS@", stubs, "@OUT@", out, "@HOMEMARK@", "x", "@LOADER@", loader)

	lines := slices.Clone(attackLines)
	if v, _ := sandbox.ABI(); v < 6 {
		// Without Landlock's signal scope (ABI 6) nothing but the checker keeps a line from
		// killing its parent, which here is this test.
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "kill") })
	}
	rng := rand.New(rand.NewPCG(22, 2026))
	for range 600 {
		lines = append(lines, diffLine(rng))
	}
	// The seed lines always run; the budget bounds the drawn ones after them.
	seeds := len(lines) - 600
	deadline := time.Now().Add(budget)
	var ran, allowed int
	for i, l := range lines {
		if i >= seeds && time.Now().After(deadline) {
			break
		}
		line := r.Replace(l)
		ok := pol.Check(line, root) == nil
		var stdout, stderr strings.Builder
		res, err := run.Run(t.Context(), runner.Spec{Line: line, Dir: root, Env: env}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ran++
		if ok {
			allowed++
		}
		if b, err := os.ReadFile(trace); err == nil {
			t.Errorf("%q (checker allowed: %v): unlisted programs ran: %q", line, ok, b)
			_ = os.Remove(trace)
		}
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Errorf("%q (checker allowed: %v): a file was written outside the root", line, ok)
			_ = os.RemoveAll(out)
		}
		if strings.Contains(stdout.String(), "uid=") {
			t.Errorf("%q (checker allowed: %v): id ran: %s", line, ok, stdout.String())
		}
		if ok && strings.Contains(stderr.String(), stubs) {
			t.Errorf("%q: the checker allowed it and bash tried to run a stub (exit %d): %s", line, res.ExitCode, stderr.String())
		}
	}
	t.Logf("%d lines ran under the enforcement, %d of them allowed by the checker", ran, allowed)
}

// mustInterp returns the ELF interpreter of a program.
func mustInterp(t *testing.T, prog string) string {
	t.Helper()
	exe, _, err := sandbox.Programs(t.Context(), prog)
	if err != nil || len(exe) < 2 {
		t.Fatalf("the loader of %s: %v %v", prog, exe, err)
	}
	return exe[1]
}
