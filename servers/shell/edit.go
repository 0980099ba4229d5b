package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// edit_file limits.
const (
	maxEditFileBytes = 4 << 20 // larger files are refused; rewrite them with run_command
	maxDiffBytes     = 16 << 10
	diffContext      = 3
)

func addEditTool(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "edit_file",
		Toolset:     toolsetEdit,
		Title:       "Edit file",
		Description: "Replace exact text in a file atomically (each old_text once, or expected_count times); returns a diff.",
		Destructive: true,
	}, sh.editFile)
}

type textEdit struct {
	OldText       string `json:"old_text" jsonschema:"exact text, whitespace included" schema:"minLength=1"`
	NewText       string `json:"new_text" jsonschema:"replacement; empty deletes"`
	ExpectedCount int    `json:"expected_count,omitempty" jsonschema:"times old_text must occur (default 1)" schema:"minimum=1,maximum=10000"`
}

type editFileInput struct {
	Path           string     `json:"path" jsonschema:"file path, absolute or relative to the work dir"`
	Edits          []textEdit `json:"edits" jsonschema:"replacements, applied in order" schema:"minItems=1,maxItems=100"`
	ExpectedSHA256 string     `json:"expected_sha256,omitempty" jsonschema:"edit only if the file's sha256 is this"`
	DryRun         bool       `json:"dry_run,omitempty" jsonschema:"diff only, write nothing"`
}

type editFileOutput struct {
	Path          string `json:"path"`
	Replacements  int    `json:"replacements" jsonschema:"occurrences replaced over all edits"`
	SHA256        string `json:"sha256" jsonschema:"of the new content"`
	Diff          string `json:"diff" jsonschema:"unified diff of the change, one hunk from the first to the last changed line"`
	DiffTruncated bool   `json:"diff_truncated,omitempty" jsonschema:"the diff was cut at its size limit"`
	Written       bool   `json:"written" jsonschema:"false for a dry run or when the edits changed nothing"`
}

// Text is the diff with a status line.
func (o editFileOutput) Text() string {
	verb := "edited"
	if !o.Written {
		verb = "not written"
	}
	s := fmt.Sprintf("%s %s (%d replacements, sha256 %s)\n%s", verb, o.Path, o.Replacements, o.SHA256, o.Diff)
	if o.DiffTruncated {
		s += "[diff truncated; read the file to see the rest]\n"
	}
	return s
}

func (sh *shell) editFile(ctx context.Context, _ *mcp.CallToolRequest, in editFileInput) (*mcp.CallToolResult, editFileOutput, error) {
	var out editFileOutput
	p, err := sh.path(in.Path)
	if err != nil {
		return nil, out, err
	}
	if p.IsRoot() {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s is not a regular file", in.Path)
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
	if !info.Mode().IsRegular() {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s is not a regular file", in.Path)
	}
	if info.Size() > maxEditFileBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "%s is %d bytes; edit_file handles at most %d", in.Path, info.Size(), maxEditFileBytes)
	}
	data, err := readLimited(dir, name, maxEditFileBytes)
	if err != nil {
		return nil, out, fileError(in.Path, err)
	}
	sum := sha256.Sum256(data)
	if current := hex.EncodeToString(sum[:]); in.ExpectedSHA256 != "" && !strings.EqualFold(current, in.ExpectedSHA256) {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s changed since it was read (sha256 %s, expected %s); read it again and redo the edit", in.Path, current, in.ExpectedSHA256)
	}
	before := string(data)
	after := before
	for i, e := range in.Edits {
		want := max(e.ExpectedCount, 1)
		n := strings.Count(after, e.OldText)
		if n != want {
			hint := "include more surrounding text to make it unique, or set expected_count"
			if n == 0 {
				hint = "copy old_text exactly from read_text_file, whitespace included"
			}
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "edit %d: old_text occurs %d times in %s (after the edits before it), expected %d; %s; nothing was written", i+1, n, in.Path, want, hint)
		}
		after = strings.ReplaceAll(after, e.OldText, e.NewText)
		out.Replacements += n
	}
	if len(after) > maxWriteBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "the edited file would be %d bytes; at most %d; nothing was written", len(after), maxWriteBytes)
	}
	newSum := sha256.Sum256([]byte(after))
	out.Path, out.SHA256 = p.Abs, hex.EncodeToString(newSum[:])
	out.Diff, out.DiffTruncated = unifiedDiff(in.Path, before, after, maxDiffBytes)
	if in.DryRun || after == before {
		return nil, out, nil
	}
	if err := atomicWrite(dir, name, []byte(after), info.Mode().Perm(), true); err != nil {
		return nil, out, fileError(in.Path, err)
	}
	out.Written = true
	sh.log.Info("file edited", "tool", "edit_file", "caller", kit.Caller(ctx), "path", p.Abs, "edits", len(in.Edits), "replacements", out.Replacements)
	return nil, out, nil
}

// readLimited reads the regular file name in dir, failing when it holds more than limit
// bytes (it may have grown since it was measured).
func readLimited(dir *os.Root, name string, limit int64) ([]byte, error) {
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is no longer a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s grew past %d bytes while being read", name, limit)
	}
	return data, err
}

// unifiedDiff renders the change from a to b as one unified-diff hunk spanning the
// first to the last differing line with diffContext lines around it, cut at limit bytes.
func unifiedDiff(name, a, b string, limit int) (string, bool) {
	if a == b {
		return "", false
	}
	al, bl := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	start := max(pre-diffContext, 0)
	aEnd, bEnd := min(len(al)-suf+diffContext, len(al)), min(len(bl)-suf+diffContext, len(bl))
	var d strings.Builder
	fmt.Fprintf(&d, "--- a/%s\n+++ b/%s\n@@ -%s +%s @@\n", name, name, hunkRange(start, aEnd-start), hunkRange(start, bEnd-start))
	line := func(prefix, l string) {
		d.WriteString(prefix + l)
		if !strings.HasSuffix(l, "\n") {
			d.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for _, l := range al[start:pre] {
		line(" ", l)
	}
	for _, l := range al[pre : len(al)-suf] {
		line("-", l)
	}
	for _, l := range bl[pre : len(bl)-suf] {
		line("+", l)
	}
	for _, l := range al[len(al)-suf : aEnd] {
		line(" ", l)
	}
	s := d.String()
	if len(s) > limit {
		cut := strings.LastIndexByte(s[:limit], '\n') + 1
		return s[:cut], true
	}
	return s, false
}

// hunkRange formats a hunk header range: 1-based start and line count.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s after each line break, keeping the breaks.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
