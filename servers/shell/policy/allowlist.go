package policy

import (
	"fmt"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// safeBuiltins run under the allowlist without being listed: they start no program, and the
// checks below hold their arguments to shapes that evaluate nothing.
var safeBuiltins = map[string]bool{
	"cd": true, "pwd": true, "true": true, "false": true, ":": true, "echo": true, "printf": true,
	"test": true, "[": true, "export": true, "declare": true, "local": true, "readonly": true,
	"typeset": true, "unset": true, "shift": true, "exit": true, "return": true, "break": true,
	"continue": true, "read": true, "set": true, "wait": true, "eval": true, "command": true,
	"builtin": true, "exec": true, "times": true,
}

// evaluatingBuiltins evaluate a string as code or as a variable name later, or change how
// commands are found; the allowlist refuses them even when listed.
var evaluatingBuiltins = map[string]string{
	"trap": "runs a string as code when a signal arrives", "alias": "makes a word run other code",
	"unalias": "changes how words are looked up", "enable": "loads builtins from shared objects",
	"hash": "maps names to programs (hash -p)", "source": "runs a file as code", ".": "runs a file as code",
	"fc": "runs commands from the history", "bind": "binds keys to commands", "complete": "runs completion commands",
	"compgen": "runs completion commands (-C, -F)", "compopt": "changes completion", "shopt": "changes how bash parses and evaluates",
	"mapfile": "assigns through a name and runs a callback (-C)", "readarray": "assigns through a name and runs a callback (-C)",
	"getopts": "assigns through a name", "let": "evaluates arithmetic on variable contents", "coproc": "starts a coprocess",
	"nameref": "makes a name refer to another",
}

// integerVars are bash's own integer variables: assigning one evaluates the value as arithmetic.
var integerVars = map[string]bool{
	"RANDOM": true, "SRANDOM": true, "OPTIND": true, "HISTCMD": true, "BASHPID": true, "EUID": true,
	"PPID": true, "UID": true, "SECONDS": true, "LINENO": true, "OPTERR": true,
}

// sensitiveName reports whether assigning name changes how bash finds or evaluates code.
func sensitiveName(name string) bool {
	up := strings.ToUpper(name)
	return ForbiddenEnv(name) || integerVars[up] || up == "POSIXLY_CORRECT" || up == "PS3" || up == "FUNCNEST"
}

// allow applies the allowlist to one program and the arguments of the builtins it admits. A
// program started by another (external) is never a builtin, so it must be listed.
func (c *checker) allow(inv invocation, external bool) {
	if c.p.mode != Allowlist || c.refusal != nil {
		return
	}
	switch {
	case evaluatingBuiltins[inv.name] != "" && !strings.Contains(inv.name, "/"):
		c.refuse(RuleAllowlistSyntax, "the builtin %s %s, which the allowlist cannot check", inv.name, evaluatingBuiltins[inv.name])
		return
	case c.p.allowed[inv.name]:
	case strings.Contains(inv.name, "/"):
		c.refuse(RuleAllowlist, "%q is not on the allowlist (a path runs only when listed exactly as written; allowed: %s)", inv.name, strings.Join(c.p.Allowed(), ", "))
		return
	case safeBuiltins[inv.name] && !external:
	case safeBuiltins[inv.name]:
		c.refuse(RuleAllowlist, "%q run by another program is the program %s, not the bash builtin, and it is not on the allowlist (allowed: %s)", inv.name, inv.name, strings.Join(c.p.Allowed(), ", "))
		return
	default:
		c.refuse(RuleAllowlist, "%q is not on the allowlist (allowed: %s)", inv.name, strings.Join(c.p.Allowed(), ", "))
		return
	}
	if why := restrictedBuiltins[inv.name]; why != "" && !external && c.restricted == "" {
		c.restricted = why
	}
	if why := builtinArgs(inv); why != "" {
		c.refuse(RuleAllowlistSyntax, "%s", why)
		return
	}
	if shells[inv.prog] {
		s := parseShell(inv)
		switch {
		case s.computed:
			c.refuse(RuleComputedCommand, "%s is given an argument computed at run time where an option or the script may stand", inv.name)
		case s.unsafe != "":
			c.refuse(RuleAllowlistSyntax, "%s: %s, which the allowlist cannot check; run %s -c '…' with a literal script", inv.name, s.unsafe, inv.name)
		case s.hasFile && !s.stdin:
			c.refuse(RuleAllowlistSyntax, "%s runs the script file %s, which the allowlist cannot check; run %s -c '…' with a literal script", inv.name, source(s.file), inv.name)
		}
	}
	if inv.prog == "xargs" || inv.prog == "find" {
		c.substituted(inv)
	}
}

// substituted refuses a shell or eval whose script holds the text xargs -I or find -exec
// replace by file names or input: the script is then computed at run time.
func (c *checker) substituted(inv invocation) {
	var cmds [][]word
	if inv.prog == "find" {
		cmds = findExec(inv)
	} else if w, ok := wrapped(inv); ok && len(w.replace) > 0 {
		cmds = [][]word{replaced(w.cmd, w.replace)}
	}
	for _, cmd := range cmds {
		if len(cmd) == 0 || !cmd[0].static {
			continue
		}
		sub := newInvocation(cmd)
		if s, ok := inlineScript(sub); ok && !s.static {
			c.refuse(RuleAllowlistSyntax, "%s puts file names or input into the script %s runs, which the allowlist cannot check", inv.name, sub.name)
		}
	}
}

// builtinArgs returns why a safe builtin's arguments are refused, or "".
func builtinArgs(inv invocation) string {
	args := inv.args
	switch inv.name {
	case "test", "[":
		if inv.name == "[" && len(args) > 0 && args[len(args)-1].static && args[len(args)-1].val == "]" {
			args = args[:len(args)-1]
		}
		return testArgs(inv.name, args)
	case "printf":
		if len(args) == 0 {
			return ""
		}
		if !args[0].static || args[0].multi {
			return "printf's first argument is computed at run time and may be -v NAME, which assigns through a name; write the format literally"
		}
		switch v := args[0].val; {
		case v == "-v" && len(args) > 1:
			return plainName("printf -v", args[1])
		case strings.HasPrefix(v, "-v"):
			return plainName("printf -v", lit(v[2:]))
		case strings.HasPrefix(v, "-") && v != "--" && v != "-v":
			return fmt.Sprintf("printf %s: only -v NAME and -- are allowed before the format", v)
		}
	case "read":
		p := (&grammar{shortReq: "adinNptu", shortFlags: "ers"}).parse(args)
		if p.dynamic || p.unsure {
			return "read is given an option or name computed at run time, or an unknown option; write plain variable names"
		}
		for _, w := range append(p.values("-a"), p.operands...) {
			if why := plainName("read", w); why != "" {
				return why
			}
		}
	case "unset":
		for _, a := range args {
			if a.static && (a.val == "-v" || a.val == "-f") {
				continue
			}
			if why := plainName("unset", a); why != "" {
				return why
			}
		}
	case "set":
		return setArgs(args)
	case "wait":
		for _, a := range args {
			if a.static && !a.multi && (a.val == "-n" || a.val == "-f" || strings.HasPrefix(a.val, "%") || a.val != "" && strings.Trim(a.val, "0123456789") == "") {
				continue
			}
			if src := source(a); !a.static && (src == "$!" || src == `"$!"`) {
				continue
			}
			return fmt.Sprintf("wait is given %s; only literal process ids, %%jobs and $! are allowed (wait -p assigns through a name)", source(a))
		}
	case "builtin":
		if len(args) > 0 && args[0].static && !safeBuiltins[args[0].val] {
			return fmt.Sprintf("builtin runs %s, which is not a safe builtin", source(args[0]))
		}
		if len(args) > 0 && isDecl(args[0].val) {
			return "builtin " + args[0].val + " hides its arguments from the checker; write " + args[0].val + " directly"
		}
	case "command", "exec":
		if len(args) > 0 && args[0].static && isDecl(args[0].val) {
			return inv.name + " " + args[0].val + " hides its arguments from the checker; write " + args[0].val + " directly"
		}
	case "export", "declare", "local", "readonly", "typeset":
		return inv.name + " reached through a wrapper hides its arguments from the checker; write it directly"
	}
	return ""
}

func isDecl(s string) bool {
	switch s {
	case "export", "declare", "local", "readonly", "typeset":
		return true
	}
	return false
}

// plainName returns why w is not a literal variable name that is safe to assign, or "".
func plainName(what string, w word) string {
	switch {
	case !w.static || w.multi:
		return fmt.Sprintf("%s assigns through the name %s, computed at run time; a name such as a[$(cmd)] runs code", what, source(w))
	case !validName(w.val):
		return fmt.Sprintf("%s is given %q, not a plain variable name; an array subscript is evaluated as arithmetic and can run commands", what, w.val)
	case sensitiveName(w.val):
		return fmt.Sprintf("%s assigns %s, which changes how bash finds or evaluates code", what, w.val)
	}
	return ""
}

// setArgs allows set with literal options that do not change evaluation, then any arguments.
func setArgs(args []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.static || a.multi:
			return "set is given " + source(a) + " computed at run time, which may be an option; write set -- \"$x\" for positional parameters"
		case a.val == "--" || a.val == "-":
			return ""
		case len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+'):
			for _, ch := range a.val[1:] {
				switch {
				case ch == 'o':
					if i+1 >= len(args) {
						continue
					}
					i++
					if v := args[i]; !v.static || !safeShellOptions[v.val] {
						return "set -o " + source(v) + " is not one of the options the allowlist admits (errexit, nounset, xtrace, pipefail, noglob, noclobber, verbose, noexec)"
					}
				case strings.ContainsRune("euxvfnC", ch):
				default:
					return fmt.Sprintf("set %c%c changes how bash parses or evaluates; the allowlist admits set -e, -u, -x, -v, -f, -n, -C and -o with errexit, nounset, xtrace, pipefail, noglob, noclobber, verbose, noexec (not -a: it exports every variable assigned after)", a.val[0], ch)
				}
			}
		default:
			return ""
		}
	}
	return ""
}

var testUnary = map[string]bool{
	"-a": true, "-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-h": true,
	"-k": true, "-p": true, "-r": true, "-s": true, "-t": true, "-u": true, "-w": true, "-x": true,
	"-G": true, "-L": true, "-N": true, "-O": true, "-S": true, "-z": true, "-n": true, "-o": true,
}

var testBinary = map[string]bool{
	"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true, "-lt": true,
	"-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true, "-a": true, "-o": true,
}

// testArgs allows test and [ when how they parse does not depend on values known only at run
// time, and -v/-R (which evaluate a subscript) only on a literal plain name.
func testArgs(name string, args []word) string {
	static := true
	for i, a := range args {
		if a.multi {
			return fmt.Sprintf("%s is given %s, which may split into several arguments or none and change what %s evaluates; quote it", name, source(a), name)
		}
		if !a.static {
			static = false
			continue
		}
		if (a.val == "-v" || a.val == "-R") && (i+1 >= len(args) || plainName(name+" "+a.val, args[i+1]) != "") {
			return fmt.Sprintf("%s %s is only allowed on a literal variable name: a subscript in the name is evaluated as arithmetic and can run commands", name, a.val)
		}
	}
	if static {
		return ""
	}
	var shape func(args []word) bool
	shape = func(args []word) bool {
		is := func(i int, set map[string]bool) bool { return args[i].static && set[args[i].val] }
		lit := func(i int, s string) bool { return args[i].static && args[i].val == s }
		switch len(args) {
		case 0, 1:
			return true
		case 2:
			return lit(0, "!") || is(0, testUnary)
		case 3:
			return is(1, testBinary) || lit(0, "!") && is(1, testUnary)
		case 4:
			return lit(0, "!") && shape(args[1:])
		}
		return false
	}
	if !shape(args) {
		return fmt.Sprintf("%s has a value computed at run time where an operator may stand; use [[ … ]] or write the operators literally (at most three arguments)", name)
	}
	return ""
}

// inert refuses, under the allowlist, any syntax node bash may evaluate as code or as a name.
func (c *checker) inert(n syntax.Node) {
	switch n := n.(type) {
	case nil: // Walk's signal that a node's children are done
	case *syntax.CallExpr:
		c.callAssigns(n)
	case *syntax.File, *syntax.Comment, *syntax.Subshell, *syntax.Block,
		*syntax.IfClause, *syntax.WhileClause, *syntax.BinaryCmd, *syntax.FuncDecl, *syntax.Word,
		*syntax.Lit, *syntax.SglQuoted, *syntax.CmdSubst, *syntax.CaseClause,
		*syntax.CaseItem, *syntax.TestClause, *syntax.ParenTest, *syntax.ArrayExpr, *syntax.ExtGlob,
		*syntax.ProcSubst, *syntax.TimeClause, *syntax.BinaryArithm, *syntax.UnaryArithm,
		*syntax.ParenArithm:
		// Arithmetic nodes are judged where arithmetic starts (below).
	case *syntax.DblQuoted:
		if n.Dollar {
			c.refuse(RuleAllowlistSyntax, "a $\"…\" string is translated through a message catalog and the translation expanded, which can run commands")
		}
	case *syntax.Stmt:
		if n.Coprocess {
			c.refuse(RuleAllowlistSyntax, "a coprocess (|&) is not allowed")
		}
	case *syntax.Redirect:
		if n.N != nil && strings.HasPrefix(n.N.Value, "{") {
			c.refuse(RuleAllowlistSyntax, "a {%s}> redirection assigns a file descriptor through a variable name", strings.Trim(n.N.Value, "{}"))
		}
		if outputRedirect(n) && c.restricted == "" {
			c.restricted = fmt.Sprintf("redirecting output to a file (%s); write files with write_text_file, and let output come back as stdout", n.Op)
		}
	case *syntax.Assign:
		c.assign(n)
	case *syntax.ArrayElem:
		if n.Index != nil && !literalIndex(n.Index) {
			c.refuse(RuleAllowlistSyntax, "an array subscript ([...]=) other than a literal number is evaluated as arithmetic and can run commands")
		}
	case *syntax.ParamExp:
		c.paramExp(n)
	case *syntax.ArithmExp:
		c.arithm("an arithmetic expansion $((…))", n.X)
	case *syntax.ArithmCmd:
		c.arithm("an arithmetic command ((…))", n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			c.arithm("let", x)
		}
	case *syntax.ForClause:
		if n.Select {
			c.refuse(RuleAllowlistSyntax, "select is not allowed")
		}
	case *syntax.WordIter:
		if n.Name != nil && sensitiveName(n.Name.Value) {
			c.refuse(RuleAllowlistEnv, "for %s in … assigns %s, which changes how bash finds or evaluates code", n.Name.Value, n.Name.Value)
		}
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				c.arithm("a C-style for ((…)) loop", x)
			}
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			x, _ := n.X.(*syntax.Word)
			y, _ := n.Y.(*syntax.Word)
			if !numberWord(x) || !numberWord(y) {
				c.refuse(RuleAllowlistSyntax, "[[ %s ]] evaluates its operands as arithmetic, which runs code hidden in variable contents; compare literal numbers or use test/[ ]", n.Op)
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			if w, ok := n.X.(*syntax.Word); !ok || !validName(w.Lit()) {
				c.refuse(RuleAllowlistSyntax, "[[ %s ]] is only allowed on a literal variable name: a subscript is evaluated as arithmetic and can run commands", n.Op)
			}
		}
	case *syntax.DeclClause:
		c.decl(n)
	case *syntax.CoprocClause:
		c.refuse(RuleAllowlistSyntax, "coproc is not allowed")
	default:
		c.refuse(RuleAllowlistSyntax, "the construct %T is not one the allowlist can prove inert", n)
	}
}

// childEnvName reports whether the allowlist lets name reach the environment of the programs
// a line starts: locale, time zone and terminal size change what programs print, never which
// code they run. Any other name may (GIT_PAGER, EDITOR, LESSOPEN, PYTHONSTARTUP, HOME for
// ~/.gitconfig …), and no list of such names is complete.
func childEnvName(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "LC_ALL", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR":
		return true
	}
	return strings.HasPrefix(name, "LC_") && validName(name)
}

// shellOnlyName reports whether assigning name stays inside the shell unless it is exported:
// every variable a command starts with is upper case (the server's fixed environment and the
// names childEnvName admits), so a name with a lower-case letter is not in the environment.
func shellOnlyName(name string) bool {
	return childEnvName(name) || strings.ContainsFunc(name, unicode.IsLower)
}

// envRefusal is the refusal for putting name into the environment of a started program.
func envRefusal(name, how string) string {
	return fmt.Sprintf("%s puts %s into the environment of the programs it starts, where a variable may make a listed program run other code (as GIT_PAGER, EDITOR or HOME do); the allowlist passes only LANG, LANGUAGE, LC_*, TZ, TERM, COLUMNS, LINES and NO_COLOR", how, name)
}

// callAssigns checks NAME=value words before a command, which go into its environment, and
// bare assignments, which change the environment when the name is already in it.
func (c *checker) callAssigns(call *syntax.CallExpr) {
	for _, a := range call.Assigns {
		if a.Name == nil || !validName(a.Name.Value) || sensitiveName(a.Name.Value) {
			continue // refused with their own reasons by the parse and assign checks
		}
		name := a.Name.Value
		switch {
		case len(call.Args) > 0 && !childEnvName(name):
			c.refuse(RuleAllowlistEnv, "%s", envRefusal(name, name+"=… before a command"))
		case len(call.Args) == 0 && !shellOnlyName(name):
			c.refuse(RuleAllowlistEnv, "assigning %s, an upper-case name that may already be in the environment (HOME, SHELL …), changes it for every program started after; name shell variables with a lower-case letter", name)
		}
	}
}

// assign checks NAME=value and NAME[i]=value.
func (c *checker) assign(a *syntax.Assign) {
	if a.Name == nil {
		return // a naked word of a declaration, judged in decl
	}
	if ForbiddenEnv(a.Name.Value) {
		c.refuse(RuleAllowlistEnv, "%s may not be set under the allowlist", a.Name.Value)
	} else if sensitiveName(a.Name.Value) {
		c.refuse(RuleAllowlistSyntax, "assigning %s evaluates the value as arithmetic or changes how bash evaluates code", a.Name.Value)
	}
	if a.Index != nil && !literalIndex(a.Index) {
		c.refuse(RuleAllowlistSyntax, "an array subscript (%s[...]) other than a literal number is evaluated as arithmetic and can run commands", a.Name.Value)
	}
}

// decl checks declare, typeset, local, export and readonly: literal options that set no
// integer or nameref attribute, and literal names.
func (c *checker) decl(d *syntax.DeclClause) {
	flags := map[string]string{"declare": "aAfFglprtux", "typeset": "aAfFglprtux", "local": "aAlprtux", "export": "fnp", "readonly": "aAfp"}[d.Variant.Value]
	if flags == "" {
		c.refuse(RuleAllowlistSyntax, "%s is not allowed", d.Variant.Value)
		return
	}
	exported := d.Variant.Value == "export"
	var names []string
	for _, a := range d.Args {
		if a.Name != nil {
			names = append(names, a.Name.Value)
		}
		if !a.Naked || a.Name != nil {
			continue // NAME=value and plain NAME: checked as assignments
		}
		w := expandWords([]*syntax.Word{a.Value})
		if len(w) != 1 || !w[0].static || w[0].multi {
			c.refuse(RuleAllowlistSyntax, "%s is given %s, computed at run time; it may assign through a name such as a[$(cmd)], which runs code", d.Variant.Value, source(word{node: a.Value}))
			return
		}
		v := w[0].val
		if len(v) > 1 && (v[0] == '-' || v[0] == '+') {
			for _, ch := range v[1:] {
				if !strings.ContainsRune(flags, ch) {
					c.refuse(RuleAllowlistSyntax, "%s -%c is not allowed: integer (-i) and nameref (-n) attributes make later assignments evaluate code", d.Variant.Value, ch)
					return
				}
			}
			exported = exported || v[0] == '-' && strings.ContainsRune(v, 'x')
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		if why := plainName(d.Variant.Value, lit(strings.TrimSuffix(name, "+"))); why != "" {
			c.refuse(RuleAllowlistSyntax, "%s", why)
			return
		}
		names = append(names, strings.TrimSuffix(name, "+"))
	}
	for _, name := range names {
		switch {
		case exported && !childEnvName(name):
			c.refuse(RuleAllowlistEnv, "%s", envRefusal(name, d.Variant.Value+" "+name))
		case !shellOnlyName(name):
			c.refuse(RuleAllowlistEnv, "%s %s changes an upper-case name that may already be in the environment (HOME, SHELL …) for every program started after; name shell variables with a lower-case letter", d.Variant.Value, name)
		}
	}
}

// paramExp checks ${…}: no indirection, subscripts only literal, offsets only literal numbers,
// and only the @ operators that quote or change case.
func (c *checker) paramExp(pe *syntax.ParamExp) {
	name := ""
	if pe.Param != nil {
		name = pe.Param.Value
	}
	switch {
	case pe.Excl || pe.Names != 0:
		c.refuse(RuleAllowlistSyntax, "an indirect expansion ${!%s…} reads a variable whose name is computed at run time", name)
	case pe.Width || pe.IsSet || pe.Flags != nil || pe.NestedParam != nil || pe.Modifiers != nil:
		c.refuse(RuleAllowlistSyntax, "the expansion of %s uses a form that is not bash", name)
	case pe.Index != nil && !literalIndex(pe.Index) && !isWordLit(pe.Index, "@", "*"):
		c.refuse(RuleAllowlistSyntax, "an array subscript (${%s[...]}) other than a literal number, @ or * is evaluated as arithmetic and can run commands", name)
	case pe.Slice != nil && (pe.Slice.Offset != nil && !inertArithm(pe.Slice.Offset) || pe.Slice.Length != nil && !inertArithm(pe.Slice.Length)):
		c.refuse(RuleAllowlistSyntax, "a substring offset (${%s:…}) other than a literal number is evaluated as arithmetic and can run commands", name)
	case pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps:
		op := ""
		if pe.Exp.Word != nil {
			op = pe.Exp.Word.Lit()
		}
		if !strings.Contains("QEUuLaKkA", op) || len(op) != 1 {
			c.refuse(RuleAllowlistSyntax, "the operator ${%s@%s} is not allowed (@P expands the value as a prompt, running commands in it)", name, op)
		}
	case pe.Exp != nil && (pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull) && sensitiveName(name):
		c.refuse(RuleAllowlistEnv, "${%s=…} assigns %s, which changes how bash finds or evaluates code", name, name)
	}
}

// arithm refuses arithmetic unless it holds only literal numbers: a variable in arithmetic has
// its value evaluated as arithmetic in turn, and a[$(cmd)] there runs cmd.
func (c *checker) arithm(what string, x syntax.ArithmExpr) {
	if !inertArithm(x) {
		c.refuse(RuleAllowlistSyntax, "%s with variables evaluates their contents as code (x='a[$(cmd)]' runs cmd); only literal numbers are allowed", what)
	}
}

// inertArithm reports whether an arithmetic expression holds only literal numbers.
func inertArithm(x syntax.ArithmExpr) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		case *syntax.Word:
			ok = ok && numberWord(n)
			return false
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// numberWord reports whether w is one literal number such as 42, 0x1f or 2#101.
func numberWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || l.Value == "" || l.Value[0] < '0' || l.Value[0] > '9' {
		return false
	}
	return strings.Trim(l.Value, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_#") == ""
}

func literalIndex(x syntax.ArithmExpr) bool { return inertArithm(x) }

func isWordLit(x syntax.ArithmExpr, lits ...string) bool {
	w, ok := x.(*syntax.Word)
	return ok && contains(lits, w.Lit())
}

// CheckEnv returns nil when a call may put the variable name into its command's environment,
// else a *Refusal: under the allowlist only the names childEnvName admits.
func (p *Policy) CheckEnv(name string) error {
	if p.mode != Allowlist || childEnvName(name) {
		return nil
	}
	return &Refusal{Rule: RuleAllowlistEnv, Detail: envRefusal(name, "the env argument")}
}

// Builtin reports whether name is a bash builtin the allowlist runs without listing it.
func Builtin(name string) bool { return safeBuiltins[name] }

// restrictedBuiltins are the builtins restricted bash refuses, with what to do instead.
var restrictedBuiltins = map[string]string{
	"cd": "cd; give the directory as the cwd argument", "pushd": "pushd; give the directory as the cwd argument",
	"popd": "popd; give the directory as the cwd argument", "exec": "exec; run the program directly",
}

// outputRedirect reports whether r writes to a file (>, >>, >|, <>, &>, &>>, >&FILE), which
// restricted bash refuses; duplicating a descriptor (2>&1, >&2) and closing one are not.
func outputRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll:
		return true
	case syntax.DplOut:
		v := r.Word.Lit()
		return v == "" || strings.Trim(v, "0123456789") != "" && v != "-"
	}
	return false
}
