package guard

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/jck411/mcp-servers/shared/secretfile"
)

// minTokenLen keeps guessable tokens out of the file.
const minTokenLen = 16

// Tokens are the bearer tokens a server accepts, each with the label logs name its caller by.
// It is an Authenticator: a token it knows may call everything.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	label string
	sum   [sha256.Size]byte
}

// LoadTokens reads a tokens file: one label:token a line. Blank lines, lines starting with # and
// a trailing comment after whitespace (label:token   # note) are ignored; a token holding
// whitespace is refused.
// The file must be readable by its owner only, in a folder no one else can write
// (secretfile.Read); a systemd credential passes.
func LoadTokens(path string) (*Tokens, error) {
	data, err := secretfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("auth tokens file %s does not exist: create it with one label:token line, e.g. (umask 077; mkdir -p %s; printf 'me:%%s\\n' \"$(openssl rand -hex 32)\" > %s) (docs/configuration.md), or leave out --auth-tokens-file (MCP_AUTH_TOKENS_FILE)", path, filepath.Dir(path), path)
	}
	if err != nil {
		return nil, fmt.Errorf("auth tokens file: %w", err)
	}
	return parseTokens(path, bytes.NewReader(data))
}

func parseTokens(path string, r io.Reader) (*Tokens, error) {
	t := &Tokens{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, rest, ok := strings.Cut(line, ":")
		label = strings.TrimSpace(label)
		tok, extra := splitToken(rest)
		switch {
		case !ok || label == "" || tok == "":
			return nil, fmt.Errorf("auth tokens file %s line %d: want label:token", path, n)
		case extra != "":
			return nil, fmt.Errorf("auth tokens file %s line %d: token for %q is followed by %q: a token holds no whitespace, and a comment after it starts with #", path, n, label, extra)
		case len(tok) < minTokenLen:
			return nil, fmt.Errorf("auth tokens file %s line %d: token for %q is shorter than %d characters; generate one with `openssl rand -hex 32`", path, n, label, minTokenLen)
		case seen[label]:
			return nil, fmt.Errorf("auth tokens file %s line %d: label %q appears twice", path, n, label)
		}
		seen[label] = true
		t.entries = append(t.entries, tokenEntry{label: label, sum: sha256.Sum256([]byte(tok))})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("auth tokens file %s: %w", path, err)
	}
	if len(t.entries) == 0 {
		return nil, fmt.Errorf("auth tokens file %s has no label:token lines", path)
	}
	return t, nil
}

// splitToken returns the token at the start of s (after leading whitespace) and whatever
// follows it that is not a comment: "" when the rest is blank or starts with #.
func splitToken(s string) (tok, extra string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	tok, rest := s[:i], strings.TrimSpace(s[i:])
	if strings.HasPrefix(rest, "#") {
		return tok, ""
	}
	return tok, rest
}

// Label returns the label of the token, comparing against every entry in constant time.
func (t *Tokens) Label(token string) (string, bool) {
	sum := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.entries {
		if subtle.ConstantTimeCompare(sum[:], t.entries[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return t.entries[found].label, true
}

// Authenticate returns the caller a token names, or ErrInvalidToken.
func (t *Tokens) Authenticate(_ context.Context, token string) (Caller, error) {
	label, ok := t.Label(token)
	if !ok {
		return Caller{}, ErrInvalidToken
	}
	return Caller{Label: label}, nil
}

// Challenge answers with WWW-Authenticate: Bearer realm="mcp".
func (t *Tokens) Challenge(w http.ResponseWriter, status int, _, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
	http.Error(w, http.StatusText(status)+": "+msg, status)
}

// BearerToken returns the token of an "Authorization: Bearer TOKEN" header.
func BearerToken(r *http.Request) (string, bool) {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	tok = strings.TrimSpace(tok)
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}
