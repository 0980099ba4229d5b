package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// protectedDirs are the paths rm -r and chmod -R may not target; "~" is the home directory.
var protectedDirs = []string{
	"/", "~", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
	"/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp",
	"/usr", "/var",
}

var authFiles = []string{"/etc/shadow", "/etc/gshadow", "/etc/passwd", "/etc/group", "/etc/sudoers"}

var harmlessDevices = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/stdin",
	"/dev/stdout", "/dev/stderr", "/dev/tty",
}

var downloaders = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true}

// forbiddenEnvNames change how the shell or the dynamic loader finds and runs code.
var forbiddenEnvNames = map[string]bool{
	"PATH": true, "ENV": true, "IFS": true, "CDPATH": true, "GLOBIGNORE": true, "EXECIGNORE": true,
	"PROMPT_COMMAND": true, "PS0": true, "PS1": true, "PS2": true, "PS4": true, "SHELLOPTS": true,
	"BASHOPTS": true, "HISTFILE": true, "INPUTRC": true, "GCONV_PATH": true, "LOCPATH": true,
	"NLSPATH": true, "HOSTALIASES": true, "RESOLV_HOST_CONF": true,
}

// ForbiddenEnv reports whether a variable may not be set for a command: PATH, LD_*, BASH_*,
// ENV, IFS, PROMPT_COMMAND and the like.
func ForbiddenEnv(name string) bool {
	up := strings.ToUpper(name)
	return forbiddenEnvNames[up] || strings.HasPrefix(up, "LD_") || strings.HasPrefix(up, "BASH_") ||
		strings.HasPrefix(up, "DYLD_") || strings.HasPrefix(up, "MALLOC_")
}

// maxSteps bounds the work one check may do, whatever the line.
const maxSteps = 20000

// command checks one simple command, then what it runs in turn. external is true when another
// program starts it (sudo, env, xargs, find -exec): then even a builtin's name runs a program.
func (c *checker) command(fields []word, redirs []*syntax.Redirect, depth int, external bool) {
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
	if c.refusal != nil {
		return
	}
	switch inv.prog {
	case "cd", "pushd", "popd":
		c.chdir(inv)
	case "find":
		for _, cmd := range findExec(inv) {
			c.command(cmd, nil, depth, true)
		}
		c.findStarts(inv)
	}
	if w, ok := wrapped(inv); ok {
		c.wrapper(inv, w, depth)
	}
	if w, ok := inlineScript(inv); ok {
		c.inline(inv, w, depth)
	}
	c.codeStrings(inv, depth)
	if shells[inv.prog] && readsScriptFromStdin(inv) {
		c.stdinScripts(inv, redirs, depth)
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
func (c *checker) wrapper(inv invocation, w wrapping, depth int) {
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
	for _, s := range w.scripts {
		c.inline(inv, s, depth)
	}
	cmd := replaced(w.cmd, w.replace)
	if len(cmd) == 0 {
		return
	}
	// command and builtin run builtins as builtins; every other wrapper executes a program.
	external := inv.prog != "command" && inv.prog != "builtin"
	if !w.unsure {
		c.command(cmd, nil, depth, external)
		return
	}
	if c.p.mode == Allowlist {
		c.refuse(RuleAllowlistSyntax, "%s is given an option the checker does not know, so it cannot tell which command runs", inv.name)
		return
	}
	// An unknown option may or may not take a value: check every place the command may start.
	for i := range cmd {
		if cmd[i].static && !cmd[i].multi {
			c.command(cmd[i:], nil, depth, external)
		}
	}
}

// inline checks a shell command line that inv runs.
func (c *checker) inline(inv invocation, w word, depth int) {
	switch {
	case w.static:
		c.script(w.val, depth+1)
	case c.p.mode == Allowlist:
		c.refuse(RuleAllowlist, "%s runs a script computed at run time, which the allowlist cannot check", inv.name)
	}
}

// stdinScripts checks here-documents and here-strings fed to a shell as its script. Under the
// allowlist, a shell reading any other standard input (a pipe, a file) is refused.
func (c *checker) stdinScripts(inv invocation, redirs []*syntax.Redirect, depth int) {
	var body *syntax.Word
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			if r.N == nil || r.N.Value == "0" {
				body = nil
			}
		}
	}
	if body == nil {
		if c.p.mode == Allowlist {
			c.refuse(RuleAllowlistSyntax, "%s reads its script from standard input, which the allowlist cannot check; use %s -c '…'", inv.name, inv.name)
		}
		return
	}
	if dynamic(body) {
		if c.p.mode == Allowlist {
			c.refuse(RuleAllowlist, "%s reads a script computed at run time, which the allowlist cannot check", inv.name)
		}
		return
	}
	src, err := expand.Document(&expand.Config{}, body)
	if err != nil {
		c.refuse(RuleParse, "the here-document fed to %s cannot be read (%v)", inv.name, err)
		return
	}
	c.script(src, depth+1)
}

// rules applies the blocklist rules to one program.
func (c *checker) rules(inv invocation) {
	prog := inv.prog
	switch {
	case prog == "rm":
		p := rmGrammar.parse(inv.args)
		if p.has("-r", "-R", "--recursive") || p.dynamic {
			if t, ok := c.protectedOperand(p.pathOperands()); ok {
				c.refuse(RuleRmRoot, "rm -r on %s would delete a system directory; name the exact path you mean, below it", t)
			}
		}
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		p := chmodGrammar.parse(inv.args)
		modeGiven := prog == "chmod" && modeOption(inv.args)
		if !p.has("--reference") && !modeGiven && len(p.operands) > 0 {
			p.operands = p.operands[1:] // the mode or owner
		}
		if p.has("-R", "--recursive") || p.dynamic {
			if t, ok := c.protectedOperand(p.pathOperands()); ok {
				c.refuse(RuleChmodRoot, "%s -R on %s would change a whole system directory tree", prog, t)
			}
		}
	case prog == "find":
		if t, ok := c.protectedOperand(findPaths(inv)); ok && hasStatic(inv.args, "-delete") {
			c.refuse(RuleRmRoot, "find %s -delete would delete a system directory tree; start below it", t)
		}
	case prog == "mkfs" || strings.HasPrefix(prog, "mkfs.") || prog == "mke2fs" || prog == "mkswap" || prog == "wipefs" || prog == "mkdosfs":
		c.refuse(RuleMkfs, "%s makes or wipes a filesystem", prog)
	case prog == "shutdown" || prog == "reboot" || prog == "poweroff" || prog == "halt":
		c.refuse(RuleShutdown, "%s stops the host", prog)
	case prog == "init" || prog == "telinit":
		if len(inv.args) > 0 && (inv.args[0].val == "0" || inv.args[0].val == "6") {
			c.refuse(RuleShutdown, "%s %s stops the host", prog, inv.args[0].val)
		}
	case prog == "systemctl":
		for _, a := range inv.args {
			switch a.val {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				c.refuse(RuleShutdown, "systemctl %s stops the host", a.val)
			}
		}
	case prog == "dd":
		for _, a := range inv.args {
			t, ok := strings.CutPrefix(a.val, "of=")
			if !a.static || !ok {
				continue
			}
			for _, p := range c.resolve(t) {
				if device(p) {
					c.refuse(RuleDDDevice, "dd onto the device %s would overwrite it", t)
				}
			}
			c.writeTarget(t)
		}
	}
	for _, t := range writeTargets(inv) {
		c.writeTarget(t)
	}
}

// modeOption reports whether chmod's mode was given as an option, as in chmod -w FILE.
func modeOption(ws []word) bool {
	for _, w := range ws {
		if w.static && len(w.val) > 1 && w.val[0] == '-' && strings.Trim(w.val[1:], "rwxXst") == "" {
			return true
		}
	}
	return false
}

// findPaths returns find's starting points: the arguments before its expression.
func findPaths(inv invocation) []string {
	var out []string
	for _, a := range inv.args {
		if !a.static || strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" {
			break
		}
		out = append(out, a.val)
	}
	return out
}

func hasStatic(ws []word, val string) bool {
	for _, w := range ws {
		if w.static && w.val == val {
			return true
		}
	}
	return false
}

// redirect applies the write rules to an output redirection.
func (c *checker) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
	default:
		return
	}
	if r.Word == nil || dynamic(r.Word) {
		return
	}
	t, err := expand.Literal(&expand.Config{}, r.Word)
	if err != nil {
		return
	}
	if r.Op == syntax.DplOut && (t == "-" || strings.Trim(t, "0123456789") == "") {
		return
	}
	c.writeTarget(t)
}

func (c *checker) writeTarget(t string) {
	ps := c.resolve(t)
	if ps == nil && authFileName(t) {
		c.refuse(RuleWriteAuthFiles, "writing %s after a cd the checker cannot follow may change who may log in; use an absolute path", t)
	}
	for _, p := range ps {
		switch {
		case device(p):
			c.refuse(RuleWriteDevice, "writing onto the device %s would overwrite it", t)
		case authFile(p):
			c.refuse(RuleWriteAuthFiles, "writing %s changes who may log in or use sudo", t)
		}
	}
}

// funcDecl refuses a function that calls itself in a pipeline or in the background.
func (c *checker) funcDecl(fn *syntax.FuncDecl) {
	if fn.Name == nil || fn.Body == nil {
		return
	}
	self, forks := false, false
	syntax.Walk(fn.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			forks = forks || n.Background || n.Coprocess
		case *syntax.BinaryCmd:
			forks = forks || n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == fn.Name.Value {
				self = true
			}
		}
		return true
	})
	if self && forks {
		c.refuse(RuleForkBomb, "function %s starts copies of itself without bound (a fork bomb)", fn.Name.Value)
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

// maxCwds bounds how many possible working directories are followed before giving up.
const maxCwds = 16

// chdir follows cd, pushd and popd. A cd may fail, so the directory before it stays possible:
// the checker keeps every directory the line may be in, and gives up (cwd unknown) when a
// target is computed at run time or comes from the directory stack.
func (c *checker) chdir(inv invocation) {
	if inv.prog == "popd" {
		c.cwdUnknown = true
		return
	}
	p := cdGrammar.parse(inv.args)
	var target string
	switch {
	case p.dynamic || p.unsure || len(p.operands) > 1:
		c.cwdUnknown = true
		return
	case len(p.operands) == 0 && inv.prog == "pushd":
		c.cwdUnknown = true
		return
	case len(p.operands) == 0:
		target = "~"
	default:
		target = p.operands[0].val
	}
	if target == "-" || p.operands != nil && p.operands[0].multi || strings.HasPrefix(target, "+") {
		c.cwdUnknown = true
		return
	}
	next := c.resolve(target)
	if next == nil {
		c.cwdUnknown = true
		return
	}
	for _, n := range next {
		if !contains(c.cwds, n) {
			c.cwds = append(c.cwds, n)
		}
	}
	if len(c.cwds) > maxCwds {
		c.cwdUnknown = true
	}
}

// resolve returns the absolute paths p may name, one per possible working directory; nil when
// p is relative and the working directory is unknown.
func (c *checker) resolve(p string) []string {
	if strings.HasPrefix(p, "~") {
		// ~ and ~user are home directories, ~+ the working directory, ~- the previous one.
		user, rest, _ := strings.Cut(p, "/")
		switch user {
		case "~+":
			return c.resolve(path.Join(".", rest))
		case "~-":
			return nil
		}
		p = path.Join("~", rest)
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return []string{path.Clean(p)}
	case path.IsAbs(p):
		return []string{path.Clean(p)}
	case c.cwdUnknown || len(c.cwds) == 0:
		return nil
	}
	out := make([]string, 0, len(c.cwds))
	for _, d := range c.cwds {
		out = append(out, path.Join(d, p))
	}
	return out
}

// protectedOperand returns the first operand that names a protected directory or its contents,
// or any relative operand when the working directory is unknown.
func (c *checker) protectedOperand(ops []string) (string, bool) {
	for _, t := range ops {
		ps := c.resolve(t)
		if ps == nil {
			return t + " (relative, after a cd the checker cannot follow; use an absolute path)", true
		}
		for _, p := range ps {
			if protected(p) {
				return t, true
			}
		}
	}
	return "", false
}

// ProtectedDir reports whether p (absolute and clean) is a directory that rm -r and chmod -R may
// not target, or the home directory; the file tools refuse to delete or move them too.
func ProtectedDir(p, home string) bool {
	return (home != "" && p == path.Clean(home)) || matchesProtected(p)
}

func protected(p string) bool {
	if matchesProtected(p) {
		return true
	}
	return hasGlob(path.Base(p)) && matchesProtected(path.Dir(p))
}

func matchesProtected(p string) bool {
	for _, d := range protectedDirs {
		if p == d {
			return true
		}
		if hasGlob(p) {
			if ok, _ := path.Match(p, d); ok {
				return true
			}
		}
	}
	return false
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

func device(p string) bool {
	if !strings.HasPrefix(p, "/dev/") || contains(harmlessDevices, p) {
		return false
	}
	for _, dir := range []string{"/dev/fd/", "/dev/shm/", "/dev/pts/", "/dev/mqueue/"} {
		if strings.HasPrefix(p, dir) {
			return false
		}
	}
	return true
}

func authFile(p string) bool {
	return contains(authFiles, p) || strings.HasPrefix(p, "/etc/sudoers.d/")
}

func authFileName(t string) bool {
	for _, f := range authFiles {
		if path.Base(t) == path.Base(f) {
			return true
		}
	}
	return false
}

// writeTargets returns the files a program writes to, as far as its arguments tell. A copy
// into a directory writes DIR/name, so both DIR and DIR/name are returned.
func writeTargets(inv invocation) []string {
	switch inv.prog {
	case "tee", "sponge":
		p := teeGrammar.parse(inv.args)
		return p.staticOperands()
	case "rm":
		// Deleting an auth file is writing it; rm -r on directories is rm-root's.
		p := rmGrammar.parse(inv.args)
		return p.staticOperands()
	case "truncate":
		p := truncateGrammar.parse(inv.args)
		return p.staticOperands()
	case "shred":
		p := shredGrammar.parse(inv.args)
		return p.staticOperands()
	case "sudoedit":
		g := wrappers["sudo"].grammar
		p := g.parse(inv.args)
		return p.staticOperands()
	case "sed":
		p := sedGrammar.parse(inv.args)
		if !p.has("-i", "--in-place") {
			return nil
		}
		ops := p.staticOperands()
		if !p.has("-e", "--expression", "-f", "--file") && len(ops) > 0 {
			ops = ops[1:]
		}
		return ops
	case "cp", "mv", "install", "ln":
		p := copyGrammar.parse(inv.args)
		ops := p.staticOperands()
		var dirs []string
		for _, v := range p.values("-t", "--target-directory") {
			if v.static {
				dirs = append(dirs, v.val)
			}
		}
		if len(dirs) == 0 {
			if len(ops) < 2 {
				return nil
			}
			dirs = ops[len(ops)-1:]
			ops = ops[:len(ops)-1]
		}
		var out []string
		if inv.prog == "mv" {
			out = append(out, ops...) // moved away: the source is gone
		}
		for _, d := range dirs {
			out = append(out, d)
			if p.has("-T", "--no-target-directory") {
				continue
			}
			for _, o := range ops {
				out = append(out, path.Join(d, path.Base(o)))
			}
		}
		return out
	case "rsync":
		if n := len(inv.args); n > 1 && inv.args[n-1].static {
			return []string{inv.args[n-1].val}
		}
	}
	return nil
}

// source is a word as written, for messages.
func source(w word) string {
	if w.node == nil {
		return "(computed)"
	}
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, w.node); err != nil {
		return "(computed)"
	}
	return sb.String()
}

// findStarts holds the commands find runs with -exec, -execdir, -ok and -okdir to the rules
// of rm, chmod, chown, chgrp and shred with {} read as each start path: the start path is
// the first file find hands them, and everything below it follows.
func (c *checker) findStarts(inv invocation) {
	starts := findPaths(inv)
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, cmd := range findExecRaw(inv) {
		if len(cmd) == 0 || !cmd[0].static {
			continue
		}
		switch path.Base(cmd[0].val) {
		case "rm", "chmod", "chown", "chgrp", "shred":
		default:
			continue
		}
		for _, start := range starts {
			ws := make([]word, len(cmd))
			for i, w := range cmd {
				ws[i] = w
				if w.static && strings.Contains(w.val, "{}") {
					ws[i] = lit(strings.ReplaceAll(w.val, "{}", start))
				}
			}
			c.rules(newInvocation(ws))
		}
	}
}
