package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the calendar server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:        "read",
			Description: "Read calendars and events, and the current time",
			Tools:       []string{"get_current_time", "list_calendars", "list_events", "get_event"},
		},
		{
			Name:        "availability",
			Description: "Busy times and free slots across calendars",
			Tools:       []string{"free_busy", "find_free_slots"},
		},
		{
			Name:         "edit",
			Description:  "Create, change and delete events",
			Instructions: "For a recurring event, update_event and delete_event take scope: this, following or all.",
			Tools:        []string{"create_event", "create_events", "quick_add", "update_event", "delete_event"},
		},
		{
			Name:        "respond",
			Description: "Answer invitations",
			Tools:       []string{"respond_to_event"},
		},
		{
			Name:         "tasks",
			Optional:     true, // its own sign-in scope; past the fleet's tool-list budget for everyone
			Description:  "Google Tasks: task lists and their tasks (needs the tasks sign-in scope)",
			Instructions: "Tasks live in task lists, named by id or title (default: the user's default list); every task tool takes list. Due dates are days (YYYY-MM-DD): Google Tasks keeps no time of day.",
			Tools:        []string{"list_task_lists", "list_tasks", "get_task", "create_task", "update_task", "complete_task", "move_task", "delete_task", "edit_task_list"},
		},
	}
}
