package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/drive/v3"
)

// TestFileResources: over HTTP with the go-sdk client, at both revisions, the Drive files are
// a template whose reads give read_file's text with its MIME type; a missing id is
// resource-not-found, a file without text says what to use; ids complete from names.
func TestFileResources(t *testing.T) {
	t.Parallel()
	f := newFakeDrive(t)
	h := mcptest.Start(t, spec(), signIn(t, f)...)
	tool := h.Connect(t, "")
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		cs := h.ConnectAs(t, "", version, nil)
		var templates []string
		for rt, err := range cs.ResourceTemplates(t.Context(), nil) {
			if err != nil {
				t.Fatalf("%s: templates: %v", version, err)
			}
			templates = append(templates, rt.URITemplate)
		}
		if !slices.Equal(templates, []string{fileTemplate}) {
			t.Errorf("%s: templates %v", version, templates)
		}
		for _, tt := range []struct{ id, mime string }{{"doc1", "text/markdown"}, {"sheet1", "text/csv"}, {"slides1", "text/plain"}, {"notes1", "text/plain"}, {"shared1", "text/markdown"}} {
			want, _ := mcptest.CallFor[readOutput](t, tool, "read_file", map[string]any{"file_id": tt.id})
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "gdrive:///" + tt.id})
			if err != nil || len(res.Contents) != 1 {
				t.Errorf("%s: read %s: %+v %v", version, tt.id, res, err)
				continue
			}
			if c := res.Contents[0]; c.Text != want.Content || c.Text == "" || c.MIMEType != tt.mime || c.URI != "gdrive:///"+tt.id {
				t.Errorf("%s: read %s = %s %q %q; read_file gave %q", version, tt.id, c.URI, c.MIMEType, c.Text, want.Content)
			}
		}
		for uri, want := range map[string]string{
			"gdrive:///nope":   "file nope not found; find files with search_files",
			"gdrive:///img1":   `"photo.png" has no text to read as a resource: image files have no text form here; use download_file`,
			"gdrive:///folder": "file folder not found",
		} {
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: read %s: %v; want %q", version, uri, err, want)
			}
		}
		for value, want := range map[string][]string{"bud": {"sheet1"}, "plan": {"doc1"}, "zzz": {}} {
			comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: fileTemplate}, Argument: mcp.CompleteParamsArgument{Name: "file_id", Value: value}})
			if err != nil || !slices.Equal(comp.Completion.Values, want) {
				t.Errorf("%s: complete %q: %+v %v; want %v", version, value, comp, err, want)
			}
		}
	}
	var sent []string
	for _, c := range f.Calls("GET", "/drive/v3/files") {
		if q := c.Query.Get("q"); strings.HasPrefix(q, "name contains") {
			sent = append(sent, q+" "+c.Query.Get("pageSize"))
		}
	}
	if len(sent) != 6 || !slices.Contains(sent, "name contains 'bud' and trashed = false and mimeType != 'application/vnd.google-apps.folder' 20") {
		t.Errorf("completion queries %q", sent)
	}
	// search_files and list_folder link the files they found that have text, not folders or images.
	for tool, args := range map[string]map[string]any{"search_files": {"query": "name contains 'p'"}, "list_folder": {"folder_id": sharedDrive}} {
		var links []string
		for _, c := range mcptest.Call(t, h.Connect(t, ""), tool, args).Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				links = append(links, l.URI+" "+l.Name+" "+l.MIMEType)
			}
		}
		want := map[string][]string{
			"search_files": {"gdrive:///doc1 Project plan text/markdown"},
			"list_folder":  {"gdrive:///shared1 Roadmap (shared drive) text/markdown"},
		}[tool]
		if !slices.Equal(links, want) {
			t.Errorf("%s links %v, want %v", tool, links, want)
		}
	}
}

// TestLongFileResource: a text longer than --max-read-chars is not cut: the read says to page
// it with read_file.
func TestLongFileResource(t *testing.T) {
	t.Parallel()
	f := newFakeDrive(t)
	f.Add(&drive.File{Id: "long1", Name: "long.txt", MimeType: "text/plain"}, []byte(strings.Repeat("word ", 300)))
	cs := mcptest.Start(t, spec(), append(signIn(t, f), "--max-read-chars", "1000")...).Connect(t, "")
	_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "gdrive:///long1"})
	if err == nil || !strings.Contains(err.Error(), `"long.txt" is 1500 characters, over the 1000 a resource reads (--max-read-chars): read it with read_file, a part at a time (offset)`) {
		t.Errorf("long read: %v", err)
	}
}

// TestFileResourcesNarrowed: the template goes where read_file goes: a request narrowed to
// search_files has no template, cannot read, completes nothing and gets no links.
func TestFileResourcesNarrowed(t *testing.T) {
	t.Parallel()
	f := newFakeDrive(t)
	h := mcptest.Start(t, spec(), signIn(t, f)...)
	for _, tt := range []struct {
		path, tools string
		offered     bool
	}{{"/mcp", "search_files", false}, {"/mcp/readonly", "", true}, {"/mcp/x/write", "", false}, {"/mcp/x/read", "", true}} {
		header := http.Header{}
		if tt.tools != "" {
			header.Set("X-MCP-Tools", tt.tools)
		}
		cs, err := h.TryConnectTo(t.Context(), tt.path, "", header)
		if err != nil {
			t.Fatal(err)
		}
		var templates int
		for _, err := range cs.ResourceTemplates(t.Context(), nil) {
			if err == nil {
				templates++
			}
		}
		_, readErr := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "gdrive:///doc1"})
		comp, compErr := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: fileTemplate}, Argument: mcp.CompleteParamsArgument{Name: "file_id", Value: "plan"}})
		completed := compErr == nil && len(comp.Completion.Values) > 0
		links := 0
		if tt.tools != "" {
			for _, c := range mcptest.Call(t, cs, "search_files", map[string]any{"query": "name contains 'p'"}).Content {
				if _, ok := c.(*mcp.ResourceLink); ok {
					links++
				}
			}
		}
		offered := templates == 1 && readErr == nil && completed
		hidden := templates == 0 && readErr != nil && !completed && links == 0
		if tt.offered && !offered || !tt.offered && !hidden {
			t.Errorf("%s %s: %d templates, read error %v, completed %v, %d links; want offered %v", tt.path, tt.tools, templates, readErr, completed, links, tt.offered)
		}
		_ = cs.Close()
	}
}
