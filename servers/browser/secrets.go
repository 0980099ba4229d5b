package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/secretfile"
)

// secretsCredential is the systemd credential the secrets file is read from when
// --secrets-file is not given: $CREDENTIALS_DIRECTORY/browser-secrets.
const secretsCredential = "browser-secrets"

// secret is one of the owner's named secrets: a value the model may have typed into pages of
// the listed origins, by name, without ever seeing it.
type secret struct {
	name    string
	value   string
	origins []string // "scheme://host[:port]", as browsers write an origin
}

// secrets are the owner's secrets, and what every tool answer is cleaned of.
type secrets struct {
	byName map[string]*secret
	scrub  *strings.Replacer // every spelling of every value, to its name; nil with no secrets
}

// secretFile is the file's shape: {"bank_password": {"value": "...", "origins": ["https://bank.example"]}}.
type secretFile map[string]struct {
	Value   string   `json:"value"`
	Origins []string `json:"origins"`
}

// loadSecrets reads the owner's secrets file, which shared/secretfile checks first: a file
// others may read or change, or in a folder others may write, is refused, naming the fix.
func loadSecrets(path string) (*secrets, error) {
	s := &secrets{byName: map[string]*secret{}}
	if path == "" {
		return s, nil
	}
	// The project's rule for a secret that is only read: the file this user's (or root's) and
	// open to nobody else, its folder writable by nobody else; a systemd credential passes.
	data, err := secretfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf(`secrets file %s does not exist: create it, private to you (chmod 600), holding {"NAME": {"value": "...", "origins": ["https://example.com"]}} (docs/browser.md#secrets), or leave out --secrets-file`, path)
	}
	if err != nil {
		return nil, fmt.Errorf("secrets file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var file secretFile
	if err := dec.Decode(&file); err != nil {
		// Not the decoder's message, which may quote a character of a value.
		return nil, fmt.Errorf(`secrets file %s: %s; write {"NAME": {"value": "...", "origins": ["https://example.com"]}}`, path, jsonProblem(err))
	}
	var pairs []string
	for name, e := range file {
		switch {
		case !isSecretName(name):
			return nil, fmt.Errorf("secrets file %s: name %q: use 1-64 letters, digits, '_' or '-'", path, name)
		case len(e.Value) < 4:
			return nil, fmt.Errorf("secrets file %s: %s: a value of at least 4 characters is needed", path, name)
		case len(e.Origins) == 0:
			return nil, fmt.Errorf("secrets file %s: %s: list the origins it may be typed into (\"origins\": [\"https://example.com\"])", path, name)
		}
		sec := &secret{name: name, value: e.Value}
		for _, o := range e.Origins {
			norm, err := normalOrigin(o)
			if err != nil {
				return nil, fmt.Errorf("secrets file %s: %s: %w", path, name, err)
			}
			sec.origins = append(sec.origins, norm)
		}
		s.byName[name] = sec
		for _, spelling := range spellings(e.Value) {
			pairs = append(pairs, spelling, "[secret "+name+"]")
		}
	}
	if len(pairs) > 0 {
		// Longer spellings first, so that one that holds another is replaced whole.
		type pair struct{ from, to string }
		ps := make([]pair, 0, len(pairs)/2)
		for i := 0; i < len(pairs); i += 2 {
			ps = append(ps, pair{pairs[i], pairs[i+1]})
		}
		sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].from) > len(ps[j].from) })
		pairs = pairs[:0]
		for _, p := range ps {
			pairs = append(pairs, p.from, p.to)
		}
		s.scrub = strings.NewReplacer(pairs...)
	}
	return s, nil
}

// spellings are the forms a value takes in what the browser shows or sends: as is, in a URL or
// form body, in JSON, in HTML, in base64.
func spellings(v string) []string {
	quoted := func(escapeHTML bool) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		_ = enc.Encode(v)
		q := strings.TrimSuffix(b.String(), "\n")
		return q[1 : len(q)-1]
	}
	raw := []byte(v)
	out := []string{v, url.QueryEscape(v), url.PathEscape(v), formEscape(v), quoted(true), quoted(false), html.EscapeString(v),
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw)}
	slices.Sort(out)
	return slices.Compact(out)
}

// formEscape is application/x-www-form-urlencoded as browsers write it: letters, digits and
// *-._ as they are, space as +, every other byte %XX.
func formEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("*-._", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// jsonProblem says where a secrets file is not the JSON it should be, quoting none of it.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s should be a %s", typ.Field, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	return "not the expected JSON"
}

func isSecretName(name string) bool { return len(name) > 0 && isName(name, 64, "_-") }

// normalOrigin writes an origin as browsers do: scheme://host, with the port only when it is
// not the scheme's own.
func normalOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("origin %q: give scheme and host only, such as https://bank.example.com", o)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || u.Scheme == "https" && port == "443" || u.Scheme == "http" && port == "80" {
		return u.Scheme + "://" + host, nil
	}
	return u.Scheme + "://" + host + ":" + port, nil
}

// secretsPath is the secrets file to read: the flag's, else the systemd credential when there
// is one, else none.
func secretsPath(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if dir := getenv("CREDENTIALS_DIRECTORY"); dir != "" {
		p := filepath.Join(dir, secretsCredential)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// get returns the secret name, or an error that lists the names there are.
func (s *secrets) get(name string) (*secret, error) {
	if sec, ok := s.byName[name]; ok {
		return sec, nil
	}
	if len(s.byName) == 0 {
		return nil, errors.New("no secrets are defined on this server (the owner lists them in --secrets-file)")
	}
	names := make([]string, 0, len(s.byName))
	for n := range s.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, fmt.Errorf("no secret %q; the secrets are: %s", name, strings.Join(names, ", "))
}

// allows reports whether the secret may be typed into a page of origin.
func (sec *secret) allows(origin string) bool {
	norm, err := normalOrigin(origin)
	return err == nil && slices.Contains(sec.origins, norm)
}

// redact replaces every spelling of every secret in text with its name.
func (s *secrets) redact(text string) string {
	if s == nil || s.scrub == nil {
		return text
	}
	return s.scrub.Replace(text)
}

// redactErr is err with its message redacted, keeping its tool error code.
func (s *secrets) redactErr(err error) error {
	if err == nil || s == nil || s.scrub == nil {
		return err
	}
	msg := err.Error()
	clean := s.scrub.Replace(msg)
	if clean == msg {
		return err
	}
	code := kit.CodeUnavailable
	var ke *kit.Error
	if errors.As(err, &ke) {
		code = ke.Code
	}
	return kit.Errorf(code, "%s", clean)
}
