package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command checks one simple command, then what it runs in turn. external is true when another
// program starts it (sudo, env, xargs, find -exec): then even a builtin's name runs a program.
// in is its standard input.
func (c *checker) command(fields []word, depth int, external bool, in stdinSource) {
	if len(fields) == 0 || c.refusal != nil {
		return
	}
	if c.steps++; c.steps > maxSteps {
		c.refuse(RuleNesting, "the command line is too complex to check")
		return
	}
	inv := newInvocation(fields)
	if inv.dynamic {
		c.refuse(RuleComputedCommand, "the command name %s is computed at run time, so no rule can check it; write the program's name", source(fields[0]))
		return
	}
	c.rules(inv)
	c.allow(inv, external)
	c.consumes(inv, in)
	if c.refusal != nil {
		return
	}
	c.learnCall(inv, in)
	switch inv.prog {
	case "cd", "pushd", "popd":
		c.chdir(inv)
	case "find":
		for _, cmd := range findExec(inv) {
			c.command(cmd, depth, true, in)
		}
		c.findStarts(inv, depth, in)
	}
	if w, ok := wrapped(inv); ok {
		c.wrapper(inv, w, depth, in)
	}
	if w, ok := inlineScript(inv); ok {
		c.inline(inv, w, depth, in)
	}
	c.codeStrings(inv, depth, in)
	c.scriptFile(inv, depth, in)
	if k := stdinReader(inv); k != notReader {
		c.readsStdin(inv, k, depth, in)
	}
	if k := c.defs.readers[inv.name]; k != notReader && !external {
		// A function whose body reads commands from its standard input reads this call's.
		c.readsStdin(inv, k, depth, in)
	}
	if shells[inv.prog] || interpreters[inv.prog] || inv.prog == "source" || inv.prog == "." || inv.prog == "eval" {
		for _, a := range inv.args {
			if a.node != nil && hasDownloader(a.node) {
				c.refuse(RulePipeToShell, "%s runs code fetched by a download; download to a file, read it, then run it", inv.name)
			}
		}
	}
}

// wrapper checks what a wrapper such as sudo or env runs.
func (c *checker) wrapper(inv invocation, w wrapping, depth int, in stdinSource) {
	if w.computed {
		c.refuse(RuleComputedCommand, "%s runs a command computed at run time (a variable, substitution or glob before or as the command), so no rule can check it", inv.name)
		return
	}
	if c.p.mode == Allowlist {
		for _, a := range w.assigns {
			if name, _, _ := strings.Cut(a, "="); !childEnvName(strings.TrimSuffix(name, "+")) {
				c.refuse(RuleAllowlistEnv, "%s", envRefusal(name, inv.name+" "+name+"=…"))
			}
		}
	}
	if inv.prog == "xargs" && len(w.cmd) > 0 {
		c.xargsRuns(w, depth, in)
	}
	if w.ownStdin {
		// xargs and parallel read their standard input themselves; what they run reads /dev/null.
		in = stdinSource{kind: stdinNone, fn: in.fn}
	}
	for _, s := range w.scripts {
		c.inline(inv, s, depth, in)
	}
	cmd := replaced(w.cmd, w.replace)
	if len(cmd) == 0 {
		return
	}
	// command and builtin run builtins as builtins; every other wrapper executes a program.
	external := inv.prog != "command" && inv.prog != "builtin"
	if !w.unsure {
		c.command(cmd, depth, external, in)
		return
	}
	if c.p.mode == Allowlist {
		c.refuse(RuleAllowlistSyntax, "%s is given an option the checker does not know, so it cannot tell which command runs", inv.name)
		return
	}
	// An unknown option may or may not take a value: check every place the command may start.
	for i := range cmd {
		if cmd[i].static && !cmd[i].multi {
			c.command(cmd[i:], depth, external, in)
		}
	}
}

// inline checks a shell command line that inv runs, reading in. A script computed at run time
// is checked as each value the checker can give it, when it can give them all (eval "$(echo
// ls)", x='ls'; bash -c "$x").
func (c *checker) inline(inv invocation, w word, depth int, in stdinSource) {
	if !w.static {
		if vals, ok := c.scriptValues(inv, w); ok {
			for _, v := range vals {
				c.inline(inv, lit(v), depth, in)
			}
			return
		}
		c.computedCode(w, shells[inv.prog], in)
		if !shells[inv.prog] {
			c.taint() // eval or trap: computed code in this shell may assign any variable
		}
	} else if shells[inv.prog] && in.fn != "" {
		c.fn(in.fn).forks = true // a new shell process stays alive under the function
	}
	switch {
	case w.static:
		c.script(w.val, depth+1, in)
	case c.p.mode == Allowlist:
		c.refuse(RuleAllowlist, "%s runs a script computed at run time, which the allowlist cannot check", inv.name)
	case c.input:
		c.refuse(RuleStdinCommands, "%s runs a script computed at run time, which may be the standard input you send; give the commands as the command line itself", inv.name)
	}
}

// pipeline refuses a download piped into a shell or interpreter reading its script from stdin.
func (c *checker) pipeline(b *syntax.BinaryCmd) {
	if b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
		return
	}
	stmts := flattenPipe(b, nil)
	downloaded := false
	for _, st := range stmts {
		if downloaded {
			for _, inv := range chain(st) {
				if readsScriptFromStdin(inv) {
					c.refuse(RulePipeToShell, "a download piped into %s runs code nobody read; download to a file, read it, then run it", inv.name)
					return
				}
			}
		}
		downloaded = downloaded || hasDownloader(st)
	}
}

func flattenPipe(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	for _, st := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := st.Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) {
			out = flattenPipe(inner, out)
			continue
		}
		out = append(out, st)
	}
	return out
}

// chain lists the programs a statement runs: the command and whatever it wraps.
func chain(st *syntax.Stmt) []invocation {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	var out []invocation
	fields := expandWords(call.Args)
	for len(fields) > 0 && len(out) < 64 {
		inv := newInvocation(fields)
		out = append(out, inv)
		w, _ := wrapped(inv)
		fields = w.cmd
	}
	return out
}

// hasDownloader reports whether a downloader runs anywhere inside n.
func hasDownloader(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			for _, inv := range chain(st) {
				found = found || downloaders[inv.prog]
			}
		}
		return !found
	})
	return found
}

// scriptValues returns the values a script computed at run time may have, when the checker
// knows every one: eval joins its arguments, the others take one word.
func (c *checker) scriptValues(inv invocation, w word) ([]string, bool) {
	if inv.prog != "eval" {
		if w.node == nil || w.opaque || w.multi && !singleField(w.node) {
			return nil, false
		}
		vals, ok := c.wordValues(w.node)
		return vals, ok && len(vals) > 0
	}
	acc := []string{""}
	for i, a := range inv.args {
		vals := []string{a.val}
		if a.multi && a.static {
			return nil, false // a glob: file names, and a file may be named $(cmd)
		}
		if !a.static {
			if a.node == nil || a.opaque {
				return nil, false
			}
			var ok bool
			if vals, ok = c.assignValues(a.node); !ok {
				return nil, false
			}
		}
		var next []string
		for _, p := range acc {
			for _, v := range vals {
				if len(next) >= maxValues {
					return nil, false
				}
				if i > 0 {
					v = " " + v
				}
				next = append(next, p+v)
			}
		}
		acc = next
	}
	return acc, true
}

// scriptFile checks a script a shell, source or an interpreter reads from a process
// substitution: one whose output the line fixes is checked as the script it is (bash <(echo
// 'rm -rf /') runs rm -rf /); any other may pass on the standard input it inherits, so with
// the caller's input it is refused (python3 <(cat)).
func (c *checker) scriptFile(inv invocation, depth int, in stdinSource) {
	var f word
	switch {
	case shells[inv.prog]:
		s := parseShell(inv)
		if !s.hasFile {
			return
		}
		f = s.file
	case (inv.prog == "source" || inv.prog == ".") && len(inv.args) > 0:
		f = inv.args[0]
	case interpreters[inv.prog]:
		for _, a := range inv.args {
			if !a.static || !strings.HasPrefix(a.val, "-") {
				f = a
				break
			}
		}
	default:
		return
	}
	if f.node == nil || len(f.node.Parts) != 1 {
		return
	}
	ps, ok := f.node.Parts[0].(*syntax.ProcSubst)
	if !ok || ps.Op != syntax.CmdIn {
		return
	}
	text, ok := c.literalStmts(ps.Stmts, stdinSource{}, 0)
	switch {
	case ok && interpreters[inv.prog]:
		c.codeText(text, depth, in)
	case ok:
		c.script(text, depth+1, in)
	case in.carriesCaller():
		c.refuse(RuleStdinCommands, "%s runs a program a process substitution computes, which may be the standard input you send; give the program itself", inv.name)
	}
}
