package policy

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// RuleEvaluated names refusals of text bash would evaluate as code later, in both modes.
const RuleEvaluated = "evaluated-code"

// subscriptCode matches text such as a[$(cmd)] or a[`cmd`]: as a variable's value it runs cmd
// wherever bash evaluates the value as arithmetic or as a name (((a)), $((a)), ${!x},
// printf -v, read, unset, [[ -v ]], declare -n).
var subscriptCode = regexp.MustCompile("[A-Za-z_][A-Za-z0-9_]*\\[[^]]*(\\$\\(|`)")

// promptVars are expanded as prompts, running the substitutions they hold: PS4 by set -x,
// the others by interactive shells and ${x@P}.
var promptVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true, "PROMPT_COMMAND": true}

// evaluated applies the checks of RuleEvaluated to one node of a script at depth.
func (c *checker) evaluated(n syntax.Node, depth int, in stdinSource) {
	switch n := n.(type) {
	case *syntax.DblQuoted:
		c.reread(n, depth, in)
	case *syntax.Redirect:
		if n.Hdoc != nil {
			c.reread(n.Hdoc, depth, in) // an unquoted here-document body is read as double-quoted text
		}
	case *syntax.SglQuoted:
		c.data(n.Value)
	case *syntax.Lit:
		c.data(strings.ReplaceAll(n.Value, `\`, ""))
	case *syntax.ParamExp:
		switch {
		case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P"):
			c.refuse(RuleEvaluated, "${…@P} expands a value as a prompt, running the command substitutions in it")
		case n.Excl && n.Names == 0 && n.Index == nil:
			c.refuse(RuleEvaluated, "the indirect expansion ${!…} evaluates a variable's value as a name, and a value such as a[$(cmd)] runs cmd; use an associative array")
		}
	case *syntax.Assign:
		if n.Name != nil && promptVars[n.Name.Value] && (n.Value == nil || !inertPrompt(n.Value)) {
			c.refuse(RuleEvaluated, "%s is expanded as a prompt (PS4 by set -x), running the substitutions in it; give it literal text without $ or `", n.Name.Value)
		}
		if n.Naked && n.Name == nil && n.Value != nil {
			// declare "a=(…)": the quoted text inside the parentheses is evaluated as a
			// compound assignment, expansions and all.
			if s, ok := staticText(n.Value); !ok || strings.Contains(s, "=(") {
				c.refuse(RuleEvaluated, "a declaration given a quoted or computed NAME=(…) evaluates the text inside the parentheses as code; write the array assignment unquoted, e.g. a=(x y)")
			}
		}
	case *syntax.CallExpr:
		if len(n.Args) > 1 {
			if name := n.Args[0].Lit(); name == "mapfile" || name == "readarray" {
				for _, a := range n.Args[1:] {
					if v := a.Lit(); strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "C") || a.Lit() == "" {
						c.refuse(RuleEvaluated, "%s -C runs a callback string as code (and an option computed at run time may be -C)", name)
						return
					}
				}
			}
		}
	}
}

// data refuses quoted text shaped like a[$(cmd)], which only runs code once bash evaluates it.
func (c *checker) data(s string) {
	if subscriptCode.MatchString(s) {
		c.refuse(RuleEvaluated, "the text %q holds a command substitution inside an array subscript, which runs when bash evaluates the text as arithmetic or as a variable name; if it is data for another program (awk, a regular expression), put it in a file", s)
	}
}

// reread finds single-quoted text in the words of ${…} operators inside double quotes (or an
// unquoted here-document), where bash keeps the quotes as characters and still expands what
// is between them, and checks that text as bash reads it: as double-quoted content.
func (c *checker) reread(n syntax.Node, depth int, in stdinSource) {
	syntax.Walk(n, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || c.refusal != nil {
			return c.refusal == nil
		}
		var words []*syntax.Word
		if pe.Exp != nil {
			words = append(words, pe.Exp.Word)
		}
		if pe.Repl != nil {
			words = append(words, pe.Repl.Orig, pe.Repl.With)
		}
		for _, w := range words {
			if w == nil {
				continue
			}
			for _, part := range w.Parts {
				sq, ok := part.(*syntax.SglQuoted)
				if !ok || !strings.ContainsAny(sq.Value, "$`\\") {
					continue
				}
				if sq.Dollar || strings.Contains(sq.Value, `"`) {
					c.refuse(RuleEvaluated, "quotes inside the word of a double-quoted ${…} are read by bash as literal characters, with the expansions between them live; the checker cannot read %s there the same way, so write the word without quotes", source(word{node: w}))
					return false
				}
				c.script(`: "`+sq.Value+`"`, depth+1, in)
			}
		}
		return c.refusal == nil
	})
}

// inertPrompt reports whether a prompt variable's value is literal text without expansions.
func inertPrompt(w *syntax.Word) bool {
	s, ok := staticText(w)
	return ok && !strings.ContainsAny(s, "$`")
}

// staticText returns a word's value when it holds no expansion.
func staticText(w *syntax.Word) (string, bool) {
	ws := expandWords([]*syntax.Word{w})
	if len(ws) != 1 || !ws[0].static || ws[0].multi {
		return "", false
	}
	return ws[0].val, true
}

// codeLiteral matches the string literals of another language's source: "…", '…' and `…`,
// with backslash escapes.
var codeLiteral = regexp.MustCompile("\"((?:[^\"\\\\]|\\\\.)*)\"|'((?:[^'\\\\]|\\\\.)*)'|`((?:[^`\\\\]|\\\\.)*)`")

// awks are the programs whose first operand is a program that may call system().
var awks = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true}

// codeArg returns the word that holds the program an interpreter, awk or sed is given on its
// command line, literal or not.
func codeArg(inv invocation) (word, bool) {
	args := inv.args
	switch {
	case awks[inv.prog]:
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case !a.static:
				return a, true // the program, or an option computed at run time
			case a.val == "-f":
				return word{}, false // the program is in a file
			case a.val == "-F" || a.val == "-v":
				i++
			case strings.HasPrefix(a.val, "-"):
			default:
				return a, true
			}
		}
	case inv.prog == "sed":
		p := sedGrammar.parse(args)
		if e := p.values("-e", "--expression"); len(e) > 0 {
			for _, w := range e {
				if !w.static {
					return w, true
				}
			}
			return e[0], true
		}
		if !p.has("-f", "--file") && len(p.operands) > 0 {
			return p.operands[0], true
		}
	case interpreters[inv.prog]:
		for i, a := range args[:max(len(args)-1, 0)] {
			if !a.static {
				return word{}, false
			}
			v := a.val
			if v == "-c" || v == "--eval" || v == "-r" && inv.prog == "php" ||
				strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v[len(v)-1:], "eE") {
				return args[i+1], true
			}
		}
	}
	return word{}, false
}

// evaluators are words of another language's code that run text computed at run time as code
// or commands: with standard input given, such code may run what the caller sends.
var evaluators = regexp.MustCompile(`\b(system|exec|execv[pe]*|eval|popen|spawn|subprocess|interact|compile|pty|qx|getline|readline|stdin|input|Popen|os\.system|Kernel|IO\.popen|child_process|require|import)\b|` + "`")

// codeStrings checks, under the blocklist, every string literal of the code an interpreter
// or awk is given that reads as bash, as a script: system("rm -rf /"), os.system('…'),
// `…` in perl. It cannot see commands the code computes; it is a guardrail. With standard
// input given, code that evaluates or runs what it computes is refused: it may run the input.
func (c *checker) codeStrings(inv invocation, depth int, in stdinSource) {
	if c.p.mode != Blocklist {
		return
	}
	w, ok := codeArg(inv)
	if !ok {
		return
	}
	if !w.static && in.carriesCaller() {
		c.refuse(RuleStdinCommands, "%s is given a program computed at run time, which may be the standard input you send; give the program itself", inv.name)
		return
	}
	if !w.static || inv.prog == "sed" {
		return
	}
	code := w.val
	if in.carriesCaller() && evaluators.MatchString(code) {
		c.refuse(RuleStdinCommands, "%s is given code that evaluates or runs text, which may be the standard input you send; give the commands as the command line itself", inv.name)
		return
	}
	c.codeText(code, depth, in)
}

// codeText checks, under the blocklist, the string literals of a program in another language
// that read as bash, as scripts whose commands read in.
func (c *checker) codeText(code string, depth int, in stdinSource) {
	if c.p.mode != Blocklist {
		return
	}
	for _, m := range codeLiteral.FindAllStringSubmatch(code, -1) {
		lit := m[1] + m[2] + m[3]
		lit = strings.NewReplacer(`\"`, `"`, `\'`, `'`, "\\`", "`", `\\`, `\`).Replace(lit)
		if strings.TrimSpace(lit) == "" {
			continue
		}
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(lit), ""); err != nil {
			continue // not shell text
		}
		c.script(lit, depth+1, in)
		if c.refusal != nil {
			return
		}
	}
}

// CheckEnvValue returns a *Refusal when a value given for the environment holds text such as
// a[$(cmd)], which runs cmd once bash evaluates the variable as arithmetic or as a name.
func (p *Policy) CheckEnvValue(name, value string) error {
	if p.mode == Off || !subscriptCode.MatchString(value) {
		return nil
	}
	return &Refusal{Rule: RuleEvaluated, Detail: fmt.Sprintf("the value of %s holds a command substitution inside an array subscript, which runs when bash evaluates the variable as arithmetic or as a name; pass such text in a file", name)}
}
