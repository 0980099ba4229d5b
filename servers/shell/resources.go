package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/servers/shell/resolver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fileTemplate is a text file inside the allowed roots as a resource, by its absolute path:
// file:///home/me/notes.txt.
const fileTemplate = "file://{+path}"

// Resource limits: the bytes one read returns, the directory entries one completion reads.
const (
	maxResourceBytes = 1 << 20
	completionReads  = 1000
)

// addResources offers the text files inside the roots as a read-only resource template beside
// read_text_file: read through the same os.Root containment as the file tools, never by a path
// string opened again; absolute paths complete from the directories they name.
func addResources(s *kit.Server, sh *shell) {
	s.AddResourceTemplate(kit.ResourceTemplate{
		Tool: "read_text_file",
		Template: &mcp.ResourceTemplate{
			Name: "file", Title: "File", URITemplate: fileTemplate,
			Description: "A text file inside the allowed roots, by its absolute path (file:///home/me/plans.txt); read-only, up to 1 MiB.",
		},
		Read:     sh.readResource,
		Complete: sh.completeFile,
	})
}

// fileURI is the resource URI of the file at the absolute path abs.
func fileURI(abs string) string { return kit.ExpandURI(fileTemplate, map[string]string{"path": abs}) }

// readResource reads a text file a file:// URI names, whole, through its root.
func (sh *shell) readResource(_ context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
	name := vars["path"]
	if !filepath.IsAbs(name) {
		return nil, fmt.Errorf("%s: give an absolute path, file:///PATH", uri)
	}
	p, f, info, err := sh.openRegular(name)
	if err != nil {
		var ke *kit.Error
		var outside *resolver.OutsideError
		if errors.As(err, &ke) && ke.Code == kit.CodeNotFound || errors.As(err, &outside) {
			return nil, fmt.Errorf("%w: %w", kit.ErrResourceNotFound, err)
		}
		return nil, err
	}
	defer f.Close()
	if info.Size() > maxResourceBytes {
		return nil, fmt.Errorf("%s is %d KiB, over the %d KiB a resource reads: read it with read_text_file, a part at a time", p.Abs, info.Size()>>10, maxResourceBytes>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, fileError(name, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%s looks binary (it has NUL bytes): read a PDF, Word or Excel file or an image with read_document", p.Abs)
	}
	mimeType, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(p.Abs)), ";") // the text is UTF-8 whatever the table says
	if mimeType == "" || !strings.HasPrefix(mimeType, "text/") && !strings.Contains(mimeType, "json") && !strings.Contains(mimeType, "xml") {
		mimeType = "text/plain"
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: fileURI(p.Abs), MIMEType: mimeType, Text: text}}}, nil
}

// completeFile completes an absolute path: the allowed roots for nothing typed, else the
// entries of the directory typed so far whose names start with the rest (directories with a
// trailing slash, so the next completion goes on inside them).
func (sh *shell) completeFile(ctx context.Context, _, value string, _ map[string]string) ([]string, error) {
	if !strings.HasPrefix(value, "/") {
		return sh.roots.Dirs(), nil
	}
	dir, prefix := value, ""
	if !strings.HasSuffix(value, "/") {
		dir, prefix = filepath.Dir(value), filepath.Base(value)
	}
	_, d, err := sh.dir(dir)
	if err != nil {
		var out []string // a directory outside the roots completes to the roots that start with it
		for _, r := range sh.roots.Dirs() {
			if strings.HasPrefix(r, value) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	defer d.Close()
	f, err := d.Open(".")
	if err != nil {
		return nil, fileError(dir, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(completionReads)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fileError(dir, err)
	}
	var out []string
	for _, e := range entries {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !strings.HasPrefix(e.Name(), prefix) || strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(prefix, ".") {
			continue
		}
		full := filepath.Join(dir, e.Name())
		if e.IsDir() {
			full += "/"
		}
		out = append(out, full)
	}
	slices.Sort(out)
	return out, nil
}

// ResourceLinks links the files found, for clients that pull a file into the conversation.
func (o findFilesOutput) ResourceLinks() []*mcp.ResourceLink {
	var links []*mcp.ResourceLink
	for _, f := range o.Files {
		if f.Type == "file" {
			links = append(links, kit.ResourceLink(fileURI(filepath.Join(o.Root, f.Path)), f.Path, "", ""))
		}
	}
	return links
}

// ResourceLinks links each file with a match once, in the order found.
func (o searchTextOutput) ResourceLinks() []*mcp.ResourceLink {
	var links []*mcp.ResourceLink
	seen := map[string]bool{}
	for _, m := range o.Matches {
		if !seen[m.Path] {
			seen[m.Path] = true
			links = append(links, kit.ResourceLink(fileURI(filepath.Join(o.Root, m.Path)), m.Path, "", ""))
		}
	}
	return links
}

// unitDirs are where systemd keeps unit files, searched (by name only) to complete a unit.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

// addPrompts offers diagnose_unit beside run_command: what to run, in order, to find why a
// systemd unit fails.
func addPrompts(s *kit.Server) {
	s.AddPrompt(kit.Prompt{
		Tool: "run_command",
		Prompt: &mcp.Prompt{
			Name: "diagnose_unit", Title: "Diagnose a failing systemd unit",
			Description: "Find why a systemd unit fails: its state, its recent log, its unit file and what it depends on, then a fix to confirm.",
			Arguments:   []*mcp.PromptArgument{{Name: "unit", Description: "the unit, e.g. nginx.service (completes from the unit files)", Required: true}},
		},
		Get:      diagnoseUnit,
		Complete: completeUnit,
	})
}

// diagnoseUnit asks the model to diagnose unit with read-only commands first.
func diagnoseUnit(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
	unit := args["unit"]
	if strings.ContainsAny(unit, " \t\n'\"`$;&|<>\\") {
		return nil, fmt.Errorf("unit %q: give a unit name such as nginx.service", unit)
	}
	q := "'" + unit + "'"
	text := fmt.Sprintf(`The systemd unit %s is failing. Find out why, with run_command, reading before changing anything:
1. systemctl status %s --no-pager -l (state, last exit code, main PID)
2. journalctl -u %s -n 200 --no-pager -o short-iso (the log around the failure; add -b -1 for the previous boot)
3. systemctl cat %s (the unit file and its drop-ins: ExecStart, User, WorkingDirectory, Environment)
4. systemctl list-dependencies %s --no-pager and systemctl --failed --no-pager (what it needs, what else fails)
5. Check what the log points at: a missing file or directory, permissions for the unit's user, a port in use (ss -ltnp), a bad config (run the program's own config check if it has one).
Then tell me the cause in one or two sentences, quoting the log line that shows it, and propose the smallest fix. Ask me before restarting the unit or changing any file.`, unit, q, q, q, q)
	return &mcp.GetPromptResult{
		Description: "Diagnose " + unit,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// completeUnit completes a unit name from the unit files systemd reads.
func completeUnit(_ context.Context, _, value string, _ map[string]string) ([]string, error) {
	seen := map[string]bool{}
	for _, dir := range unitDirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // not on this host
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, value) && strings.Contains(name, ".") && !strings.HasSuffix(name, ".wants") && !strings.HasSuffix(name, ".requires") && !strings.HasSuffix(name, ".d") {
				seen[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
