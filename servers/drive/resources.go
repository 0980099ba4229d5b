package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fileTemplate is a Drive file as a resource, by its id: gdrive:///1AbC… reads that file's
// text as read_file extracts it.
const fileTemplate = "gdrive:///{file_id}"

// Completion bounds: the ids one completion offers and how long its search may take.
const (
	maxCompletions    = 20
	completionTimeout = 5 * time.Second
)

// addResources offers the Drive files as a resource template beside read_file: read as that
// tool reads them (Docs as Markdown, Sheets as CSV, Slides and text files as text), their ids
// completed from a search by name. Drive is not listed in resources/list: it may hold more
// files than a listing should walk, and search_files and list_folder link the files they find.
func addResources(s *kit.Server, d *drv) {
	s.AddResourceTemplate(kit.ResourceTemplate{
		Tool: "read_file",
		Template: &mcp.ResourceTemplate{
			Name: "file", Title: "Drive file", URITemplate: fileTemplate,
			Description: "A Drive file's text by its id (gdrive:///FILE_ID): Docs as Markdown, Sheets as CSV (first sheet), Slides and text files as text; up to --max-read-chars characters.",
		},
		Read:     d.readResource,
		Complete: d.completeFileID,
	})
}

// fileURI is the resource URI of the Drive file id.
func fileURI(id string) string { return kit.ExpandURI(fileTemplate, map[string]string{"file_id": id}) }

// textMIME is the MIME type of the text read_file extracts from a file of type mime, "" for a
// file it has no text for.
func textMIME(mime string) string {
	switch {
	case mime == mimeDoc:
		return "text/markdown"
	case mime == mimeSheet:
		return "text/csv"
	case mime == mimeSlides:
		return "text/plain"
	case isText(mime):
		return mime
	}
	return ""
}

// readResource reads the file a gdrive:/// URI names through read_file's own code path, whole
// when it fits in --max-read-chars; a longer text is refused with the way to page it.
func (d *drv) readResource(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
	id := vars["file_id"]
	if id == "" || strings.Contains(id, "/") {
		return nil, fmt.Errorf("%w: %s names no file: give gdrive:///FILE_ID, the id from search_files or list_folder", kit.ErrResourceNotFound, uri)
	}
	_, out, err := d.read(ctx, nil, readInput{FileID: id})
	if err != nil {
		var ke *kit.Error
		if errors.As(err, &ke) && ke.Code == kit.CodeNotFound {
			return nil, fmt.Errorf("%w: %w; find files with search_files or list_folder", kit.ErrResourceNotFound, err)
		}
		return nil, err
	}
	mime := textMIME(out.File.MimeType)
	switch {
	case out.Format == "" || mime == "":
		return nil, fmt.Errorf("%q has no text to read as a resource: %s", out.File.Name, out.Note)
	case out.Truncated:
		return nil, fmt.Errorf("%q is %d characters, over the %d a resource reads (--max-read-chars): read it with read_file, a part at a time (offset)", out.File.Name, out.Total, d.maxReadChars)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: fileURI(out.File.ID), MIMEType: mime, Text: out.Content}}}, nil
}

// completeFileID completes a file id from the files whose name starts with what was typed
// (Drive's name contains, a prefix match), newest first; nothing typed offers the newest files.
// Folders are left out: they have no text.
func (d *drv) completeFileID(ctx context.Context, _, value string, _ map[string]string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	q := "trashed = false and mimeType != " + quote(mimeFolder)
	if v := strings.TrimSpace(value); v != "" {
		q = "name contains " + quote(v) + " and " + q
	}
	out, err := d.list(ctx, q, maxCompletions, "", "modifiedTime desc")
	if err != nil {
		return nil, fmt.Errorf("complete file_id %q: %w", value, err)
	}
	ids := make([]string, 0, len(out.Files))
	for _, f := range out.Files {
		ids = append(ids, f.ID)
	}
	return ids, nil
}

// ResourceLinks links the files listed that have a text form, for clients that pull a file
// into the conversation.
func (o filesOutput) ResourceLinks() []*mcp.ResourceLink {
	var links []*mcp.ResourceLink
	for _, f := range o.Files {
		if mime := textMIME(f.MimeType); mime != "" && !f.Trashed {
			links = append(links, kit.ResourceLink(fileURI(f.ID), f.Name, "", mime))
		}
	}
	return links
}
