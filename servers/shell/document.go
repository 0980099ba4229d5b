package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/ods"
	"github.com/jck411/mcp-servers/shared/xlsx"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Document limits: the largest file read_document opens, and the most text it extracts from
// one (the rest is cut, and said).
const (
	maxDocumentBytes = 64 << 20
	maxDocumentText  = 8 << 20
)

func addDocumentTool(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "read_document",
		Toolset:     toolsetFiles,
		Title:       "Read document or image",
		Description: "Text of a PDF, .docx, .xlsx or .ods file (sheets as CSV), or an image (PNG, JPEG, GIF, WebP), downscaled.",
		ReadOnly:    true,
	}, sh.readDocument)
}

type readDocumentInput struct {
	Path     string `json:"path" jsonschema:"file path, absolute or relative to the work dir"`
	Sheet    string `json:"sheet,omitempty" jsonschema:"xlsx, ods: the sheet name; default the first"`
	Offset   int    `json:"offset,omitempty" jsonschema:"character offset of the text to continue from" schema:"minimum=0"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"characters of text to return" schema:"minimum=1"`
}

type readDocumentOutput struct {
	Path       string    `json:"path"`
	Kind       string    `json:"kind" jsonschema:"pdf, docx, xlsx, ods or image"`
	Content    string    `json:"content,omitempty" jsonschema:"the text (CSV for a sheet); images come as image content"`
	Offset     int       `json:"offset,omitempty"`
	Total      int       `json:"total,omitempty" jsonschema:"characters of text in all"`
	NextOffset int       `json:"next_offset,omitempty" jsonschema:"pass as offset to read on; absent at the end"`
	Pages      int       `json:"pages,omitempty" jsonschema:"pdf: pages in the file"`
	Sheets     []string  `json:"sheets,omitempty" jsonschema:"xlsx, ods: the sheets, in order"`
	Sheet      string    `json:"sheet,omitempty" jsonschema:"xlsx, ods: the sheet shown"`
	Image      *imageOut `json:"image,omitempty"`
	Note       string    `json:"note,omitempty"`
}

// Text is the content with a status line when there is more.
func (o readDocumentOutput) Text() string {
	var b strings.Builder
	if o.Sheet != "" {
		fmt.Fprintf(&b, "[sheet %q of %s]\n", o.Sheet, strings.Join(quoted(o.Sheets), ", "))
	}
	b.WriteString(o.Content)
	if o.NextOffset != 0 {
		fmt.Fprintf(&b, "\n[characters %d-%d of %d shown; continue with offset %d]", o.Offset, o.NextOffset-1, o.Total, o.NextOffset)
	}
	if o.Note != "" {
		fmt.Fprintf(&b, "\n[%s]", o.Note)
	}
	return b.String()
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

func (sh *shell) readDocument(ctx context.Context, _ *mcp.CallToolRequest, in readDocumentInput) (*mcp.CallToolResult, readDocumentOutput, error) {
	var out readDocumentOutput
	p, f, info, err := sh.openRegular(in.Path)
	if err != nil {
		return nil, out, err
	}
	defer f.Close()
	if info.Size() > maxDocumentBytes {
		return nil, out, kit.Errorf(kit.CodeLimit, "%s is %d bytes; read_document opens files up to %d bytes (use run_command for larger ones)", in.Path, info.Size(), maxDocumentBytes)
	}
	out.Path = p.Abs
	kind, z, err := sniff(f, info.Size())
	if err != nil {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s: %v", in.Path, err)
	}
	out.Kind = kind
	var text string
	switch kind {
	case "image":
		img, err := readImage(f, info.Size())
		if err != nil {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s: %v", in.Path, err)
		}
		out.Image = &img.imageOut
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: img.data, MIMEType: img.MIMEType},
			&mcp.TextContent{Text: img.describe(p.Abs)},
		}}, out, nil
	case "pdf":
		text, out.Pages, err = pdfText(ctx, f, info.Size())
	case "docx":
		text, err = docxText(ctx, z)
	case "xlsx", "ods":
		var book spreadsheet
		if kind == "xlsx" {
			book, err = xlsx.Open(f, info.Size())
		} else {
			book, err = ods.Open(f, info.Size())
		}
		if err == nil {
			out.Sheets = book.Sheets()
			out.Sheet, text, err = book.CSV(in.Sheet)
		}
		var ke *kit.Error
		if errors.As(err, &ke) { // an unknown sheet, or one too large to render
			return nil, out, kit.Errorf(ke.Code, "%s: %w", in.Path, err)
		}
	}
	if ctx.Err() != nil {
		return nil, out, ctx.Err()
	}
	if err != nil {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "%s: the %s could not be read: %v", in.Path, kind, err)
	}
	if len(text) > maxDocumentText {
		text = strings.ToValidUTF8(text[:maxDocumentText], "")
		out.Note = fmt.Sprintf("the text stops at %d bytes; the rest of the file is not shown", maxDocumentText)
	}
	limit := in.MaxChars
	if limit == 0 {
		limit = sh.outputLimit
	}
	out.Content, out.Offset, out.Total, out.NextOffset = textWindow(strings.ToValidUTF8(text, "\uFFFD"), in.Offset, limit)
	return nil, out, nil
}

// textWindow is max characters of text from offset, where it starts, the characters in all
// and where the next window starts (0 at the end).
func textWindow(text string, offset, max int) (string, int, int, int) {
	r := []rune(text)
	offset = min(offset, len(r))
	end := min(offset+max, len(r))
	next := 0
	if end < len(r) {
		next = end
	}
	return string(r[offset:end]), offset, len(r), next
}

// spreadsheet is a workbook read one sheet at a time as CSV: shared/xlsx's and shared/ods's.
type spreadsheet interface {
	Sheets() []string
	CSV(name string) (sheet, text string, err error)
}

// sniff tells the kind of document f is by its content, not its name, and opens a zip
// container (DOCX, XLSX, ODS) once.
func sniff(f *os.File, size int64) (string, *zip.Reader, error) {
	head := make([]byte, 8)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", nil, err
	}
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "pdf", nil, nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		z, err := zip.NewReader(f, size)
		if err != nil {
			return "", nil, fmt.Errorf("a zip file that could not be read: %w", err)
		}
		for _, e := range z.File {
			switch e.Name {
			case "word/document.xml":
				return "docx", z, nil
			case "xl/workbook.xml":
				return "xlsx", z, nil
			case "mimetype":
				if isODS(e) {
					return "ods", z, nil
				}
			}
		}
		return "", nil, errors.New("a zip file that is not a Word (.docx), Excel (.xlsx) or OpenDocument (.ods) document; list it with run_command (unzip -l)")
	case isImage(f):
		return "image", nil, nil
	}
	return "", nil, errors.New("not a PDF, Word (.docx), Excel (.xlsx), OpenDocument (.ods) spreadsheet or image (PNG, JPEG, GIF, WebP) file; read text with read_text_file")
}

// isODS reports a zip's mimetype entry that names an OpenDocument spreadsheet.
func isODS(e *zip.File) bool {
	r, err := e.Open()
	if err != nil {
		return false
	}
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(io.LimitReader(r, int64(len(ods.MIME))+1))
	return err == nil && strings.TrimSpace(string(b)) == ods.MIME
}
