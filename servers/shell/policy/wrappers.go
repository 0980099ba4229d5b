package policy

import (
	"slices"
	"strings"
)

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
	alwaysJoin  bool     // the command words are one shell command line (ssh, sg)
	ownStdin    bool     // it reads its standard input itself; the command gets /dev/null (xargs, parallel)
	shellWith   []string // options with which it runs a shell when given no command (sudo -s, doas -s)
	optsAfter   bool     // its options follow the positional operands (setarch ARCH -R COMMAND)
}

var wrappers = map[string]wrapper{
	"sudo": {grammar: grammar{shortReq: "aCcDgpRrTtUu", shortOpt: "h", shortFlags: "ABbEeHiKklNnPSsVv",
		long: longs("auth-type close-from chdir group host prompt chroot role type command-timeout other-user user login-class", "preserve-env",
			"askpass background bell edit set-home help login remove-timestamp reset-timestamp list no-update non-interactive preserve-groups stdin shell version validate")},
		assigns: true, joinWith: []string{"-s", "-i", "--shell", "--login"}, shellWith: []string{"-s", "-i", "--shell", "--login"}},
	"doas": {grammar: grammar{shortReq: "aCu", shortFlags: "Lns"}, shellWith: []string{"-s"}},
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
		defaultCmd: "echo", replace: []string{"-I", "-i", "--replace"}, ownStdin: true},
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
		"mount uts ipc net pid user cgroup time kill-child map-user map-group map-users map-groups monotonic boottime", "fork map-root-user map-current-user map-auto mount-proc keep-caps help version")},
		defaultCmd: "sh"},
	"prlimit": {grammar: grammar{shortReq: "po", shortOpt: "ACcdefilmnqrstuvxy", shortFlags: "hV", long: longs("pid output", "as core cpu data fsize locks memlock msgqueue nice nofile nproc rss rtprio rttime sigpending stack",
		"noheadings raw verbose help version")}, runsNothing: []string{"-p", "--pid"}},
	"catchsegv": {},
	"chroot":    {grammar: grammar{long: longs("userspec groups", "", "skip-chdir help version")}, positional: 1, defaultCmd: "sh"},
	"runuser": {grammar: grammar{shortReq: "cgGsuw", shortFlags: "flmpP", permute: true, long: longs("command session-command group supp-group shell user whitelist-environment",
		"", "fast login preserve-environment pty help version")}, scripts: []string{"-c", "--command", "--session-command"}, shellArgs: true},
	"su": {grammar: grammar{shortReq: "cgGsw", shortFlags: "flmpP", permute: true, long: longs("command session-command group supp-group shell whitelist-environment",
		"", "fast login preserve-environment pty help version")}, scripts: []string{"-c", "--command", "--session-command"}, shellArgs: true},
	"nsenter": {grammar: grammar{shortReq: "tSGN", shortOpt: "muinpUCTrw", shortFlags: "aFZhV", long: longs("target setuid setgid user-parent net-socket", "mount uts ipc net pid user cgroup time root wd",
		"all follow-context preserve-credentials no-fork keep-caps env join-cgroup help version")}, defaultCmd: "sh"},
	"systemd-run": {grammar: grammar{shortReq: "upEMHGs", shortFlags: "dtPqrS", long: longs("unit property description slice setenv machine host uid gid nice working-directory service-type "+
		"on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar on-clock-change on-timezone-change timer-property path-property socket-property expand-environment json background",
		"", "user system scope same-dir pty pipe shell quiet wait collect no-block no-ask-password send-sighup ignore-failure slice-inherit help version")}, defaultCmd: "sh"},
	"run0": {grammar: grammar{shortReq: "ugD", long: longs("user group nice chdir setenv property unit description slice background machine", "",
		"no-ask-password slice-inherit help version")}, defaultCmd: "sh"},
	"pkexec":           {grammar: grammar{long: longs("user", "", "disable-internal-agent keep-cwd help version")}, defaultCmd: "sh"},
	"ssh":              {grammar: grammar{shortReq: "BbcDEeFIiJLlmOoPpQRSWw", shortFlags: "46AaCfGgKkMNnqsTtVvXxYy"}, positional: 1, alwaysJoin: true, defaultCmd: "sh", runsNothing: []string{"-N", "-W", "-O", "-G", "-Q", "-V"}},
	"sg":               {grammar: grammar{}, positional: 1, alwaysJoin: true, scripts: []string{"-c"}},
	"setarch":          {optsAfter: true, grammar: grammar{shortFlags: "vRFZLXBIST3", long: longs("", "", "addr-no-randomize fdpic-funcptrs mmap-page-zero addr-compat-layout read-implies-exec 32bit short-inode whole-seconds sticky-timeouts 3gb 4gb uname-2.6 verbose list help version")}, positional: 1},
	"faketime":         {grammar: grammar{shortReq: "fm", shortFlags: "h", long: longs("exclude-monotonic date-prog", "", "help")}, positional: 1},
	"eatmydata":        {},
	"nocache":          {},
	"fakeroot":         {grammar: grammar{shortReq: "lsib", shortFlags: "uhv", long: longs("lib faked", "", "unknown-is-real help version")}},
	"torsocks":         {grammar: grammar{shortReq: "uPpa", shortFlags: "iqdh", long: longs("user pass port address", "", "isolate quiet debug help version shell")}},
	"proxychains":      {grammar: grammar{shortReq: "f", shortFlags: "q"}},
	"proxychains4":     {grammar: grammar{shortReq: "f", shortFlags: "q"}},
	"cgexec":           {grammar: grammar{shortReq: "g", long: longs("", "", "sticky")}},
	"ltrace":           {grammar: grammar{shortReq: "aADeFlnopsuwx", shortFlags: "bcCfhiLrStTV", long: longs("align output library", "demangle", "help version")}, runsNothing: []string{"-p"}},
	"valgrind":         {},
	"dbus-run-session": {grammar: grammar{long: longs("config-file dbus-daemon", "", "help version")}},
	"xvfb-run":         {grammar: grammar{shortReq: "nsfepwl", shortFlags: "ah", long: longs("server-num server-args auth-file error-file xauth-protocol wait listen-tcp", "", "auto-servernum help")}},
	"firejail":         {},
	"bwrap":            {},
	"toybox":           {},
	"parallel": {grammar: grammar{shortReq: "aCdEIjJLlnNPSsx", shortFlags: "0egkqrRtuvX", long: longs("arg-file colsep delimiter eof replace jobs max-lines max-args sshlogin max-chars "+
		"timeout delay tmpdir joblog results retries memfree load halt tag-string workdir basefile return transfer-file env", "", "null group keep-order pipe quote "+
		"dry-run verbose tag linebuffer line-buffer ungroup progress bar eta no-notice will-cite citation shuf xargs semaphore help version")}, ownStdin: true},
	"sem": {grammar: grammar{shortReq: "j", shortFlags: "u", long: longs("id jobs timeout", "", "fg wait will-cite")}, alwaysJoin: true},
}

// wrapping is what a wrapper runs, as far as its arguments tell.
type wrapping struct {
	cmd      []word   // the command it runs; nil when none
	scripts  []word   // shell command lines it runs
	assigns  []string // NAME=value operands it sets for the command
	replace  []string // strings the wrapper replaces by its input inside the command
	computed bool     // a word computed at run time may be the command, or shift where it starts
	unsure   bool     // an option the grammar does not know: the command may start elsewhere
	ownStdin bool     // the command does not read the wrapper's standard input
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
	if inv.prog == "parallel" {
		return parallelRuns(w, args), true
	}
	p := w.parse(args)
	r := wrapping{unsure: p.unsure, ownStdin: w.ownStdin}
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
			switch {
			case len(ops) > 1:
				r.cmd = append([]word{lit("sh")}, ops[1:]...)
			case len(r.scripts) == 0:
				r.cmd = []word{lit("sh")} // the user's login shell, reading standard input
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
		switch {
		case w.defaultCmd != "" && len(r.scripts) == 0:
			r.cmd = []word{lit(w.defaultCmd)}
		case len(w.shellWith) > 0 && p.has(w.shellWith...):
			r.cmd = []word{lit("sh")}
		}
		r.computed = r.computed || anyMulti(args)
		return r, true
	}
	cmd := ops[w.positional:]
	if len(cmd) > 1 && cmd[0].static && slices.Contains(w.scripts, cmd[0].val) {
		// flock FILE -c COMMAND, sg GROUP -c COMMAND: the option after the positional operand.
		r.scripts = append(r.scripts, cmd[1])
		return r, true
	}
	if w.optsAfter {
		g := w.grammar
		q := g.parse(cmd)
		r.unsure = r.unsure || q.unsure
		cmd = q.operands
	}
	// A word before the command that may split into several arguments, or none, moves where
	// the command starts; so may an operand computed at run time where options still stand.
	r.computed = r.computed || anyMulti(args[:len(args)-len(cmd)])
	r.cmd = cmd
	if w.alwaysJoin || p.has(w.joinWith...) || len(w.joinUnless) > 0 && !p.has(w.joinUnless...) {
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
				out[i] = word{node: w.node, opaque: true}
			}
		}
	}
	return out
}

// endsExec reports whether a is the ; or + that ends find's -exec command.
func endsExec(a word) bool { return a.static && (a.val == ";" || a.val == "+") }

// parallelRuns reads GNU parallel's arguments: options, then a command, then groups of inputs
// after ::: (or files after ::::). Each input is a command line of its own when no command is
// given; otherwise the command runs, by a shell, with the input appended (or put in place of
// {}). Without ::: the inputs come from standard input.
func parallelRuns(w wrapper, args []word) wrapping {
	p := w.parse(args)
	r := wrapping{unsure: p.unsure, ownStdin: true}
	var cmd, inputs []word
	sep := -1
	for i, o := range p.operands {
		if o.static && (o.val == ":::" || o.val == "::::" || o.val == ":::+" || o.val == "::::+") {
			sep = i
			break
		}
	}
	cmd = p.operands
	if sep >= 0 {
		cmd = p.operands[:sep]
		for _, o := range p.operands[sep+1:] {
			if !o.static || !strings.HasPrefix(o.val, ":::") {
				inputs = append(inputs, o)
			}
		}
	}
	r.computed = anyMulti(args[:len(args)-len(p.operands)])
	if len(cmd) == 0 {
		r.scripts = inputs
		return r
	}
	r.cmd = cmd
	replaces := false
	for _, w := range cmd {
		replaces = replaces || w.static && strings.Contains(w.val, "{")
	}
	for _, in := range inputs {
		line := append(append([]word{}, cmd...), in)
		if replaces {
			line = line[:len(line)-1]
			for i, w := range line {
				if w.static && in.static {
					line[i] = lit(strings.NewReplacer("{}", in.val, "{.}", in.val, "{/}", in.val, "{//}", in.val, "{/.}", in.val).Replace(w.val))
				}
			}
		}
		r.scripts = append(r.scripts, joined(line))
	}
	if len(inputs) == 0 {
		r.scripts = append(r.scripts, joined(cmd))
	}
	return r
}
