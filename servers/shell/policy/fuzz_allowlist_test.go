package policy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fuzzAllowed are the programs the allowlist lists in FuzzAllowlist.
var fuzzAllowed = []string{"echo", "cat", "true"}

// sentinels are unlisted programs stubbed in the fuzz PATH; running one records its name.
var sentinels = []string{
	"id", "rm", "touch", "sh", "bash", "dash", "ls", "env", "sudo", "python3", "curl", "xargs", "find",
	"timeout", "nice", "whoami", "x", "y", "a", "b", "evil", "cmd", "date", "grep", "sed", "tee", "printenv",
	"nohup", "setsid", "stdbuf", "busybox", "su", "watch", "flock", "awk", "perl", "head", "cp", "dd",
	"printf", "test", "[", "pwd", "kill", "read", "cd", "wait", "set", "unset", "declare", "export", "eval",
	"exec", "command", "builtin", "false", ":", "trap", "source", "enable", "hash", "shopt", "let", "mapfile",
}

// execSandbox runs admitted lines under a PATH of stubs and reports unlisted programs that ran.
type execSandbox struct {
	bin, marker, trace string
	bash               string // path of the real bash
	strace             string // path of strace, when it works here
}

func newExecSandbox(tb testing.TB) *execSandbox {
	tb.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		tb.Skip("bash is not installed")
	}
	catPath, err := exec.LookPath("cat")
	if err != nil {
		tb.Skip("cat is not installed")
	}
	dir := tb.TempDir()
	s := &execSandbox{bin: filepath.Join(dir, "bin"), marker: filepath.Join(dir, "marker"), trace: filepath.Join(dir, "trace"), bash: bash}
	if err := os.Mkdir(s.bin, 0o755); err != nil {
		tb.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(s.bin, name), []byte("#!"+bash+"\n"+body), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	write("cat", "exec "+catPath+" \"$@\"\n")
	write("true", "exit 0\n")
	write("echo", "printf '%s\\n' \"$*\"\n")
	for _, name := range sentinels {
		write(name, fmt.Sprintf("printf '%%s\\n' %q >> %q\n", "ran:"+name, s.marker))
	}
	if st, err := exec.LookPath("strace"); err == nil {
		if exec.Command(st, "-f", "-qq", "-o", "/dev/null", "-e", "trace=execve", "true").Run() == nil {
			s.strace = st
		}
	}
	return s
}

// run runs line under bash and returns the unlisted programs it started.
func (s *execSandbox) run(t *testing.T, line string) []string {
	t.Helper()
	_ = os.Remove(s.marker)
	_ = os.Remove(s.trace)
	work := t.TempDir()
	// Hostile file names, for lines whose globs expand to them.
	for _, name := range []string{"$(id)", "`id`", "a[$(id)]", "-v", "id", "x;id"} {
		if err := os.WriteFile(filepath.Join(work, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf("command_not_found_handle() { printf 'not-found:%%s\\n' \"$1\" >> %q; return 127; }\n%s", s.marker, line)
	argv := []string{s.bash, "--norc", "--noprofile", "-c", script}
	if s.strace != "" {
		argv = append([]string{s.strace, "-f", "-qq", "-o", s.trace, "-e", "trace=execve", "-e", "signal=none"}, argv...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + s.bin, "HOME=" + work, "LANG=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var ran []string
	if b, err := os.ReadFile(s.marker); err == nil {
		ran = append(ran, strings.Fields(string(b))...)
	}
	ran = append(ran, s.tracedExecs()...)
	return ran
}

// tracedExecs lists programs strace saw started, other than bash itself and the listed stubs.
func (s *execSandbox) tracedExecs() []string {
	if s.strace == "" {
		return nil
	}
	f, err := os.Open(s.trace)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	first := true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		i := strings.Index(l, "execve(\"")
		if i < 0 || !strings.HasSuffix(l, "= 0") {
			continue
		}
		prog, _, _ := strings.Cut(l[i+len("execve(\""):], "\"")
		switch {
		case first:
			first = false // bash, started by strace
		case filepath.Dir(prog) == s.bin && contains(fuzzAllowed, filepath.Base(prog)):
		case filepath.Base(prog) == "cat" && !strings.HasPrefix(prog, s.bin):
			// the cat stub's exec of the real cat
		case filepath.Dir(prog) == s.bin && contains(sentinels, filepath.Base(prog)):
			// recorded by the marker already
		default:
			out = append(out, "exec:"+prog)
		}
	}
	return out
}

// payloads are values an attacker may put in variables.
var payloads = []string{`'a[$(id)]'`, `'$(id)'`, `'id'`, `'-v a[$(id)]'`, `'x[$(rm -rf y)]'`, `'/bin/id'`, `'-c id'`, `'PATH'`}

// fuzzAtoms are statements and fragments the generator combines; $P is a payload.
var fuzzAtoms = []string{
	`x=$P`, `echo $((x))`, `echo $(( x ))`, `(( x ))`, `((x+1))`, `let x`, `echo $[x]`, `for ((i=x;i<1;i++)); do :; done`,
	`echo ${a[x]}`, `echo "${a[$x]}"`, `a[x]=1`, `a[$x]=1`, `declare a[x]=1`, `unset "$x"`, `unset 'a[$(id)]'`, `unset -v $x`,
	`[[ -v $x ]]`, `[[ -v a[$x] ]]`, `test -v "$x"`, `[ -v "$x" ]`, `[ $x ]`, `[ "$x" -eq 1 ]`, `[[ $x -eq 1 ]]`, `[[ x -lt 2 ]]`,
	`printf -v "$x" %s 1`, `printf -v 'a[$(id)]' %s 1`, `printf $x`, `printf "$x" y`, `read "$x" <<< 1`, `read -a "$x" <<< 1`,
	`read -r line <<< 'a[$(id)]'; echo $((line))`, `mapfile -C id -c 1 arr <<< x`, `declare -n r=x; echo $r`, `declare -i n; n=$x`,
	`local -i n=$x`, `declare $x=1`, `export $x`, `typeset -n r=$x`, `readonly $x`, `echo ${!x}`, `echo ${x@P}`, `y=${x@P}`,
	`echo ${x:x}`, `echo ${x:0:x}`, `trap id EXIT`, `trap "$x" EXIT`, `alias ls=id`, `enable -n echo`, `hash -p /bin/id cat; cat`,
	`source /dev/stdin <<< id`, `. <(echo id)`, `eval "$x"`, `eval id`, `eval echo hi`, `$x`, `"$x"`, `$(echo id)`, "`echo id`",
	`${x}`, `exec $x`, `command $x`, `builtin $x`, `coproc id`, `shopt -s expand_aliases`, `set -k`, `set -o posix`,
	`getopts a "$x"`, `wait -p "$x"`, `fc -s`, `compgen -C id x`, `complete -C id x`, `bind -x '"a":id'`,
	`echo hi | bash`, `bash /dev/stdin <<< id`, `bash -c "$x"`, `bash -c 'id'`, `sh -c id`, `bash -i -c echo`,
	`RANDOM=$x`, `OPTIND=$x`, `PATH=.`, `PS4='$(id)'; set -x; true`, `BASH_ENV=/dev/stdin bash`, `IFS=/`,
	`cat <<EOF` + "\n$(id)\nEOF", `cat <<'EOF'` + "\n$(id)\nEOF", `echo {id,x}`, `{id,x}`, `/bin/id`, `./id`, `i?`, `*`,
	`echo hi > id; chmod +x id; ./id`, `f() { id; }; f`, `cat() { id; }; cat`, `echo() { id; }; echo`,
	`command_not_found_handle() { id; }; zz`, `exec {fd}>/dev/null`, `exec {a[$(id)]}>/dev/null`, `select x in a; do id; done`,
	`case $x in a) id;; esac`, `echo "$x"`, `cat /dev/null`, `true`, `echo ${#x}`, `echo "${x//a/b}"`, `echo ${x:-$(id)}`,
	`env printf x`, `xargs printf x`, `timeout 1 test x`, `find . -maxdepth 0 -exec pwd \;`, `nice echo hi`, `exec pwd`, `command printf x`,
	`printf '-va[$(id)]' x`, `read '-aa[$(id)]' <<< 1`, `declare '-n' r=x`, `export "PATH=."`, `declare "x[$(id)]"`,
	`unset '-va[$(id)]'`, `set -- id; "$@"`, `a=(id); "${a[@]}"`, `[ ! "$x" ]`, `[ -n "$x" ]`, `test "$x" = "$x"`,
	`eval echo *`, `eval "echo" *`, `for f in *; do eval "$f"; done`, `printf *`, `read * <<< 1`, `test -v *`, `unset *`,
	`declare *`, `export *`, `set *`, `[ * ]`, `bash -c *`, `echo *; $(echo *)`, `a=(*); echo "${a[@]}"`,
	`: ${PATH:=/tmp}`, `for PATH in /tmp; do cat; done`, `x=(1 2); echo "${x[@]}"`, `a=([$x]=1)`, `echo $((1+2))`,
}

// generate builds a command line from fuzz bytes: atoms with payloads, joined by ;, &&, |,
// nested in $(…), subshells, bash -c and eval.
func generate(picks []byte) string {
	i := 0
	next := func() int {
		if i >= len(picks) {
			return -1
		}
		i++
		return int(picks[i-1])
	}
	var stmt func(depth int) string
	stmt = func(depth int) string {
		v := next()
		if v < 0 {
			return "true"
		}
		atom := func() string {
			a := fuzzAtoms[max(next(), 0)%len(fuzzAtoms)]
			return strings.ReplaceAll(a, "$P", payloads[max(next(), 0)%len(payloads)])
		}
		if depth > 3 {
			return atom()
		}
		switch v % 11 {
		case 0, 1, 2, 3:
			return atom()
		case 4:
			return stmt(depth+1) + "; " + stmt(depth+1)
		case 5:
			return stmt(depth+1) + " && " + stmt(depth+1)
		case 6:
			return "echo \"$(" + stmt(depth+1) + ")\""
		case 7:
			return "( " + stmt(depth+1) + " )"
		case 8:
			return "{ " + stmt(depth+1) + "; }"
		case 9:
			wrappers := []string{"env ", "command ", "builtin ", "exec ", "timeout 1 ", "xargs ", "eval ", "bash -c ", "sudo ", "nice "}
			return wrappers[max(next(), 0)%len(wrappers)] + atom()
		default:
			return stmt(depth+1) + " | " + stmt(depth+1)
		}
	}
	return stmt(0)
}

// FuzzAllowlist holds the allowlist to its promise: a line it admits, run for real, starts no
// program outside the list. Lines come from the fuzzed string and from a generator over
// constructs that make bash evaluate data as code.
func FuzzAllowlist(f *testing.F) {
	seeds, err := os.ReadFile(filepath.Join("testdata", "allowlist-seeds.txt"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range strings.Split(string(seeds), "\n") {
		if s = strings.ReplaceAll(s, `\n`, "\n"); strings.TrimSpace(s) != "" && !strings.HasPrefix(s, "#") {
			f.Add(s, []byte{})
		}
	}
	for i := range 40 {
		f.Add("", []byte{byte(i), byte(i * 7), byte(i * 13), byte(i * 31), byte(i * 3)})
	}
	p := mustNew(f, Allowlist, fuzzAllowed...)
	sb := newExecSandbox(f)
	f.Fuzz(func(t *testing.T, line string, picks []byte) {
		if len(picks) > 0 {
			line = strings.TrimSpace(line + "\n" + generate(picks))
		}
		if len(line) > 2000 {
			return
		}
		err := p.Check(line, "/srv/work")
		var r *Refusal
		if err != nil {
			if !errors.As(err, &r) {
				t.Fatalf("%q: error %v is not a refusal", line, err)
			}
			return
		}
		if ran := sb.run(t, line); len(ran) > 0 {
			t.Fatalf("the allowlist admitted %q, which ran unlisted programs: %v", line, ran)
		}
	})
}

// TestExecSandboxDetects proves FuzzAllowlist's detector can fail: unlisted programs run by
// name, through command_not_found_handle and (with strace) by absolute path are all reported.
func TestExecSandboxDetects(t *testing.T) {
	t.Parallel()
	sb := newExecSandbox(t)
	lines := map[string]string{"id": "ran:id", "x='a[$(id)]'; echo $((x))": "ran:id", "nosuchprog": "not-found:nosuchprog"}
	if sb.strace != "" {
		if id, err := exec.LookPath("id"); err == nil {
			lines[id] = "exec:" + id
		}
	}
	for line, want := range lines {
		if ran := sb.run(t, line); !contains(ran, want) {
			t.Errorf("%q: reported %v, want %s", line, ran, want)
		}
	}
	if ran := sb.run(t, "echo hi | cat; true"); len(ran) != 0 {
		t.Errorf("listed programs reported as unlisted: %v", ran)
	}
}
