package expression

import (
	"fmt"
	"sort"
	"strings"
)

// funcSpec describes a built-in function's arity for parsing and messages.
type funcSpec struct {
	min, max int // argument count bounds; max < 0 means no upper bound
	usage    string
}

// functions lists the built-in functions by canonical name.
var functions = map[string]funcSpec{
	"sqrt":      {1, 1, "sqrt(x)"},
	"cbrt":      {1, 1, "cbrt(x)"},
	"abs":       {1, 1, "abs(x)"},
	"round":     {1, 2, "round(x) or round(x, digits)"},
	"floor":     {1, 2, "floor(x) or floor(x, digits)"},
	"ceil":      {1, 2, "ceil(x) or ceil(x, digits)"},
	"trunc":     {1, 2, "trunc(x) or trunc(x, digits)"},
	"exp":       {1, 1, "exp(x)"},
	"ln":        {1, 1, "ln(x)"},
	"log":       {1, 2, "log(x) for base 10 or log(x, base)"},
	"log2":      {1, 1, "log2(x)"},
	"log10":     {1, 1, "log10(x)"},
	"sin":       {1, 1, "sin(x)"},
	"cos":       {1, 1, "cos(x)"},
	"tan":       {1, 1, "tan(x)"},
	"sec":       {1, 1, "sec(x)"},
	"csc":       {1, 1, "csc(x)"},
	"cot":       {1, 1, "cot(x)"},
	"asin":      {1, 1, "asin(x)"},
	"acos":      {1, 1, "acos(x)"},
	"atan":      {1, 1, "atan(x)"},
	"atan2":     {2, 2, "atan2(y, x)"},
	"sinh":      {1, 1, "sinh(x)"},
	"cosh":      {1, 1, "cosh(x)"},
	"tanh":      {1, 1, "tanh(x)"},
	"asinh":     {1, 1, "asinh(x)"},
	"acosh":     {1, 1, "acosh(x)"},
	"atanh":     {1, 1, "atanh(x)"},
	"gcd":       {2, -1, "gcd(a, b, ...)"},
	"lcm":       {2, -1, "lcm(a, b, ...)"},
	"min":       {1, -1, "min(a, b, ...)"},
	"max":       {1, -1, "max(a, b, ...)"},
	"ncr":       {2, 2, "ncr(n, k)"},
	"npr":       {2, 2, "npr(n, k)"},
	"factorial": {1, 1, "factorial(n)"},
	"mod":       {2, 2, "mod(a, b)"},
	"hypot":     {2, 2, "hypot(x, y)"},
	"pow":       {2, 2, "pow(x, y)"},
}

// aliases maps alternative function names to canonical ones.
var aliases = map[string]string{
	"nCr":  "ncr",
	"nPr":  "npr",
	"comb": "ncr",
	"perm": "npr",
}

// constants lists the built-in constants.
var constants = []string{"pi", "e", "tau", "phi"}

// keywordOf is the word form of percent-of multiplication.
const keywordOf = "of"

// lookupFunction returns the canonical name and spec of a function name or alias.
func lookupFunction(name string) (string, funcSpec, bool) {
	if canon, ok := aliases[name]; ok {
		name = canon
	}
	spec, ok := functions[name]
	return name, spec, ok
}

// isConstant reports whether name is a built-in constant.
func isConstant(name string) bool {
	for _, c := range constants {
		if c == name {
			return true
		}
	}
	return false
}

// functionNames returns every function name and alias, sorted.
func functionNames() []string {
	names := make([]string, 0, len(functions)+len(aliases))
	for n := range functions {
		names = append(names, n)
	}
	for n := range aliases {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// arityText describes an accepted argument count, e.g. "1 argument" or "1 or 2 arguments".
func (s funcSpec) arityText() string {
	switch {
	case s.max < 0:
		return fmt.Sprintf("at least %d arguments", s.min)
	case s.min == s.max && s.min == 1:
		return "1 argument"
	case s.min == s.max:
		return fmt.Sprintf("%d arguments", s.min)
	default:
		return fmt.Sprintf("%d or %d arguments", s.min, s.max)
	}
}

// suggest returns a "did you mean" hint for an unknown name, or "".
func suggest(name string, candidates []string) string {
	lower := strings.ToLower(name)
	for _, c := range candidates {
		if c != name && strings.ToLower(c) == lower {
			return fmt.Sprintf("did you mean %q?", c)
		}
	}
	best := 2
	var found []string
	for _, c := range candidates {
		d := editDistance(name, c)
		if d >= len(name) || d > best {
			continue
		}
		if d < best {
			best, found = d, nil
		}
		found = append(found, c)
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found)
	if len(found) > 3 {
		found = found[:3]
	}
	quoted := make([]string, len(found))
	for i, f := range found {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	return "did you mean " + strings.Join(quoted, " or ") + "?"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
