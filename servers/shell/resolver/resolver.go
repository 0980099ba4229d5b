// Package resolver holds the shell's file tools inside a set of root directories. Each root
// is opened once, as an os.Root, when the server starts; a path is resolved to a root and a
// name below it, and everything the tools do with it (open, create, rename, remove, walk) goes
// through that root, so the kernel resolves the name one element at a time from the held
// directory and nothing a symlink swapped in meanwhile can lead outside.
//
// Resolving first follows the symlinks the path holds, through Lstat and Readlink on the
// roots, so that a symlink inside the roots to elsewhere inside them (absolute or relative)
// still works and the tools can show the real path; a symlink that leads outside is refused
// with an error naming it.
package resolver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving one path, as the kernel's 40.
const maxLinks = 40

// Roots is a set of directories held open; it is safe for concurrent use.
type Roots struct {
	dirs []root
}

type root struct {
	path  string   // absolute, clean, symlinks resolved
	given string   // as given, clean: a path spelled through it is accepted too
	fs    *os.Root // the directory itself, whatever happens to path later
}

// New opens the roots dirs, which must be absolute paths of existing directories.
func New(dirs []string) (*Roots, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no allowed roots given")
	}
	r := &Roots{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			r.Close()
			return nil, fmt.Errorf("allowed root %q is not an absolute path", d)
		}
		real, err := filepath.EvalSymlinks(d)
		if err == nil {
			var info os.FileInfo
			if info, err = os.Stat(real); err == nil && !info.IsDir() {
				err = errors.New("not a directory")
			}
		}
		var fsys *os.Root
		if err == nil {
			fsys, err = os.OpenRoot(real)
		}
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		r.dirs = append(r.dirs, root{path: filepath.Clean(real), given: filepath.Clean(d), fs: fsys})
	}
	return r, nil
}

// Close closes the roots.
func (r *Roots) Close() {
	for _, d := range r.dirs {
		_ = d.fs.Close()
	}
}

// Dirs returns the roots as resolved.
func (r *Roots) Dirs() []string {
	out := make([]string, len(r.dirs))
	for i, d := range r.dirs {
		out[i] = d.path
	}
	return out
}

// Contains reports whether the resolved absolute path p is one of the roots or inside one.
func (r *Roots) Contains(p string) bool {
	for _, d := range r.dirs {
		if _, ok := below(d.path, p); ok {
			return true
		}
	}
	return false
}

// below returns p relative to dir ("." for dir itself) when p is dir or inside it.
func below(dir, p string) (string, bool) {
	switch {
	case p == dir:
		return ".", true
	case dir == "/":
		return p[1:], true
	case strings.HasPrefix(p, dir+"/"):
		return p[len(dir)+1:], true
	}
	return "", false
}

// locate finds the outermost root holding the clean absolute path p, spelled through the
// root's resolved or given path.
func (r *Roots) locate(p string) (*root, string, bool) {
	var best *root
	var bestRel string
	for i := range r.dirs {
		d := &r.dirs[i]
		for _, dir := range []string{d.path, d.given} {
			if rel, ok := below(dir, p); ok && (best == nil || len(d.path) < len(best.path)) {
				best, bestRel = d, rel
			}
		}
	}
	return best, bestRel, best != nil
}

// Path is a path resolved beneath one of the roots. Use it only through Root: Rel is the name
// below Root, with the symlinks it held when resolved followed; Abs is for showing.
type Path struct {
	Root *os.Root
	Rel  string // "." for the root itself
	Abs  string // the root's path joined with Rel
}

// IsRoot reports whether p is a root itself.
func (p Path) IsRoot() bool { return p.Rel == "." }

// Parent opens the directory holding p beneath its root as an os.Root of its own, and
// returns it with p's last element: what is done through it then happens in that directory
// whatever is later renamed or swapped above it. The caller closes it.
func (p Path) Parent() (*os.Root, string, error) {
	if p.IsRoot() {
		return nil, "", fmt.Errorf("%s is an allowed root, which has no parent inside the roots", p.Abs)
	}
	dir, err := p.Root.OpenRoot(filepath.Dir(p.Rel))
	if err != nil {
		return nil, "", err
	}
	return dir, filepath.Base(p.Rel), nil
}

// OutsideError is a path that leads outside the allowed roots.
type OutsideError struct {
	Path   string
	Roots  []string
	Link   string // the symlink that led out, if one did
	Target string // what it points to
}

func (e *OutsideError) Error() string {
	via := ""
	if e.Link != "" {
		via = fmt.Sprintf(": the symlink %s points to %s", e.Link, e.Target)
	}
	return fmt.Sprintf("%s is outside the allowed roots (%s)%s; use a path inside them", e.Path, strings.Join(e.Roots, ", "), via)
}

// Resolve resolves p, taken relative to base when it is not absolute, following every
// symlink in it. The path need not exist, but the part that exists must be inside a root,
// and so must the whole. A dangling symlink is refused, since what it would create is not
// known until it is written.
func (r *Roots) Resolve(p, base string) (Path, error) {
	abs, err := absolute(p, base)
	if err != nil {
		return Path{}, err
	}
	return r.resolve(abs, true)
}

// Entry resolves p like Resolve but does not follow its last element, so a symlink there is
// itself described or acted on; a p that resolves to a root itself is that root.
func (r *Roots) Entry(p, base string) (Path, error) {
	abs, err := absolute(p, base)
	if err != nil {
		return Path{}, err
	}
	if full, err := r.resolve(abs, true); err == nil && full.IsRoot() {
		return full, nil // a root itself, whose parent is outside
	}
	if abs == "/" {
		return Path{}, &OutsideError{Path: p, Roots: r.Dirs()}
	}
	parent, err := r.resolve(filepath.Dir(abs), true)
	if err != nil {
		return Path{}, err
	}
	name := filepath.Base(abs)
	return Path{Root: parent.Root, Rel: filepath.Join(parent.Rel, name), Abs: filepath.Join(parent.Abs, name)}, nil
}

func absolute(p, base string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("the path is empty")
	case strings.ContainsRune(p, 0):
		return "", errors.New("the path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// resolve walks the clean absolute path abs element by element through the root holding it,
// following symlinks (the last one only with followLast); a symlink restarts the walk at its
// target, which may be in another root.
func (r *Roots) resolve(abs string, followLast bool) (Path, error) {
	orig := abs
	links := 0
	tail := -1 // how many last elements are the caller's own, once a symlink was followed
	for {
		d, rel, ok := r.locate(abs)
		if !ok {
			return Path{}, &OutsideError{Path: orig, Roots: r.Dirs()}
		}
		elems := strings.Split(rel, "/")
		if rel == "." {
			elems = nil
		}
		cur := "."
		var next string // the walk's next path, when a symlink redirects it
		for i, e := range elems {
			step := filepath.Join(cur, e)
			last := i == len(elems)-1
			if last && !followLast {
				cur = step
				break
			}
			info, err := d.fs.Lstat(step)
			if errors.Is(err, fs.ErrNotExist) {
				if tail >= 0 && i < len(elems)-tail {
					return Path{}, fmt.Errorf("%s: a symlink in the path points to nothing", orig)
				}
				cur = filepath.Join(append([]string{cur}, elems[i:]...)...)
				break
			}
			if err != nil {
				return Path{}, fmt.Errorf("%s: %w", orig, err)
			}
			if info.Mode()&fs.ModeSymlink == 0 {
				if !last && !info.IsDir() {
					return Path{}, fmt.Errorf("%s: %s is not a directory", orig, filepath.Join(d.path, step))
				}
				cur = step
				continue
			}
			if links++; links > maxLinks {
				return Path{}, fmt.Errorf("%s: too many levels of symbolic links", orig)
			}
			target, err := d.fs.Readlink(step)
			if err != nil {
				return Path{}, fmt.Errorf("%s: %w", orig, err)
			}
			rest := elems[i+1:]
			dest := target
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(d.path, cur, dest)
			}
			next = filepath.Clean(filepath.Join(append([]string{dest}, rest...)...))
			if _, _, in := r.locate(next); !in {
				return Path{}, &OutsideError{Path: orig, Roots: r.Dirs(), Link: filepath.Join(d.path, step), Target: target}
			}
			if tail < 0 || len(rest) < tail {
				tail = len(rest)
			}
			break
		}
		if next == "" {
			return Path{Root: d.fs, Rel: cur, Abs: filepath.Join(d.path, cur)}, nil
		}
		abs = next
	}
}
