package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the shell server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "commands",
			Description:  "Run commands on the host and describe it",
			Instructions: "Run commands with run_command (bash -c; pipes and redirects work).",
			Tools:        []string{"run_command", "get_environment"},
		},
		{
			Name:         "processes",
			Description:  "Start and drive long-running or interactive processes",
			Instructions: "Use start_process for anything long-running or interactive and poll it with read_process_output.",
			Tools:        []string{"start_process", "list_processes", "read_process_output", "send_process_input", "stop_process"},
		},
		{
			Name:        "files",
			Description: "Read, list, find and search files",
			Tools:       []string{"read_text_file", "list_directory", "find_files", "search_text", "get_path_info"},
		},
		{
			Name:        "edit",
			Description: "Write, edit, copy, move and delete files",
			Tools:       []string{"write_text_file", "edit_file", "copy_path", "move_path", "delete_path"},
		},
	}
}
