package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/policy"
)

// DefaultPath is the PATH commands get when the server starts without one.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Limits on the extra environment one call may set.
const (
	maxExtraVars  = 64
	maxExtraBytes = 64 << 10
)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Environment is the minimal environment every command starts from; nothing of the server's
// own environment reaches a command except PATH as it was at start.
type Environment struct {
	base []string
}

// NewEnvironment fixes the base environment: PATH (relative entries dropped), HOME, USER,
// LOGNAME, SHELL, LANG, TERM and TMPDIR when given.
func NewEnvironment(path, home, user, tmpdir string) Environment {
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		dirs = filepath.SplitList(DefaultPath)
	}
	base := []string{
		"PATH=" + strings.Join(dirs, string(os.PathListSeparator)),
		"HOME=" + home,
		"USER=" + user,
		"LOGNAME=" + user,
		"SHELL=" + Shell,
		"LANG=C.UTF-8",
		"TERM=dumb",
	}
	if tmpdir != "" {
		base = append(base, "TMPDIR="+tmpdir)
	}
	return Environment{base: base}
}

// Get returns a base variable's value.
func (e Environment) Get(name string) string {
	for _, kv := range e.base {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// With returns the base environment plus extra, refusing names that change how programs are
// found or loaded (PATH, LD_*, BASH_ENV, IFS …) and malformed ones.
func (e Environment) With(extra map[string]string) ([]string, error) {
	if len(extra) > maxExtraVars {
		return nil, fmt.Errorf("%d environment variables given; at most %d", len(extra), maxExtraVars)
	}
	size := 0
	names := make([]string, 0, len(extra))
	for name, value := range extra {
		switch {
		case !envName.MatchString(name):
			return nil, fmt.Errorf("environment variable name %q is invalid: use letters, digits and _, not starting with a digit", name)
		case policy.ForbiddenEnv(name):
			return nil, fmt.Errorf("environment variable %s may not be set: it changes how programs are found or loaded, and is fixed by the server", name)
		case strings.ContainsRune(value, 0):
			return nil, fmt.Errorf("environment variable %s contains a NUL byte", name)
		}
		size += len(name) + len(value)
		names = append(names, name)
	}
	if size > maxExtraBytes {
		return nil, fmt.Errorf("the extra environment is %d bytes; at most %d", size, maxExtraBytes)
	}
	slices.Sort(names)
	env := make([]string, 0, len(e.base)+len(names))
	for _, kv := range e.base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := extra[name]; !ok {
			env = append(env, kv)
		}
	}
	for _, n := range names {
		env = append(env, n+"="+extra[n])
	}
	return env, nil
}
