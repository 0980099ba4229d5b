package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// list_directory limits.
const maxListVisits = 100000

func addInfoTools(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "get_path_info",
		Toolset:     toolsetFiles,
		Title:       "Get path info",
		Description: "Size, mode, owner, type and modification time of a path.",
		ReadOnly:    true,
	}, sh.getPathInfo)
	kit.AddTool(s, kit.Tool{
		Name:        "list_directory",
		Toolset:     toolsetFiles,
		Title:       "List directory",
		Description: "List a directory to a depth, with type, size and modification time, paged.",
		ReadOnly:    true,
	}, sh.listDirectory)
}

type getPathInfoInput struct {
	Path string `json:"path" jsonschema:"path; a final symlink is not followed"`
}

type fileInfoOutput struct {
	Path          string `json:"path" jsonschema:"absolute, with the folders above it resolved through symlinks"`
	Type          string `json:"type" jsonschema:"file, dir, symlink or other"`
	Size          int64  `json:"size"`
	Mode          string `json:"mode" jsonschema:"permission bits in octal, e.g. 0644"`
	ModeString    string `json:"mode_string" jsonschema:"as ls shows it, e.g. -rw-r--r--"`
	Owner         string `json:"owner" jsonschema:"user name, or the numeric id when it has none"`
	Group         string `json:"group" jsonschema:"group name, or the numeric id when it has none"`
	Modified      string `json:"modified" jsonschema:"RFC 3339, UTC"`
	SymlinkTarget string `json:"symlink_target,omitempty" jsonschema:"what a symlink points to, as written in it"`
	TargetInRoots bool   `json:"target_in_roots,omitempty" jsonschema:"a symlink whose target resolves inside the allowed roots"`
}

// Text is one line like ls -l.
func (o fileInfoOutput) Text() string {
	s := fmt.Sprintf("%s %s %s %d %s %s (%s)", o.ModeString, o.Owner, o.Group, o.Size, o.Modified, o.Path, o.Type)
	if o.SymlinkTarget != "" {
		s += " -> " + o.SymlinkTarget
	}
	return s
}

func (sh *shell) getPathInfo(_ context.Context, _ *mcp.CallToolRequest, in getPathInfoInput) (*mcp.CallToolResult, fileInfoOutput, error) {
	var out fileInfoOutput
	p, err := sh.entry(in.Path)
	if err != nil {
		return nil, out, err
	}
	info, err := p.Root.Lstat(p.Rel)
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	out = describe(p.Abs, info)
	if out.Type == "symlink" {
		if out.SymlinkTarget, err = p.Root.Readlink(p.Rel); err != nil {
			return nil, out, fileError(in.Path, err)
		}
		_, err := sh.roots.Resolve(p.Abs, sh.workDir)
		out.TargetInRoots = err == nil
	}
	return nil, out, nil
}

func describe(p string, info fs.FileInfo) fileInfoOutput {
	out := fileInfoOutput{
		Path:       p,
		Type:       entryType(info.Mode()),
		Size:       info.Size(),
		Mode:       fmt.Sprintf("%04o", info.Mode().Perm()),
		ModeString: info.Mode().String(),
		Modified:   info.ModTime().UTC().Format(time.RFC3339),
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		out.Mode = fmt.Sprintf("%04o", st.Mode&0o7777)
		uid, gid := strconv.FormatUint(uint64(st.Uid), 10), strconv.FormatUint(uint64(st.Gid), 10)
		out.Owner, out.Group = uid, gid
		if u, err := user.LookupId(uid); err == nil {
			out.Owner = u.Username
		}
		if g, err := user.LookupGroupId(gid); err == nil {
			out.Group = g.Name
		}
	}
	return out
}

func entryType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

type listDirectoryInput struct {
	Path   string `json:"path,omitempty" jsonschema:"directory; default the work directory"`
	Depth  int    `json:"depth,omitempty" jsonschema:"levels; 1: the directory's own entries" schema:"minimum=1,maximum=10,default=1"`
	Offset int    `json:"offset,omitempty" jsonschema:"from next_offset" schema:"minimum=0"`
	Limit  int    `json:"limit,omitempty" schema:"minimum=1,maximum=2000,default=500,bare=true"`
}

type listDirectoryOutput struct {
	Path       string      `json:"path"`
	Entries    []fileEntry `json:"entries" jsonschema:"sorted by path, a directory before what is in it; symlinks are listed, not followed"`
	NextOffset int         `json:"next_offset,omitempty" jsonschema:"pass as offset for the next page; absent on the last page"`
	Truncated  bool        `json:"truncated" jsonschema:"more entries than this page, or the listing stopped at its visit limit"`
}

// Text lists the entries like find_files, with a marker when there are more.
func (o listDirectoryOutput) Text() string {
	var b strings.Builder
	for _, e := range o.Entries {
		suffix := ""
		if e.Type == "dir" {
			suffix = "/"
		}
		fmt.Fprintf(&b, "%s%s\t%d\t%s\n", e.Path, suffix, e.Size, e.Modified)
	}
	if len(o.Entries) == 0 {
		b.WriteString("empty\n")
	}
	if o.NextOffset != 0 {
		fmt.Fprintf(&b, "[more entries; continue with offset %d]\n", o.NextOffset)
	} else if o.Truncated {
		b.WriteString("[listing stopped at its visit limit; list a subdirectory]\n")
	}
	return b.String()
}

func (sh *shell) listDirectory(ctx context.Context, _ *mcp.CallToolRequest, in listDirectoryInput) (*mcp.CallToolResult, listDirectoryOutput, error) {
	var out listDirectoryOutput
	root, dir, err := sh.dir(in.Path)
	if err != nil {
		return nil, out, err
	}
	defer dir.Close()
	out.Path, out.Entries = root.Abs, []fileEntry{}
	seen := 0
	errStop := errors.New("stop")
	err = fs.WalkDir(dir.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && rel != "." {
				return fs.SkipDir // an unreadable directory is listed but not entered
			}
			return err
		}
		if rel == "." {
			return nil
		}
		if ctx.Err() != nil || seen >= maxListVisits {
			out.Truncated = true
			return errStop
		}
		depth := strings.Count(rel, "/") + 1
		seen++
		switch {
		case seen <= in.Offset:
		case len(out.Entries) >= in.Limit:
			out.Truncated, out.NextOffset = true, seen-1
			return errStop
		default:
			out.Entries = append(out.Entries, entry(rel, d))
		}
		if d.IsDir() && depth >= in.Depth {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, out, fileError(in.Path, err)
	}
	return nil, out, ctx.Err()
}
