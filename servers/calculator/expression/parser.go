package expression

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// nodeKind identifies a syntax-tree node.
type nodeKind int

const (
	nodeNumber    nodeKind = iota // literal in num
	nodeName                      // constant or variable in name
	nodeCall                      // function name(args...)
	nodeNeg                       // unary minus of args[0]
	nodeBinary                    // args[0] op args[1]
	nodeCompare                   // args[0] op args[1], a boolean
	nodeFactorial                 // args[0]!
	nodePercent                   // args[0]%
)

// node is one syntax-tree node.
type node struct {
	kind  nodeKind
	op    tokenKind // operator of nodeBinary and nodeCompare; "of" is tokStar
	pos   int       // position of the operator, name or literal
	text  string    // source text of the operator, name or literal
	num   *big.Rat  // value of nodeNumber
	name  string    // nodeName: the name; nodeCall: the canonical function name
	args  []*node
	paren bool // written inside parentheses
}

// statement is one statement: an expression, optionally assigned to a variable.
type statement struct {
	target string // assigned variable, "" for a bare expression
	expr   *node
}

// parser is a recursive-descent parser over a token slice.
type parser struct {
	toks     []token
	i        int
	depth    int
	nodes    int
	assigned map[string]bool // variables assigned by earlier statements
}

// parse turns source text into statements.
func parse(src string) ([]statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, assigned: map[string]bool{}}
	var prog []statement
	for {
		for p.peek().kind == tokSep {
			p.next()
		}
		if p.peek().kind == tokEOF {
			break
		}
		if len(prog) == maxStatements {
			return nil, errorf(KindLimit, p.peek().pos, "split the work into several calls",
				"too many statements (the limit is %d)", maxStatements)
		}
		st, err := p.statement()
		if err != nil {
			return nil, err
		}
		prog = append(prog, st)
		if t := p.peek(); t.kind != tokSep && t.kind != tokEOF {
			return nil, p.unexpectedAfter(t)
		}
	}
	if len(prog) == 0 {
		return nil, errorf(KindSyntax, 0, "write something to evaluate, for example 2 + 2", "empty expression")
	}
	return prog, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// newNode counts and allocates a node.
func (p *parser) newNode(n node) (*node, error) {
	p.nodes++
	if p.nodes > maxNodes {
		return nil, errorf(KindLimit, n.pos, "split it into several calls",
			"expression is too long (the limit is %d numbers, names and operators)", maxNodes)
	}
	return &n, nil
}

// statement parses "name = expression" or "expression".
func (p *parser) statement() (statement, error) {
	t := p.peek()
	if t.kind == tokIdent && p.peekAt(1).kind == tokAssign {
		if err := checkAssignable(t); err != nil {
			return statement{}, err
		}
		p.next()
		p.next()
		expr, err := p.expression()
		if err != nil {
			return statement{}, err
		}
		if next := p.peek(); next.kind != tokSep && next.kind != tokEOF {
			return statement{}, p.unexpectedAfter(next) // before t counts as assigned
		}
		p.assigned[t.text] = true
		return statement{target: t.text, expr: expr}, nil
	}
	expr, err := p.expression()
	if err != nil {
		return statement{}, err
	}
	return statement{expr: expr}, nil
}

// checkAssignable rejects assignments to built-in names.
func checkAssignable(t token) error {
	what := ""
	switch {
	case isConstant(t.text):
		what = "a built-in constant"
	case t.text == keywordOf:
		what = "a reserved word"
	default:
		if _, _, ok := lookupFunction(t.text); ok {
			what = "a built-in function"
		}
	}
	if what == "" {
		return nil
	}
	return errorf(KindSyntax, t.pos, "choose another variable name", "cannot assign to %q, %s", t.text, what)
}

// expression parses an optional single comparison between two sums.
func (p *parser) expression() (*node, error) {
	left, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if !t.kind.isComparison() {
		return left, nil
	}
	p.next()
	right, err := p.additive()
	if err != nil {
		return nil, err
	}
	if n := p.peek(); n.kind.isComparison() {
		return nil, errorf(KindSyntax, n.pos, "compare two values at a time and assign each result, e.g. p = a < b; q = b < c, then read both variables",
			"comparisons cannot be chained (%q follows another comparison)", n.text)
	}
	return p.newNode(node{kind: nodeCompare, op: t.kind, pos: t.pos, text: t.text, args: []*node{left, right}})
}

// additive parses terms joined by + and -.
func (p *parser) additive() (*node, error) {
	left, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tokPlus && t.kind != tokMinus {
			return left, nil
		}
		p.next()
		right, err := p.multiplicative()
		if err != nil {
			return nil, err
		}
		left, err = p.newNode(node{kind: nodeBinary, op: t.kind, pos: t.pos, text: t.text, args: []*node{left, right}})
		if err != nil {
			return nil, err
		}
	}
}

// multiplicative parses factors joined by *, /, % (modulo) and "of".
func (p *parser) multiplicative() (*node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		op := t.kind
		switch {
		case op == tokStar || op == tokSlash || op == tokPercent:
		case op == tokIdent && t.text == keywordOf:
			op = tokStar
		default:
			return left, nil
		}
		p.next()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left, err = p.newNode(node{kind: nodeBinary, op: op, pos: t.pos, text: t.text, args: []*node{left, right}})
		if err != nil {
			return nil, err
		}
	}
}

// unary parses leading + and - signs; it is also where nesting depth is counted.
func (p *parser) unary() (*node, error) {
	t := p.peek()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, errorf(KindLimit, t.pos, "simplify the expression",
			"expression is nested too deeply (the limit is %d levels)", maxDepth)
	}
	if t.kind != tokMinus && t.kind != tokPlus {
		return p.power()
	}
	p.next()
	operand, err := p.unary()
	if err != nil {
		return nil, err
	}
	if t.kind == tokPlus {
		return operand, nil
	}
	return p.newNode(node{kind: nodeNeg, pos: t.pos, text: t.text, args: []*node{operand}})
}

// power parses a right-associative ^ whose exponent may carry a sign.
func (p *parser) power() (*node, error) {
	base, err := p.postfix()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind != tokPow {
		return base, nil
	}
	p.next()
	exp, err := p.unary()
	if err != nil {
		return nil, err
	}
	return p.newNode(node{kind: nodeBinary, op: tokPow, pos: t.pos, text: t.text, args: []*node{base, exp}})
}

// postfix parses factorial ! and percent %; a % followed by an operand is left for modulo.
func (p *parser) postfix() (*node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		var kind nodeKind
		switch {
		case t.kind == tokBang:
			kind = nodeFactorial
		case t.kind == tokPercent && !startsOperand(p.peekAt(1)):
			kind = nodePercent
		default:
			return x, nil
		}
		p.next()
		x, err = p.newNode(node{kind: kind, pos: t.pos, text: t.text, args: []*node{x}})
		if err != nil {
			return nil, err
		}
	}
}

// startsOperand reports whether t can begin an operand.
func startsOperand(t token) bool {
	return t.kind == tokNumber || t.kind == tokLParen || (t.kind == tokIdent && t.text != keywordOf)
}

// primary parses a number, a name, a function call or a parenthesized expression.
func (p *parser) primary() (*node, error) {
	t := p.next()
	switch t.kind {
	case tokNumber:
		r, err := parseNumber(t)
		if err != nil {
			return nil, err
		}
		return p.newNode(node{kind: nodeNumber, pos: t.pos, text: t.text, num: r})
	case tokIdent:
		if t.text == keywordOf {
			return nil, errorf(KindSyntax, t.pos, "write it between a percentage and a value, e.g. 20% of 150",
				"unexpected %q", t.text)
		}
		if p.peek().kind == tokLParen {
			return p.call(t)
		}
		if _, spec, ok := lookupFunction(t.text); ok {
			return nil, errorf(KindSyntax, t.pos, "call it with parentheses: "+spec.usage,
				"%q is a function", t.text)
		}
		return p.newNode(node{kind: nodeName, pos: t.pos, text: t.text, name: t.text})
	case tokLParen:
		inner, err := p.expression()
		if err != nil {
			return nil, err
		}
		if err := p.expectClose(t); err != nil {
			return nil, err
		}
		inner.paren = true
		return inner, nil
	default:
		return nil, p.expectedOperand(t)
	}
}

// call parses the argument list of the function named by t.
func (p *parser) call(t token) (*node, error) {
	canon, spec, ok := lookupFunction(t.text)
	if !ok {
		return nil, p.notAFunction(t)
	}
	open := p.next()
	var args []*node
	if p.peek().kind != tokRParen {
		for {
			a, err := p.expression()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
	}
	if err := p.expectClose(open); err != nil {
		return nil, err
	}
	if len(args) < spec.min || (spec.max >= 0 && len(args) > spec.max) {
		return nil, errorf(KindArity, t.pos, "usage: "+spec.usage,
			"%s expects %s but got %d", t.text, spec.arityText(), len(args))
	}
	return p.newNode(node{kind: nodeCall, pos: t.pos, text: t.text, name: canon, args: args})
}

// notAFunction reports a call of something that is not a function.
func (p *parser) notAFunction(t token) error {
	if isConstant(t.text) || p.assigned[t.text] {
		what := "constant"
		if !isConstant(t.text) {
			what = "variable"
		}
		return errorf(KindSyntax, t.pos, fmt.Sprintf("implicit multiplication is not supported; write %s*(...)", t.text),
			"%q is a %s, not a function", t.text, what)
	}
	// Suggest only functions that take as many arguments as this call has, so that the
	// suggestion works when the arguments do.
	names := functionNames()
	if n, ok := p.countArgs(); ok {
		names = slices.DeleteFunc(names, func(name string) bool {
			_, spec, _ := lookupFunction(name)
			return n < spec.min || spec.max >= 0 && n > spec.max
		})
		if len(names) == 0 {
			err := errorf(KindUnknownName, t.pos, "", "unknown function %q, and no function takes %d arguments", t.text, n)
			err.Name, err.Call = t.text, true
			return err
		}
	}
	hint := suggest(t.text, names)
	if hint == "" {
		hint = "available functions: " + strings.Join(names, ", ")
	}
	err := errorf(KindUnknownName, t.pos, hint, "unknown function %q", t.text)
	err.Name, err.Call = t.text, true
	return err
}

// countArgs parses the parenthesized argument list that follows and returns the number of
// arguments, or false when it does not parse.
func (p *parser) countArgs() (int, bool) {
	open := p.next()
	if p.peek().kind == tokRParen {
		p.next()
		return 0, true
	}
	n := 0
	for {
		if _, err := p.expression(); err != nil {
			return 0, false
		}
		n++
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	return n, p.expectClose(open) == nil
}

// expectClose consumes the ")" matching open.
func (p *parser) expectClose(open token) error {
	t := p.peek()
	switch t.kind {
	case tokRParen:
		p.next()
		return nil
	case tokEOF, tokSep:
		return errorf(KindSyntax, open.pos, `add a matching ")"`, `unclosed "("`)
	default:
		return p.unexpectedAfter(t)
	}
}

// unexpectedAfter reports token t where an operator or the end of an expression was expected.
func (p *parser) unexpectedAfter(t token) error {
	switch {
	case startsOperand(t):
		return errorf(KindSyntax, t.pos, p.implicitHint(t), "missing operator before %s", t.describe())
	case t.kind == tokRParen:
		return errorf(KindSyntax, t.pos, `remove it or add a matching "("`, `unmatched ")"`)
	case t.kind == tokComma:
		return errorf(KindSyntax, t.pos,
			"commas only separate function arguments; write numbers without thousands separators (1000, not 1,000)",
			`unexpected ","`)
	case t.kind == tokAssign:
		return errorf(KindSyntax, t.pos, "use == to compare; to assign, write name = expression as its own statement",
			`unexpected "="`)
	default:
		return errorf(KindSyntax, t.pos, "expected an operator", "unexpected %s", t.describe())
	}
}

// implicitHint suggests writing the multiplication that juxtaposition implies, with a call's
// parentheses kept, and says which names must be assigned first for the rewrite to work.
func (p *parser) implicitHint(t token) string {
	left, right := "(...)", "(...)"
	var undefined []string
	if prev := p.toks[p.i-1]; prev.kind == tokNumber || prev.kind == tokIdent {
		left = prev.text
		if prev.kind == tokIdent && !p.known(prev.text) {
			undefined = append(undefined, prev.text)
		}
	}
	if t.kind != tokLParen {
		right = t.text
		if _, _, ok := lookupFunction(t.text); ok && t.kind == tokIdent {
			right = t.text + "(...)"
		} else if t.kind == tokIdent && !p.known(t.text) && !slices.Contains(undefined, t.text) {
			undefined = append(undefined, t.text)
		}
	}
	hint := fmt.Sprintf("implicit multiplication is not supported; write %s*%s", left, right)
	if len(undefined) > 0 {
		hint += fmt.Sprintf(", after assigning %s (for example %s = 2)", strings.Join(undefined, " and "), undefined[0])
	}
	return hint
}

// known reports whether name is a constant or a variable assigned by an earlier statement.
func (p *parser) known(name string) bool {
	return isConstant(name) || p.assigned[name]
}

// expectedOperand reports token t where a number, name or "(" was expected.
func (p *parser) expectedOperand(t token) error {
	switch t.kind {
	case tokEOF:
		return errorf(KindSyntax, t.pos, "the expression is incomplete", "unexpected end of input")
	case tokSep:
		return errorf(KindSyntax, t.pos, "the expression before it is incomplete", "unexpected %s", t.describe())
	case tokRParen:
		if p.i >= 2 && p.toks[p.i-2].kind == tokLParen {
			return errorf(KindSyntax, t.pos, "put an expression inside", "empty parentheses")
		}
	case tokAssign:
		return errorf(KindSyntax, t.pos, "to assign, write name = expression; to compare, use ==", `unexpected "="`)
	}
	return errorf(KindSyntax, t.pos, `expected a number, name or "("`, "unexpected %s", t.describe())
}

// parseNumber converts a number literal to an exact rational, enforcing the digit limit.
func parseNumber(t token) (*big.Rat, error) {
	mant, expText := t.text, ""
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant, expText = mant[:i], mant[i+1:]
	}
	intPart, fracPart, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+fracPart, "0")
	if digits == "" {
		return new(big.Rat), nil // zero, whatever the exponent
	}
	exp := 0
	if expText != "" {
		neg := strings.HasPrefix(expText, "-")
		digits := strings.TrimLeft(strings.TrimLeft(expText, "+-"), "0")
		if len(digits) > 7 {
			return nil, literalTooLarge(t, neg)
		}
		if digits != "" {
			n, err := strconv.Atoi(digits)
			if err != nil {
				return nil, literalTooLarge(t, neg)
			}
			exp = n
		}
		if neg {
			exp = -exp
		}
	}
	exp -= len(fracPart)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if exp >= 0 && len(digits)+exp > maxDigits {
		return nil, literalTooLarge(t, false)
	}
	if exp < 0 && -exp-len(digits) > maxDigits {
		return nil, literalTooLarge(t, true)
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, errorf(KindSyntax, t.pos, "", "malformed number %q", t.text)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(exp))), nil)
	r := new(big.Rat)
	if exp >= 0 {
		r.SetInt(n.Mul(n, scale))
	} else {
		r.SetFrac(n, scale)
	}
	if ratTooLarge(r) {
		return nil, literalTooLarge(t, exp < 0)
	}
	return r, nil
}

// literalTooLarge reports a number literal beyond the exact digit limit.
func literalTooLarge(t token, small bool) error {
	what := "too large"
	if small {
		what = "too small"
	}
	return errorf(KindTooLarge, t.pos, fmt.Sprintf("exact numbers are limited to %d digits", maxDigits),
		"the number %q is %s", t.text, what)
}

func absInt(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
