package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/servers/shell/resolver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// File tool limits.
const (
	maxFindVisits = 200000
	maxHashBytes  = 32 << 20 // files larger than this are read without a content hash
	maxWriteBytes = 4 << 20
)

func addFileTools(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "find_files",
		Toolset:     toolsetFiles,
		Title:       "Find files",
		Description: "Find files under a directory by name substring or glob, with type, size and modification time.",
		ReadOnly:    true,
	}, sh.findFiles)
	kit.AddTool(s, kit.Tool{
		Name:        "read_text_file",
		Toolset:     toolsetFiles,
		Title:       "Read text file",
		Description: "Read lines of a text file from a 1-based line, with its sha256 for write_text_file.",
		ReadOnly:    true,
	}, sh.readTextFile)
	kit.AddTool(s, kit.Tool{
		Name:        "write_text_file",
		Toolset:     toolsetEdit,
		Title:       "Write text file",
		Description: "Write a text file atomically; replaces an existing file only with overwrite or a matching expected_sha256.",
		Destructive: true,
		Idempotent:  true,
	}, sh.writeTextFile)
	addEditTool(s, sh)
	addInfoTools(s, sh)
	addPathTools(s, sh)
	addSearchTool(s, sh)
	addDocumentTool(s, sh)
}

type findFilesInput struct {
	Root       string `json:"root,omitempty" jsonschema:"directory; default the work directory"`
	Pattern    string `json:"pattern" jsonschema:"glob such as '*.go', or a name substring" schema:"minLength=1"`
	Type       string `json:"type,omitempty" schema:"enum=file|dir|any,default=any,bare=true"`
	MaxResults int    `json:"max_results,omitempty" schema:"minimum=1,maximum=1000,default=200,bare=true"`
	MaxDepth   int    `json:"max_depth,omitempty" jsonschema:"levels below root; 0: no limit" schema:"minimum=0"`
	AllDirs    bool   `json:"include_all_dirs,omitempty" jsonschema:"also search .git, node_modules and the like"`
}

type fileEntry struct {
	Path     string `json:"path" jsonschema:"relative to root"`
	Type     string `json:"type" jsonschema:"file, dir, symlink or other"`
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
}

type findFilesOutput struct {
	Root      string      `json:"root"`
	Files     []fileEntry `json:"files"`
	Truncated bool        `json:"truncated" jsonschema:"more matched than returned, or the search stopped early"`
	Skipped   []string    `json:"skipped_dirs,omitempty" jsonschema:"folders not entered (at most 5 named), as .git and node_modules are by default"`
	MoreSkip  int         `json:"more_skipped_dirs,omitempty" jsonschema:"further folders not entered"`
}

// Text lists the paths, one a line.
func (o findFilesOutput) Text() string {
	var b strings.Builder
	for _, f := range o.Files {
		suffix := ""
		if f.Type == "dir" {
			suffix = "/"
		}
		fmt.Fprintf(&b, "%s%s\n", f.Path, suffix)
	}
	if len(o.Files) == 0 {
		b.WriteString("no matches\n")
	}
	if o.Truncated {
		b.WriteString("[more matches not shown; narrow the pattern or root]\n")
	}
	b.WriteString(skipNote(o.Skipped, o.MoreSkip))
	return b.String()
}

func (sh *shell) findFiles(ctx context.Context, _ *mcp.CallToolRequest, in findFilesInput) (*mcp.CallToolResult, findFilesOutput, error) {
	var out findFilesOutput
	glob := strings.ContainsAny(in.Pattern, "*?[")
	if glob {
		if _, err := filepath.Match(in.Pattern, ""); err != nil {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "pattern %q is not a valid glob: %v", in.Pattern, err)
		}
	}
	limit := in.MaxResults
	root, dir, err := sh.dir(in.Root)
	if err != nil {
		return nil, out, err
	}
	defer dir.Close()
	out.Root, out.Files = root.Abs, []fileEntry{}
	needle := strings.ToLower(in.Pattern)
	visits := 0
	skip := skips{all: in.AllDirs}
	errStop := errors.New("stop")
	err = fs.WalkDir(dir.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && rel != "." {
				return fs.SkipDir // unreadable directories are skipped
			}
			return err
		}
		if visits++; visits > maxFindVisits || ctx.Err() != nil {
			out.Truncated = true
			return errStop
		}
		if rel == "." {
			return nil
		}
		if in.MaxDepth > 0 && strings.Count(rel, "/") >= in.MaxDepth {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if matchEntry(rel, d, in.Pattern, needle, glob, in.Type) {
			if len(out.Files) >= limit {
				out.Truncated = true
				return errStop
			}
			out.Files = append(out.Files, entry(rel, d))
		}
		if d.IsDir() && skip.skip(filepath.ToSlash(rel), d.Name()) {
			return filepath.SkipDir // listed when it matches, not entered
		}
		return nil
	})
	out.Skipped, out.MoreSkip = skip.names, skip.more()
	if err != nil && !errors.Is(err, errStop) {
		return nil, out, fileError(root.Abs, err)
	}
	return nil, out, nil
}

func matchEntry(rel string, d fs.DirEntry, pattern, needle string, glob bool, typ string) bool {
	switch {
	case typ == "file" && !d.Type().IsRegular():
		return false
	case typ == "dir" && !d.IsDir():
		return false
	}
	if !glob {
		return strings.Contains(strings.ToLower(d.Name()), needle)
	}
	subject := d.Name()
	if strings.Contains(pattern, "/") {
		subject = filepath.ToSlash(rel)
	}
	ok, _ := filepath.Match(pattern, subject)
	return ok
}

func entry(rel string, d fs.DirEntry) fileEntry {
	e := fileEntry{Path: filepath.ToSlash(rel), Type: "other"}
	switch {
	case d.IsDir():
		e.Type = "dir"
	case d.Type().IsRegular():
		e.Type = "file"
	case d.Type()&fs.ModeSymlink != 0:
		e.Type = "symlink"
	}
	if info, err := d.Info(); err == nil {
		e.Size = info.Size()
		e.Modified = info.ModTime().UTC().Format(time.RFC3339)
	}
	return e
}

type readTextFileInput struct {
	Path   string `json:"path" jsonschema:"file path, absolute or relative to the work dir"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line, 1-based" schema:"minimum=0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to return" schema:"minimum=1,maximum=5000,default=500"`
}

type readTextFileOutput struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	StartLine  int    `json:"start_line"`
	Lines      int    `json:"lines" jsonschema:"lines returned"`
	NextOffset int    `json:"next_offset,omitempty" jsonschema:"pass as offset to read on; absent at the end of the file"`
	Truncated  bool   `json:"truncated" jsonschema:"stopped at the byte limit, possibly inside a line"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256,omitempty" jsonschema:"of the whole file; give it to write_text_file as expected_sha256"`
}

// Text is the content, then a status line with the hash write_text_file and edit_file check
// and where to read on.
func (o readTextFileOutput) Text() string {
	var status []string
	if o.NextOffset != 0 {
		status = append(status, fmt.Sprintf("lines %d-%d shown; continue with offset %d", o.StartLine, o.StartLine+o.Lines-1, o.NextOffset))
	}
	if o.Truncated {
		status = append(status, "the last line is cut (truncated)")
	}
	if o.SHA256 != "" {
		status = append(status, "sha256 "+o.SHA256)
	}
	if len(status) == 0 {
		return o.Content
	}
	return fmt.Sprintf("%s\n[%s]", strings.TrimSuffix(o.Content, "\n"), strings.Join(status, "; "))
}

func (sh *shell) readTextFile(ctx context.Context, _ *mcp.CallToolRequest, in readTextFileInput) (*mcp.CallToolResult, readTextFileOutput, error) {
	var out readTextFileOutput
	start := max(in.Offset, 1)
	limit := in.Limit
	p, f, info, err := sh.openRegular(in.Path)
	if err != nil {
		return nil, out, err
	}
	defer f.Close()
	out.Path, out.Size, out.StartLine = p.Abs, info.Size(), start
	hash := sha256.New()
	var src io.Reader = f
	if info.Size() <= maxHashBytes {
		src = io.TeeReader(f, hash)
	}
	r := bufio.NewReaderSize(src, 64<<10)
	head, _ := r.Peek(8 << 10)
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s looks binary (it has NUL bytes); read a PDF, Word or Excel file or an image with read_document, anything else with run_command (e.g. xxd or file)", in.Path)
	}
	var content bytes.Buffer
	hashing := info.Size() <= maxHashBytes
	lineNo := 1 // the line the next byte read belongs to
	for ctx.Err() == nil {
		chunk, err := r.ReadSlice('\n')
		partial := errors.Is(err, bufio.ErrBufferFull)
		if len(chunk) > 0 && lineNo >= start {
			switch {
			case out.Lines >= limit || out.Truncated:
				if out.NextOffset == 0 {
					out.NextOffset = lineNo
				}
			case len(chunk) > sh.outputLimit-content.Len():
				content.Write(chunk[:sh.outputLimit-content.Len()])
				out.Truncated, out.Lines, out.NextOffset = true, out.Lines+1, lineNo+1
			default:
				content.Write(chunk)
				if !partial {
					out.Lines++
				}
			}
		}
		if err == nil {
			lineNo++
		}
		if (err != nil && !partial) || (out.NextOffset != 0 && !hashing) {
			break
		}
	}
	if ctx.Err() != nil {
		return nil, out, ctx.Err()
	}
	if info.Size() <= maxHashBytes {
		out.SHA256 = hex.EncodeToString(hash.Sum(nil))
	}
	out.Content = strings.ToValidUTF8(content.String(), "\uFFFD")
	return nil, out, nil
}

type writeTextFileInput struct {
	Path           string `json:"path" jsonschema:"file path, absolute or relative to the work dir"`
	Content        string `json:"content" jsonschema:"the file's whole new content"`
	Overwrite      bool   `json:"overwrite,omitempty" jsonschema:"replace an existing file without checking its content"`
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema:"replace only if the file's sha256 from read_text_file is still this"`
	CreateParents  bool   `json:"create_parents,omitempty" jsonschema:"create missing parent folders"`
}

type writeTextFileOutput struct {
	Path    string `json:"path"`
	Bytes   int    `json:"bytes"`
	SHA256  string `json:"sha256"`
	Created bool   `json:"created"`
	Folder  string `json:"created_folder,omitempty" jsonschema:"the outermost folder create_parents made"`
}

// Text says what was written.
func (o writeTextFileOutput) Text() string {
	verb := "replaced"
	if o.Created {
		verb = "created"
	}
	s := fmt.Sprintf("%s %s (%d bytes, sha256 %s)", verb, o.Path, o.Bytes, o.SHA256)
	if o.Folder != "" {
		s += "; made folder " + o.Folder
	}
	return s
}

func (sh *shell) writeTextFile(ctx context.Context, _ *mcp.CallToolRequest, in writeTextFileInput) (*mcp.CallToolResult, writeTextFileOutput, error) {
	var out writeTextFileOutput
	if len(in.Content) > maxWriteBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "content is %d bytes; at most %d", len(in.Content), maxWriteBytes)
	}
	p, err := sh.path(in.Path)
	if err != nil {
		return nil, out, err
	}
	if p.IsRoot() {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s exists and is not a regular file", in.Path)
	}
	folder, err := parents(in.Path, p, in.CreateParents)
	if err != nil {
		return nil, out, err
	}
	dir, name, err := p.Parent()
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	defer dir.Close()
	mode := os.FileMode(0o644)
	info, err := dir.Lstat(name)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, out, fileError(in.Path, err)
	case exists && !info.Mode().IsRegular():
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s exists and is not a regular file", in.Path)
	case exists && in.ExpectedSHA256 != "":
		current, err := fileHash(dir, name)
		if err != nil {
			return nil, out, fileError(in.Path, err)
		}
		if !strings.EqualFold(current, in.ExpectedSHA256) {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s changed since it was read (sha256 %s, expected %s); read it again and redo the edit", in.Path, current, in.ExpectedSHA256)
		}
	case exists && !in.Overwrite:
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s exists; set overwrite, or give expected_sha256 from read_text_file to replace it safely", in.Path)
	case !exists && in.ExpectedSHA256 != "":
		return nil, out, kit.Errorf(kit.CodeNotFound, "%s does not exist, so it cannot match expected_sha256", in.Path)
	}
	if exists {
		mode = info.Mode().Perm()
	}
	err = atomicWrite(dir, name, []byte(in.Content), mode, exists)
	if errors.Is(err, fs.ErrExist) {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s was created by someone else meanwhile; read it and try again", in.Path)
	}
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	sum := sha256.Sum256([]byte(in.Content))
	sh.log.Info("file written", "tool", "write_text_file", "caller", kit.Caller(ctx), "path", p.Abs, "bytes", len(in.Content), "created", !exists)
	return nil, writeTextFileOutput{Path: p.Abs, Bytes: len(in.Content), SHA256: hex.EncodeToString(sum[:]), Created: !exists, Folder: folder}, nil
}

// parents makes sure the folder of p exists (arg as the caller gave it): it makes the missing
// folders when create is set, beneath p's root so that no symlink leads them out, and
// answers with the outermost it made; or it refuses, saying how.
func parents(arg string, p resolver.Path, create bool) (string, error) {
	dir := filepath.Dir(p.Rel)
	outer := ""
	for d := dir; d != "."; d = filepath.Dir(d) {
		info, err := p.Root.Stat(d)
		if err == nil {
			if !info.IsDir() {
				return "", kit.Errorf(kit.CodeInvalidInput, "%s is not a folder, so %s cannot be written", d, arg)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fileError(d, err)
		}
		outer = d
	}
	if outer == "" {
		return "", nil
	}
	shown := filepath.Join(strings.TrimSuffix(p.Abs, p.Rel), outer)
	if !create {
		return "", kit.Errorf(kit.CodeNotFound, "folder %s does not exist; set create_parents to make it", shown)
	}
	if err := p.Root.MkdirAll(dir, 0o755); err != nil {
		return "", fileError(shown, err)
	}
	return shown, nil
}

// atomicWrite writes content to a temporary file in dir and renames it over name (replace)
// or links it to name, failing with fs.ErrExist if name appeared meanwhile (create).
func atomicWrite(dir *os.Root, name string, content []byte, mode os.FileMode, replace bool) error {
	onExist := rootdir.Refuse
	if replace {
		onExist = rootdir.Replace
	}
	_, _, err := rootdir.Save(dir, name, bytes.NewReader(content), int64(len(content)), mode, onExist)
	return err
}

// fileHash is the sha256 of the file name in dir.
func fileHash(dir *os.Root, name string) (string, error) {
	f, err := dir.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
