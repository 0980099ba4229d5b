package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the notes server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "read",
			Description:  "Search, list and read notes, their links and tags",
			Instructions: "Find notes with list_notes (query: full text, also word forms and typos; changed_since: what changed), read them with get_note; get_note_links hops gives a note's context.",
			Tools:        []string{"list_notes", "get_note", "get_note_links", "list_note_tags"},
		},
		{
			Name:         "write",
			Description:  "Create, change, tag, move, delete and restore notes",
			Instructions: "Write with create_note and update_note (pass the hash from get_note as expected_hash to avoid overwriting someone else's change). A note named NAME.conflict-TIMESTAMP.md is the Drive sync's copy of a note changed in two places: offer to merge it into NAME.md and delete it.",
			Tools:        []string{"create_note", "update_note", "daily_note", "tag_note", "set_note_field", "move_note", "delete_note", "restore_note"},
		},
		{
			Name:        "sync",
			Description: "Sync the notes with Google Drive now",
			Tools:       []string{"sync_notes"},
		},
	}
}
