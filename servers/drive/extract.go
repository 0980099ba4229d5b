package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Drive extracts the text of a PDF or an Office document only from a Google Doc made from it,
// so extract_file_text writes to the user's Drive: it is a tool of its own, not read-only (and
// so dropped by --read-only), and read_file stays a pure read.

const (
	// tempCopyKey is the app property that marks a temporary copy with its call's own value, so
	// a copy whose creation failed half-way can still be found and deleted.
	tempCopyKey = "mcpTextExtraction"
	// cleanupTimeout bounds deleting a temporary copy once the call has ended or been cancelled.
	cleanupTimeout = 15 * time.Second
	// convertLimit is the largest file Drive converts to a Google Doc.
	convertLimit = 10 << 20
)

type extractInput struct {
	FileID   string `json:"file_id" jsonschema:"the PDF's or document's id, from search_files or list_folder" schema:"minLength=1"`
	Offset   int    `json:"offset,omitempty" jsonschema:"character offset" schema:"minimum=0"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"characters to return" schema:"minimum=1"`
}

func addExtractTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "extract_file_text", Toolset: toolsetRead, Title: "Extract text through a temporary copy", ReadOnly: false, Destructive: false, Idempotent: true, OpenWorld: true, Timeout: 80 * time.Second,
		Description: "Text of a PDF or Word/OpenDocument file, with OCR for scans; use when read_file says so."}, d.extract)
}

func (d *drv) extract(ctx context.Context, _ *mcp.CallToolRequest, in extractInput) (*mcp.CallToolResult, readOutput, error) {
	maxChars := d.pageSize(in.MaxChars)
	f, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, readOutput{}, err
	}
	out := readOutput{File: toInfo(f), tool: "extract_file_text"}
	if !converted[f.MimeType] {
		return nil, readOutput{}, kit.Errorf(kit.CodeInvalidInput, "%q is a %s file: extract_file_text converts PDFs and Word or OpenDocument files only; read it with read_file", f.Name, out.File.Kind)
	}
	text, note, err := d.convertText(ctx, f)
	if err != nil {
		return nil, readOutput{}, err
	}
	out.Format, out.Note = "text", note
	out.Content, out.Offset, out.Total, out.Truncated = window(text, in.Offset, maxChars)
	return nil, out, nil
}

// convertText extracts a PDF's or Office document's text the way Drive's "Open with Google
// Docs" does: copy it as a Google Doc into My Drive (Drive runs OCR/conversion), export that as
// text, and delete the copy, also when the export fails or the call is cancelled. note says so
// when the copy could not be deleted.
func (d *drv) convertText(ctx context.Context, f *gdrive.File) (text, note string, err error) {
	if f.Size > convertLimit {
		return "", "", kit.Errorf(kit.CodeLimit, "%q is %d bytes: Drive converts files up to 10 MB to text; use download_file", f.Name, f.Size)
	}
	marker := rand.Text()
	name := f.Name + " (text extraction, temporary)"
	tmp, err := d.svc.Copy(ctx, f.Id, &gdrive.File{Name: name, MimeType: mimeDoc, Parents: []string{"root"}, AppProperties: map[string]string{tempCopyKey: marker}},
		withFields("id"))
	if err != nil {
		err = d.fail(err, fmt.Sprintf("%q", f.Name))
		// Drive may have made the copy before the call failed (a timeout while it answered, an
		// error after the write): look for it by its marker.
		if cerr := d.removeMarked(ctx, marker); cerr != nil {
			d.log.Warn("temporary copy may be left in Drive", "name", name, "error", cerr)
			err = fmt.Errorf("%w; a temporary copy named %q may be left in My Drive (%w): delete it there", err, name, cerr)
		}
		return "", "", err
	}
	defer func() {
		cerr := d.removeCopy(ctx, tmp.Id)
		if cerr == nil {
			return
		}
		d.log.Warn("temporary copy left in Drive", "id", tmp.Id, "error", cerr)
		note = fmt.Sprintf("The temporary copy %q (id %s) could not be deleted (%v): delete it in My Drive.", name, tmp.Id, cerr)
		if err != nil {
			err = fmt.Errorf("%w; %s", err, note)
		}
	}()
	data, err := d.export(ctx, &gdrive.File{Id: tmp.Id, Name: f.Name}, "text/plain")
	if err != nil {
		return "", "", err
	}
	return strings.TrimPrefix(string(data), "\uFEFF"), "", nil
}

// removeCopy deletes a temporary copy for good (not to the trash). The call's cancellation does
// not stop it: it runs on its own short deadline, so a timed-out call still cleans up.
func (d *drv) removeCopy(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := d.svc.Delete(ctx, id, allDrives(url.Values{}))
	if googleserver.IsStatus(err, http.StatusNotFound) {
		return nil // already gone
	}
	return err
}

// removeMarked deletes every copy carrying marker, on the same terms as removeCopy.
func (d *drv) removeMarked(ctx context.Context, marker string) error {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	q := fmt.Sprintf("appProperties has { key='%s' and value='%s' } and trashed = false", tempCopyKey, marker)
	list, err := d.svc.List(lctx, allDrives(url.Values{"q": {q}, "corpora": {"allDrives"}, "includeItemsFromAllDrives": {"true"}, "fields": {"files(id)"}}))
	if err != nil {
		return fmt.Errorf("looking for it: %w", err)
	}
	var errs []error
	for _, f := range list.Files {
		errs = append(errs, d.removeCopy(ctx, f.Id))
	}
	return errors.Join(errs...)
}
