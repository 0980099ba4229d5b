package main

import "github.com/jck411/mcp-servers/shared/kit"

// The drive server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetRead     kit.ToolsetID = "read"
	toolsetWrite    kit.ToolsetID = "write"
	toolsetSharing  kit.ToolsetID = "sharing"
	toolsetComments kit.ToolsetID = "comments"
	toolsetSheets   kit.ToolsetID = "sheets"
	toolsetDocs     kit.ToolsetID = "docs"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetRead, Description: "Find, read and download files", Instructions: "Find files with search_files (plain words search full text; Drive query syntax such as \"name contains 'plan' and mimeType = 'application/vnd.google-apps.folder'\" is passed through), read them with read_file (Docs as Markdown, Sheets as CSV per sheet, Slides and PDFs as text)."},
		{ID: toolsetWrite, Description: "Create, upload, change, move, copy, trash and restore files"},
		{ID: toolsetSharing, Description: "See and change who has access, and share links", Instructions: "Sharing with anyone outside the named people is irreversible exposure: confirm with the user first."},
		{ID: toolsetComments, Description: "Read, answer and resolve comments"},
		{ID: toolsetSheets, Description: "Read and write Google Sheets"},
		{ID: toolsetDocs, Description: "Edit Google Docs text"},
	}
}
