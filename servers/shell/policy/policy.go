// Package policy decides whether a bash command line may run. It parses the line as bash does,
// finds every simple command in it (through pipes, lists, subshells, command and process
// substitution, functions, wrappers such as sudo or env, and inline scripts such as bash -c),
// and holds each against an allowlist or a blocklist of destructive patterns. It is the first
// layer, the one that explains its refusals, not a sandbox: under the allowlist the kernel
// keeps the promise below it (package sandbox), and otherwise the boundary is the operating
// system user the server runs as.
package policy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Mode is how a policy judges commands.
type Mode string

// The modes.
const (
	Off       Mode = "off"       // every command runs
	Blocklist Mode = "blocklist" // commands run unless they match a destructive rule
	Allowlist Mode = "allowlist" // only listed programs run, and the blocklist rules still apply
)

// Rule names, as refusals and the audit log name them.
const (
	RuleParse           = "parse"            // the line is not valid bash
	RuleNesting         = "nesting"          // inline scripts nested too deeply, or a line too complex to check
	RuleComputedCommand = "computed-command" // a command name computed at run time
	RuleAllowlist       = "allowlist"        // a program not on the allowlist
	RuleAllowlistEnv    = "allowlist-env"    // assigning PATH or a loader variable under the allowlist
	RuleAllowlistSyntax = "allowlist-syntax" // a construct the allowlist cannot prove inert
	RuleRmRoot          = "rm-root"          // rm -r on / or a top-level system directory
	RuleMkfs            = "mkfs"             // making or wiping a filesystem
	RuleDDDevice        = "dd-device"        // dd of=/dev/…
	RuleWriteDevice     = "write-device"     // redirecting or copying onto a device
	RuleShutdown        = "shutdown"         // shutdown, reboot, poweroff, halt, init 0/6
	RuleForkBomb        = "fork-bomb"        // a function that calls itself in a pipe or background
	RuleChmodRoot       = "chmod-root"       // chmod/chown/chgrp -R on / or a top-level system directory
	RuleWriteAuthFiles  = "write-auth-files" // writing /etc/shadow, /etc/sudoers, /etc/passwd …
	RulePipeToShell     = "pipe-to-shell"    // a download piped or substituted into a shell
	RuleStdinCommands   = "stdin-commands"   // a shell or interpreter reading commands the policy cannot read
)

// Rules lists every rule with the modes it applies in and what it refuses, for documentation
// and errors.
var Rules = []struct{ Name, Modes, Refuses string }{
	{RuleEvaluated, "both", "text bash evaluates as code later: single-quoted text in the word of a double-quoted ${…} operator (or of one in an unquoted here-document) is re-read as double-quoted text, as bash reads it; refused are ${x@P}, ${!x}, declare/typeset/local given a quoted or computed NAME=(…), PS0–PS4 and PROMPT_COMMAND holding $ or `, mapfile/readarray -C, and quoted text such as 'a[$(cmd)]', which arithmetic, subscripts, printf -v, read and unset would run"},
	{RuleParse, "both", "a line that is not valid bash or UTF-8, holds a control character other than tab and newline, words the parser and bash split differently (0=[, <&-0, a comment ending in a backslash, 7000000000>x), or a here-document that cannot be read"},
	{RuleNesting, "both", "inline scripts (bash -c, eval, su -c …) nested more than 8 deep, or a line needing more than 20000 checking steps"},
	{RuleComputedCommand, "both", "a command name computed at run time ($cmd, \"$@\", $(echo rm), a glob such as /bin/r?), as the first word or as the command of a wrapper (sudo $x, env $x, xargs $x, find -exec $x), or a word before a wrapper's command that may split into several (timeout $t ls)"},
	{RuleAllowlist, "allowlist", "a program not on --allow-commands (safe builtins aside), a path not listed exactly as written, or a script computed at run time (bash -c \"$s\", eval \"$s\")"},
	{RuleAllowlistEnv, "allowlist", "setting PATH, LD_*, BASH_*, ENV, IFS, PS4, CDPATH … as NAME=…, export/declare/local/readonly NAME, env/sudo NAME=…, for NAME in, ${NAME:=…} (read, printf -v and unset of them are refused as allowlist-syntax); and any variable but LANG, LANGUAGE, LC_*, TZ, TERM, COLUMNS, LINES, NO_COLOR put into a started program's environment"},
	{RuleAllowlistSyntax, "allowlist", "any construct bash may evaluate as code or as a variable name: arithmetic on anything but literal numbers, array subscripts other than literal numbers, @ and *, ${!x}, ${x@P}, [[ -eq ]] on non-literals, -v on a non-literal name, namerefs and integer variables, builtins that assign through a computed or subscripted name, trap, alias, enable, hash, source, fc, bind, complete, compgen, shopt, mapfile, getopts, let, coproc, select, {var}> redirections, shells reading a script file or stdin or started with -i, -l, -O, --rcfile, and wrappers given options the checker does not know"},
	{RuleRmRoot, "both", "rm -r/-R/--recursive (abbreviated too: --recu) on /, /*, the home directory (~, ~user, $HOME, its absolute path), a directory under /home, or a top-level system directory (/bin, /boot, /dev, /etc, /home, /lib*, /opt, /proc, /root, /run, /sbin, /srv, /sys, /tmp, /usr, /var …), however the path is spelled (/proc/self/root/…, /proc/1/root/…, //, .., a link made by ln -s or found on disk, a variable or positional parameter the line sets, an empty one before a /), also via cd and globs, find -delete there (after find's -H -L -P -D -O options too), and any path the checker cannot resolve (relative after a cd it cannot follow, through /proc/PID/cwd or an open descriptor)"},
	{RuleMkfs, "both", "mkfs, mkfs.*, mke2fs, mkdosfs, mkswap, wipefs"},
	{RuleDDDevice, "both", "dd with of= a device under /dev (other than /dev/null, /dev/zero, /dev/stdout …)"},
	{RuleWriteDevice, "both", "redirecting, tee-ing, copying (cp/mv/install/ln, also -t DIR and into a directory), truncating or shredding onto a device under /dev"},
	{RuleShutdown, "both", "shutdown, reboot, poweroff, halt, init/telinit 0 or 6, systemctl poweroff/reboot/halt/kexec/soft-reboot; kill -1, kill $PPID, killall5, pkill/killall -u, which stop the server with every process of its user"},
	{RuleForkBomb, "both", "functions that call themselves again, directly or through each other, eval, bash -c, aliases or $FUNCNAME, in a pipeline, in the background or in a new process, e.g. :(){ :|:& };: or a(){ b|b& }; b(){ a|a& }; a"},
	{RuleChmodRoot, "both", "chmod, chown or chgrp -R on / or a top-level system directory"},
	{RuleWriteAuthFiles, "both", "writing /etc/shadow, /etc/gshadow, /etc/passwd, /etc/group, /etc/sudoers or /etc/sudoers.d/* by redirect, tee, sponge, cp/mv/install/ln (-t DIR, into /etc), dd of=, sed -i, perl -i, gawk -i inplace, find -fprint, truncate, shred, sudoedit, or removing them (rm, mv); useradd, usermod, passwd, chpasswd, visudo and the other account tools"},
	{RuleStdinCommands, "both", "a shell, interpreter or other program that reads commands from standard input (bash, sh -s, bash -i, env bash, script, su, python3, perl, node, sqlite3, gdb, at, parallel …) when that input is what you send later (start_process, then send_process_input) or run_command's stdin, also through cat | bash, a function or bash -c 'bash'; a script computed at run time (eval \"$x\", bash -c \"$x\") or interpreter code that evaluates what it reads, when standard input is given; and a command in a script fed to a shell on standard input that may read the rest of that script"},
	{RulePipeToShell, "both", "a download (curl, wget, fetch, aria2c) piped into a shell or interpreter reading its script from stdin (bash, bash -s, bash /dev/stdin, python3 -), or run through bash <(…), bash -c \"$(…)\", eval, source"},
}

// maxDepth bounds how deeply inline scripts (bash -c, eval, su -c) are followed.
const maxDepth = 8

// Policy is an immutable command policy; it is safe for concurrent use.
type Policy struct {
	mode    Mode
	allowed map[string]bool // the names commands may run: each listed one, and a listed path's base name
	listed  []string        // the programs as given, sorted
	home    string          // the home directory commands get, absolute and clean; "" when not given
	links   func(string) (string, error)
}

// Option tells a policy more about the machine the commands run on.
type Option func(*Policy)

// Home gives the home directory commands get: rm -r and chmod -R on it are refused however
// it is spelled (~, $HOME, /home/USER, /proc/self/root/home/USER …).
func Home(dir string) Option {
	return func(p *Policy) {
		if path.IsAbs(dir) {
			p.home = path.Clean(dir)
		}
	}
}

// FollowSymlinks makes the rules resolve symbolic links that exist on the file system when a
// line is checked, so that rm -r link/ is judged by where link points. The links a line makes
// itself (ln -s) are followed either way.
func FollowSymlinks() Option {
	return func(p *Policy) { p.links = evalLink }
}

// evalLink resolves the symbolic links in p; a link whose target does not exist (yet) is
// followed one step.
func evalLink(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err == nil {
		return r, nil
	}
	t, lerr := os.Readlink(p)
	if lerr != nil {
		return "", err
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return t, nil
}

// New returns a policy. Allowlist needs at least one program; the other modes take none.
func New(mode Mode, allow []string, opts ...Option) (*Policy, error) {
	switch mode {
	case Off, Blocklist, Allowlist:
	default:
		return nil, fmt.Errorf("unknown policy %q: use allowlist, blocklist or off", mode)
	}
	p := &Policy{mode: mode, allowed: map[string]bool{}}
	for _, o := range opts {
		o(p)
	}
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if strings.ContainsAny(a, " \t\n'\"$`;|&<>(){}*?[]\\") {
			return nil, fmt.Errorf("allowed command %q: give a program name such as git or an absolute path such as /usr/bin/git", a)
		}
		if evaluatingBuiltins[a] != "" {
			return nil, fmt.Errorf("allowed command %q is a bash builtin that %s; the allowlist cannot list it", a, evaluatingBuiltins[a])
		}
		p.allowed[a] = true
		if !slices.Contains(p.listed, a) {
			p.listed = append(p.listed, a)
		}
		if strings.Contains(a, "/") {
			// Commands find it by its name: restricted bash refuses / in command names, and the
			// PATH it gets holds only links to the listed programs.
			p.allowed[path.Base(a)] = true
		}
	}
	slices.Sort(p.listed)
	if mode == Allowlist && len(p.allowed) == 0 {
		return nil, fmt.Errorf("the allowlist policy needs programs to allow, e.g. git,ls,cat")
	}
	if mode != Allowlist && len(p.allowed) > 0 {
		return nil, fmt.Errorf("allowed commands are only used by the allowlist policy, not %q", mode)
	}
	return p, nil
}

// Mode returns the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

// Allowed returns the allowlisted programs as given, sorted.
func (p *Policy) Allowed() []string { return slices.Clone(p.listed) }

// Refusal is a command line the policy will not run, with the rule that refused it.
type Refusal struct {
	Rule   string
	Detail string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("refused by policy rule %s: %s", r.Rule, r.Detail)
}

// Check returns nil when line may run from the working directory dir, else a *Refusal. The
// command's standard input is empty.
func (p *Policy) Check(line, dir string) error { return p.check(line, dir, false) }

// CheckInput is Check for a command whose standard input carries text the caller sends
// (run_command's stdin, or send_process_input to a background process): a shell or
// interpreter that would read its commands from that input is refused, since the policy
// never reads it as commands.
func (p *Policy) CheckInput(line, dir string) error { return p.check(line, dir, true) }

// check runs the checker over line, twice when the first pass learned definitions (variables,
// functions, aliases, links): the second pass reads every use in the light of every
// definition in the line, wherever it stands, and a refusal by either pass stands.
func (p *Policy) check(line, dir string, input bool) error {
	if p.mode == Off {
		return nil
	}
	defs := newDefinitions()
	for pass := range 2 {
		c := &checker{p: p, defs: defs, input: input}
		if path.IsAbs(dir) {
			c.cwds = []string{path.Clean(dir)}
		} else {
			c.cwdUnknown = true
		}
		top := stdinSource{kind: stdinNone}
		if input {
			top.kind = stdinCaller
		}
		c.script(line, 0, top)
		if c.refusal == nil {
			c.forkBombs()
		}
		if c.refusal == nil && c.restricted != "" {
			// Refused last, so that any other rule a line breaks names it first.
			c.refuse(RuleAllowlistSyntax, "under the allowlist bash runs restricted (bash -r), which refuses %s", c.restricted)
		}
		if c.refusal != nil {
			return c.refusal
		}
		if pass == 0 && !defs.learned() {
			break
		}
		defs.complete = true
	}
	return nil
}

// Decision is how the audit log records the outcome of Check.
func (p *Policy) Decision(err error) string {
	if p.mode == Off {
		return "off"
	}
	var r *Refusal
	if errors.As(err, &r) {
		return "refused:" + r.Rule
	}
	return "allowed"
}

// checker walks one command line and keeps the first refusal.
type checker struct {
	p          *Policy
	defs       *definitions    // what the line defines, shared by both passes
	input      bool            // standard input carries the caller's text (CheckInput)
	cwds       []string        // every directory the line may be in, as far as cd commands tell
	cwdUnknown bool            // a cd went somewhere only known at run time
	steps      int             // commands checked so far, bounded by maxSteps
	restricted string          // the first thing restricted bash refuses, refused when nothing else is
	expanding  map[string]bool // aliases being expanded, which bash does not expand again
	refusal    *Refusal
}

func (c *checker) refuse(rule, format string, args ...any) {
	if c.refusal == nil {
		c.refusal = &Refusal{Rule: rule, Detail: fmt.Sprintf(format, args...)}
	}
}

// frame is a node being walked with the standard input its commands read.
type frame struct {
	node syntax.Node
	in   stdinSource
}

// script parses and checks a piece of bash source whose commands read standard input from in.
func (c *checker) script(src string, depth int, in stdinSource) {
	if depth > maxDepth {
		c.refuse(RuleNesting, "inline scripts (bash -c, eval, su -c) nested more than %d deep", maxDepth)
		return
	}
	if !utf8.ValidString(src) {
		c.refuse(RuleParse, "the command line is not valid UTF-8")
		return
	}
	// Control characters other than tab and newline are refused: the parser and bash disagree
	// on some (the parser takes \r for a blank and stops reading at U+0080; bash takes both
	// for part of a word), and a checker that reads a different line than bash runs checks
	// nothing. Write them as $'\r' escapes.
	if i := strings.IndexFunc(src, func(r rune) bool { return r != '\t' && r != '\n' && unicode.IsControl(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(src[i:])
		c.refuse(RuleParse, "the command line holds the control character %U at byte %d, which bash and the checker read differently; write it as a $'…' escape", r, i)
		return
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.refuse(RuleParse, "the command line is not valid bash (%v)", err)
		return
	}
	stack := []frame{{node: f, in: in}}
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if c.refusal != nil {
			return false
		}
		if _, ok := n.(*syntax.File); ok {
			return true // already on the stack
		}
		parent := stack[len(stack)-1]
		cur := frame{node: n, in: parent.in}
		if c.p.mode == Allowlist {
			c.inert(n)
		}
		c.evaluated(n, depth, parent.in)
		c.forks(n, parent.in)
		c.learnArithm(n)
		switch n := n.(type) {
		case *syntax.Stmt:
			cur.in = c.stmtStdin(n, parent, f)
			if call, ok := n.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				c.simple(call, depth, cur.in)
			}
		case *syntax.Comment:
			if strings.Contains(n.Text, "\n") {
				// A comment ending in a backslash ends at the newline for bash; the parser reads
				// the next line into it.
				c.refuse(RuleParse, "a comment ends in a backslash, which bash and the checker read differently; remove the backslash")
			}
		case *syntax.Assign:
			if n.Name != nil && !validName(n.Name.Value) {
				// The parser takes 0=x for an assignment; bash runs it as a command.
				c.refuse(RuleParse, "%s=… is not an assignment to bash, which would run it as a command; name variables with letters, digits and _, not starting with a digit", n.Name.Value)
			}
			c.learnAssign(n)
		case *syntax.ForClause:
			c.learnFor(n)
			c.endlessLoop(n)
		case *syntax.WhileClause:
			c.endlessLoop(n)
		case *syntax.DeclClause:
			for _, a := range n.Args {
				if a.Naked && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-") && strings.Contains(a.Value.Lit(), "n") {
					c.taint() // a nameref: assigning it assigns the variable it names
				}
			}
		case *syntax.Redirect:
			if n.N != nil && !strings.HasPrefix(n.N.Value, "{") && len(n.N.Value) > 9 {
				// bash takes a descriptor number too large for an int as a separate word.
				c.refuse(RuleParse, "the descriptor number %s is too large; bash would read it as a word", n.N.Value)
			}
			if (n.Op == syntax.DplIn || n.Op == syntax.DplOut) && n.Word != nil && len(n.Word.Parts) > 0 {
				if l, ok := n.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "-") && (len(l.Value) > 1 || len(n.Word.Parts) > 1) {
					// bash reads <&-0 as <&- and then the word 0, the parser as one target.
					c.refuse(RuleParse, "%s-… is read by bash as %s- (close) followed by a separate word; put a space after %s-", n.Op, n.Op, n.Op)
				}
			}
			c.redirect(n)
		case *syntax.FuncDecl:
			c.learnFunc(n)
			name := "()" // the parser takes ()0 for a function without a name
			if n.Name != nil {
				name = n.Name.Value
			}
			cur.in = stdinSource{kind: stdinFunc, fn: name}
		case *syntax.BinaryCmd:
			c.pipeline(n)
		}
		if c.refusal != nil {
			return false
		}
		stack = append(stack, cur)
		return true
	})
}

// simple checks one simple command as the program its words run, and, when it starts with an
// alias the line defines, as the text bash reads after expanding it.
func (c *checker) simple(call *syntax.CallExpr, depth int, in stdinSource) {
	c.expandAlias(call, depth, in)
	c.command(expandWords(call.Args), depth, false, in)
}
