package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirect applies the write rules to an output redirection.
func (c *checker) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
	default:
		return
	}
	if r.Word == nil {
		return
	}
	vals, _ := c.wordValues(r.Word)
	for _, t := range vals {
		if t == "" || r.Op == syntax.DplOut && (t == "-" || strings.Trim(t, "0123456789") == "") {
			continue
		}
		c.writeTarget(t)
	}
}

// writeTarget refuses writing t when it may be a device or a file of user accounts.
func (c *checker) writeTarget(t string) {
	ps := c.resolve(t)
	switch {
	case ps == nil && opaque(t):
		c.refuse(RuleWriteDevice, "writing %s goes through an open descriptor or another process's directory, which may lead to a device or a system file; write to the path itself", t)
	case ps == nil && authFileName(t):
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

// values returns every value the operands may have.
func (c *checker) values(ws []word) []string {
	var out []string
	for _, o := range c.operands(ws) {
		out = append(out, o.vals...)
	}
	return out
}

// writeTargets returns the files a program writes to, as far as its arguments tell. A copy
// into a directory writes DIR/name, so both DIR and DIR/name are returned.
func (c *checker) writeTargets(inv invocation) []string {
	switch inv.prog {
	case "tee", "sponge":
		p := teeGrammar.parse(inv.args)
		return c.values(p.operands)
	case "rm":
		// Deleting an auth file is writing it; rm -r on directories is rm-root's.
		p := rmGrammar.parse(inv.args)
		return c.values(p.operands)
	case "truncate":
		p := truncateGrammar.parse(inv.args)
		return c.values(p.operands)
	case "shred":
		p := shredGrammar.parse(inv.args)
		return c.values(p.operands)
	case "sudoedit":
		g := wrappers["sudo"].grammar
		p := g.parse(inv.args)
		return c.values(p.operands)
	case "sed":
		p := sedGrammar.parse(inv.args)
		if !p.has("-i", "--in-place") {
			return nil
		}
		ops := p.operands
		if !p.has("-e", "--expression", "-f", "--file") && len(ops) > 0 {
			ops = ops[1:]
		}
		return c.values(ops)
	case "awk", "gawk":
		return c.values(awkInPlace(inv.args))
	case "perl", "ruby":
		return c.values(perlInPlace(inv.args))
	case "find":
		var out []string
		for i, a := range inv.args {
			if a.static && (a.val == "-fprint" || a.val == "-fprint0" || a.val == "-fprintf" || a.val == "-fls") && i+1 < len(inv.args) {
				out = append(out, c.values(inv.args[i+1:i+2])...)
			}
		}
		return out
	case "cp", "mv", "install", "ln":
		p := copyGrammar.parse(inv.args)
		ops := c.values(p.operands)
		dirs := c.values(p.values("-t", "--target-directory"))
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
		if n := len(inv.args); n > 1 {
			return c.values(inv.args[n-1:])
		}
	}
	return nil
}

// awkInPlace returns the files gawk -i inplace rewrites: the operands after the program.
func awkInPlace(args []word) []word {
	inplace, program := false, true
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.static:
			ops = append(ops, a)
		case a.val == "-i" || a.val == "--include":
			if i+1 < len(args) && args[i+1].static && strings.HasPrefix(args[i+1].val, "inplace") {
				inplace = true
			}
			i++
		case strings.HasPrefix(a.val, "-iinplace") || strings.HasPrefix(a.val, "--include=inplace"):
			inplace = true
		case a.val == "-f" || a.val == "--file" || a.val == "-e" || a.val == "--source":
			program = false
			i++
		case a.val == "-F" || a.val == "-v" || a.val == "--assign" || a.val == "--field-separator":
			i++
		case strings.HasPrefix(a.val, "-") && a.val != "-":
		default:
			ops = append(ops, a)
		}
	}
	if !inplace {
		return nil
	}
	if program && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}

// perlInPlace returns the files perl -i (or -pi, -i.bak) and ruby -i edit in place: the
// operands after the code (-e) or the script file.
func perlInPlace(args []word) []word {
	inplace, code := false, false
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.static:
			ops = append(ops, a)
		case a.val == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a.val, "-") && len(a.val) > 1:
			flags := a.val[1:]
			for j := 0; j < len(flags); j++ {
				switch flags[j] {
				case 'i':
					inplace = true
					j = len(flags) // the rest is the backup suffix
				case 'e', 'E':
					code = true
					if j == len(flags)-1 {
						i++ // the code follows
					}
					j = len(flags)
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if !inplace {
		return nil
	}
	if !code && len(ops) > 0 {
		ops = ops[1:] // the script file
	}
	return ops
}
