package main

import "github.com/jck411/mcp-servers/shared/kit"

// toolsets is the browser server's inventory: what a user switches on or off (--toolsets,
// X-MCP-Toolsets, /mcp/x/{toolset}); each tool is in one, and each toolset's instructions are
// sent while it is offered.
func toolsets() []kit.Toolset {
	return []kit.Toolset{
		{
			Name:         "browse",
			Description:  "Open pages and read them: snapshots, text, screenshots, tabs, logs",
			Instructions: "browser_navigate returns a compact snapshot whose [eN] refs name elements. Use browser_get_text for an article's text.",
			Tools:        []string{"browser_navigate", "browser_snapshot", "browser_get_text", "browser_screenshot", "browser_tabs", "browser_wait_for", "browser_logs"},
		},
		{
			Name:         "interact",
			Description:  "Click, type, fill forms and otherwise act on a page",
			Instructions: "Act on refs (browser_click, browser_type, browser_fill_form …), which report what changed.",
			Tools:        []string{"browser_click", "browser_type", "browser_fill_form", "browser_hover", "browser_drag", "browser_press_key", "browser_handle_dialog", "browser_upload_file"},
		},
		{
			Name:        "evaluate",
			Description: "Run JavaScript in the page",
			Tools:       []string{"browser_evaluate"},
		},
		{
			Name:        "profile",
			Description: "Manage the saved browser sessions",
			Tools:       []string{"browser_profile"},
		},
	}
}
