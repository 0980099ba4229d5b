package main

import "github.com/jck411/mcp-servers/shared/kit"

// The browser server's toolsets: what a user switches on or off (--toolsets, X-MCP-Toolsets,
// /mcp/x/{toolset}). Every tool names its toolset in its kit.Tool; a toolset's instructions are
// sent while one of its tools is offered.
const (
	toolsetBrowse   kit.ToolsetID = "browse"
	toolsetInteract kit.ToolsetID = "interact"
	toolsetEvaluate kit.ToolsetID = "evaluate"
	toolsetProfile  kit.ToolsetID = "profile"
)

// toolsets declares the toolsets in the order --list-toolsets and the instructions show them.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{ID: toolsetBrowse, Description: "Open pages and read them: snapshots, text, screenshots, tabs, logs", Instructions: "browser_navigate returns a compact snapshot whose [eN] refs name elements. Use browser_get_text for an article's text."},
		{ID: toolsetInteract, Description: "Click, type, fill forms and otherwise act on a page", Instructions: "Act on refs (browser_click, browser_type, browser_fill_form …), which report what changed."},
		{ID: toolsetEvaluate, Description: "Run JavaScript in the page"},
		{ID: toolsetProfile, Description: "Manage the saved browser sessions"},
	}
}
