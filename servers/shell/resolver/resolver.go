// Package resolver keeps paths inside a set of root directories. Paths are made absolute,
// cleaned and resolved through symlinks before they are compared, so neither "..", an
// absolute path nor a symlink leads outside the roots.
package resolver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Roots is a set of directories paths must stay inside; it is immutable and safe for concurrent use.
type Roots struct {
	dirs []string // absolute, cleaned, symlinks resolved
}

// New returns the roots for dirs, which must be absolute paths of existing directories.
func New(dirs []string) (*Roots, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no allowed roots given")
	}
	r := &Roots{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("allowed root %q is not an absolute path", d)
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		info, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("allowed root %q is not a directory", d)
		}
		r.dirs = append(r.dirs, filepath.Clean(real))
	}
	return r, nil
}

// Dirs returns the roots as resolved.
func (r *Roots) Dirs() []string { return append([]string(nil), r.dirs...) }

// Contains reports whether the resolved absolute path p is one of the roots or inside one.
func (r *Roots) Contains(p string) bool {
	for _, d := range r.dirs {
		if p == d || d == "/" || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// OutsideError is a path that leads outside the allowed roots.
type OutsideError struct {
	Path  string
	Roots []string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s is outside the allowed roots (%s); use a path inside them", e.Path, strings.Join(e.Roots, ", "))
}

// Resolve returns the real path of p, taken relative to base when it is not absolute, after
// following every symlink in it. The path need not exist, but the part that exists must be
// inside a root, and so must the whole. A dangling symlink is refused, since what it would
// create is not known until it is written.
func (r *Roots) Resolve(p, base string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("the path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	real, err := resolve(p)
	if err != nil {
		return "", err
	}
	if !r.Contains(real) {
		return "", &OutsideError{Path: p, Roots: r.dirs}
	}
	return real, nil
}

// resolve follows the symlinks in the clean absolute path p through its longest existing prefix.
func resolve(p string) (string, error) {
	var rest []string
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		if _, lerr := os.Lstat(cur); lerr == nil {
			return "", fmt.Errorf("%s: a symlink in the path points to nothing", p)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}
