package main

import "github.com/jck411/mcp-servers/shared/kit"

// The shell server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetCommands  kit.ToolsetID = "commands"
	toolsetProcesses kit.ToolsetID = "processes"
	toolsetFiles     kit.ToolsetID = "files"
	toolsetEdit      kit.ToolsetID = "edit"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetCommands, Description: "Run commands on the host and describe it", Instructions: "Run commands with run_command (bash -c; pipes and redirects work)."},
		{ID: toolsetProcesses, Description: "Start and drive long-running or interactive processes", Instructions: "Use start_process for anything long-running or interactive and poll it with read_process_output."},
		{ID: toolsetFiles, Description: "Read, list, find and search files"},
		{ID: toolsetEdit, Description: "Write, edit, copy, move and delete files"},
	}
}
