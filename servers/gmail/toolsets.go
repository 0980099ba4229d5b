package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the gmail server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "read",
			Description:  "Find and read mail: search, messages, threads, attachments, the account's addresses",
			Instructions: "Find mail with search_messages (Gmail query syntax, e.g. 'from:bob is:unread newer_than:7d') and read it with get_message or get_thread.",
			Tools:        []string{"search_messages", "get_message", "get_thread", "get_attachment", "get_gmail_profile", "list_send_as"},
		},
		{
			Name:         "organize",
			Description:  "Archive, mark read, star or trash messages and conversations",
			Instructions: "Act with modify_messages, with threads: true on whole conversations (archive = remove INBOX, read = remove UNREAD, star = add STARRED, trash = add TRASH).",
			Tools:        []string{"modify_messages"},
		},
		{
			Name:         "send",
			Description:  "Send, reply to and forward mail",
			Instructions: "Sending is irreversible: confirm recipients and content with the user first, or save a draft.",
			Tools:        []string{"send_message"},
		},
		{
			Name:        "drafts",
			Description: "Save, read, list, send and delete drafts",
			Tools:       []string{"save_draft", "get_draft", "list_drafts", "send_draft", "delete_draft"},
		},
		{
			Name:        "labels",
			Description: "List, create, rename and delete labels",
			Tools:       []string{"list_labels", "edit_label"},
		},
		{
			Name:        "filters",
			Description: "List, create and delete filters",
			Tools:       []string{"list_filters", "create_filter", "delete_filter"},
		},
		{
			Name:         "contacts",
			Optional:     true, // its own sign-in scopes, asked only when wanted; little room left in the fleet's tool-list budget
			Description:  "Look up people's addresses in Google Contacts and among those mailed before (read-only; needs the contacts sign-in scopes)",
			Instructions: "Mail, invitations and shares take email addresses only: to reach someone named, find the address with search_contacts and use it as listed; never guess one.",
			Tools:        []string{"search_contacts", "get_contact", "list_contacts"},
		},
	}
}
