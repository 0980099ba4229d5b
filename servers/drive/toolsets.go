package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the drive server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "read",
			Description:  "Find, read and download files",
			Instructions: "Find files with search_files (plain words search full text; Drive query syntax such as \"name contains 'plan' and mimeType = 'application/vnd.google-apps.folder'\" is passed through), read them with read_file (Docs as Markdown, Sheets as CSV per sheet, Slides and PDFs as text).",
			Tools:        []string{"search_files", "list_folder", "get_file_info", "read_file", "download_file", "extract_file_text", "list_shared_drives"},
		},
		{
			Name:        "write",
			Description: "Create, upload, change, move, copy, trash and restore files",
			Tools:       []string{"create_file", "create_folder", "upload_file", "update_file_content", "move_file", "copy_file", "trash_file"},
		},
		{
			Name:         "sharing",
			Description:  "See and change who has access, and share links",
			Instructions: "Sharing with anyone outside the named people is irreversible exposure: confirm with the user first.",
			Tools:        []string{"list_permissions", "share_file", "remove_permission", "get_share_link"},
		},
		{
			Name:        "comments",
			Description: "Read, answer and resolve comments",
			Tools:       []string{"list_comments", "reply_to_comment"},
		},
		{
			Name:        "sheets",
			Description: "Read and write Google Sheets",
			Tools:       []string{"read_sheet_range", "write_sheet_range", "append_sheet_rows", "add_sheet", "create_spreadsheet"},
		},
		{
			Name:        "docs",
			Description: "Edit Google Docs text",
			Tools:       []string{"insert_doc_text", "replace_doc_text"},
		},
	}
}
