package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestSchemaRefusesBeforeDrive holds the tools' declared constraints: input outside them is
// refused with a message naming the rule, and Drive is never asked.
func TestSchemaRefusesBeforeDrive(t *testing.T) {
	f, cs := start(t)
	mcptest.CheckRefusals(t, cs, f.Requests, []mcptest.Refusal{
		{Tool: "search_files", Args: map[string]any{"page_size": 1001}, Want: "page_size must be at most 1000, not 1001"},
		{Tool: "search_files", Args: map[string]any{"page_size": 0}, Want: "page_size must be at least 1, not 0"},
		{Tool: "search_files", Args: map[string]any{"kind": "video"}, Want: `kind must be one of "folder", "doc", "sheet", "slides", "pdf", not "video"`},
		{Tool: "list_folder", Args: map[string]any{"page_size": -5}, Want: "page_size must be at least 1, not -5"},
		{Tool: "get_file_info", Args: map[string]any{"file_id": ""}, Want: "file_id must not be empty"},
		{Tool: "get_file_info", Args: map[string]any{}, Want: "file_id is required"},
		{Tool: "read_file", Args: map[string]any{"file_id": "doc1", "offset": -1}, Want: "offset must be at least 0, not -1"},
		{Tool: "read_file", Args: map[string]any{"file_id": "doc1", "max_chars": 0}, Want: "max_chars must be at least 1, not 0"},
		{Tool: "download_file", Args: map[string]any{"file_id": "doc1", "format": "exe"}, Want: `format must be one of "pdf", "docx", "xlsx", "pptx", "csv", "md", "txt", "odt", "ods", "html", "png", "svg", not "exe"`},
		{Tool: "share_file", Args: map[string]any{"file_id": "doc1", "type": "user", "email": "x@example.com", "role": "owner"}, Want: `role must be one of "reader", "commenter", "writer", "fileOrganizer", "organizer", not "owner"`},
		{Tool: "share_file", Args: map[string]any{"file_id": "doc1", "type": "everyone", "role": "reader"}, Want: `type must be one of "user", "group", "domain", "anyone", not "everyone"`},
		{Tool: "create_file", Args: map[string]any{"name": "", "content": "x"}, Want: "name must not be empty"},
		{Tool: "create_folder", Args: map[string]any{"name": ""}, Want: "name must not be empty"},
		{Tool: "move_file", Args: map[string]any{"file_id": "doc1", "folder_id": ""}, Want: "folder_id must not be empty"},
		{Tool: "move_file", Args: map[string]any{"file_id": "doc1", "new_name": ""}, Want: "new_name must not be empty"},
	})
}

// TestSchemaDefaultsReachDrive holds the declared defaults: an absent argument reaches the
// handler, and so Drive, as its default.
func TestSchemaDefaultsReachDrive(t *testing.T) {
	f, cs := start(t)
	_, _ = mcptest.CallFor[filesOutput](t, cs, "search_files", map[string]any{"query": "roadmap"})
	_, _ = mcptest.CallFor[filesOutput](t, cs, "list_folder", map[string]any{})
	lists := f.Calls("GET", "/drive/v3/files")
	if len(lists) != 2 || lists[0].Query.Get("pageSize") != "25" || lists[1].Query.Get("pageSize") != "50" || lists[1].Query.Get("q") != "'root' in parents and trashed = false" {
		t.Fatalf("page sizes sent: %v", lists)
	}
	_, _ = mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "carol@example.com", "role": "reader"})
	if got := f.Calls("POST", "/files/doc1/permissions")[0].Query.Get("sendNotificationEmail"); got != "true" {
		t.Errorf("share_file sendNotificationEmail %q, want the default true", got)
	}
	_, _ = mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "notes1", "type": "user", "email": "dan@example.com", "role": "reader", "notify": false})
	if got := f.Calls("POST", "/files/notes1/permissions")[0].Query.Get("sendNotificationEmail"); got != "false" {
		t.Errorf("share_file notify false sent sendNotificationEmail %q", got)
	}
}

// TestEveryKindFilters holds the kind enum to the kinds the query builder knows.
func TestEveryKindFilters(t *testing.T) {
	for kind, mime := range map[string]string{"folder": mimeFolder, "doc": mimeDoc, "sheet": mimeSheet, "slides": mimeSlides, "pdf": mimePDF} {
		if got, _ := buildQuery("", kind, true); got != "mimeType = '"+mime+"'" {
			t.Errorf("kind %s: query %q", kind, got)
		}
	}
}
