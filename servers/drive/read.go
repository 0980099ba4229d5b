package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/jck411/mcp-servers/shared/xlsx"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type readInput struct {
	FileID   string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Sheet    string `json:"sheet,omitempty" jsonschema:"spreadsheets: the sheet name; default the first"`
	Offset   int    `json:"offset,omitempty" jsonschema:"character offset" schema:"minimum=0"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"characters to return" schema:"minimum=1"`
}

type readOutput struct {
	File      fileInfo `json:"file"`
	Format    string   `json:"format,omitempty"` // markdown, csv, text
	Content   string   `json:"content,omitempty"`
	Offset    int      `json:"offset,omitempty"`
	Total     int      `json:"total_chars,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Sheets    []string `json:"sheets,omitempty"`
	Sheet     string   `json:"sheet,omitempty"`
	Note      string   `json:"note,omitempty"`
	tool      string   // the tool that continues a truncated read; "" is read_file
}

func (o readOutput) Text() string {
	var b strings.Builder
	b.WriteString(o.File.line())
	if len(o.Sheets) > 0 {
		fmt.Fprintf(&b, "\nSheet %q of %s", o.Sheet, strings.Join(quoteAll(o.Sheets), ", "))
	}
	if o.Note != "" {
		b.WriteString("\n" + o.Note)
	}
	if o.Content != "" {
		b.WriteString("\n\n" + o.Content)
	}
	if o.Truncated {
		end := o.Offset + utf8.RuneCountInString(o.Content)
		tool := o.tool
		if tool == "" {
			tool = "read_file"
		}
		fmt.Fprintf(&b, "\n[… truncated: %d more characters; call %s with file_id=%s offset=%d", o.Total-end, tool, o.File.ID, end)
		if o.Sheet != "" {
			fmt.Fprintf(&b, " sheet=%q", o.Sheet)
		}
		b.WriteString("]")
	}
	return b.String()
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

type downloadInput struct {
	FileID string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Format string `json:"format,omitempty" jsonschema:"export format of a Google file" schema:"enum=pdf|docx|xlsx|pptx|csv|md|txt|odt|ods|html|png|svg"`
}

type downloadOutput struct {
	Path     string `json:"path"`
	Name     string `json:"name"`
	MimeType string `json:"mime_type"`
	Size     int64  `json:"size"`
}

func (o downloadOutput) Text() string {
	return fmt.Sprintf("Saved %s (%s, %d bytes) to %s", o.Name, o.MimeType, o.Size, o.Path)
}

func addReadTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "read_file", Toolset: toolsetRead, Title: "Read a file", ReadOnly: true, Idempotent: true, OpenWorld: true, Timeout: 60 * time.Second,
		Description: "Read a Drive file as text: Docs as Markdown, Sheets as CSV, Slides and text as text; paged."}, d.read)
	kit.AddTool(s, kit.Tool{Name: "download_file", Toolset: toolsetRead, Title: "Download a file", ReadOnly: true, Idempotent: true, OpenWorld: true, Timeout: 80 * time.Second,
		Description: "Save a Drive file to the downloads folder (Google files exported, e.g. as pdf)."}, d.download)
}

// fetch reads a response body up to the byte cap.
func (d *drv) fetch(body io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, d.maxBytes+1))
	if err != nil {
		return nil, kit.Errorf(kit.CodeUnavailable, "reading %s from Google Drive failed: %v", what, err)
	}
	if int64(len(data)) > d.maxBytes {
		return nil, kit.Errorf(kit.CodeLimit, "%s is over the %d-byte limit (--max-file-bytes)", what, d.maxBytes)
	}
	return data, nil
}

// exportBody starts converting a Google file to mime; the caller closes the body.
func (d *drv) exportBody(ctx context.Context, f *gdrive.File, mime string) (io.ReadCloser, error) {
	resp, err := d.svc.Export(ctx, f.Id, mime)
	if err != nil {
		return nil, d.fail(err, fmt.Sprintf("%q", f.Name))
	}
	return resp.Body, nil
}

// mediaBody starts downloading a stored file's bytes; the caller closes the body.
func (d *drv) mediaBody(ctx context.Context, f *gdrive.File) (io.ReadCloser, error) {
	if f.Size > d.maxBytes {
		return nil, kit.Errorf(kit.CodeLimit, "%q is %d bytes, over the %d-byte limit (--max-file-bytes)", f.Name, f.Size, d.maxBytes)
	}
	resp, err := d.svc.Media(ctx, f.Id, allDrives(url.Values{}))
	if err != nil {
		return nil, d.fail(err, fmt.Sprintf("%q", f.Name))
	}
	return resp.Body, nil
}

// export converts a Google file to mime and reads it.
func (d *drv) export(ctx context.Context, f *gdrive.File, mime string) ([]byte, error) {
	body, err := d.exportBody(ctx, f, mime)
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	return d.fetch(body, fmt.Sprintf("%q", f.Name))
}

// media reads a stored file's bytes.
func (d *drv) media(ctx context.Context, f *gdrive.File) ([]byte, error) {
	body, err := d.mediaBody(ctx, f)
	if err != nil {
		return nil, err
	}
	defer func() { _ = body.Close() }()
	return d.fetch(body, fmt.Sprintf("%q", f.Name))
}

// isText reports MIME types whose bytes are text.
func isText(mime string) bool {
	if strings.HasPrefix(mime, "text/") {
		return true
	}
	switch mime {
	case "application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml", "application/x-sh", "application/sql", "application/x-httpd-php", "application/rtf":
		return true
	}
	return strings.HasSuffix(mime, "+json") || strings.HasSuffix(mime, "+xml")
}

// converted are stored types Drive can turn into a Google Doc to extract their text.
var converted = map[string]bool{
	mimePDF: true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": true,
	"application/msword":                      true,
	"application/vnd.oasis.opendocument.text": true,
}

func (d *drv) read(ctx context.Context, _ *mcp.CallToolRequest, in readInput) (*mcp.CallToolResult, readOutput, error) {
	maxChars := d.pageSize(in.MaxChars)
	f, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, readOutput{}, err
	}
	out := readOutput{File: toInfo(f)}
	var text string
	switch {
	case f.MimeType == mimeDoc:
		data, err := d.export(ctx, f, "text/markdown")
		if err != nil {
			return nil, readOutput{}, err
		}
		out.Format, text = "markdown", string(data)
	case f.MimeType == mimeSheet:
		data, err := d.export(ctx, f, xlsx.MIME)
		if err != nil {
			return nil, readOutput{}, err
		}
		book, err := xlsx.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, readOutput{}, kit.Errorf(kit.CodeInternal, "the spreadsheet export could not be read: %v", err)
		}
		sheet, csv, err := book.CSV(in.Sheet)
		if err != nil {
			var ke *kit.Error
			if errors.As(err, &ke) && (ke.Code == kit.CodeLimit || ke.Code == kit.CodeInvalidInput) {
				return nil, readOutput{}, kit.Errorf(ke.Code, "%w; use download_file (format xlsx or csv)", err)
			}
			return nil, readOutput{}, err
		}
		out.Format, text, out.Sheets, out.Sheet = "csv", csv, book.Sheets(), sheet
	case f.MimeType == mimeSlides:
		data, err := d.export(ctx, f, "text/plain")
		if err != nil {
			return nil, readOutput{}, err
		}
		out.Format, text = "text", string(data)
	case isText(f.MimeType):
		data, err := d.media(ctx, f)
		if err != nil {
			return nil, readOutput{}, err
		}
		if !utf8.Valid(data) {
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		}
		out.Format, text = "text", string(data)
	case converted[f.MimeType]:
		out.Note = "Drive extracts this file's text only from a temporary Google Doc copy in My Drive: extract_file_text makes one, reads it and deletes it."
		if d.readOnly {
			out.Note = "Drive extracts this file's text only from a temporary Google Doc copy, which a server started with --read-only does not make; use download_file to get the file."
		}
		return nil, out, nil
	default:
		out.Note = fmt.Sprintf("%s files have no text form here; use download_file to save it (Google files export to pdf, docx, xlsx, pptx, …).", out.File.Kind)
		return nil, out, nil
	}
	out.Content, out.Offset, out.Total, out.Truncated = window(text, in.Offset, maxChars)
	return nil, out, nil
}

// pageSize checks a read's offset and max_chars and returns the characters to return.
// pageSize is max_chars, defaulted and capped by --max-read-chars (the schema refuses values
// below 1 and negative offsets).
func (d *drv) pageSize(maxChars int) int {
	if maxChars == 0 || maxChars > d.maxReadChars {
		return d.maxReadChars
	}
	return maxChars
}

// window cuts text to max characters from offset.
func window(text string, offset, max int) (string, int, int, bool) {
	runes := []rune(text)
	total := len(runes)
	if offset > total {
		offset = total
	}
	end := min(offset+max, total)
	return string(runes[offset:end]), offset, total, end < total
}

// exportFormats are download formats of Google files.
var exportFormats = map[string]string{
	"pdf": "application/pdf", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"xlsx": xlsx.MIME, "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	"csv": "text/csv", "md": "text/markdown", "txt": "text/plain", "odt": "application/vnd.oasis.opendocument.text",
	"ods": "application/x-vnd.oasis.opendocument.spreadsheet", "html": "application/zip", "png": "image/png", "svg": "image/svg+xml",
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

func (d *drv) download(ctx context.Context, _ *mcp.CallToolRequest, in downloadInput) (*mcp.CallToolResult, downloadOutput, error) {
	f, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, downloadOutput{}, err
	}
	var body io.ReadCloser
	name, mime := f.Name, f.MimeType
	switch {
	case f.MimeType == mimeFolder:
		return nil, downloadOutput{}, kit.Errorf(kit.CodeInvalidInput, "%q is a folder: list_folder shows its files", f.Name)
	case strings.HasPrefix(f.MimeType, "application/vnd.google-apps."):
		format := in.Format
		if format == "" {
			format = "pdf"
			if f.MimeType == mimeSheet {
				format = "xlsx"
			}
		}
		m := exportFormats[format]
		if body, err = d.exportBody(ctx, f, m); err != nil {
			return nil, downloadOutput{}, err
		}
		name, mime = f.Name+"."+format, m
	default:
		if in.Format != "" {
			return nil, downloadOutput{}, kit.Errorf(kit.CodeInvalidInput, "format applies to Google Docs, Sheets and Slides only; %q downloads as it is", f.Name)
		}
		if body, err = d.mediaBody(ctx, f); err != nil {
			return nil, downloadOutput{}, err
		}
	}
	defer func() { _ = body.Close() }()
	safe := strings.TrimSpace(unsafeName.ReplaceAllString(name, "_"))
	if safe == "" || safe == "." || safe == ".." {
		safe = "file"
	}
	file := unsafeName.ReplaceAllString(f.Id, "_") + "-" + safe
	saved, n, err := d.save(progress.Reader(body, progress.From(ctx), f.Size), file, fmt.Sprintf("%q", f.Name))
	if err != nil {
		return nil, downloadOutput{}, err
	}
	return nil, downloadOutput{Path: filepath.Join(d.downloadsDir, saved), Name: name, MimeType: mime, Size: n}, nil
}

// save streams body into the file name of the downloads folder through a temporary file
// beside it, up to the byte cap, so that a failed or oversized download leaves nothing behind
// and memory holds no more than a copy buffer. The folder is held open from the start: the
// file lands in it whatever is swapped in at its path, and a symlink at the name is replaced,
// not written through.
func (d *drv) save(body io.Reader, name, what string) (string, int64, error) {
	src := &sourceReader{r: body}
	saved, n, err := rootdir.Save(d.downloads, name, src, d.maxBytes, 0o600, rootdir.Replace)
	switch {
	case src.err != nil:
		return "", 0, kit.Errorf(kit.CodeUnavailable, "downloading %s from Google Drive failed: %v", what, src.err)
	case errors.Is(err, rootdir.ErrTooLarge):
		return "", 0, kit.Errorf(kit.CodeLimit, "%s is over the %d-byte limit (--max-file-bytes)", what, d.maxBytes)
	case err != nil:
		return "", 0, kit.Errorf(kit.CodeUnavailable, "saving %s in the downloads folder %s: %v", what, d.downloadsDir, err)
	}
	return saved, n, nil
}

// sourceReader keeps the error of the download it reads, to tell it from a disk error.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}
