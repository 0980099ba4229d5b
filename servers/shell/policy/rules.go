package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// safeBuiltins run under the allowlist without being listed: they start no program.
var safeBuiltins = map[string]bool{
	"cd": true, "pwd": true, "true": true, "false": true, ":": true, "echo": true, "printf": true,
	"test": true, "[": true, "export": true, "declare": true, "local": true, "readonly": true,
	"typeset": true, "nameref": true, "unset": true, "shift": true, "exit": true, "return": true,
	"break": true, "continue": true, "read": true, "set": true, "wait": true, "eval": true,
	"command": true, "builtin": true, "exec": true,
}

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

// command checks one simple command, then what it runs in turn.
func (c *checker) command(fields []word, redirs []*syntax.Redirect, depth int) {
	if len(fields) == 0 || c.refusal != nil {
		return
	}
	inv := newInvocation(fields)
	c.rules(inv)
	c.allow(inv)
	if c.refusal != nil {
		return
	}
	switch inv.prog {
	case "cd", "pushd":
		c.chdir(inv)
	case "find":
		for _, cmd := range findExec(inv) {
			c.command(cmd, nil, depth)
		}
	}
	if cmd := wrapped(inv); len(cmd) > 0 {
		c.command(cmd, nil, depth)
	}
	if src, ok, isDynamic := inlineScript(inv); ok {
		c.script(src, depth+1)
	} else if isDynamic && c.p.mode == Allowlist {
		c.refuse(RuleAllowlist, "%s runs a script computed at run time, which the allowlist cannot check", inv.name)
	}
	if readsScriptFromStdin(inv) {
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

// stdinScripts checks here-documents and here-strings fed to a shell as its script.
func (c *checker) stdinScripts(inv invocation, redirs []*syntax.Redirect, depth int) {
	for _, r := range redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		default:
			continue
		}
		if body == nil {
			continue
		}
		if dynamic(body) {
			if c.p.mode == Allowlist {
				c.refuse(RuleAllowlist, "%s reads a script computed at run time, which the allowlist cannot check", inv.name)
			}
			continue
		}
		src, err := expand.Document(&expand.Config{}, body)
		if err != nil {
			continue
		}
		c.script(src, depth+1)
	}
}

// allow applies the allowlist to one program.
func (c *checker) allow(inv invocation) {
	if c.p.mode != Allowlist || c.refusal != nil {
		return
	}
	switch {
	case inv.dynamic || inv.name == "":
		c.refuse(RuleAllowlist, "a command name computed at run time cannot be checked against the allowlist; write the program's name")
	case c.p.allowed[inv.name]:
	case strings.Contains(inv.name, "/"):
		c.refuse(RuleAllowlist, "%q is not on the allowlist (a path runs only when listed exactly as written; allowed: %s)", inv.name, strings.Join(c.p.Allowed(), ", "))
	case safeBuiltins[inv.name]:
	default:
		c.refuse(RuleAllowlist, "%q is not on the allowlist (allowed: %s)", inv.name, strings.Join(c.p.Allowed(), ", "))
	}
	if inv.prog == "env" || inv.prog == "sudo" {
		for _, a := range inv.args {
			if name, _, ok := strings.Cut(a.val, "="); a.static && ok && ForbiddenEnv(name) {
				c.refuse(RuleAllowlistEnv, "%s may not be set under the allowlist", name)
			}
		}
	}
}

// assign refuses setting PATH, loader or shell-startup variables under the allowlist, since
// they change which program a listed name runs.
func (c *checker) assign(a *syntax.Assign) {
	if c.p.mode == Allowlist && a.Name != nil && ForbiddenEnv(a.Name.Value) {
		c.refuse(RuleAllowlistEnv, "%s may not be set under the allowlist", a.Name.Value)
	}
}

// rules applies the blocklist rules to one program.
func (c *checker) rules(inv invocation) {
	if inv.dynamic {
		return
	}
	prog := inv.prog
	switch {
	case prog == "rm":
		if hasFlag(inv.args, "recursive", 'r', 'R') {
			if t, ok := c.protectedOperand(inv.args); ok {
				c.refuse(RuleRmRoot, "rm -r on %s would delete a system directory; name the exact path you mean, below it", t)
			}
		}
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		if hasFlag(inv.args, "recursive", 'R') {
			if t, ok := c.protectedOperand(inv.args); ok {
				c.refuse(RuleChmodRoot, "%s -R on %s would change a whole system directory tree", prog, t)
			}
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
	}
	if prog == "dd" {
		for _, a := range inv.args {
			if t, ok := strings.CutPrefix(a.val, "of="); a.static && ok && device(c.resolve(t)) {
				c.refuse(RuleDDDevice, "dd onto the device %s would overwrite it", t)
			}
		}
	}
	for _, t := range writeTargets(inv) {
		c.writeTarget(t)
	}
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
	p := c.resolve(t)
	switch {
	case device(p):
		c.refuse(RuleWriteDevice, "writing onto the device %s would overwrite it", t)
	case authFile(p):
		c.refuse(RuleWriteAuthFiles, "writing %s changes who may log in or use sudo", t)
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
		fields = wrapped(inv)
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

// chdir follows a cd whose target is known, so relative paths after it resolve.
func (c *checker) chdir(inv invocation) {
	if len(inv.args) != 1 || !inv.args[0].static || inv.args[0].val == "-" || strings.HasPrefix(inv.args[0].val, "~") {
		c.cwd = ""
		return
	}
	c.cwd = c.resolve(inv.args[0].val)
}

// resolve makes a path absolute against the tracked working directory; "" when unknown.
func (c *checker) resolve(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return path.Clean(p)
	case path.IsAbs(p):
		return path.Clean(p)
	case c.cwd == "":
		return ""
	}
	return path.Join(c.cwd, p)
}

// protectedOperand returns the first operand that names a protected directory or its contents.
func (c *checker) protectedOperand(args []word) (string, bool) {
	for _, t := range operands(args) {
		if p := c.resolve(t); p != "" && protected(p) {
			return t, true
		}
	}
	return "", false
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

// hasFlag reports whether args carry --long or a short option cluster containing one of shorts.
func hasFlag(args []word, long string, shorts ...rune) bool {
	for _, a := range args {
		if !a.static {
			continue
		}
		if a.val == "--" {
			return false
		}
		if a.val == "--"+long {
			return true
		}
		if len(a.val) > 1 && a.val[0] == '-' && a.val[1] != '-' && strings.ContainsAny(a.val[1:], string(shorts)) {
			return true
		}
	}
	return false
}

// operands returns the static arguments that are not options.
func operands(args []word) []string {
	var out []string
	opts := true
	for _, a := range args {
		if !a.static {
			continue
		}
		if opts && a.val == "--" {
			opts = false
			continue
		}
		if opts && len(a.val) > 1 && a.val[0] == '-' {
			continue
		}
		out = append(out, a.val)
	}
	return out
}

// writeTargets returns the files a program writes to, as far as its arguments tell.
func writeTargets(inv invocation) []string {
	ops := operands(inv.args)
	switch inv.prog {
	case "tee", "truncate", "shred":
		return ops
	case "sed":
		if hasFlag(inv.args, "in-place", 'i') {
			return ops
		}
	case "cp", "mv", "install", "ln", "rsync":
		if len(ops) > 1 {
			return ops[len(ops)-1:]
		}
	}
	return nil
}
