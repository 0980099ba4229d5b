package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxValues bounds the values a word is taken to have; a word with more is not judged by them.
const maxValues = 64

// definitions are what a line defines that changes how its words read: variables and the
// positional parameters (so rm -rf "$d/" is judged by every value d is given, and by the empty
// one), functions (for fork bombs and for standard input), aliases and links. The first pass
// learns them in the order they appear, the second (complete) knows all of them from the start.
type definitions struct {
	complete          bool
	changed           bool
	tainted           bool // code the checker cannot read runs in the shell itself (eval "$x", source FILE): any variable may hold anything
	vars              map[string]*varInfo
	positional        []string              // static arguments that may become $1 …, "$@"
	positionalUnknown bool                  // a positional parameter may hold a value the checker cannot know
	funcs             map[string]*funcInfo  // functions defined anywhere in the line
	readers           map[string]readerKind // functions whose body reads commands from the caller's input
	aliases           map[string]string     // alias name → its text
	links             map[string]string     // link (absolute) → what it leads to (absolute), made by ln
}

// varInfo is what a line assigns to one variable.
type varInfo struct {
	vals       []string // the values it is given, where known
	maybeEmpty bool     // it may be empty or unset where used: given an empty or computed value, or unset
	unknown    bool     // it is given a value the checker cannot know
}

// funcInfo is a function's body as far as forks and calls go.
type funcInfo struct {
	calls map[string]bool // names its body runs as commands, "*" when it runs computed code
	forks bool            // its body starts processes that run beside it or stay alive under it
}

func newDefinitions() *definitions {
	return &definitions{vars: map[string]*varInfo{}, funcs: map[string]*funcInfo{}, readers: map[string]readerKind{},
		aliases: map[string]string{}, links: map[string]string{}}
}

// learned reports whether the first pass found something the second may read differently.
func (d *definitions) learned() bool { return d.changed }

func (d *definitions) variable(name string) *varInfo {
	v := d.vars[name]
	if v == nil {
		v = &varInfo{}
		d.vars[name] = v
		d.changed = true
	}
	return v
}

func (v *varInfo) add(vals []string, ok bool) {
	if !ok {
		v.unknown, v.maybeEmpty = true, true
		return
	}
	for _, s := range vals {
		if s == "" {
			v.maybeEmpty = true
		}
		if !slices.Contains(v.vals, s) && len(v.vals) < maxValues {
			v.vals = append(v.vals, s)
		}
	}
}

func (c *checker) fn(name string) *funcInfo {
	f := c.defs.funcs[name]
	if f == nil {
		f = &funcInfo{calls: map[string]bool{}}
		c.defs.funcs[name] = f
		c.defs.changed = true
	}
	return f
}

// learnAssign records NAME=value, NAME+=value, NAME=(…) and declare NAME.
func (c *checker) learnAssign(a *syntax.Assign) {
	if a.Name == nil || !validName(a.Name.Value) {
		return
	}
	v := c.defs.variable(a.Name.Value)
	switch {
	case a.Array != nil:
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				vals, ok := c.wordValues(e.Value)
				v.add(vals, ok)
			}
		}
	case a.Naked || a.Value == nil:
		v.maybeEmpty = true
	case a.Append:
		v.add(nil, false)
	default:
		v.add(c.assignValues(a.Value))
	}
}

// learnFor records the values a for loop gives its variable: its words, or the positional
// parameters.
func (c *checker) learnFor(fc *syntax.ForClause) {
	wi, ok := fc.Loop.(*syntax.WordIter)
	if !ok || wi.Name == nil {
		return
	}
	v := c.defs.variable(wi.Name.Value)
	if fc.Select {
		v.add(nil, false) // what the user picks
		return
	}
	if wi.InPos == (syntax.Pos{}) && len(wi.Items) == 0 {
		v.add(c.defs.positional, true)
		v.maybeEmpty = true
		return
	}
	for _, w := range wi.Items {
		vals, ok := c.wordValues(w)
		v.add(splitFields(vals), ok)
	}
}

// learnCall records what a command defines: aliases, links, values of the positional
// parameters (set --, arguments of a function or of bash -c's script), unset variables, and
// which functions call which.
func (c *checker) learnCall(inv invocation, in stdinSource) {
	if in.fn != "" {
		c.fn(in.fn).calls[inv.name] = true
	}
	switch {
	case inv.prog == "read":
		c.learnRead(inv, in)
	case inv.prog == "mapfile" || inv.prog == "readarray" || inv.prog == "getopts" || inv.prog == "wait":
		c.unknownNames(inv.args)
	case inv.prog == "printf":
		c.learnPrintf(inv)
	case inv.prog == "source" || inv.prog == ".":
		c.taint() // the file may assign anything
	case inv.prog == "alias":
		for _, a := range inv.args {
			if !a.static {
				c.refuse(RuleComputedCommand, "alias is given a definition computed at run time, which can make any word run any command")
				return
			}
			if name, val, ok := strings.Cut(a.val, "="); ok && !strings.HasPrefix(a.val, "-") {
				if c.defs.aliases[name] != val {
					c.defs.aliases[name] = val
					c.defs.changed = true
				}
			}
		}
	case inv.prog == "unset":
		for _, a := range inv.args {
			if a.static && !strings.HasPrefix(a.val, "-") {
				c.defs.variable(a.val).maybeEmpty = true
			}
		}
	case inv.prog == "set":
		for i, a := range inv.args {
			if !a.static {
				c.positional(inv.args[i:])
				break
			}
			if a.val == "--" || a.val == "-" {
				c.positional(inv.args[i+1:])
				break
			}
			if !strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "+") {
				c.positional(inv.args[i:])
				break
			}
		}
	case inv.prog == "ln":
		p := copyGrammar.parse(inv.args)
		ops := p.staticOperands()
		symbolic := p.has("-s", "--symbolic")
		if dirs := p.values("-t", "--target-directory"); len(dirs) > 0 {
			for _, d := range dirs {
				for _, o := range ops {
					c.learnLink(o, d.val+"/"+pathBase(o), symbolic)
				}
			}
			return
		}
		switch len(ops) {
		case 1:
			c.learnLink(ops[0], pathBase(ops[0]), symbolic)
		case 2:
			c.learnLink(ops[0], ops[1], symbolic)
			c.learnLink(ops[0], ops[1]+"/"+pathBase(ops[0]), symbolic) // into a directory
		}
	case shells[inv.prog]:
		if s := parseShell(inv); s.hasC && s.scriptAt >= 0 {
			c.positional(inv.args[s.scriptAt+1:])
		}
	}
	if _, ok := c.defs.funcs[inv.name]; ok {
		c.positional(inv.args)
	}
}

func pathBase(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// positional records words that may become positional parameters.
func (c *checker) positional(ws []word) {
	for _, w := range ws {
		var vals []string
		ok := true
		if w.static {
			vals = []string{w.val}
		} else if w.node != nil && !w.opaque {
			vals, ok = c.wordValues(w.node)
		} else {
			ok = false
		}
		if !ok && !c.defs.positionalUnknown {
			c.defs.positionalUnknown, c.defs.changed = true, true
		}
		for _, s := range vals {
			if !slices.Contains(c.defs.positional, s) && len(c.defs.positional) < maxValues {
				c.defs.positional = append(c.defs.positional, s)
				c.defs.changed = true
			}
		}
	}
}

// serverVars are set for every command by the server and are never empty; their values are
// not known here (HOME and PWD aside, which are).
var serverVars = map[string]bool{"USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true, "PATH": true,
	"LANG": true, "TERM": true, JobVar: true, "HOSTNAME": true, "BASH": true, "BASH_VERSION": true, "UID": true, "EUID": true}

// unknownComponent stands for one path component the checker cannot know (the user's name).
const unknownComponent = "\x01"

// JobVar is the variable the server tags each command's processes with.
const JobVar = "MCP_SHELL_JOB"

// varValues returns the values a variable may have where it is used: those the line gives it,
// and "" when it may be empty. ok is false when it may hold a value the checker cannot know
// and that is not empty; the values returned are then the ones it may also have.
func (c *checker) varValues(name string) (vals []string, maybeEmpty, ok bool) {
	v := c.defs.vars[name]
	switch {
	case name == "HOME":
		vals = []string{"~"}
		if v != nil {
			vals = append(vals, v.vals...)
		}
		return vals, v != nil && v.maybeEmpty, v == nil || !v.unknown
	case name == "PWD" && v == nil:
		if c.cwdUnknown {
			return nil, false, false
		}
		return slices.Clone(c.cwds), false, true
	case digits(name) && name != "0" || name == "@" || name == "*":
		return slices.Clone(c.defs.positional), true, !c.defs.positionalUnknown && !c.defs.tainted
	case !validName(name):
		return nil, false, false // $0, $$, $?, $!, $-, $#: never a path the rules care for
	case v == nil && (name == "USER" || name == "LOGNAME"):
		return []string{unknownComponent}, false, false // one path component: /home/$USER is a home directory
	case v == nil && serverVars[name]:
		return nil, false, false
	case c.defs.tainted && v != nil:
		return slices.Clone(v.vals), true, false
	case c.defs.tainted:
		return nil, true, false
	case v == nil:
		return nil, true, false // not set by the line: empty, or whatever the environment holds
	}
	return slices.Clone(v.vals), v.maybeEmpty, !v.unknown
}

// paramValues returns the values of ${…}, with "" when it may be empty; ok false when it has
// values that cannot be known besides these.
func (c *checker) paramValues(pe *syntax.ParamExp) ([]string, bool) {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || pe.NestedParam != nil {
		return []string{""}, false
	}
	vals, empty, ok := c.varValues(pe.Param.Value)
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if empty || len(vals) == 0 {
				wv, wok := c.optWordValues(pe.Exp.Word)
				vals = append(vals, wv...)
				ok = ok && wok
				empty = slices.Contains(wv, "")
			}
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			empty = false
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			wv, wok := c.optWordValues(pe.Exp.Word)
			return append([]string{""}, wv...), wok
		default:
			return []string{""}, false // #, %, /, case changes, @ operators: transformed
		}
	}
	if empty && !slices.Contains(vals, "") {
		vals = append(vals, "")
	}
	return vals, ok
}

func (c *checker) optWordValues(w *syntax.Word) ([]string, bool) {
	if w == nil {
		return []string{""}, true
	}
	return c.wordValues(w)
}

// wordValues returns the values a word may have after expansion and quote removal: each
// combination of the values its expansions may have (command substitutions and arithmetic
// may be empty, and are otherwise unknown). ok is false when other values are possible too.
// Fields that unquoted expansions split into are added.
func (c *checker) wordValues(w *syntax.Word) ([]string, bool) {
	return c.expandValues(w, true)
}

// assignValues is wordValues for the value of an assignment, which bash does not split.
func (c *checker) assignValues(w *syntax.Word) ([]string, bool) {
	return c.expandValues(w, false)
}

func (c *checker) expandValues(w *syntax.Word, fields bool) ([]string, bool) {
	acc := []string{""}
	ok, split := true, false
	var walk func(parts []syntax.WordPart, quoted bool) bool
	walk = func(parts []syntax.WordPart, quoted bool) bool {
		for _, part := range parts {
			var next []string
			switch p := part.(type) {
			case *syntax.Lit:
				next = []string{unescape(p.Value, quoted)}
			case *syntax.SglQuoted:
				s, err := expand.Literal(&expand.Config{}, controlEscapes(&syntax.Word{Parts: []syntax.WordPart{p}}))
				if err != nil {
					return false
				}
				s, _, _ = strings.Cut(s, "\x00")
				next = []string{s}
			case *syntax.DblQuoted:
				if !walk(p.Parts, true) {
					return false
				}
				continue
			case *syntax.ParamExp:
				vals, pok := c.paramValues(p)
				ok = ok && pok
				split = split || !quoted
				next = vals
			case *syntax.CmdSubst:
				split = split || !quoted
				if out, lok := c.literalStmts(p.Stmts, stdinSource{}, 0); lok {
					next = []string{strings.TrimRight(out, "\n")} // echo / and `printf /` are known
				} else {
					ok = false
					next = []string{""}
				}
			case *syntax.ArithmExp:
				ok = false
				split = split || !quoted
				next = []string{""}
			default:
				return false
			}
			var prod []string
			for _, a := range acc {
				for _, n := range next {
					if len(prod) >= maxValues {
						return false
					}
					prod = append(prod, a+n)
				}
			}
			acc = prod
		}
		return true
	}
	if !walk(w.Parts, false) || len(acc) == 0 {
		return nil, false
	}
	if split && fields {
		acc = splitFields(acc)
	}
	return acc, ok
}

// splitFields adds the fields each value splits into at blanks, as an unquoted expansion does.
func splitFields(vals []string) []string {
	out := slices.Clone(vals)
	for _, v := range vals {
		for _, f := range strings.Fields(v) {
			if f != v && !slices.Contains(out, f) && len(out) < maxValues {
				out = append(out, f)
			}
		}
	}
	return out
}

// unescape removes the backslashes bash removes from literal text: every one outside quotes,
// and inside double quotes those before $ ` " \ and a newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case !quoted || strings.IndexByte("$`\"\\", n) >= 0:
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// operand is a word that may name a path, with the values it may have.
type operand struct {
	text string   // as written, for messages
	vals []string // its possible values; for a static word, the one value
}

// operands returns the values of words that may be paths: a static word's value, and the
// values the checker can give a computed one ("" left out: no path is named by it).
func (c *checker) operands(ws []word) []operand {
	var out []operand
	for _, w := range ws {
		switch {
		case w.static:
			out = append(out, operand{text: w.val, vals: []string{w.val}})
		case w.node != nil && !w.opaque:
			vals, _ := c.wordValues(w.node)
			vals = slices.DeleteFunc(vals, func(s string) bool { return s == "" })
			if len(vals) > 0 {
				out = append(out, operand{text: source(w), vals: vals})
			}
		}
	}
	return out
}

// unknownNames marks the variables named among ws as holding values the checker cannot know
// (read, mapfile, getopts, printf -v, wait -p assign them).
func (c *checker) unknownNames(ws []word) {
	for _, w := range ws {
		if !w.static {
			c.taint() // a name computed at run time: any variable
			continue
		}
		if name, _, _ := strings.Cut(w.val, "["); validName(name) {
			c.defs.variable(name).add(nil, false)
		}
	}
}

// taint records that code the checker cannot read runs in the shell itself, so that no
// variable's value is taken as known.
func (c *checker) taint() {
	if !c.defs.tainted {
		c.defs.tainted, c.defs.changed = true, true
	}
}

// learnArithm records variables arithmetic assigns ((x=1), let x++, $((x+=2))).
func (c *checker) learnArithm(n syntax.Node) {
	var x syntax.ArithmExpr
	switch n := n.(type) {
	case *syntax.BinaryArithm:
		switch n.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn,
			syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
			x = n.X
		}
	case *syntax.UnaryArithm:
		if n.Op == syntax.Inc || n.Op == syntax.Dec {
			x = n.X
		}
	case *syntax.ParamExp:
		if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			v := c.defs.variable(n.Param.Value)
			if n.Exp.Word == nil {
				v.maybeEmpty = true
			} else {
				v.add(c.assignValues(n.Exp.Word))
			}
		}
		return
	default:
		return
	}
	if w, ok := x.(*syntax.Word); ok {
		if name, _, _ := strings.Cut(w.Lit(), "["); validName(name) {
			c.defs.variable(name).add(nil, false)
			return
		}
	}
	if x != nil {
		c.taint()
	}
}

// learnPrintf records printf -v NAME FORMAT ARGS: the value printf prints, when its words are
// literal, else one the checker cannot know.
func (c *checker) learnPrintf(inv invocation) {
	args := inv.args
	name := ""
	switch {
	case len(args) > 1 && args[0].static && args[0].val == "-v":
		if !args[1].static {
			c.taint()
			return
		}
		name, args = args[1].val, args[2:]
	case len(args) > 0 && args[0].static && strings.HasPrefix(args[0].val, "-v"):
		name, args = args[0].val[2:], args[1:]
	default:
		return
	}
	name, _, _ = strings.Cut(name, "[")
	if !validName(name) {
		return
	}
	vals := make([]string, 0, len(args))
	for _, a := range args {
		if !a.static {
			c.defs.variable(name).add(nil, false)
			return
		}
		vals = append(vals, a.val)
	}
	out, ok := printfOutput(vals)
	c.defs.variable(name).add([]string{out}, ok)
}

// learnRead records read NAME…: from text the line fixes (read d <<< /), the fields of its
// first line; otherwise values the checker cannot know.
func (c *checker) learnRead(inv invocation, in stdinSource) {
	var names []word
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		switch {
		case !a.static:
			c.taint()
			return
		case a.val == "-a" || a.val == "-d" || a.val == "-i" || a.val == "-n" || a.val == "-N" || a.val == "-p" || a.val == "-t" || a.val == "-u":
			if a.val == "-a" && i+1 < len(inv.args) {
				c.unknownNames(inv.args[i+1 : i+2])
			}
			i++
		case strings.HasPrefix(a.val, "-"):
		default:
			names = append(names, a)
		}
	}
	if in.kind != stdinText || len(names) == 0 {
		c.unknownNames(names)
		return
	}
	line, _, _ := strings.Cut(in.text, "\n")
	fields := strings.Fields(line)
	for i, n := range names {
		v := c.defs.variable(n.val)
		switch {
		case i == len(names)-1 && i < len(fields):
			v.add([]string{strings.Join(fields[i:], " ")}, true)
		case i < len(fields):
			v.add([]string{fields[i]}, true)
		default:
			v.add([]string{""}, true)
		}
	}
}
