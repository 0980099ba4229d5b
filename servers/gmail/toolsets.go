package main

import "github.com/jck411/mcp-servers/shared/kit"

// The gmail server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetRead     kit.ToolsetID = "read"
	toolsetOrganize kit.ToolsetID = "organize"
	toolsetSend     kit.ToolsetID = "send"
	toolsetDrafts   kit.ToolsetID = "drafts"
	toolsetLabels   kit.ToolsetID = "labels"
	toolsetFilters  kit.ToolsetID = "filters"
	toolsetContacts kit.ToolsetID = "contacts"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetRead, Description: "Find and read mail: search, messages, threads, attachments, the account's addresses", Instructions: "Find mail with search_messages (Gmail query syntax, e.g. 'from:bob is:unread newer_than:7d') and read it with get_message or get_thread."},
		{ID: toolsetOrganize, Description: "Archive, mark read, star or trash messages and conversations", Instructions: "Act with modify_messages, with threads: true on whole conversations (archive = remove INBOX, read = remove UNREAD, star = add STARRED, trash = add TRASH)."},
		{ID: toolsetSend, Description: "Send, reply to and forward mail", Instructions: "Sending is irreversible: confirm recipients and content with the user first, or save a draft."},
		{ID: toolsetDrafts, Description: "Save, read, list, send and delete drafts"},
		{ID: toolsetLabels, Description: "List, create, rename and delete labels"},
		{ID: toolsetFilters, Description: "List, create and delete filters"},
		// Off by default: its own sign-in scopes, asked only when wanted; little room is left in
		// the fleet's tool-list budget.
		{ID: toolsetContacts, Optional: true, Description: "Look up people's addresses in Google Contacts and among those mailed before (read-only; needs the contacts sign-in scopes)",
			Instructions: "Mail, invitations and shares take email addresses only: to reach someone named, find the address with search_contacts and use it as listed; never guess one."},
	}
}
