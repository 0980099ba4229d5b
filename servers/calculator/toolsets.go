package main

import "github.com/jck411/mcp-servers/shared/kit"

// The calculator server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetMath kit.ToolsetID = "math"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetMath, Description: "Exact arithmetic, unit conversion and statistics"},
	}
}
