package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// learnFunc records a function definition; what its body calls and whether it forks are
// recorded while the body is checked (learnCall, forks), since they are found in inline
// scripts, evaluated strings and aliases too.
func (c *checker) learnFunc(fd *syntax.FuncDecl) {
	if fd.Name == nil {
		return
	}
	f := c.fn(fd.Name.Value)
	if fd.Body == nil {
		return
	}
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "FUNCNAME" {
			f.calls[fd.Name.Value] = true // $FUNCNAME names the function itself
		}
		return true
	})
}

// forks records, inside a function's body, a construct that starts a process which runs
// beside the function or stays alive under it: a pipeline, &, a coprocess, a subshell, a
// command or process substitution.
func (c *checker) forks(n syntax.Node, in stdinSource) {
	if in.fn == "" {
		return
	}
	fork := false
	switch n := n.(type) {
	case *syntax.Stmt:
		fork = n.Background || n.Coprocess
	case *syntax.BinaryCmd:
		fork = n.Op == syntax.Pipe || n.Op == syntax.PipeAll
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.CoprocClause:
		fork = true
	}
	if fork {
		c.fn(in.fn).forks = true
	}
}

// computedCode records that a function's body runs code computed at run time (eval "$x",
// bash -c "$x"): it may call any function, and forks when its text holds | & or (.
func (c *checker) computedCode(w word, shell bool, in stdinSource) {
	if in.fn == "" {
		return
	}
	f := c.fn(in.fn)
	f.calls["*"] = true
	if shell || strings.ContainsAny(source(w), "|&(`") {
		f.forks = true
	}
}

// forkBombs refuses functions that reach themselves again (directly, through each other,
// through eval, bash -c, aliases or $FUNCNAME) when one of them forks on the way: each call
// then leaves processes behind that call again, without bound.
func (c *checker) forkBombs() {
	names := make([]string, 0, len(c.defs.funcs))
	for n := range c.defs.funcs {
		names = append(names, n)
	}
	slices.Sort(names)
	callees := func(n string) []string {
		f := c.defs.funcs[n]
		if f.calls["*"] {
			return names
		}
		var out []string
		for m := range f.calls {
			if _, ok := c.defs.funcs[m]; ok {
				out = append(out, m)
			}
		}
		return out
	}
	for _, start := range names {
		// The functions reachable from start that reach start again form its cycle.
		reach := map[string]bool{}
		stack := []string{start}
		for len(stack) > 0 && len(reach) <= len(names) {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range callees(n) {
				if !reach[m] {
					reach[m] = true
					stack = append(stack, m)
				}
			}
		}
		if !reach[start] {
			continue
		}
		var cycle []string
		forks := false
		for _, m := range names {
			if reach[m] && c.reaches(m, start, callees) {
				cycle = append(cycle, m)
				forks = forks || c.defs.funcs[m].forks
			}
		}
		if forks {
			c.refuse(RuleForkBomb, "function %s calls itself again (through %s) in a pipeline, in the background or in a new process: each call leaves copies behind that call again (a fork bomb)", start, strings.Join(cycle, ", "))
			return
		}
	}
}

// reaches reports whether function to can be reached from from.
func (c *checker) reaches(from, to string, callees func(string) []string) bool {
	seen := map[string]bool{from: true}
	stack := []string{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, m := range callees(n) {
			if m == to {
				return true
			}
			if !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	return false
}

// maxAliasSteps bounds how many aliases one command word is expanded through.
const maxAliasSteps = 8

// expandAlias checks a simple command whose first word is an alias the line defines, as the
// text bash reads after expanding it (and the next word too, when the alias ends in a blank).
// Aliases are expanded only where expand_aliases is on, so the command is also checked as it
// is written. It reports whether an alias was expanded.
func (c *checker) expandAlias(call *syntax.CallExpr, depth int, in stdinSource) bool {
	if len(c.defs.aliases) == 0 {
		return false
	}
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		words[i] = source(word{node: w})
	}
	var head strings.Builder
	i, expanded, seen := 0, false, map[string]bool{}
	for steps := 0; i < len(call.Args) && steps < maxAliasSteps; steps++ {
		name := call.Args[i].Lit()
		val, ok := c.defs.aliases[name]
		if !ok || seen[name] || c.expanding[name] || strings.ContainsAny(words[i], `\'"`) {
			break
		}
		seen[name] = true
		expanded = true
		head.WriteString(val)
		i++
		if !strings.HasSuffix(val, " ") && !strings.HasSuffix(val, "\t") {
			break
		}
	}
	if !expanded {
		return false
	}
	text := head.String() + " " + strings.Join(words[i:], " ")
	// bash does not expand an alias again inside its own expansion (alias ls='ls -F').
	if c.expanding == nil {
		c.expanding = map[string]bool{}
	}
	for n := range seen {
		c.expanding[n] = true
	}
	c.script(text, depth+1, in)
	for n := range seen {
		delete(c.expanding, n)
	}
	return true
}

// endlessLoop refuses a loop that never ends by itself (while true, while :, until false,
// for ((;;))) and starts background processes without waiting for them or leaving: each
// round leaves one more behind, without bound.
func (c *checker) endlessLoop(n syntax.Node) {
	var body []*syntax.Stmt
	switch l := n.(type) {
	case *syntax.WhileClause:
		if !constantCond(l.Cond, !l.Until) {
			return
		}
		body = l.Do
	case *syntax.ForClause:
		cs, ok := l.Loop.(*syntax.CStyleLoop)
		if !ok || cs.Cond != nil {
			return
		}
		body = l.Do
	default:
		return
	}
	spawns, stops := false, false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Stmt:
				if n.Background || n.Coprocess {
					spawns = true
					return false // what it runs in the background does not pace the loop
				}
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					switch n.Args[0].Lit() {
					case "wait", "break", "exit", "return", "sleep":
						stops = true
					}
				}
			}
			return true
		})
	}
	if spawns && !stops {
		c.refuse(RuleForkBomb, "an endless loop starts a background process each round and never waits for them: they pile up without bound (a fork bomb); wait for them, or bound the loop")
	}
}

// constantCond reports whether a loop condition is always want: true and : succeed, false fails.
func constantCond(cond []*syntax.Stmt, want bool) bool {
	if len(cond) != 1 || cond[0].Negated {
		return false
	}
	call, ok := cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	switch call.Args[0].Lit() {
	case "true", ":":
		return want
	case "false":
		return !want
	}
	return false
}
