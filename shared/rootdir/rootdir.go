// Package rootdir works beneath a directory opened as an os.Root, so that every name is
// resolved by the kernel inside that directory, one element at a time from a held
// descriptor, and never again by a path string that a swapped symlink could redirect:
// temporary files and directories, atomic saves that never follow or replace a symlink,
// unique names, and telling os.Root's refusal of a path that leads outside.
package rootdir

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Open opens dir as a root. With create it first makes dir (and its parents) 0700 when
// missing. The root keeps naming the same directory if dir is later renamed or replaced.
func Open(dir string, create bool) (*os.Root, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%q is not an absolute path", dir)
	}
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	return os.OpenRoot(dir)
}

// Escapes reports whether err is os.Root's refusal of a name that leads outside its root
// (through "..", an absolute symlink or a symlink that climbs out). The os package does not
// export that error, so it is recognised by its text; TestEscapes fails if the text changes.
func Escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// Rel maps p, relative or absolute and spelled below one of dirs (spellings of the same
// directory, such as the path as given and as resolved), to a clean name relative to that
// directory ("." for the directory itself). It refuses, lexically, a p that is empty, holds
// a NUL, or names something outside; symlinks are left to the os.Root the name is used with.
func Rel(p string, dirs ...string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("the path is empty")
	case strings.ContainsRune(p, 0):
		return "", errors.New("the path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Clean(p)
		if p == ".." || strings.HasPrefix(p, "../") {
			return "", fmt.Errorf("%s leads outside the folder", p)
		}
		return p, nil
	}
	for _, dir := range dirs {
		rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return rel, nil
		}
	}
	if len(dirs) == 0 {
		return "", fmt.Errorf("%s is an absolute path, and no folder was given", p)
	}
	return "", fmt.Errorf("%s is outside %s", p, dirs[0])
}

// tempName returns pattern with its last "*" replaced by random letters (appended when
// it has none).
func tempName(pattern string) string {
	suffix := strings.ToLower(rand.Text()[:10])
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		return pattern[:i] + suffix + pattern[i+1:]
	}
	return pattern + suffix
}

// maxTries bounds the names tried for a temporary or unique file before giving up.
const maxTries = 10000

// CreateTemp creates a new file, mode 0600, in the directory dir beneath root (dir "" or "."
// is root itself) named by pattern with its last "*" replaced by random letters, and opens it
// for writing. It returns the file and its name relative to root. O_EXCL makes a symlink
// already at that name fail the create rather than be followed.
func CreateTemp(root *os.Root, dir, pattern string) (*os.File, string, error) {
	if strings.ContainsRune(pattern, filepath.Separator) {
		return nil, "", fmt.Errorf("pattern %q holds a path separator", pattern)
	}
	for range maxTries {
		name := filepath.Join(dir, tempName(pattern))
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name for %s in %s", pattern, dir)
}

// MkdirTemp makes a new directory, mode 0700, in the directory dir beneath root, named like
// CreateTemp's files, and returns its name relative to root.
func MkdirTemp(root *os.Root, dir, pattern string) (string, error) {
	if strings.ContainsRune(pattern, filepath.Separator) {
		return "", fmt.Errorf("pattern %q holds a path separator", pattern)
	}
	for range maxTries {
		name := filepath.Join(dir, tempName(pattern))
		err := root.Mkdir(name, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, err
	}
	return "", fmt.Errorf("no free temporary name for %s in %s", pattern, dir)
}

// ErrTooLarge is returned by Save when the content is longer than its limit.
var ErrTooLarge = errors.New("the content is over the size limit")

// OnExist says what Save and Place do when their name is taken.
type OnExist int

// What Save and Place do with a name that is taken.
const (
	Replace  OnExist = iota // rename over the file there (never into a directory)
	Refuse                  // fail with an error matching fs.ErrExist
	NextFree                // use the first free one of "name (1).ext", "name (2).ext"…
)

// Save writes r, up to limit bytes, to the file name beneath root: into a temporary file in
// the same directory, synced and given perm, then renamed or linked to name as onExist says,
// so a reader never sees half a file and nothing already at the name (a file created
// meanwhile, a symlink) is written through. Nothing is left behind on failure. It returns
// the name used and the bytes written.
func Save(root *os.Root, name string, r io.Reader, limit int64, perm os.FileMode, onExist OnExist) (string, int64, error) {
	dir, base := filepath.Split(filepath.Clean(name))
	if base == "." || base == ".." || base == "" {
		return "", 0, fmt.Errorf("%q is not a file name", name)
	}
	f, tmp, err := CreateTemp(root, dir, "."+base+".tmp-*")
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = root.Remove(tmp) }() // a failure's leftover; Place removes it otherwise
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = ErrTooLarge
	}
	if err == nil {
		err = f.Chmod(perm) // the umask may have narrowed it
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	placed, err := Place(root, tmp, name, onExist)
	if err != nil {
		return "", 0, err
	}
	return placed, n, nil
}

// Place puts the file tmp beneath root at name as onExist says (renamed over it, linked to it
// unless taken, or linked to the first free name like it) and removes tmp. It returns the
// name used.
func Place(root *os.Root, tmp, name string, onExist OnExist) (string, error) {
	switch onExist {
	case Replace:
		return name, root.Rename(tmp, name)
	case Refuse:
		if err := root.Link(tmp, name); err != nil {
			return "", err
		}
		return name, root.Remove(tmp)
	}
	dir, base := filepath.Split(name)
	ext := filepath.Ext(base)
	for i := range maxTries {
		candidate := name
		if i > 0 {
			candidate = filepath.Join(dir, fmt.Sprintf("%s (%d)%s", strings.TrimSuffix(base, ext), i, ext))
		}
		err := root.Link(tmp, candidate)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return candidate, root.Remove(tmp)
	}
	return "", fmt.Errorf("no free name like %s", name)
}

// RemoveDir removes the empty directory name beneath root with rmdir(2) on its held parent,
// so a symlink at that name is never removed in its place (that fails with ENOTDIR).
func RemoveDir(root *os.Root, name string) error {
	parent, err := root.Open(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer parent.Close()
	base := filepath.Base(name)
	if base == "." || base == ".." || base == "/" {
		return fmt.Errorf("remove dir: %q names no entry", name)
	}
	if err := unix.Unlinkat(int(parent.Fd()), base, unix.AT_REMOVEDIR); err != nil {
		return &os.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}

// Rename renames oldname in the directory from to newname in the directory to, each one
// path element, with one renameat2(2) on the held directories: the directories above them
// play no part. With noReplace it fails with an error matching fs.ErrExist when newname
// exists (RENAME_NOREPLACE), instead of replacing it.
func Rename(from *os.Root, oldname string, to *os.Root, newname string, noReplace bool) error {
	for _, n := range []string{oldname, newname} {
		if n == "" || n == "." || n == ".." || strings.ContainsRune(n, filepath.Separator) {
			return fmt.Errorf("rename: %q is not one path element", n)
		}
	}
	fd, err := from.Open(".")
	if err != nil {
		return err
	}
	defer fd.Close()
	td, err := to.Open(".")
	if err != nil {
		return err
	}
	defer td.Close()
	var flags uint
	if noReplace {
		flags = unix.RENAME_NOREPLACE
	}
	if err := unix.Renameat2(int(fd.Fd()), oldname, int(td.Fd()), newname, flags); err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}
