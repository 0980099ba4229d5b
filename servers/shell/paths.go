package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/servers/shell/resolver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
)

// path resolves a file path argument inside the allowed roots, relative to the work
// directory, following symlinks.
func (sh *shell) path(p string) (resolver.Path, error) {
	r, err := sh.roots.Resolve(p, sh.workDir)
	if err != nil {
		return resolver.Path{}, pathError(p, err)
	}
	return r, nil
}

// entry resolves the folders above p inside the allowed roots but not p's last element, so
// a symlink there is itself described or acted on, not followed.
func (sh *shell) entry(p string) (resolver.Path, error) {
	if p == "" {
		return resolver.Path{}, kit.Errorf(kit.CodeInvalidInput, "path is empty; give a path inside the allowed roots")
	}
	r, err := sh.roots.Entry(p, sh.workDir)
	if err != nil {
		return resolver.Path{}, pathError(p, err)
	}
	return r, nil
}

func pathError(p string, err error) error {
	var oe *resolver.OutsideError
	if errors.As(err, &oe) {
		return kit.Errorf(kit.CodeInvalidInput, "%w", err)
	}
	return kit.Errorf(kit.CodeInvalidInput, "path %s: %w", p, err)
}

// dir resolves a directory argument ("" is the work directory) and opens it beneath its root
// as a root of its own, through which it is walked. The caller closes it.
func (sh *shell) dir(p string) (resolver.Path, *os.Root, error) {
	name := p
	if p == "" {
		name = sh.workDir
	}
	r, err := sh.roots.Resolve(name, sh.workDir)
	if err != nil {
		return resolver.Path{}, nil, kit.Errorf(kit.CodeInvalidInput, "working directory: %w", err)
	}
	d, err := r.Root.OpenRoot(r.Rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return r, nil, kit.Errorf(kit.CodeNotFound, "working directory %s does not exist", p)
	case errors.Is(err, syscall.ENOTDIR):
		return r, nil, kit.Errorf(kit.CodeInvalidInput, "working directory %s is not a directory", p)
	case err != nil:
		return r, nil, fileError(name, err)
	}
	return r, d, nil
}

// workingDir is a command's working directory, held open beneath the roots while the
// command starts.
type workingDir struct {
	path string   // as resolved, for the policy, the audit log and the answer
	f    *os.File // the directory itself
}

// chdir is what the child changes into: its copy of the descriptor, through /proc, names
// the resolved directory whatever has been swapped in at its path since.
func (w workingDir) chdir() string { return fmt.Sprintf("/proc/self/fd/%d", w.f.Fd()) }

func (w workingDir) close() { _ = w.f.Close() }

// workingDir resolves and opens a command's working directory ("" is the work directory).
func (sh *shell) workingDir(p string) (workingDir, error) {
	r, d, err := sh.dir(p)
	if err != nil {
		return workingDir{}, err
	}
	defer d.Close()
	f, err := d.Open(".")
	if err != nil {
		return workingDir{}, fileError(r.Abs, err)
	}
	return workingDir{path: r.Abs, f: f}, nil
}

// target resolves p like entry (a final symlink is not followed) and refuses a root itself
// and the directories the blocklist protects from rm -r.
func (sh *shell) target(p, what string) (resolver.Path, error) {
	r, err := sh.entry(p)
	if err != nil {
		return r, err
	}
	if r.IsRoot() || slices.Contains(sh.roots.Dirs(), r.Abs) {
		return r, kit.Errorf(kit.CodeInvalidInput, "%s %s is an allowed root itself; act on what is inside it", what, p)
	}
	if policy.ProtectedDir(r.Abs, sh.home) {
		return r, kit.Errorf(kit.CodeInvalidInput, "%s %s is a system or home directory, which the shell never deletes or moves (as it refuses rm -r on it); act on what is inside it", what, p)
	}
	return r, nil
}

// openRegular opens the file name beneath its root, once, and says what it is; anything but a
// regular file is refused, with the tool for a directory named.
func (sh *shell) openRegular(name string) (resolver.Path, *os.File, fs.FileInfo, error) {
	p, err := sh.path(name)
	if err != nil {
		return p, nil, nil, err
	}
	f, err := p.Root.Open(p.Rel)
	if err != nil {
		return p, nil, nil, fileError(name, err)
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = fileError(name, err)
	case !info.Mode().IsRegular():
		err = kit.Errorf(kit.CodeInvalidInput, "%s is not a regular file; use find_files to list a directory", name)
	}
	if err != nil {
		f.Close()
		return p, nil, nil, err
	}
	return p, f, info, nil
}

// fileError turns an error from a file operation on p into a tool error.
func fileError(p string, err error) error {
	switch {
	case rootdir.Escapes(err), errors.Is(err, syscall.ELOOP):
		return kit.Errorf(kit.CodeInvalidInput, "%s: a symlink on its way leads outside the allowed roots, or loops (it may have been swapped in while the tool ran); nothing outside them was touched", p)
	case errors.Is(err, fs.ErrNotExist):
		return kit.Errorf(kit.CodeNotFound, "%s does not exist", p)
	case errors.Is(err, fs.ErrPermission):
		return kit.Errorf(kit.CodeUnavailable, "%s: permission denied for the server's user", p)
	}
	return kit.Errorf(kit.CodeInternal, "%s: %w", p, err)
}
