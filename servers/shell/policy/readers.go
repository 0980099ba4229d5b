package policy

import (
	"slices"
	"strings"
)

// readerKind says how a program takes commands from its standard input.
type readerKind int

const (
	notReader   readerKind = iota
	shellReader            // shell commands: bash, sh -s, su, at, parallel …
	codeReader             // a whole program in its own language, read before it runs: python3 -, perl
	otherReader            // commands of its own, with a way to run programs: sqlite3 .shell, gdb shell, ed !, a REPL
)

// commandReaders are programs that read commands from standard input when started without a
// program or command of their own; each is listed with the options that give it one.
var commandReaders = map[string][]string{
	"irb": nil, "pry": nil, "jshell": nil, "ghci": nil, "tclsh": nil, "wish": nil, "expect": nil, // expect's interact hands its input to what it spawns
	"guile": {"-c", "-s"}, "racket": {"-e", "-f", "-t", "-r"}, "sbcl": {"--script", "--eval"}, "clisp": {"-x"},
	"ocaml": nil, "scala": {"-e"}, "groovysh": nil, "erl": {"-eval", "-s", "-run"}, "iex": nil, "julia": {"-e", "--eval"},
	"R": {"-e", "-f", "--file"}, "Rscript": {"-e"}, "octave": {"--eval"}, "deno": {"run", "eval", "test", "fmt", "lint", "compile"},
	"gdb": nil, "lldb": nil, "jdb": nil, "sqlite3": nil, "psql": {"-c", "--command", "-f", "--file", "-l", "--list"},
	"mysql": {"-e", "--execute"}, "mariadb": {"-e", "--execute"}, "dc": {"-e", "--expression", "-f", "--file"},
	"ed": nil, "red": nil, "ex": nil, "vi": nil, "vim": nil, "nvim": nil, "view": nil, "emacs": nil,
	"ftp": nil, "sftp": {"-b"}, "lftp": {"-c", "-f", "-e"}, "tftp": nil, "telnet": nil,
	"screen": nil, "tmux": nil, "login": nil, "machinectl": nil, "lxc-attach": nil, "pct": nil,
	"crontab": {"-l", "-r", "-e"}, "at": {"-f", "-l", "-r", "-d", "-c"}, "batch": {"-f"}, "atq": {"-l"},
}

// interactiveModules are python -m modules that read code or commands from standard input.
var interactiveModules = []string{"code", "pdb", "IPython", "ipython", "asyncio", "idlelib", "bpython", "ptpython", "ptipython", "jupyter"}

// stdinReader reports whether and how inv takes commands from its standard input.
func stdinReader(inv invocation) readerKind {
	switch p := inv.prog; {
	case shells[p]:
		if parseShell(inv).stdin {
			return shellReader
		}
	case interpreters[p]:
		if readsScriptFromStdin(inv) {
			return codeReader
		}
		if interactiveInterpreter(inv) {
			return otherReader
		}
	case p == "source" || p == ".":
		if len(inv.args) > 0 && inv.args[0].static && descriptorFile(inv.args[0].val) {
			return shellReader
		}
	case p == "at" || p == "batch":
		if !hasAnyOption(inv.args, commandReaders[p]) {
			return shellReader
		}
	case p == "crontab":
		if len(staticArgs(inv.args)) == 0 || hasStatic(inv.args, "-") {
			return shellReader
		}
	case p == "awk" || p == "gawk" || p == "mawk" || p == "nawk" || p == "sed" || p == "make":
		for i, a := range inv.args {
			if a.static && (a.val == "-f" || a.val == "--file") && i+1 < len(inv.args) && inv.args[i+1].static && contains(stdinFiles, inv.args[i+1].val) {
				return otherReader
			}
		}
	case p == "parallel" || p == "sem":
		if w, _ := wrapped(inv); len(w.cmd) == 0 && len(w.scripts) == 0 {
			return shellReader
		}
	case p == "script":
		if w, _ := wrapped(inv); len(w.scripts) == 0 {
			return shellReader
		}
	case p == "sqlite3":
		if len(staticArgs(inv.args)) < 2 {
			return otherReader
		}
	case commandReaders[p] != nil || hasKey(commandReaders, p):
		if !hasAnyOption(inv.args, commandReaders[p]) {
			return otherReader
		}
	}
	return notReader
}

func hasKey(m map[string][]string, k string) bool { _, ok := m[k]; return ok }

// interactiveInterpreter reports whether an interpreter started with a script or code goes on
// to read from standard input: python3 -i, python3 -m code, node -i, php -a, perl -d.
func interactiveInterpreter(inv invocation) bool {
	for i, a := range inv.args {
		if !a.static {
			return false
		}
		switch {
		case a.val == "-i" || a.val == "--interactive" || a.val == "-a" && inv.prog == "php":
			return true
		case strings.HasPrefix(a.val, "-d") && strings.HasPrefix(inv.prog, "perl"):
			return true
		case a.val == "-m" && i+1 < len(inv.args) && inv.args[i+1].static && slices.Contains(interactiveModules, inv.args[i+1].val):
			return true
		case a.val == "inspect" && inv.prog == "node" && i == 0:
			return true
		case !strings.HasPrefix(a.val, "-"):
			return false // the script; what follows is its arguments
		}
	}
	return false
}

func hasAnyOption(ws []word, opts []string) bool {
	for _, w := range ws {
		if !w.static {
			return true // may be one of them
		}
		for _, o := range opts {
			if w.val == o || strings.HasPrefix(o, "--") && strings.HasPrefix(w.val, o+"=") || !strings.HasPrefix(o, "--") && len(o) == 2 && strings.HasPrefix(w.val, o) {
				return true
			}
		}
	}
	return false
}

func staticArgs(ws []word) []string {
	var out []string
	for _, w := range ws {
		if w.static {
			out = append(out, w.val)
		}
	}
	return out
}

// readsStdin checks a program that takes commands from its standard input against where that
// input comes from: the caller's text is refused, known text is checked as the commands it
// is, and a function's input is judged where the function is called.
func (c *checker) readsStdin(inv invocation, kind readerKind, depth int, in stdinSource) {
	switch {
	case in.kind == stdinFunc:
		if c.defs.readers[in.fn] < kind {
			c.defs.readers[in.fn] = kind
			c.defs.changed = true
		}
		if c.p.mode == Allowlist && kind == shellReader {
			c.refuse(RuleAllowlistSyntax, "%s reads its script from standard input, which the allowlist cannot check; use %s -c '…'", inv.name, inv.name)
		}
	case in.carriesCaller():
		c.refuse(RuleStdinCommands, "%s would read its commands from the standard input you send (run_command's stdin, or send_process_input later), which the policy never reads as commands; give the commands as the command line itself (run_command runs bash -c), or start a program with its script (start_process 'python3 app.py')", inv.name)
	case in.kind == stdinText && (c.p.mode != Allowlist || !in.piped):
		switch kind {
		case shellReader:
			c.script(in.text, depth+1, stdinSource{kind: stdinScript, fn: in.fn})
		case codeReader:
			c.codeText(in.text, depth, stdinSource{kind: stdinNone, fn: in.fn}) // it read the whole program first
		}
	case c.p.mode == Allowlist && kind == shellReader && in.kind == stdinOther && in.computed:
		c.refuse(RuleAllowlist, "%s reads a script computed at run time, which the allowlist cannot check", inv.name)
	case c.p.mode == Allowlist && kind == shellReader:
		c.refuse(RuleAllowlistSyntax, "%s reads its script from standard input, which the allowlist cannot check; use %s -c '…'", inv.name, inv.name)
	}
}

// inertCommands never read standard input, so in a script a shell reads from standard input
// they cannot take the rest of the script away from the shell.
var inertCommands = map[string]bool{
	"echo": true, "printf": true, "cd": true, "pwd": true, "true": true, "false": true, ":": true, "export": true,
	"declare": true, "local": true, "typeset": true, "readonly": true, "unset": true, "set": true, "shift": true,
	"exit": true, "return": true, "break": true, "continue": true, "test": true, "[": true, "times": true,
	"umask": true, "wait": true, "kill": true, "alias": true, "unalias": true, "shopt": true, "type": true,
	"hash": true, "trap": true, "ulimit": true, "mkdir": true, "rmdir": true, "touch": true, "sleep": true,
	"date": true, "uname": true, "whoami": true, "id": true, "hostname": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "stat": true, "ls": true, "ln": true, "chmod": true, "chown": true,
}

// consumes refuses a command in a script that a shell reads from standard input, other than
// in its last statement, that may read that standard input: what it reads is script text the
// shell then does not run, so the shell may run text the checker read as data (read x eats a
// line that opened a here-document; head -c 6 eats the start of a line).
func (c *checker) consumes(inv invocation, in stdinSource) {
	if in.kind != stdinScript || in.last || inertCommands[inv.prog] {
		return
	}
	c.refuse(RuleStdinCommands, "%s may read the rest of the script the shell reads from standard input, so the shell may run text the checker read as data; give the script with bash -c '…', or give %s its own input (< /dev/null)", inv.name, inv.name)
}
