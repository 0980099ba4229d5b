package expression

import (
	"fmt"
	"strings"
	"unicode"
)

// tokenKind identifies a lexical token.
type tokenKind int

const (
	tokEOF     tokenKind = iota
	tokNumber            // 12, 1.5, .5, 1e-3
	tokIdent             // pi, sqrt, x1
	tokPlus              // +
	tokMinus             // -
	tokStar              // *
	tokSlash             // /
	tokPercent           // %
	tokPow               // ^ or **
	tokBang              // !
	tokLParen            // (
	tokRParen            // )
	tokComma             // ,
	tokSep               // ; or newline
	tokAssign            // =
	tokEq                // ==
	tokNe                // !=
	tokLt                // <
	tokLe                // <=
	tokGt                // >
	tokGe                // >=
)

// token is one lexical token with its 1-based character position.
type token struct {
	kind tokenKind
	text string
	pos  int
}

// isComparison reports whether k is a comparison operator.
func (k tokenKind) isComparison() bool {
	return k >= tokEq && k <= tokGe
}

// describe names a token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokNumber:
		return fmt.Sprintf("number %q", t.text)
	case tokIdent:
		return fmt.Sprintf("name %q", t.text)
	case tokSep:
		if t.text == "\n" {
			return "line break"
		}
	}
	return fmt.Sprintf("%q", t.text)
}

// symbols maps single characters, including a few common Unicode spellings, to tokens.
var symbols = map[rune]tokenKind{
	'+': tokPlus, '-': tokMinus, '−': tokMinus,
	'*': tokStar, '×': tokStar, '/': tokSlash, '÷': tokSlash,
	'%': tokPercent, '^': tokPow, '!': tokBang,
	'(': tokLParen, ')': tokRParen, ',': tokComma,
	';': tokSep, '\n': tokSep, '=': tokAssign,
	'<': tokLt, '>': tokGt, '≤': tokLe, '≥': tokGe, '≠': tokNe,
}

// pairs maps two-character operators to tokens.
var pairs = map[string]tokenKind{
	"**": tokPow, "==": tokEq, "!=": tokNe, "<=": tokLe, ">=": tokGe,
}

// lex splits src into tokens, ending with tokEOF.
func lex(src string) ([]token, error) {
	rs := []rune(src)
	var toks []token
	for i := 0; i < len(rs); {
		r := rs[i]
		pos := i + 1
		switch {
		case r == '\n':
			toks = append(toks, token{tokSep, "\n", pos})
			i++
		case unicode.IsSpace(r):
			i++
		case isDigit(r) || (r == '.' && i+1 < len(rs) && isDigit(rs[i+1])):
			end, err := scanNumber(rs, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokNumber, string(rs[i:end]), pos})
			i = end
		case r == 'π':
			toks = append(toks, token{tokIdent, "pi", pos})
			i++
		case isIdentStart(r):
			end := i + 1
			for end < len(rs) && isIdentPart(rs[end]) {
				end++
			}
			toks = append(toks, token{tokIdent, string(rs[i:end]), pos})
			i = end
		default:
			if i+1 < len(rs) {
				if k, ok := pairs[string(rs[i:i+2])]; ok {
					toks = append(toks, token{k, string(rs[i : i+2]), pos})
					i += 2
					continue
				}
			}
			k, ok := symbols[r]
			if !ok {
				return nil, unexpectedChar(r, pos)
			}
			toks = append(toks, token{k, string(r), pos})
			i++
		}
	}
	return append(toks, token{tokEOF, "", len(rs) + 1}), nil
}

// scanNumber returns the end of the number literal starting at rs[start].
func scanNumber(rs []rune, start int) (int, error) {
	i := start
	for i < len(rs) && isDigit(rs[i]) {
		i++
	}
	if i < len(rs) && rs[i] == '.' {
		i++
		for i < len(rs) && isDigit(rs[i]) {
			i++
		}
	}
	if i < len(rs) && (rs[i] == 'e' || rs[i] == 'E') {
		j := i + 1
		if j < len(rs) && (rs[j] == '+' || rs[j] == '-') {
			j++
		}
		if j < len(rs) && isDigit(rs[j]) {
			for j < len(rs) && isDigit(rs[j]) {
				j++
			}
			i = j
		}
	}
	if i < len(rs) && (rs[i] == '_' || (rs[i] == '.' && i+1 < len(rs) && isDigit(rs[i+1]))) {
		end := i
		for end < len(rs) && (isDigit(rs[end]) || rs[end] == '_' || rs[end] == '.') {
			end++
		}
		text := string(rs[start:end])
		if rs[i] == '_' {
			return 0, errorf(KindSyntax, start+1, fmt.Sprintf("write %s", strings.ReplaceAll(text, "_", "")),
				"underscores are not allowed in the number %q", text)
		}
		return 0, errorf(KindSyntax, start+1, "a number has at most one decimal point",
			"malformed number %q", text)
	}
	return i, nil
}

// unexpectedChar reports a character the language does not use.
func unexpectedChar(r rune, pos int) *Error {
	hint := "use + - * / % ^ ! ( ) , ; = and comparisons < <= > >= == !="
	switch r {
	case '&', '|':
		hint = "logical operators are not supported"
	case '[', '{', ']', '}':
		hint = "use ( and ) for grouping"
	case '√':
		hint = "write sqrt(x)"
	case '²':
		hint = "write x^2"
	case '³':
		hint = "write x^3"
	}
	return errorf(KindSyntax, pos, hint, "unexpected character %q", string(r))
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func isIdentStart(r rune) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

func isIdentPart(r rune) bool { return isIdentStart(r) || isDigit(r) }
