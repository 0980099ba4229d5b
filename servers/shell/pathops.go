package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jck411/mcp-servers/servers/shell/resolver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func addPathTools(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "move_path",
		Toolset:     toolsetEdit,
		Title:       "Move path",
		Description: "Move or rename a file, directory or symlink; replaces a destination only with overwrite.",
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

// twoEnds resolves a source and a destination, refusing a destination inside the source.
func (sh *shell) twoEnds(source, destination string) (src, dst resolver.Path, err error) {
	if src, err = sh.target(source, "source"); err != nil {
		return src, dst, err
	}
	if dst, err = sh.target(destination, "destination"); err != nil {
		return src, dst, err
	}
	if dst.Abs == src.Abs || strings.HasPrefix(dst.Abs, src.Abs+string(filepath.Separator)) {
		return src, dst, kit.Errorf(kit.CodeInvalidInput, "destination %s is %s itself or inside it", destination, source)
	}
	return src, dst, nil
}

type movePathInput struct {
	Source      string `json:"source" jsonschema:"path to move (a symlink, not its target)"`
	Destination string `json:"destination" jsonschema:"new path (not a folder to move into)"`
	Overwrite   bool   `json:"overwrite,omitempty" jsonschema:"replace what is at destination (not a full directory)"`
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
	sdir, sname, err := src.Parent()
	if err != nil {
		return nil, out, fileError(in.Source, err)
	}
	defer sdir.Close()
	ddir, dname, err := dst.Parent()
	if err != nil {
		return nil, out, fileError(in.Destination, err)
	}
	defer ddir.Close()
	if _, err := sdir.Lstat(sname); err != nil {
		return nil, out, fileError(in.Source, err)
	}
	_, err = ddir.Lstat(dname)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, out, fileError(in.Destination, err)
	case exists && !in.Overwrite:
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "destination %s exists; set overwrite to replace it", in.Destination)
	}
	err = rootdir.Rename(sdir, sname, ddir, dname, !exists)
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
	sh.log.Info("path moved", "tool", "move_path", "caller", kit.Caller(ctx), "source", src.Abs, "destination", dst.Abs, "replaced", exists)
	return nil, pathOpOutput{Source: src.Abs, Destination: dst.Abs, Entries: 1, Replaced: exists}, nil
}

type deletePathInput struct {
	Path      string `json:"path" jsonschema:"file, symlink (not its target) or directory"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"delete a non-empty directory too"`
}

func (sh *shell) deletePath(ctx context.Context, _ *mcp.CallToolRequest, in deletePathInput) (*mcp.CallToolResult, pathOpOutput, error) {
	var out pathOpOutput
	p, err := sh.target(in.Path, "path")
	if err != nil {
		return nil, out, err
	}
	dir, name, err := p.Parent()
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	defer dir.Close()
	info, err := dir.Lstat(name)
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	out.Path, out.Entries = p.Abs, 1
	switch {
	case !info.IsDir():
		err = dir.Remove(name)
	case in.Recursive:
		out.Entries = 0
		_ = fs.WalkDir(dir.FS(), name, func(string, fs.DirEntry, error) error { out.Entries++; return nil })
		err = dir.RemoveAll(name)
	default:
		err = dir.Remove(name)
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "directory %s is not empty; set recursive to delete it and everything in it", in.Path)
		}
	}
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	sh.log.Info("path deleted", "tool", "delete_path", "caller", kit.Caller(ctx), "path", p.Abs, "entries", out.Entries)
	return nil, out, nil
}
