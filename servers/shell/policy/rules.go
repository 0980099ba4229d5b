package policy

import (
	"strings"

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

// rules applies the blocklist rules to one program.
func (c *checker) rules(inv invocation) {
	prog := inv.prog
	switch {
	case prog == "rm":
		p := rmGrammar.parse(inv.args)
		if p.has("-r", "-R", "--recursive") || p.dynamic {
			if t, ok := c.protectedOperand(c.operands(p.operands), true); ok {
				c.refuse(RuleRmRoot, "rm -r on %s would delete a system directory or a home directory; name the exact path you mean, below it", t)
			}
		}
	case prog == "chmod" || prog == "chown" || prog == "chgrp":
		p := chmodGrammar.parse(inv.args)
		modeGiven := prog == "chmod" && modeOption(inv.args)
		if !p.has("--reference") && !modeGiven && len(p.operands) > 0 {
			p.operands = p.operands[1:] // the mode or owner
		}
		if p.has("-R", "--recursive") || p.dynamic {
			if t, ok := c.protectedOperand(c.operands(p.operands), false); ok {
				c.refuse(RuleChmodRoot, "%s -R on %s would change a whole system directory tree", prog, t)
			}
		}
	case prog == "find":
		if hasStatic(inv.args, "-delete") {
			if t, ok := c.protectedOperand(c.operands(findPaths(inv)), false); ok {
				c.refuse(RuleRmRoot, "find %s -delete would delete a system directory tree; start below it", t)
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
	case prog == "kill" || prog == "killall5" || prog == "pkill" || prog == "killall":
		if why := killsAll(inv); why != "" {
			c.refuse(RuleShutdown, "%s signals every process of the server's user, the server included; name the processes you mean", why)
		}
	case accountTools[prog] && (prog != "passwd" || !hasStatic(inv.args, "-S") && !hasStatic(inv.args, "--status")):
		c.refuse(RuleWriteAuthFiles, "%s changes the user and group files (/etc/passwd, /etc/shadow, /etc/group, /etc/sudoers), which decide who may log in or use sudo", prog)
	case prog == "dd":
		for _, a := range inv.args {
			var vals []string
			if a.static {
				vals = []string{a.val}
			} else if a.node != nil && !a.opaque {
				vals, _ = c.wordValues(a.node)
			}
			for _, v := range vals {
				t, ok := strings.CutPrefix(v, "of=")
				if !ok {
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
	}
	for _, t := range c.writeTargets(inv) {
		c.writeTarget(t)
	}
}

// accountTools change the files that decide who may log in or use sudo.
var accountTools = map[string]bool{
	"useradd": true, "usermod": true, "userdel": true, "groupadd": true, "groupmod": true, "groupdel": true,
	"adduser": true, "deluser": true, "addgroup": true, "delgroup": true, "chpasswd": true, "chgpasswd": true,
	"newusers": true, "gpasswd": true, "passwd": true, "chsh": true, "chfn": true, "vipw": true, "vigr": true,
	"visudo": true, "pwconv": true, "grpconv": true,
}

// killsAll returns how inv signals every process the user may signal (kill -9 -1, kill
// $PPID, killall5, pkill -u), or "".
func killsAll(inv invocation) string {
	switch inv.prog {
	case "killall5":
		return "killall5"
	case "pkill", "killall":
		for _, a := range inv.args {
			if a.static && (a.val == "-u" || strings.HasPrefix(a.val, "--user") || strings.HasPrefix(a.val, "-u")) {
				return inv.prog + " -u"
			}
		}
		return ""
	}
	args := inv.args
	if len(args) > 0 && args[0].static {
		switch v := args[0].val; {
		case v == "-s" || v == "-n":
			args = args[min(2, len(args)):]
		case v == "-l" || v == "-L":
			return ""
		case strings.HasPrefix(v, "-") && v != "--":
			args = args[1:]
		}
	}
	if len(args) > 0 && args[0].static && args[0].val == "--" {
		args = args[1:]
	}
	for _, a := range args {
		if a.static && a.val == "-1" {
			return "kill -1"
		}
		if a.node != nil && mentionsParam(a.node, "PPID") {
			return "kill $PPID (the server)"
		}
	}
	return ""
}

// mentionsParam reports whether a word expands the parameter name.
func mentionsParam(w *syntax.Word, name string) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == name {
			found = true
		}
		return !found
	})
	return found
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

// findPaths returns find's starting points: the arguments after its leading options (-H, -L,
// -P, -D debugopts, -Olevel, --) and before its expression.
func findPaths(inv invocation) []word {
	args := inv.args
	for len(args) > 0 && args[0].static {
		v := args[0].val
		switch {
		case v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O"):
			args = args[1:]
			continue
		case v == "-D":
			args = args[min(2, len(args)):]
			continue
		case v == "--":
			args = args[1:]
		}
		break
	}
	var out []word
	for _, a := range args {
		if a.static && (strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" || a.val == ")" || a.val == ",") {
			break
		}
		out = append(out, a)
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

// findStarts checks the commands find runs with -exec, -execdir, -ok and -okdir with {} read
// as each start path: the start path is the first file find hands them, and everything below
// it follows (find / -exec rm -rf {} + is rm -rf /; find / -exec sh -c 'rm -rf "$1"' _ {} \;).
func (c *checker) findStarts(inv invocation, depth int, in stdinSource) {
	var starts []string
	for _, o := range c.operands(findPaths(inv)) {
		starts = append(starts, o.vals...)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, cmd := range findExecRaw(inv) {
		if len(cmd) == 0 || !cmd[0].static {
			continue
		}
		for _, start := range starts {
			ws := make([]word, len(cmd))
			found := false
			for i, w := range cmd {
				ws[i] = w
				if w.static && strings.Contains(w.val, "{}") {
					ws[i] = lit(strings.ReplaceAll(w.val, "{}", start))
					found = true
				}
			}
			if found {
				c.command(ws, depth, true, in)
			}
		}
	}
}
