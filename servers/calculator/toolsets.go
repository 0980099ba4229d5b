package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the calculator server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:        "math",
			Description: "Exact arithmetic, unit conversion and statistics",
			Tools:       []string{"evaluate", "convert_units", "statistics"},
		},
	}
}
