package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one argument as bash will pass it, when that is known before running.
type word struct {
	val    string       // the value after quote removal and brace expansion, when static
	static bool         // false when the value depends on a variable or a substitution
	node   *syntax.Word // the source word, for finding substitutions inside it
}

// expandWords turns source words into arguments: quotes removed and braces expanded for words
// whose value is fixed, one opaque argument for each word that is not.
func expandWords(ws []*syntax.Word) []word {
	var out []word
	for _, w := range ws {
		if dynamic(w) {
			out = append(out, word{node: w})
			continue
		}
		// A fresh config each time: with a nil one, expand writes to a shared package variable.
		fields, err := expand.Fields(&expand.Config{}, w)
		if err != nil {
			out = append(out, word{node: w})
			continue
		}
		for _, f := range fields {
			out = append(out, word{val: f, static: true, node: w})
		}
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

// invocation is one program being run with its arguments.
type invocation struct {
	prog    string // the program's base name; "" when computed at run time
	name    string // the command name as written, after quote removal
	dynamic bool
	args    []word
}

func newInvocation(fields []word) invocation {
	first := fields[0]
	inv := invocation{args: fields[1:]}
	if !first.static {
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
	optArgs    []string // options that take the next argument as their value
	positional int      // leading operands before the command (timeout's duration)
	assigns    bool     // NAME=value operands before the command (env)
}

var wrappers = map[string]wrapper{
	"sudo":      {optArgs: []string{"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group", "--chdir", "--prompt", "--host", "--role", "--type", "--other-user", "--close-from", "--command-timeout"}, assigns: true},
	"doas":      {optArgs: []string{"-u", "-C"}},
	"env":       {optArgs: []string{"-u", "-C", "--unset", "--chdir", "-S", "--split-string"}, assigns: true},
	"nice":      {optArgs: []string{"-n", "--adjustment"}},
	"nohup":     {},
	"timeout":   {optArgs: []string{"-s", "-k", "--signal", "--kill-after"}, positional: 1},
	"exec":      {optArgs: []string{"-a"}},
	"command":   {},
	"builtin":   {},
	"time":      {optArgs: []string{"-f", "-o", "--format", "--output"}},
	"stdbuf":    {optArgs: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
	"ionice":    {optArgs: []string{"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}},
	"setsid":    {},
	"chrt":      {positional: 1},
	"taskset":   {positional: 1},
	"flock":     {optArgs: []string{"-w", "-E", "--timeout", "--conflict-exit-code"}, positional: 1},
	"xargs":     {optArgs: []string{"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
	"watch":     {optArgs: []string{"-n", "-d", "-q", "--interval", "--differences"}},
	"strace":    {optArgs: []string{"-e", "-o", "-p", "-s", "-u", "-E"}},
	"unbuffer":  {},
	"busybox":   {},
	"catchsegv": {},
	"runuser":   {optArgs: []string{"-u", "-g", "-G", "--user", "--group"}},
}

// wrapped returns the command a wrapper runs, or nil when inv is not a wrapper or runs nothing.
func wrapped(inv invocation) []word {
	w, ok := wrappers[inv.prog]
	if !ok {
		return nil
	}
	args := inv.args
	i := 0
	for i < len(args) {
		a := args[i]
		if !a.static {
			break
		}
		switch {
		case a.val == "--":
			i++
			return skip(args[i:], w.positional)
		case len(a.val) > 1 && a.val[0] == '-':
			i++
			if contains(w.optArgs, a.val) {
				i++
			}
			continue
		case w.assigns && isAssign(a.val):
			i++
			continue
		}
		break
	}
	return skip(args[min(i, len(args)):], w.positional)
}

func skip(args []word, n int) []word {
	if n >= len(args) {
		return nil
	}
	return args[n:]
}

// findExec returns the commands find runs with -exec, -execdir, -ok and -okdir.
func findExec(inv invocation) [][]word {
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

// endsExec reports whether a is the ; or + that ends find's -exec command.
func endsExec(a word) bool { return a.static && (a.val == ";" || a.val == "+") }

var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "rbash": true}

var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true, "php": true, "lua": true}

// shellScriptArg finds the script a shell runs with -c: the word and whether there is one.
func shellScriptArg(inv invocation) (word, bool) {
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if !a.static {
			continue
		}
		if a.val == "--" {
			return word{}, false
		}
		if len(a.val) > 1 && a.val[0] == '-' && a.val[1] != '-' && strings.ContainsRune(a.val[1:], 'c') {
			for j := i + 1; j < len(inv.args); j++ {
				b := inv.args[j]
				if b.static && len(b.val) > 1 && (b.val[0] == '-' || b.val[0] == '+') {
					continue
				}
				return b, true
			}
			return word{}, false
		}
		if !strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "+") {
			return word{}, false
		}
	}
	return word{}, false
}

// inlineScript returns source that inv runs as shell code: bash -c, su -c, eval, env -S, watch.
func inlineScript(inv invocation) (src string, ok bool, isDynamic bool) {
	switch {
	case shells[inv.prog]:
		w, found := shellScriptArg(inv)
		if !found {
			return "", false, false
		}
		return w.val, w.static, !w.static
	case inv.prog == "su":
		for i, a := range inv.args {
			if a.static && (a.val == "-c" || a.val == "--command") && i+1 < len(inv.args) {
				b := inv.args[i+1]
				return b.val, b.static, !b.static
			}
		}
	case inv.prog == "eval" || inv.prog == "watch":
		args := inv.args
		if inv.prog == "watch" {
			args = wrapped(inv)
		}
		if len(args) == 0 {
			return "", false, false
		}
		parts := make([]string, 0, len(args))
		for _, a := range args {
			if !a.static {
				return "", false, true
			}
			parts = append(parts, a.val)
		}
		return strings.Join(parts, " "), true, false
	case inv.prog == "env":
		for i, a := range inv.args {
			if !a.static {
				break
			}
			if v, cut := strings.CutPrefix(a.val, "--split-string="); cut {
				return v, true, false
			}
			if (a.val == "-S" || a.val == "--split-string") && i+1 < len(inv.args) {
				b := inv.args[i+1]
				return b.val, b.static, !b.static
			}
		}
	}
	return "", false, false
}

// readsScriptFromStdin reports whether inv is a shell or interpreter that reads its program
// from standard input: no -c and no script file, or an explicit "-" or "-s".
func readsScriptFromStdin(inv invocation) bool {
	if !shells[inv.prog] && !interpreters[inv.prog] {
		return false
	}
	for _, a := range inv.args {
		if !a.static {
			return false
		}
		switch {
		case a.val == "-" || a.val == "-s":
			return true
		case shells[inv.prog] && len(a.val) > 1 && a.val[0] == '-' && strings.ContainsRune(a.val, 'c'):
			return false
		case interpreters[inv.prog] && (a.val == "-c" || a.val == "-e" || a.val == "-m" || a.val == "-r"):
			return false
		case strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+"):
			continue
		default:
			return false
		}
	}
	return true
}

func isAssign(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && validName(name)
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
