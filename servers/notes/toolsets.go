package main

import "github.com/jck411/mcp-servers/shared/kit"

// The notes server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetRead  kit.ToolsetID = "read"
	toolsetWrite kit.ToolsetID = "write"
	toolsetSync  kit.ToolsetID = "sync"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetRead, Description: "Search, list and read notes, their links and tags", Instructions: "Find notes with list_notes (query: full text, also word forms and typos; changed_since: what changed), read them with get_note; get_note_links hops gives a note's context."},
		{ID: toolsetWrite, Description: "Create, change, tag, move, delete and restore notes", Instructions: "Write with create_note and update_note (pass the hash from get_note as expected_hash to avoid overwriting someone else's change). A note named NAME.conflict-TIMESTAMP.md is the Drive sync's copy of a note changed in two places: offer to merge it into NAME.md and delete it."},
		{ID: toolsetSync, Description: "Sync the notes with Google Drive now"},
	}
}
