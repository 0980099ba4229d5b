package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// copy_path limits, checked over the whole source before anything is copied.
const (
	maxCopyBytes   = 512 << 20
	maxCopyEntries = 10000
)

type copyPathInput struct {
	Source      string `json:"source" jsonschema:"path to copy"`
	Destination string `json:"destination" jsonschema:"new path (not a folder to copy into)"`
	Overwrite   bool   `json:"overwrite,omitempty" jsonschema:"replace an existing file at destination"`
}

// copyPath copies through the roots: the source is read only through its root (a directory
// through a root opened on it), the destination is made in a temporary entry of its held
// parent directory and renamed into place there, so a symlink swapped in anywhere on either
// side leads nowhere outside.
func (sh *shell) copyPath(ctx context.Context, _ *mcp.CallToolRequest, in copyPathInput) (*mcp.CallToolResult, pathOpOutput, error) {
	var out pathOpOutput
	srcEntry, dst, err := sh.twoEnds(in.Source, in.Destination)
	if err != nil {
		return nil, out, err
	}
	src, err := sh.path(srcEntry.Abs) // a top-level symlink is copied as what it points to, if that is inside the roots
	if err != nil {
		return nil, out, err
	}
	if src.IsRoot() || dst.Abs == src.Abs || strings.HasPrefix(dst.Abs, src.Abs+string(filepath.Separator)) {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "source %s leads to an allowed root or to a directory holding destination %s", in.Source, in.Destination)
	}
	info, err := src.Root.Lstat(src.Rel)
	if err != nil {
		return nil, out, fileError(in.Source, err)
	}
	ddir, dname, err := dst.Parent()
	if err != nil {
		return nil, out, fileError(in.Destination, err)
	}
	defer ddir.Close()
	dinfo, err := ddir.Lstat(dname)
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
		n, err := copyFileAtomic(ctx, src.Root, src.Rel, ddir, dname, info.Mode().Perm(), exists)
		if err != nil {
			return nil, out, copyError(in.Source, in.Destination, err)
		}
		out = pathOpOutput{Source: src.Abs, Destination: dst.Abs, Entries: 1, Bytes: n, Replaced: exists}
	} else {
		sroot, err := src.Root.OpenRoot(src.Rel)
		if err != nil {
			return nil, out, fileError(in.Source, err)
		}
		defer sroot.Close()
		out = pathOpOutput{Source: src.Abs, Destination: dst.Abs}
		if out.Entries, out.Bytes, err = copyTree(ctx, sroot, ddir, dname, in.Source); err != nil {
			return nil, out, copyError(in.Source, in.Destination, err)
		}
	}
	sh.log.Info("path copied", "tool", "copy_path", "caller", kit.Caller(ctx), "source", src.Abs, "destination", dst.Abs, "entries", out.Entries, "bytes", out.Bytes)
	return nil, out, nil
}

// copyFileAtomic copies the file name beneath src into a temporary file in dir and renames
// it over dst (replace) or links it to dst, failing if dst appeared meanwhile. It returns
// the bytes copied.
func copyFileAtomic(ctx context.Context, src *os.Root, name string, dir *os.Root, dst string, mode os.FileMode, replace bool) (int64, error) {
	in, err := openRegular(src, name)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	onExist := rootdir.Refuse
	if replace {
		onExist = rootdir.Replace
	}
	_, n, err := rootdir.Save(dir, dst, readerWithContext{ctx, in}, maxCopyBytes, mode, onExist)
	return n, err
}

// openRegular opens name beneath root for reading and checks that what was opened is a
// regular file.
func openRegular(root *os.Root, name string) (*os.File, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is no longer a regular file", name)
	}
	return f, nil
}

// copyTree copies the directory src (a root opened on it) to the new entry dst of dir,
// through a temporary directory beside it, so dst appears whole or not at all; the tree is
// measured against the caps first. It returns the entries and file bytes measured.
func copyTree(ctx context.Context, src *os.Root, dir *os.Root, dst, name string) (entries int, size int64, err error) {
	err = fs.WalkDir(src.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		entries++
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			size += info.Size()
		} else if !d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s is neither a file, a directory nor a symlink", p)
		}
		switch {
		case entries > maxCopyEntries:
			return kit.Errorf(kit.CodeLimit, "%s has more than %d entries; copy_path copies at most that many", name, maxCopyEntries)
		case size > maxCopyBytes:
			return kit.Errorf(kit.CodeLimit, "%s holds more than %d bytes; copy_path copies at most that many", name, maxCopyBytes)
		}
		return ctx.Err()
	})
	if err != nil {
		return entries, size, err
	}
	tmp, err := rootdir.MkdirTemp(dir, "", "."+dst+".tmp-*")
	if err != nil {
		return entries, size, err
	}
	defer func() { _ = dir.RemoveAll(tmp) }() // gone after the rename
	to, err := dir.OpenRoot(tmp)
	if err != nil {
		return entries, size, err
	}
	defer to.Close()
	budget := int64(maxCopyBytes) // files may grow between measuring and copying
	err = fs.WalkDir(src.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && p == ".":
			return chmodDir(to, ".", info.Mode().Perm())
		case d.IsDir():
			return to.Mkdir(p, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			link, err := src.Readlink(p)
			if err != nil {
				return err
			}
			return to.Symlink(link, p)
		}
		return copyFile(ctx, src, to, p, info.Mode().Perm(), &budget)
	})
	if err == nil {
		err = rootdir.Rename(dir, tmp, dir, dst, true)
	}
	return entries, size, err
}

// chmodDir sets the mode of the directory name beneath root through a descriptor of it.
func chmodDir(root *os.Root, name string, mode os.FileMode) error {
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(mode)
}

// copyFile copies the regular file name beneath src to the new file of that name beneath
// dst with mode, taking its bytes from budget and failing when it holds more than is left.
func copyFile(ctx context.Context, src, dst *os.Root, name string, mode os.FileMode, budget *int64) error {
	in, err := openRegular(src, name)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dst.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(readerWithContext{ctx, in}, *budget+1))
	if *budget -= n; err == nil && *budget < 0 {
		err = rootdir.ErrTooLarge
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

func copyError(source, destination string, err error) error {
	var te *kit.Error
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, rootdir.ErrTooLarge):
		return kit.Errorf(kit.CodeLimit, "%s grew past the %d-byte copy limit while being copied; nothing was copied", source, maxCopyBytes)
	case errors.Is(err, fs.ErrExist):
		return kit.Errorf(kit.CodeInvalidInput, "%s was created by someone else meanwhile; nothing was replaced", destination)
	}
	return fileError(source, err)
}
