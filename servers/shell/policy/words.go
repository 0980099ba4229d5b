package policy

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// word is one argument as bash will pass it, when that is known before running.
type word struct {
	val    string       // the value after quote removal and brace expansion, when static
	static bool         // false when the value depends on a variable or a substitution
	multi  bool         // may become zero or several arguments: an unquoted expansion or glob
	opaque bool         // filled in by another program (find's {}, xargs -I): node is for messages only
	node   *syntax.Word // the source word, for finding substitutions inside it
}

// expandWords turns source words into arguments: quotes removed and braces expanded for words
// whose value is fixed, one opaque argument for each word that is not.
func expandWords(ws []*syntax.Word) []word {
	var out []word
	for _, w := range ws {
		if dynamic(w) {
			out = append(out, word{node: w, multi: !singleField(w)})
			continue
		}
		if braceFields(w) > maxBraceFields {
			// Too many to expand while checking: one opaque argument that may be several.
			out = append(out, word{node: w, multi: true})
			continue
		}
		// A fresh config each time: with a nil one, expand writes to a shared package variable.
		fields, err := expand.Fields(&expand.Config{}, controlEscapes(w))
		if err != nil {
			out = append(out, word{node: w, multi: true})
			continue
		}
		glob := unquotedGlob(w)
		for _, f := range fields {
			// bash ends a word at a NUL ($'/\c@' is "/"), as C strings do.
			f, _, _ = strings.Cut(f, "\x00")
			out = append(out, word{val: f, static: true, multi: glob, node: w})
		}
	}
	return out
}

// maxBraceFields bounds the brace expansion the checker performs on one word.
const maxBraceFields = 1024

// braceFields estimates how many fields brace expansion makes of w, saturating above the bound.
func braceFields(w *syntax.Word) int {
	cp := *w // SplitBraces replaces the Parts slice
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return partsFields(cp.Parts)
}

func partsFields(parts []syntax.WordPart) int {
	n := 1
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if br.Sequence {
			k = seqLen(br.Elems)
		} else {
			for _, e := range br.Elems {
				k += partsFields(e.Parts)
			}
		}
		n *= max(k, 1)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

// seqLen is the length of a {x..y[..step]} sequence; anything unreadable counts as too long.
func seqLen(elems []*syntax.Word) int {
	if len(elems) < 2 {
		return maxBraceFields + 1
	}
	a, b := elems[0].Lit(), elems[1].Lit()
	x, errX := strconv.Atoi(a)
	y, errY := strconv.Atoi(b)
	if errX != nil || errY != nil {
		if len(a) == 1 && len(b) == 1 {
			return int(max(a[0], b[0])-min(a[0], b[0])) + 1
		}
		return maxBraceFields + 1
	}
	d := y - x
	if d < 0 {
		d = -d
	}
	if d > maxBraceFields {
		return maxBraceFields + 1
	}
	return d + 1
}

// controlEscapes returns w with bash's \cX escapes in $'…' strings decoded, which the expander
// leaves as written: $'/\c@' is "/" followed by a NUL, so bash passes "/".
func controlEscapes(w *syntax.Word) *syntax.Word {
	var out *syntax.Word
	for i, part := range w.Parts {
		sq, ok := part.(*syntax.SglQuoted)
		if !ok || !sq.Dollar || !strings.Contains(sq.Value, `\c`) {
			continue
		}
		if out == nil {
			out = &syntax.Word{Parts: slices.Clone(w.Parts)}
		}
		var b strings.Builder
		v := sq.Value
		for j := 0; j < len(v); j++ {
			switch {
			case v[j] == '\\' && j+2 < len(v) && v[j+1] == 'c':
				c := v[j+2]
				if c == '?' {
					b.WriteByte(0x7f)
				} else {
					b.WriteByte(c & 0x1f)
				}
				j += 2
			case v[j] == '\\' && j+1 < len(v):
				b.WriteString(v[j : j+2])
				j++
			default:
				b.WriteByte(v[j])
			}
		}
		out.Parts[i] = &syntax.SglQuoted{Left: sq.Left, Right: sq.Right, Dollar: true, Value: b.String()}
	}
	if out == nil {
		return w
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

// singleField reports whether a dynamic word always becomes exactly one argument: every
// expansion in it is double-quoted and none is "$@", "$*"-like arrays aside.
func singleField(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if globIn(p.Value) {
				return false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, in := range p.Parts {
				if pe, ok := in.(*syntax.ParamExp); ok && (pe.Param != nil && pe.Param.Value == "@" || pe.Index != nil || pe.Excl) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// unquotedGlob reports whether a word has an unquoted *, ? or [...] that pathname expansion
// may turn into any number of file names.
func unquotedGlob(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if globIn(p.Value) {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// globIn reports whether an unquoted literal holds a glob character not escaped by a backslash.
func globIn(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.Contains(s[i+1:], "]") {
				return true
			}
		}
	}
	return false
}

// invocation is one program being run with its arguments.
type invocation struct {
	prog    string // the program's base name; "" when computed at run time
	name    string // the command name as written, after quote removal
	dynamic bool   // the name is computed at run time (a variable, substitution or glob)
	args    []word
}

func newInvocation(fields []word) invocation {
	first := fields[0]
	inv := invocation{args: fields[1:]}
	if !first.static || first.multi {
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

var shells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "rbash": true}

var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true, "php": true, "lua": true}

// stdinFiles are script file names that read standard input.
var stdinFiles = []string{"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}

// descriptorFile reports whether a script file name reads standard input, or an open
// descriptor that may be a copy of it (bash /dev/fd/3 3<&0).
func descriptorFile(name string) bool {
	return contains(stdinFiles, name) || strings.HasPrefix(name, "/dev/fd/") || strings.HasPrefix(name, "/proc/self/fd/") ||
		strings.HasPrefix(name, "/proc/thread-self/fd/")
}

// safeShellOptions are the set -o / bash -o options that do not change how code is found or run.
var safeShellOptions = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "pipefail": true, "noglob": true, "noclobber": true,
	"verbose": true, "noexec": true,
}

// shellCall is how a shell was asked to run code.
type shellCall struct {
	script   word   // the -c command string, when hasC
	scriptAt int    // the index of script in the arguments, -1 when there is none
	hasC     bool   // -c was given
	file     word   // the script file, when hasFile
	hasFile  bool   // a script file operand was given
	stdin    bool   // the script comes from standard input
	unsafe   string // why the allowlist cannot vouch for this call; "" when it can
	computed bool   // a word computed at run time stands among the options
}

// parseShell reads a shell's arguments as bash does: option clusters (-ec, +x), -o/+o and
// -O/+O with a value, long options (--norc, --rcfile FILE), "--" or "-" ending options, then
// the command string (with -c) or the script file, else standard input.
func parseShell(inv invocation) shellCall {
	s := shellCall{scriptAt: -1}
	i := 0
	setUnsafe := func(why string) {
		if s.unsafe == "" {
			s.unsafe = why
		}
	}
loop:
	for ; i < len(inv.args); i++ {
		a := inv.args[i]
		switch {
		case !a.static:
			if a.multi {
				s.computed = true
				setUnsafe("an argument computed at run time may be an option")
			}
			break loop
		case a.val == "--" || a.val == "-":
			i++
			break loop
		case a.val == "--rcfile" || a.val == "--init-file":
			setUnsafe(a.val + " runs a startup file")
			i++
		case strings.HasPrefix(a.val, "--"):
			switch a.val {
			case "--norc", "--noprofile", "--noediting", "--verbose", "--version", "--help":
			default:
				setUnsafe("the option " + a.val)
			}
		case len(a.val) > 1 && (a.val[0] == '-' || a.val[0] == '+'):
			for _, ch := range a.val[1:] {
				switch ch {
				case 'c':
					s.hasC = true
				case 's':
					s.stdin = true
				case 'o', 'O':
					if i+1 < len(inv.args) {
						i++
						v := inv.args[i]
						if ch == 'O' || !v.static || !safeShellOptions[v.val] {
							setUnsafe(string(a.val[0]) + string(ch) + " " + v.val)
						}
					}
				case 'i', 'l':
					setUnsafe("-" + string(ch) + " reads startup files")
				case 'e', 'u', 'x', 'v', 'n', 'f', 'C':
				default:
					setUnsafe("the option -" + string(ch))
				}
			}
		default:
			break loop
		}
	}
	switch {
	case i >= len(inv.args):
		if s.hasC {
			setUnsafe("-c without a command string")
		} else {
			s.stdin = true
		}
	case s.hasC:
		s.script, s.scriptAt = inv.args[i], i
		if s.script.multi {
			s.computed = true
		}
	case s.stdin:
	default:
		s.file, s.hasFile = inv.args[i], true
		if s.file.static && descriptorFile(s.file.val) {
			s.stdin = true
		}
	}
	return s
}

// inlineScript returns source that inv runs as shell code: bash -c, eval, trap.
func inlineScript(inv invocation) (w word, ok bool) {
	switch {
	case shells[inv.prog]:
		s := parseShell(inv)
		if !s.hasC || s.script.node == nil && !s.script.static {
			return word{}, false
		}
		return s.script, true
	case inv.prog == "eval":
		if len(inv.args) == 0 {
			return word{}, false
		}
		return joined(inv.args), true
	case inv.prog == "trap":
		if len(inv.args) > 1 {
			return inv.args[0], true
		}
	}
	return word{}, false
}

// readsScriptFromStdin reports whether inv is a shell or interpreter that reads its program
// from standard input: no -c and no script file, "-", "-s" or /dev/stdin.
func readsScriptFromStdin(inv invocation) bool {
	if shells[inv.prog] {
		return parseShell(inv).stdin
	}
	if !interpreters[inv.prog] {
		return false
	}
	for _, a := range inv.args {
		if !a.static {
			return false
		}
		switch {
		case descriptorFile(a.val):
			return true
		case a.val == "-c" || a.val == "-e" || a.val == "-E" || a.val == "-m" || a.val == "-r" || a.val == "-p" || a.val == "--eval" || a.val == "--print":
			return false
		case strings.HasPrefix(a.val, "-"):
			continue
		default:
			return false
		}
	}
	return true
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
