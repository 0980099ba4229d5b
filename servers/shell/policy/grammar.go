package policy

import (
	"slices"
	"strings"
)

// argKind says whether an option takes a value.
type argKind int

const (
	noArg       argKind = iota
	requiredArg         // -o VALUE, -oVALUE, --opt VALUE, --opt=VALUE
	optionalArg         // only attached: -oVALUE, --opt=VALUE
)

// grammar is a program's option syntax as getopt_long parses it: short options clustered
// (-rf), values attached or separate (-uroot, -u root, --user=root, --user root), long options
// abbreviated to any unique prefix (--recu), and "--" ending the options.
type grammar struct {
	shortReq   string             // short options that take a value
	shortOpt   string             // short options that take an attached value only
	shortFlags string             // short options without a value; letters in none of the three are unknown
	long       map[string]argKind // long options, without the leading "--"
	permute    bool               // options may follow operands (GNU); otherwise the first operand ends them
	numeric    bool               // -N is an option with value N (nice -10)
}

// option is one option as parsed, under its full name ("-r", "--recursive").
type option struct {
	name  string
	value word // the option's value, when it has one
	end   int  // index of the last argument the option used
}

// parsed is an argument list split into options and operands.
type parsed struct {
	opts     []option
	operands []word
	dynamic  bool // a word computed at run time stood where an option may stand
	unsure   bool // an unknown option or an ambiguous abbreviation: the split may be wrong
}

// parse splits args by the grammar.
func (g *grammar) parse(args []word) parsed {
	var p parsed
	for i := 0; i < len(args); i++ {
		a := args[i]
		operand := false
		switch {
		case !a.static:
			p.dynamic = true
			operand = true
		case a.val == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(a.val, "--"):
			i = g.longOpt(&p, args, i)
		case len(a.val) > 1 && a.val[0] == '-':
			if g.numeric && strings.Trim(a.val[1:], "0123456789") == "" {
				p.opts = append(p.opts, option{name: "-N", value: lit(a.val[1:]), end: i})
				continue
			}
			i = g.shortOpts(&p, args, i)
		default:
			operand = true
		}
		if !operand {
			continue
		}
		if !g.permute {
			p.operands = append(p.operands, args[i:]...)
			return p
		}
		p.operands = append(p.operands, a)
	}
	return p
}

// longOpt parses the long option at args[i] and returns the index of the last argument used.
func (g *grammar) longOpt(p *parsed, args []word, i int) int {
	name, val, attached := strings.Cut(args[i].val[2:], "=")
	matches := g.match(name)
	if len(matches) != 1 {
		p.unsure = true
	}
	end := i
	for _, m := range matches {
		o := option{name: "--" + m, end: i}
		switch g.long[m] {
		case requiredArg:
			switch {
			case attached:
				o.value = lit(val)
			case len(matches) == 1 && i+1 < len(args):
				o.value, o.end, end = args[i+1], i+1, i+1
			}
		case optionalArg:
			if attached {
				o.value = lit(val)
			}
		}
		p.opts = append(p.opts, o)
	}
	return end
}

// match returns the long options name may stand for: itself, or every option it abbreviates.
func (g *grammar) match(name string) []string {
	if _, ok := g.long[name]; ok {
		return []string{name}
	}
	var out []string
	for l := range g.long {
		if name != "" && strings.HasPrefix(l, name) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// shortOpts parses the cluster of short options at args[i].
func (g *grammar) shortOpts(p *parsed, args []word, i int) int {
	s := args[i].val
	for j := 1; j < len(s); j++ {
		c := s[j]
		o := option{name: "-" + string(c), end: i}
		switch {
		case strings.IndexByte(g.shortReq, c) >= 0:
			if rest := s[j+1:]; rest != "" {
				o.value = lit(rest)
			} else if i+1 < len(args) {
				o.value, o.end = args[i+1], i+1
			}
			p.opts = append(p.opts, o)
			return o.end
		case strings.IndexByte(g.shortOpt, c) >= 0:
			o.value = lit(s[j+1:])
			p.opts = append(p.opts, o)
			return i
		case strings.IndexByte(g.shortFlags, c) < 0:
			p.unsure = true
		}
		p.opts = append(p.opts, o)
	}
	return i
}

// has reports whether any of the named options was given.
func (p *parsed) has(names ...string) bool {
	for _, o := range p.opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

// values returns the values given to the named options.
func (p *parsed) values(names ...string) []word {
	var out []word
	for _, o := range p.opts {
		if slices.Contains(names, o.name) && (o.value.static || o.value.node != nil) {
			out = append(out, o.value)
		}
	}
	return out
}

// staticOperands returns the operands whose value is known.
func (p *parsed) staticOperands() []string {
	var out []string
	for _, w := range p.operands {
		if w.static {
			out = append(out, w.val)
		}
	}
	return out
}

func lit(s string) word { return word{val: s, static: true} }

func longs(req, opt, flags string) map[string]argKind {
	m := map[string]argKind{}
	for _, set := range []struct {
		names string
		kind  argKind
	}{{req, requiredArg}, {opt, optionalArg}, {flags, noArg}} {
		for _, n := range strings.Fields(set.names) {
			m[n] = set.kind
		}
	}
	return m
}

// Grammars of the programs the blocklist rules look into.
var (
	rmGrammar = grammar{shortFlags: "fiIrRdv", permute: true, long: longs("", "interactive preserve-root",
		"force one-file-system no-preserve-root recursive dir verbose help version")}
	chmodGrammar = grammar{shortFlags: "cfvRHLPhrwxXstugoa", permute: true, long: longs("reference from", "",
		"changes silent quiet verbose no-preserve-root preserve-root recursive dereference no-dereference help version")}
	copyLongs = longs("target-directory suffix no-preserve sparse mode owner group strip-program", "backup preserve reflink update context",
		"archive attributes-only copy-contents debug dereference force interactive link no-dereference no-clobber parents recursive "+
			"remove-destination strip-trailing-slashes symbolic-link no-target-directory verbose one-file-system keep-directory-symlink "+
			"exchange no-copy directory logical physical relative symbolic compare preserve-context strip help version")
	copyGrammar = grammar{shortReq: "tSmogN", shortFlags: "abdfiHlLnPpRrsuvxTcCDFZ", permute: true, long: copyLongs}
	teeGrammar  = grammar{shortFlags: "aip", permute: true, long: longs("", "output-error", "append ignore-interrupts help version")}
	sedGrammar  = grammar{shortReq: "efl", shortOpt: "i", shortFlags: "nrEsuzb", permute: true, long: longs("expression file line-length",
		"in-place", "quiet silent debug posix regexp-extended separate sandbox unbuffered null-data zero-terminated follow-symlinks binary help version")}
	truncateGrammar = grammar{shortReq: "sr", shortFlags: "co", permute: true, long: longs("size reference", "", "no-create io-blocks help version")}
	shredGrammar    = grammar{shortReq: "ns", shortFlags: "fuvxz", permute: true, long: longs("iterations size random-source", "remove",
		"force exact verbose zero help version")}
	cdGrammar = grammar{shortFlags: "LPe@"}
)
