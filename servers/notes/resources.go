package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/index"
	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noteTemplate is a note as a resource: notes://projects/garden.md reads that note.
const noteTemplate = "notes://{+path}"

// Resource limits: a listing page, a read, the paths one completion offers.
const (
	resourcePage     = 100
	maxResourceBytes = 1 << 20
	maxCompletions   = 50
)

// addResources offers the notes as resources beside get_note: listed newest first through the
// index, a page at a time, read whole as Markdown, their paths completed.
func addResources(s *kit.Server, n *store) {
	s.AddResourceTemplate(kit.ResourceTemplate{
		Tool: "get_note",
		Template: &mcp.ResourceTemplate{
			Name: "note", Title: "Note", URITemplate: noteTemplate, MIMEType: "text/markdown",
			Description: "A note as Markdown with its front matter, by its path in the notes folder (e.g. notes://projects/garden.md).",
		},
		Read:     n.readResource,
		List:     n.listResources,
		Complete: n.completePath,
	})
}

// noteURI is the resource URI of the note at rel.
func noteURI(rel string) string { return kit.ExpandURI(noteTemplate, map[string]string{"path": rel}) }

// readResource reads the note a notes:// URI names, whole, up to maxResourceBytes.
func (n *store) readResource(_ context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
	rel, err := vault.CleanPath(vars["path"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	data, more, err := n.v.ReadHead(rel, maxResourceBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: no note %s; find notes with list_notes or resources/list", kit.ErrResourceNotFound, rel)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", rel, err)
	case more:
		return nil, fmt.Errorf("%s is larger than %d KiB: read it with get_note, a part at a time (offset)", rel, maxResourceBytes>>10)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: noteURI(rel), MIMEType: "text/markdown", Text: string(data)}}}, nil
}

// listResources lists the notes newest first, resourcePage at a time; the cursor is the offset.
func (n *store) listResources(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
	offset := 0
	if cursor != "" {
		var err error
		if offset, err = strconv.Atoi(cursor); err != nil || offset < 0 {
			return nil, "", fmt.Errorf("cursor %q is not one this server gave: start again without one", cursor)
		}
	}
	ix, release, _, err := n.readable(ctx)
	if err != nil {
		return nil, "", err
	}
	defer release()
	entries, more, err := ix.List(ctx, index.Filter{}, index.ByUpdated, resourcePage, offset)
	if err != nil {
		return nil, "", fmt.Errorf("list notes: %w", n.readError(err))
	}
	page := make([]*mcp.Resource, 0, len(entries))
	for _, e := range entries {
		page = append(page, noteResource(e.Path, e.Title, fmtTime(e.Updated), e.Size))
	}
	if !more {
		return page, "", nil
	}
	return page, strconv.Itoa(offset + resourcePage), nil
}

// noteResource is a note as resources/list shows it: its path as name, its title, when it last changed.
func noteResource(rel, title, updated string, size int64) *mcp.Resource {
	r := &mcp.Resource{URI: noteURI(rel), Name: rel, Title: title, MIMEType: "text/markdown", Size: size}
	if updated != "" {
		r.Annotations = &mcp.Annotations{LastModified: updated}
	}
	return r
}

// completePath completes a note's path from what was typed: paths that start with it, then
// notes whose name or title is it.
func (n *store) completePath(ctx context.Context, _, value string, _ map[string]string) ([]string, error) {
	ix, release, _, err := n.readable(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	paths, err := ix.PathsFrom(ctx, strings.TrimPrefix(value, "/"), maxCompletions)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", value, n.readError(err))
	}
	if len(paths) == 0 && value != "" {
		return ix.Named(ctx, value, maxCompletions)
	}
	return paths, nil
}

// ResourceLinks links the notes found, for clients that pull a note into the conversation.
func (o listOutput) ResourceLinks() []*mcp.ResourceLink {
	var links []*mcp.ResourceLink
	for _, e := range o.Notes {
		if e.Change == "deleted" || strings.HasPrefix(e.Path, vault.TrashDir+"/") {
			continue
		}
		links = append(links, kit.ResourceLink(noteURI(e.Path), e.Path, e.Title, "text/markdown"))
	}
	return links
}

// changed tells the clients that listen that the notes at paths were written or removed.
func changed(s *kit.Server) func(paths []string) {
	return func(paths []string) {
		s.ResourcesChanged()
		for _, p := range paths {
			s.ResourceUpdated(context.Background(), noteURI(p))
		}
	}
}
