package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/jck411/mcp-servers/servers/shell/policy"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// copy_path limits, checked over the whole source before anything is copied.
const (
	maxCopyBytes   = 512 << 20
	maxCopyEntries = 10000
)

func addPathTools(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "move_path",
		Toolset:     toolsetEdit,
		Title:       "Move path",
		Description: "Move or rename a file, directory or symlink; replaces an existing destination only with overwrite.",
		Destructive: true,
	}, sh.movePath)
	kit.AddTool(s, kit.Tool{
		Name:        "copy_path",
		Toolset:     toolsetEdit,
		Title:       "Copy path",
		Description: "Copy a file, or a directory recursively; replaces a file only with overwrite.",
		Destructive: true,
	}, sh.copyPath)
	kit.AddTool(s, kit.Tool{
		Name:        "delete_path",
		Toolset:     toolsetEdit,
		Title:       "Delete path",
		Description: "Delete a file, symlink or empty directory; a non-empty directory only with recursive.",
		Destructive: true,
	}, sh.deletePath)
}

// target resolves p like entryPath (a final symlink is not followed) and refuses a root itself.
func (sh *shell) target(p, what string) (string, error) {
	real, err := sh.entryPath(p)
	if err != nil {
		return "", err
	}
	if slices.Contains(sh.roots.Dirs(), real) {
		return "", kit.Errorf(kit.CodeInvalidInput, "%s %s is an allowed root itself; act on what is inside it", what, p)
	}
	if policy.ProtectedDir(real, sh.home) {
		return "", kit.Errorf(kit.CodeInvalidInput, "%s %s is a system or home directory, which the shell never deletes or moves (as it refuses rm -r on it); act on what is inside it", what, p)
	}
	return real, nil
}

// twoEnds resolves a source and a destination, refusing a destination inside the source.
func (sh *shell) twoEnds(source, destination string) (src, dst string, err error) {
	if src, err = sh.target(source, "source"); err != nil {
		return "", "", err
	}
	if dst, err = sh.target(destination, "destination"); err != nil {
		return "", "", err
	}
	if dst == src || strings.HasPrefix(dst, src+string(filepath.Separator)) {
		return "", "", kit.Errorf(kit.CodeInvalidInput, "destination %s is %s itself or inside it", destination, source)
	}
	return src, dst, nil
}

type movePathInput struct {
	Source      string `json:"source" jsonschema:"path to move (a symlink, not its target)"`
	Destination string `json:"destination" jsonschema:"new path (not a folder to move into)"`
	Overwrite   bool   `json:"overwrite,omitempty" jsonschema:"replace what is at destination (not a non-empty directory)"`
}

type pathOpOutput struct {
	Source      string `json:"source,omitempty"`
	Destination string `json:"destination,omitempty"`
	Path        string `json:"path,omitempty"`
	Entries     int    `json:"entries" jsonschema:"files, directories and symlinks moved, copied or deleted"`
	Bytes       int64  `json:"bytes,omitempty" jsonschema:"file bytes copied"`
	Replaced    bool   `json:"replaced,omitempty" jsonschema:"an existing destination was replaced"`
}

// Text says what was done.
func (o pathOpOutput) Text() string {
	if o.Path != "" {
		return fmt.Sprintf("deleted %s (%d entries)", o.Path, o.Entries)
	}
	s := fmt.Sprintf("%s -> %s (%d entries", o.Source, o.Destination, o.Entries)
	if o.Bytes > 0 {
		s += fmt.Sprintf(", %d bytes", o.Bytes)
	}
	if o.Replaced {
		s += ", replaced the destination"
	}
	return s + ")"
}

func (sh *shell) movePath(ctx context.Context, _ *mcp.CallToolRequest, in movePathInput) (*mcp.CallToolResult, pathOpOutput, error) {
	var out pathOpOutput
	src, dst, err := sh.twoEnds(in.Source, in.Destination)
	if err != nil {
		return nil, out, err
	}
	if _, err := os.Lstat(src); err != nil {
		return nil, out, fileError(in.Source, err)
	}
	_, err = os.Lstat(dst)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, out, fileError(in.Destination, err)
	case exists && !in.Overwrite:
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s exists; set overwrite to replace it", in.Destination)
	}
	if exists {
		err = os.Rename(src, dst)
	} else {
		err = unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	}
	switch {
	case errors.Is(err, syscall.EXDEV):
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s and %s are on different filesystems; use copy_path, then delete_path", in.Source, in.Destination)
	case errors.Is(err, syscall.EEXIST) && !exists:
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s was created meanwhile; set overwrite to replace it", in.Destination)
	case errors.Is(err, syscall.EEXIST), errors.Is(err, syscall.ENOTEMPTY):
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s is a non-empty directory; delete it first", in.Destination)
	case errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "cannot replace %s: a directory and a non-directory cannot replace each other", in.Destination)
	case err != nil:
		return nil, out, fileError(in.Source, err)
	}
	sh.log.Info("path moved", "tool", "move_path", "caller", kit.Caller(ctx), "source", src, "destination", dst, "replaced", exists)
	return nil, pathOpOutput{Source: src, Destination: dst, Entries: 1, Replaced: exists}, nil
}

type copyPathInput struct {
	Source      string `json:"source" schema:"bare=true"`
	Destination string `json:"destination" jsonschema:"new path (not a folder to copy into)"`
	Overwrite   bool   `json:"overwrite,omitempty" jsonschema:"replace an existing file at destination"`
}

func (sh *shell) copyPath(ctx context.Context, _ *mcp.CallToolRequest, in copyPathInput) (*mcp.CallToolResult, pathOpOutput, error) {
	var out pathOpOutput
	src, dst, err := sh.twoEnds(in.Source, in.Destination)
	if err != nil {
		return nil, out, err
	}
	if src, err = sh.path(src); err != nil { // a top-level symlink is copied as what it points to, if that is inside the roots
		return nil, out, err
	}
	if slices.Contains(sh.roots.Dirs(), src) || strings.HasPrefix(dst, src+string(filepath.Separator)) {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "source %s leads to an allowed root or to a directory holding destination %s", in.Source, in.Destination)
	}
	info, err := os.Stat(src)
	if err != nil {
		return nil, out, fileError(in.Source, err)
	}
	dinfo, err := os.Lstat(dst)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, out, fileError(in.Destination, err)
	case exists && (info.IsDir() || dinfo.IsDir()):
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s exists and a directory is never replaced; delete it first or pick a new name", in.Destination)
	case exists && !in.Overwrite:
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s exists; set overwrite to replace it", in.Destination)
	case !info.IsDir() && !info.Mode().IsRegular():
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s is neither a regular file nor a directory", in.Source)
	}
	if !info.IsDir() {
		if info.Size() > maxCopyBytes {
			return nil, out, kit.Errorf(kit.CodeLimit, "%s is %d bytes; copy_path copies at most %d", in.Source, info.Size(), maxCopyBytes)
		}
		if err := copyFileAtomic(ctx, src, dst, info.Mode().Perm(), exists); err != nil {
			return nil, out, copyError(in.Destination, err)
		}
		out = pathOpOutput{Source: src, Destination: dst, Entries: 1, Bytes: info.Size(), Replaced: exists}
	} else {
		if out, err = sh.copyTree(ctx, src, dst, in.Source); err != nil {
			return nil, out, err
		}
	}
	sh.log.Info("path copied", "tool", "copy_path", "caller", kit.Caller(ctx), "source", src, "destination", dst, "entries", out.Entries, "bytes", out.Bytes)
	return nil, out, nil
}

// copyTree copies the directory src to the new path dst through a temporary directory beside
// dst, so dst appears whole or not at all; the tree is measured against the caps first.
func (sh *shell) copyTree(ctx context.Context, src, dst, name string) (pathOpOutput, error) {
	out := pathOpOutput{Source: src, Destination: dst}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		out.Entries++
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			out.Bytes += info.Size()
		} else if !d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s is neither a file, a directory nor a symlink", p)
		}
		switch {
		case out.Entries > maxCopyEntries:
			return kit.Errorf(kit.CodeLimit, "%s has more than %d entries; copy_path copies at most that many", name, maxCopyEntries)
		case out.Bytes > maxCopyBytes:
			return kit.Errorf(kit.CodeLimit, "%s holds more than %d bytes; copy_path copies at most that many", name, maxCopyBytes)
		}
		return ctx.Err()
	})
	if err != nil {
		return out, copyError(name, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return out, copyError(name, err)
	}
	defer os.RemoveAll(tmp)
	budget := int64(maxCopyBytes) // files may grow between measuring and copying
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(tmp, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && p == src:
			return os.Chmod(tmp, info.Mode().Perm())
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		}
		return copyFile(ctx, p, to, info.Mode().Perm(), &budget)
	})
	if err == nil {
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	}
	if err != nil {
		return out, copyError(name, err)
	}
	return out, nil
}

// copyFileAtomic copies src to a temporary file beside dst and renames it into place
// (replace) or links it there, failing if dst appeared meanwhile.
func copyFileAtomic(ctx context.Context, src, dst string, mode os.FileMode, replace bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	budget := int64(maxCopyBytes)
	if err := copyInto(ctx, src, tmp, mode, &budget); err != nil {
		return err
	}
	if replace {
		return os.Rename(tmp.Name(), dst)
	}
	return os.Link(tmp.Name(), dst)
}

// copyFile copies the regular file src to the new file dst with mode.
func copyFile(ctx context.Context, src, dst string, mode os.FileMode, budget *int64) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	return copyInto(ctx, src, out, mode, budget)
}

// copyInto copies the file src into out, sets mode on it and closes it, taking the bytes
// from budget and failing when the file holds more than is left.
func copyInto(ctx context.Context, src string, out *os.File, mode os.FileMode, budget *int64) error {
	in, err := os.Open(src)
	if err != nil {
		out.Close()
		return err
	}
	defer in.Close()
	n, err := io.Copy(out, io.LimitReader(readerWithContext{ctx, in}, *budget+1))
	if *budget -= n; err == nil && *budget < 0 {
		err = kit.Errorf(kit.CodeLimit, "%s grew past the %d-byte copy limit while being copied; nothing was copied", src, maxCopyBytes)
	}
	if err == nil {
		err = out.Chmod(mode) // the umask may have narrowed it
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

type readerWithContext struct {
	ctx context.Context
	r   io.Reader
}

func (r readerWithContext) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

func copyError(name string, err error) error {
	var te *kit.Error
	if errors.As(err, &te) {
		return err
	}
	if errors.Is(err, fs.ErrExist) {
		return kit.Errorf(kit.CodeInvalidInput, "%s was created by someone else meanwhile; nothing was replaced", name)
	}
	return fileError(name, err)
}

type deletePathInput struct {
	Path      string `json:"path" jsonschema:"file, symlink (not its target) or directory"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"delete a non-empty directory and everything in it"`
}

func (sh *shell) deletePath(ctx context.Context, _ *mcp.CallToolRequest, in deletePathInput) (*mcp.CallToolResult, pathOpOutput, error) {
	var out pathOpOutput
	p, err := sh.target(in.Path, "path")
	if err != nil {
		return nil, out, err
	}
	info, err := os.Lstat(p)
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	out.Path, out.Entries = p, 1
	switch {
	case !info.IsDir():
		err = os.Remove(p)
	case in.Recursive:
		out.Entries = 0
		_ = filepath.WalkDir(p, func(string, fs.DirEntry, error) error { out.Entries++; return nil })
		err = os.RemoveAll(p)
	default:
		err = os.Remove(p)
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "directory %s is not empty; set recursive to delete it and everything in it", in.Path)
		}
	}
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	sh.log.Info("path deleted", "tool", "delete_path", "caller", kit.Caller(ctx), "path", p, "entries", out.Entries)
	return nil, out, nil
}
