package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// stdinKind is where a command's standard input comes from, as far as the line tells.
type stdinKind int

const (
	stdinNone   stdinKind = iota // nothing to read: /dev/null, or closed
	stdinCaller                  // text the caller sends, which the checker never reads
	stdinText                    // text the checker knows: a here-document, a here-string, literal output piped in
	stdinOther                   // a file, a here-document computed at run time, another program's output
	stdinFunc                    // whatever the caller of the function gives it
	stdinScript                  // the rest of a script a shell reads from standard input
)

// stdinSource is the standard input of the commands of one statement.
type stdinSource struct {
	kind     stdinKind
	text     string   // stdinText: the text
	piped    bool     // it comes through a pipe
	computed bool     // stdinOther: a here-document or here-string computed at run time
	caller   bool     // stdinOther: a pipe whose first program may forward the caller's text (cat | bash)
	last     bool     // stdinScript: the statement is the script's last
	fn       string   // the function whose body the statement is in, "" outside functions
	paths    []string // stdinOther: the start paths of a find piped in, the first paths it prints
}

// carriesCaller reports whether a program reading in may read the caller's text.
func (in stdinSource) carriesCaller() bool {
	return in.kind == stdinCaller || in.kind == stdinOther && in.caller
}

// stmtStdin returns the standard input of st's commands: through a pipe, the output of the
// statement before (known text when it is literal), else its own redirections, else what the
// enclosing statement reads.
func (c *checker) stmtStdin(st *syntax.Stmt, parent frame, file *syntax.File) stdinSource {
	in := parent.in
	if b, ok := parent.node.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && b.Y == st {
		if out, ok := c.literalOutput(b.X, in, 0); ok {
			in = stdinSource{kind: stdinText, text: out, piped: true, fn: in.fn}
		} else {
			in = stdinSource{kind: stdinOther, piped: true, caller: in.carriesCaller() || in.kind == stdinFunc, fn: in.fn, paths: c.findOutput(b.X)}
		}
	}
	if in.kind == stdinScript && parent.node == file {
		in.last = len(file.Stmts) > 0 && file.Stmts[len(file.Stmts)-1] == st
	}
	return redirectedStdin(st.Redirs, in)
}

// redirectedStdin applies a statement's redirections of descriptor 0 to in.
func redirectedStdin(redirs []*syntax.Redirect, in stdinSource) stdinSource {
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			body := r.Hdoc
			if r.Op == syntax.WordHdoc {
				body = r.Word
			}
			in = stdinSource{kind: stdinOther, computed: true, fn: in.fn}
			if body == nil || dynamic(body) {
				continue
			}
			src, err := expand.Document(&expand.Config{}, body)
			if r.Op == syntax.WordHdoc {
				src, err = expand.Literal(&expand.Config{}, controlEscapes(body))
				src += "\n"
			}
			if err == nil {
				in = stdinSource{kind: stdinText, text: src, fn: in.fn}
			}
		case syntax.RdrIn, syntax.RdrInOut:
			t := ""
			if r.Word != nil && !dynamic(r.Word) {
				t, _ = expand.Literal(&expand.Config{}, r.Word)
			}
			switch {
			case contains(stdinFiles, t):
				// the same standard input
			case t == "/dev/null" || t == "/dev/zero":
				in = stdinSource{kind: stdinNone, fn: in.fn}
			default:
				in = stdinSource{kind: stdinOther, caller: t == "" && in.carriesCaller(), fn: in.fn}
			}
		case syntax.DplIn:
			switch {
			case r.Word != nil && r.Word.Lit() == "-":
				in = stdinSource{kind: stdinNone, fn: in.fn}
			case r.Word != nil && r.Word.Lit() == "0":
			default:
				// another descriptor, which may be a copy of standard input (exec 3<&0)
				in = stdinSource{kind: stdinOther, caller: in.carriesCaller() || in.kind == stdinFunc, fn: in.fn}
			}
		}
	}
	return in
}

// findOutput returns the paths a statement prints first, where the line fixes them: find's
// start paths, the operands of ls -d, realpath and readlink -f/-e/-m, and pwd's directory.
func (c *checker) findOutput(st *syntax.Stmt) []string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil
	}
	inv := newInvocation(expandWords(call.Args))
	var ops []word
	switch inv.prog {
	case "find":
		ops = findPaths(inv)
		if len(ops) == 0 {
			return []string{"."}
		}
	case "pwd":
		if c.cwdUnknown {
			return nil
		}
		return slices.Clone(c.cwds)
	case "ls", "realpath", "readlink":
		if inv.prog == "ls" && !hasStatic(inv.args, "-d") && !hasStatic(inv.args, "--directory") {
			return nil
		}
		if inv.prog == "readlink" && !hasStatic(inv.args, "-f") && !hasStatic(inv.args, "-e") && !hasStatic(inv.args, "-m") {
			return nil
		}
		for _, a := range inv.args {
			if !a.static || !strings.HasPrefix(a.val, "-") {
				ops = append(ops, a)
			}
		}
	default:
		return nil
	}
	var out []string
	for _, o := range c.operands(ops) {
		out = append(out, o.vals...)
	}
	return out
}

// maxInputs bounds the input items the checker hands to the command of an xargs.
const maxInputs = 64

// xargsRuns checks the command xargs runs with the input the line fixes: literal text piped
// in (echo / | xargs rm -rf), or the paths a find piped in starts from. With -I each line
// takes the place of the replacement string; otherwise the items are appended.
func (c *checker) xargsRuns(w wrapping, depth int, in stdinSource) {
	var items []string
	switch {
	case in.kind == stdinText && len(w.replace) > 0:
		items = strings.Split(strings.TrimRight(in.text, "\n"), "\n")
	case in.kind == stdinText:
		items = strings.Fields(in.text)
	default:
		items = in.paths
	}
	if len(items) == 0 || len(items) > maxInputs {
		return
	}
	none := stdinSource{kind: stdinNone, fn: in.fn}
	if len(w.replace) == 0 {
		cmd := slices.Clone(w.cmd)
		for _, it := range items {
			cmd = append(cmd, lit(it))
		}
		c.command(cmd, depth, true, none)
		return
	}
	for _, it := range items {
		cmd := make([]word, len(w.cmd))
		for i, x := range w.cmd {
			cmd[i] = x
			for _, r := range w.replace {
				if x.static && strings.Contains(x.val, r) {
					cmd[i] = lit(strings.ReplaceAll(x.val, r, it))
				}
			}
		}
		c.command(cmd, depth, true, none)
	}
}
