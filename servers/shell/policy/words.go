package policy

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one argument as bash will pass it, when that is known before running.
type word struct {
	val    string       // the value after quote removal and brace expansion, when static
	static bool         // false when the value depends on a variable or a substitution
	multi  bool         // may become zero or several arguments: an unquoted expansion or glob
	node   *syntax.Word // the source word, for finding substitutions inside it
}

// expandWords turns source words into arguments: quotes removed and braces expanded for words
// whose value is fixed, one opaque argument for each word that is not.
func expandWords(ws []*syntax.Word) []word {
	var out []word
	for _, w := range ws {
		if dynamic(w) {
			out = append(out, word{node: w, multi: !singleField(w)})
			continue
		}
		if braceFields(w) > maxBraceFields {
			// Too many to expand while checking: one opaque argument that may be several.
			out = append(out, word{node: w, multi: true})
			continue
		}
		// A fresh config each time: with a nil one, expand writes to a shared package variable.
		fields, err := expand.Fields(&expand.Config{}, controlEscapes(w))
		if err != nil {
			out = append(out, word{node: w, multi: true})
			continue
		}
		glob := unquotedGlob(w)
		for _, f := range fields {
			// bash ends a word at a NUL ($'/\c@' is "/"), as C strings do.
			f, _, _ = strings.Cut(f, "\x00")
			out = append(out, word{val: f, static: true, multi: glob, node: w})
		}
	}
	return out
}

// maxBraceFields bounds the brace expansion the checker performs on one word.
const maxBraceFields = 1024

// braceFields estimates how many fields brace expansion makes of w, saturating above the bound.
func braceFields(w *syntax.Word) int {
	cp := *w // SplitBraces replaces the Parts slice
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return partsFields(cp.Parts)
}

func partsFields(parts []syntax.WordPart) int {
	n := 1
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if br.Sequence {
			k = seqLen(br.Elems)
		} else {
			for _, e := range br.Elems {
				k += partsFields(e.Parts)
			}
		}
		n *= max(k, 1)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

// seqLen is the length of a {x..y[..step]} sequence; anything unreadable counts as too long.
func seqLen(elems []*syntax.Word) int {
	if len(elems) < 2 {
		return maxBraceFields + 1
	}
	a, b := elems[0].Lit(), elems[1].Lit()
	x, errX := strconv.Atoi(a)
	y, errY := strconv.Atoi(b)
	if errX != nil || errY != nil {
		if len(a) == 1 && len(b) == 1 {
			return int(max(a[0], b[0])-min(a[0], b[0])) + 1
		}
		return maxBraceFields + 1
	}
	d := y - x
	if d < 0 {
		d = -d
	}
	if d > maxBraceFields {
		return maxBraceFields + 1
	}
	return d + 1
}

// controlEscapes returns w with bash's \cX escapes in $'…' strings decoded, which the expander
// leaves as written: $'/\c@' is "/" followed by a NUL, so bash passes "/".
func controlEscapes(w *syntax.Word) *syntax.Word {
	var out *syntax.Word
	for i, part := range w.Parts {
		sq, ok := part.(*syntax.SglQuoted)
		if !ok || !sq.Dollar || !strings.Contains(sq.Value, `\c`) {
			continue
		}
		if out == nil {
			out = &syntax.Word{Parts: slices.Clone(w.Parts)}
		}
		var b strings.Builder
		v := sq.Value
		for j := 0; j < len(v); j++ {
			switch {
			case v[j] == '\\' && j+2 < len(v) && v[j+1] == 'c':
				c := v[j+2]
				if c == '?' {
					b.WriteByte(0x7f)
				} else {
					b.WriteByte(c & 0x1f)
				}
				j += 2
			case v[j] == '\\' && j+1 < len(v):
				b.WriteString(v[j : j+2])
				j++
			default:
				b.WriteByte(v[j])
			}
		}
		out.Parts[i] = &syntax.SglQuoted{Left: sq.Left, Right: sq.Right, Dollar: true, Value: b.String()}
	}
	if out == nil {
		return w
	}
	return out
}

// dynamic reports whether a word's value is only known when it runs.
func dynamic(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			found = true
		}
		return !found
	})
	return found
}

// singleField reports whether a dynamic word always becomes exactly one argument: every
// expansion in it is double-quoted and none is "$@", "$*"-like arrays aside.
func singleField(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if globIn(p.Value) {
				return false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				if pe, ok := in.(*syntax.ParamExp); ok && (pe.Param != nil && pe.Param.Value == "@" || pe.Index != nil || pe.Excl) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// unquotedGlob reports whether a word has an unquoted *, ? or [...] that pathname expansion
// may turn into any number of file names.
func unquotedGlob(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if globIn(p.Value) {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// globIn reports whether an unquoted literal holds a glob character not escaped by a backslash.
func globIn(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.Contains(s[i+1:], "]") {
				return true
			}
		}
	}
	return false
}

// invocation is one program being run with its arguments.
type invocation struct {
	prog    string // the program's base name; "" when computed at run time
	name    string // the command name as written, after quote removal
	dynamic bool   // the name is computed at run time (a variable, substitution or glob)
	args    []word
}

func newInvocation(fields []word) invocation {
	first := fields[0]
	inv := invocation{args: fields[1:]}
	if !first.static || first.multi {
		inv.dynamic = true
		return inv
	}
	inv.name = first.val
	inv.prog = path.Base(first.val)
	if first.val == "" {
		inv.prog = ""
	}
	return inv
}

// wrapper describes a program that runs another program given in its arguments.
type wrapper struct {
	grammar
	positional  int      // operands before the command (timeout's duration, flock's lock file)
	assigns     bool     // NAME=value operands before the command (env, sudo)
	runsNothing []string // options with which no command runs (command -v, ionice -p)
	scripts     []string // options whose value is a shell command line (flock -c, su -c)
	joinWith    []string // options that make the command words one shell command line (sudo -s)
	joinUnless  []string // the command words are one shell command line unless one of these is given (watch -x)
	defaultCmd  string   // the command run when none is given (xargs runs echo)
	replace     []string // options whose value is replaced by input inside the command (xargs -I)
	shellArgs   bool     // after the user operand the arguments go to a shell (su, runuser without -u)
	noCommand   bool     // operands are files, never a command; only scripts run (script -c)
}

var wrappers = map[string]wrapper{
	"sudo": {grammar: grammar{shortReq: "aCcDgpRrTtUu", shortOpt: "h", shortFlags: "ABbEeHiKklNnPSsVv",
		long: longs("auth-type close-from chdir group host prompt chroot role type command-timeout other-user user login-class", "preserve-env",
			"askpass background bell edit set-home help login remove-timestamp reset-timestamp list no-update non-interactive preserve-groups stdin shell version validate")},
		assigns: true, joinWith: []string{"-s", "-i", "--shell", "--login"}},
	"doas": {grammar: grammar{shortReq: "aCu", shortFlags: "Lns"}},
	"env": {grammar: grammar{shortReq: "aCSu", shortFlags: "0iv", long: longs("argv0 chdir split-string unset",
		"block-signal default-signal ignore-signal", "ignore-environment null debug list-signal-handling help version")}, assigns: true},
	"nice":    {grammar: grammar{shortReq: "n", numeric: true, long: longs("adjustment", "", "help version")}},
	"nohup":   {grammar: grammar{long: longs("", "", "help version")}},
	"timeout": {grammar: grammar{shortReq: "ks", shortFlags: "fpv", long: longs("kill-after signal", "", "foreground preserve-status verbose help version")}, positional: 1},
	"exec":    {grammar: grammar{shortReq: "a", shortFlags: "cl"}},
	"command": {grammar: grammar{shortFlags: "pvV"}, runsNothing: []string{"-v", "-V"}},
	"builtin": {},
	"time":    {grammar: grammar{shortReq: "fo", shortFlags: "apqv", long: longs("format output", "", "append portability quiet verbose help version")}},
	"stdbuf":  {grammar: grammar{shortReq: "ioe", long: longs("input output error", "", "help version")}},
	"ionice": {grammar: grammar{shortReq: "cnpPu", shortFlags: "t", long: longs("class classdata pid pgid uid", "", "ignore help version")},
		runsNothing: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	"setsid": {grammar: grammar{shortFlags: "cfw", long: longs("", "", "ctty fork wait help version")}},
	"chrt": {grammar: grammar{shortReq: "TPD", shortFlags: "abdefimoprRv", long: longs("sched-runtime sched-period sched-deadline", "",
		"all-tasks batch deadline ext fifo idle max other pid reset-on-fork rr verbose help version")}, positional: 1, runsNothing: []string{"-p", "--pid"}},
	"taskset": {grammar: grammar{shortFlags: "acp", long: longs("", "", "all-tasks cpu-list pid help version")}, positional: 1, runsNothing: []string{"-p", "--pid"}},
	"flock": {grammar: grammar{shortReq: "wEc", shortFlags: "sexnuoFv", long: longs("timeout conflict-exit-code command", "",
		"shared exclusive unlock nonblock nb close no-fork verbose help version")}, positional: 1, scripts: []string{"-c", "--command"}},
	"xargs": {grammar: grammar{shortReq: "adEILnPs", shortOpt: "eil", shortFlags: "0oprtx", long: longs("arg-file delimiter max-args max-procs max-chars process-slot-var",
		"eof replace max-lines", "null interactive no-run-if-empty verbose exit show-limits open-tty help version")},
		defaultCmd: "echo", replace: []string{"-I", "-i", "--replace"}},
	"watch": {grammar: grammar{shortReq: "nq", shortOpt: "d", shortFlags: "bcCegprtwx", long: longs("interval equexit", "differences",
		"beep color no-color errexit chgexit exec precise no-rerun no-title no-wrap help version")}, joinUnless: []string{"-x", "--exec"}},
	"strace": {grammar: grammar{shortReq: "abeEIoOpPsSuUX", shortFlags: "cCdDfFhiknqrtTvVwxyYzZ", long: longs("output attach string-limit user env trace signal status trace-path summary-columns",
		"", "follow-forks output-separately summary-only summary help version")}, runsNothing: []string{"-p", "--attach"}},
	"unbuffer": {grammar: grammar{shortFlags: "p"}},
	"busybox":  {},
	"script": {grammar: grammar{shortReq: "cEIOBTm", shortOpt: "t", shortFlags: "aefqhV", long: longs("command echo log-in log-out log-io log-timing logging-format", "timing",
		"append return flush force quiet help version")}, scripts: []string{"-c", "--command"}, noCommand: true},
	"setpriv": {grammar: grammar{shortFlags: "dhV", long: longs("reuid regid ruid rgid euid egid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule seccomp-filter", "",
		"dump nnp no-new-privs init-groups keep-groups clear-groups reset-env help version")}},
	"unshare": {grammar: grammar{shortReq: "SGRw", shortFlags: "muinpUCTfrchV", long: longs("setuid setgid root wd propagation setgroups load-interp",
		"mount uts ipc net pid user cgroup time kill-child map-user map-group map-users map-groups monotonic boottime", "fork map-root-user map-current-user map-auto mount-proc keep-caps help version")}},
	"prlimit": {grammar: grammar{shortReq: "po", shortOpt: "ACcdefilmnqrstuvxy", shortFlags: "hV", long: longs("pid output", "as core cpu data fsize locks memlock msgqueue nice nofile nproc rss rtprio rttime sigpending stack",
		"noheadings raw verbose help version")}, runsNothing: []string{"-p", "--pid"}},
	"catchsegv": {},
	"chroot":    {grammar: grammar{long: longs("userspec groups", "", "skip-chdir help version")}, positional: 1, defaultCmd: "sh"},
	"runuser": {grammar: grammar{shortReq: "cgGsuw", shortFlags: "flmpP", permute: true, long: longs("command session-command group supp-group shell user whitelist-environment",
		"", "fast login preserve-environment pty help version")}, scripts: []string{"-c", "--command", "--session-command"}, shellArgs: true},
	"su": {grammar: grammar{shortReq: "cgGsw", shortFlags: "flmpP", permute: true, long: longs("command session-command group supp-group shell whitelist-environment",
		"", "fast login preserve-environment pty help version")}, scripts: []string{"-c", "--command", "--session-command"}, shellArgs: true},
}

// wrapping is what a wrapper runs, as far as its arguments tell.
type wrapping struct {
	cmd      []word   // the command it runs; nil when none
	scripts  []word   // shell command lines it runs
	assigns  []string // NAME=value operands it sets for the command
	replace  []string // strings the wrapper replaces by its input inside the command
	computed bool     // a word computed at run time may be the command, or shift where it starts
	unsure   bool     // an option the grammar does not know: the command may start elsewhere
}

// wrapped returns what inv runs when it is a wrapper such as sudo, env or timeout.
func wrapped(inv invocation) (wrapping, bool) {
	w, ok := wrappers[inv.prog]
	if !ok {
		return wrapping{}, false
	}
	args := inv.args
	if inv.prog == "env" {
		args = envSplit(args)
	}
	p := w.parse(args)
	r := wrapping{unsure: p.unsure}
	r.scripts = p.values(w.scripts...)
	for _, v := range p.values(w.replace...) {
		if v.static && v.val != "" {
			r.replace = append(r.replace, v.val)
		} else if !v.static {
			r.computed = true
		}
	}
	if p.has("-i") && inv.prog == "xargs" || p.has("--replace") && len(r.replace) == 0 {
		r.replace = append(r.replace, "{}")
	}
	if p.has(w.runsNothing...) || w.noCommand {
		return r, true
	}
	ops := p.operands
	if w.shellArgs {
		if p.has("-u", "--user") {
			// runuser -u USER COMMAND…: the command's own options are not runuser's.
			g := w.grammar
			g.permute = false
			p = g.parse(args)
			ops = p.operands
			r.unsure = r.unsure || p.unsure
		} else {
			// su [options] [-] [user [arguments]]: the arguments go to the user's shell.
			for len(ops) > 0 && ops[0].static && ops[0].val == "-" {
				ops = ops[1:]
			}
			if len(ops) > 1 {
				r.cmd = append([]word{lit("sh")}, ops[1:]...)
			}
			r.computed = anyMulti(args)
			return r, true
		}
	}
	// env and sudo take any operand holding "=" as an assignment, whatever the name.
	for len(ops) > 0 && ops[0].static && (w.assigns && strings.Contains(ops[0].val, "=") || inv.prog == "env" && ops[0].val == "-") {
		r.assigns = append(r.assigns, ops[0].val)
		ops = ops[1:]
	}
	if len(ops) <= w.positional {
		if w.defaultCmd != "" {
			r.cmd = []word{lit(w.defaultCmd)}
		}
		r.computed = r.computed || anyMulti(args)
		return r, true
	}
	cmd := ops[w.positional:]
	if inv.prog == "flock" && len(cmd) > 1 && cmd[0].static && (cmd[0].val == "-c" || cmd[0].val == "--command") {
		// flock FILE -c COMMAND: the option after the lock file.
		r.scripts = append(r.scripts, cmd[1])
		return r, true
	}
	// A word before the command that may split into several arguments, or none, moves where
	// the command starts; so may an operand computed at run time where options still stand.
	r.computed = r.computed || anyMulti(args[:len(args)-len(cmd)])
	r.cmd = cmd
	if p.has(w.joinWith...) || len(w.joinUnless) > 0 && !p.has(w.joinUnless...) {
		r.scripts = append(r.scripts, joined(cmd))
	}
	return r, true
}

func anyMulti(ws []word) bool {
	for _, w := range ws {
		if w.multi {
			return true
		}
	}
	return false
}

// joined is the words as one shell command line, as sudo -s and watch build it.
func joined(ws []word) word {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if !w.static || w.multi {
			// A glob becomes file names, and a file may be named $(cmd).
			return word{multi: true, node: w.node}
		}
		parts = append(parts, w.val)
	}
	return lit(strings.Join(parts, " "))
}

// envSplit replaces env's -S/--split-string option by the words it splits into, as env does.
func envSplit(args []word) []word {
	g := wrappers["env"].grammar
	for range 4 {
		p := g.parse(args)
		var split *option
		for i, o := range p.opts {
			if o.name == "-S" || o.name == "--split-string" {
				split = &p.opts[i]
				break
			}
		}
		if split == nil {
			return args
		}
		rest := args[split.end+1:]
		args = append(splitString(split.value), rest...)
	}
	return args
}

// splitString splits env -S's string into words. Anything beyond plain words and quotes
// (variables, escapes) makes the result one word computed at run time.
func splitString(w word) []word {
	if !w.static || strings.ContainsAny(w.val, "$\\") {
		return []word{{multi: true, node: w.node}}
	}
	var out []word
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(w.val); i++ {
		ch := w.val[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				out = append(out, lit(cur.String()))
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return []word{{multi: true, node: w.node}}
	}
	if inWord {
		out = append(out, lit(cur.String()))
	}
	return out
}

// findExec returns the commands find runs with -exec, -execdir, -ok and -okdir. An argument
// holding {} is the found file's name, known only at run time.
func findExec(inv invocation) [][]word {
	var cmds [][]word
	for _, cmd := range findExecRaw(inv) {
		cmds = append(cmds, replaced(cmd, []string{"{}"}))
	}
	return cmds
}

// findExecRaw returns the commands of -exec, -execdir, -ok and -okdir as written.
func findExecRaw(inv invocation) [][]word {
	var cmds [][]word
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static || (a.val != "-exec" && a.val != "-execdir" && a.val != "-ok" && a.val != "-okdir") {
			continue
		}
		j := i + 1
		for j < len(inv.args) && !endsExec(inv.args[j]) {
			j++
		}
		if j > i+1 {
			cmds = append(cmds, inv.args[i+1:j])
		}
		i = j
	}
	return cmds
}

// replaced marks the words holding one of the strings as computed at run time.
func replaced(ws []word, marks []string) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		out[i] = w
		for _, m := range marks {
			if w.static && strings.Contains(w.val, m) {
				out[i] = word{node: w.node}
			}
		}
	}
	return out
}

// endsExec reports whether a is the ; or + that ends find's -exec command.
func endsExec(a word) bool { return a.static && (a.val == ";" || a.val == "+") }

var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "rbash": true}

var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true, "php": true, "lua": true}

// stdinFiles are script file names that read standard input.
var stdinFiles = []string{"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}

// safeShellOptions are the set -o / bash -o options that do not change how code is found or run.
var safeShellOptions = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "pipefail": true, "noglob": true, "noclobber": true,
	"verbose": true, "noexec": true,
}

// shellCall is how a shell was asked to run code.
type shellCall struct {
	script   word   // the -c command string, when hasC
	hasC     bool   // -c was given
	file     word   // the script file, when hasFile
	hasFile  bool   // a script file operand was given
	stdin    bool   // the script comes from standard input
	unsafe   string // why the allowlist cannot vouch for this call; "" when it can
	computed bool   // a word computed at run time stands among the options
}

// parseShell reads a shell's arguments as bash does: option clusters (-ec, +x), -o/+o and
// -O/+O with a value, long options (--norc, --rcfile FILE), "--" or "-" ending options, then
// the command string (with -c) or the script file, else standard input.
func parseShell(inv invocation) shellCall {
	var s shellCall
	i := 0
	setUnsafe := func(why string) {
		if s.unsafe == "" {
			s.unsafe = why
		}
	}
loop:
	for ; i < len(inv.args); i++ {
		a := inv.args[i]
		switch {
		case !a.static:
			if a.multi {
				s.computed = true
				setUnsafe("an argument computed at run time may be an option")
			}
			break loop
		case a.val == "--" || a.val == "-":
			i++
			break loop
		case a.val == "--rcfile" || a.val == "--init-file":
			setUnsafe(a.val + " runs a startup file")
			i++
		case strings.HasPrefix(a.val, "--"):
			switch a.val {
			case "--norc", "--noprofile", "--noediting", "--verbose", "--version", "--help":
			default:
				setUnsafe("the option " + a.val)
			}
		case len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+'):
			for _, ch := range a.val[1:] {
				switch ch {
				case 'c':
					s.hasC = true
				case 's':
					s.stdin = true
				case 'o', 'O':
					if i+1 < len(inv.args) {
						i++
						v := inv.args[i]
						if ch == 'O' || !v.static || !safeShellOptions[v.val] {
							setUnsafe(string(a.val[0]) + string(ch) + " " + v.val)
						}
					}
				case 'i', 'l':
					setUnsafe("-" + string(ch) + " reads startup files")
				case 'e', 'u', 'x', 'v', 'n', 'f', 'C':
				default:
					setUnsafe("the option -" + string(ch))
				}
			}
		default:
			break loop
		}
	}
	switch {
	case i >= len(inv.args):
		if s.hasC {
			setUnsafe("-c without a command string")
		} else {
			s.stdin = true
		}
	case s.hasC:
		s.script = inv.args[i]
		if s.script.multi {
			s.computed = true
		}
	case s.stdin:
	default:
		s.file, s.hasFile = inv.args[i], true
		if s.file.static && contains(stdinFiles, s.file.val) {
			s.stdin = true
		}
	}
	return s
}

// inlineScript returns source that inv runs as shell code: bash -c, eval, trap.
func inlineScript(inv invocation) (w word, ok bool) {
	switch {
	case shells[inv.prog]:
		s := parseShell(inv)
		if !s.hasC || s.script.node == nil && !s.script.static {
			return word{}, false
		}
		return s.script, true
	case inv.prog == "eval":
		if len(inv.args) == 0 {
			return word{}, false
		}
		return joined(inv.args), true
	case inv.prog == "trap":
		if len(inv.args) > 1 {
			return inv.args[0], true
		}
	}
	return word{}, false
}

// readsScriptFromStdin reports whether inv is a shell or interpreter that reads its program
// from standard input: no -c and no script file, "-", "-s" or /dev/stdin.
func readsScriptFromStdin(inv invocation) bool {
	if shells[inv.prog] {
		return parseShell(inv).stdin
	}
	if !interpreters[inv.prog] {
		return false
	}
	for _, a := range inv.args {
		if !a.static {
			return false
		}
		switch {
		case contains(stdinFiles, a.val):
			return true
		case a.val == "-c" || a.val == "-e" || a.val == "-E" || a.val == "-m" || a.val == "-r" || a.val == "-p" || a.val == "--eval" || a.val == "--print":
			return false
		case strings.HasPrefix(a.val, "-"):
			continue
		default:
			return false
		}
	}
	return true
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
