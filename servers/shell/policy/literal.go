package policy

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxLiteralOutput bounds the output the checker computes for a literal producer.
const maxLiteralOutput = 1 << 16

// literalOutput returns what a statement writes to standard output when the line fixes it:
// echo and printf with literal arguments, cat of known text, and groups, subshells, pipes and
// lists of those. It reads in as the statement's standard input.
func (c *checker) literalOutput(st *syntax.Stmt, in stdinSource, depth int) (string, bool) {
	if depth > 8 || st.Background || st.Coprocess || st.Negated {
		return "", false
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.DplOut:
			if r.N == nil || r.N.Value == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll {
				return "", false // standard output goes elsewhere, or is a copy of another descriptor
			}
		}
	}
	in = redirectedStdin(st.Redirs, in)
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(cmd.Args) == 0 {
			return "", true
		}
		fields := expandWords(cmd.Args)
		for _, f := range fields {
			if !f.static || f.multi {
				return "", false
			}
		}
		args := make([]string, 0, len(fields)-1)
		for _, f := range fields[1:] {
			args = append(args, f.val)
		}
		switch fields[0].val {
		case "echo":
			return echoOutput(args), true
		case "printf":
			return printfOutput(args)
		case "cat":
			if (len(args) == 0 || len(args) == 1 && args[0] == "-") && in.kind == stdinText {
				return in.text, true
			}
		case "true", ":":
			return "", true
		}
	case *syntax.Block:
		return c.literalStmts(cmd.Stmts, in, depth)
	case *syntax.Subshell:
		return c.literalStmts(cmd.Stmts, in, depth)
	case *syntax.BinaryCmd:
		switch cmd.Op {
		case syntax.Pipe, syntax.PipeAll:
			x, ok := c.literalOutput(cmd.X, in, depth+1)
			if !ok {
				return "", false
			}
			return c.literalOutput(cmd.Y, stdinSource{kind: stdinText, text: x, piped: true}, depth+1)
		case syntax.AndStmt, syntax.OrStmt:
			return c.literalStmts([]*syntax.Stmt{cmd.X, cmd.Y}, in, depth)
		}
	}
	return "", false
}

func (c *checker) literalStmts(stmts []*syntax.Stmt, in stdinSource, depth int) (string, bool) {
	var b strings.Builder
	for _, s := range stmts {
		out, ok := c.literalOutput(s, in, depth+1)
		if !ok || b.Len()+len(out) > maxLiteralOutput {
			return "", false
		}
		b.WriteString(out)
	}
	return b.String(), true
}

// echoOutput is what bash's echo prints: options -n, -e and -E, then the words.
func echoOutput(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, ch := range args[0][1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		s, stop = decodeEscapes(s, false)
		if stop {
			return s
		}
	}
	if newline {
		s += "\n"
	}
	return s
}

// printfOutput is what bash's printf prints, for the conversions that matter here: %s, %b, %q
// and %c take an argument, others take one and print it as it is; the format is repeated
// while arguments remain. ok is false for printf -v.
func printfOutput(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-v") {
		return "", len(args) == 0
	}
	format, args := args[0], args[1:]
	var b strings.Builder
	for {
		used := false
		for i := 0; i < len(format); i++ {
			ch := format[i]
			switch {
			case ch == '\\':
				j := i + 1
				for j < len(format) && j < i+4 && format[j] != '\\' && format[j] != '%' {
					j++
				}
				s, stop := decodeEscapes(format[i:j], true)
				b.WriteString(s)
				if stop {
					return b.String(), true
				}
				i = j - 1
			case ch == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case ch == '%':
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
					j++
				}
				if j >= len(format) {
					b.WriteString(format[i:])
					i = j
					continue
				}
				arg := ""
				if len(args) > 0 {
					arg, args = args[0], args[1:]
					used = true
				}
				switch format[j] {
				case 'b':
					s, stop := decodeEscapes(arg, false)
					b.WriteString(s)
					if stop {
						return b.String(), true
					}
				case 'c':
					if arg != "" {
						b.WriteByte(arg[0])
					}
				default:
					b.WriteString(arg)
				}
				i = j
			default:
				b.WriteByte(ch)
			}
			if b.Len() > maxLiteralOutput {
				return "", false
			}
		}
		if !used || len(args) == 0 {
			return b.String(), true
		}
	}
}

// decodeEscapes decodes the backslash escapes of echo -e and printf: \n \t \\ \a \b \e \f \r
// \v, \NNN (printf) or \0NNN (echo) octal, \xHH, \uHHHH and \UHHHHHHHH; \c ends the output
// (stop).
func decodeEscapes(s string, printf bool) (out string, stop bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\\':
			b.WriteByte('\\')
		case 'c':
			return b.String(), true
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			base, width, start := 16, 2, i+1
			switch {
			case ch == 'u':
				width = 4
			case ch == 'U':
				width = 8
			case ch == '0' && !printf:
				base, width = 8, 3
			case ch >= '0' && ch <= '7':
				base, width, start = 8, 3, i
			}
			j := start
			for j < len(s) && j < start+width && strings.IndexByte("0123456789abcdefABCDEF"[:base+max(0, base-10)], s[j]) >= 0 {
				j++
			}
			if j == start {
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			}
			n, _ := strconv.ParseUint(s[start:j], base, 32)
			if ch == 'u' || ch == 'U' {
				b.WriteRune(rune(n))
			} else {
				b.WriteByte(byte(n))
			}
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
	}
	return b.String(), false
}
