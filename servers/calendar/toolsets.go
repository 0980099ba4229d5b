package main

import "github.com/jck411/mcp-servers/shared/kit"

// The calendar server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetRead         kit.ToolsetID = "read"
	toolsetAvailability kit.ToolsetID = "availability"
	toolsetEdit         kit.ToolsetID = "edit"
	toolsetRespond      kit.ToolsetID = "respond"
	toolsetTasks        kit.ToolsetID = "tasks"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetRead, Description: "Read calendars and events, and the current time"},
		{ID: toolsetAvailability, Description: "Busy times and free slots across calendars"},
		{ID: toolsetEdit, Description: "Create, change and delete events", Instructions: "For a recurring event, update_event and delete_event take scope: this, following or all."},
		{ID: toolsetRespond, Description: "Answer invitations"},
		// Off by default: its own sign-in scope, and past the fleet's tool-list budget for everyone.
		{ID: toolsetTasks, Optional: true, Description: "Google Tasks: task lists and their tasks (needs the tasks sign-in scope)",
			Instructions: "Tasks live in task lists, named by id or title (default: the user's default list); every task tool takes list. Due dates are days (YYYY-MM-DD): Google Tasks keeps no time of day."},
	}
}
