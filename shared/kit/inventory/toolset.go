// Package inventory is a server's catalogue of tools: the toolsets it declares, every tool it
// registers with the toolset it belongs to and whether it changes anything, which of them the
// configuration offers, and what one request may see and call (View). Registration,
// --list-toolsets, the instructions, the tool snapshots, docs/tools.md and every narrowing read
// this one inventory.
package inventory

import (
	"fmt"
	"regexp"
)

// ToolsetID names a toolset: what --toolsets, X-MCP-Toolsets and /mcp/x/{toolset} say. A
// server declares its toolsets as constants of this type and names one in every tool.
type ToolsetID string

// All stands for every toolset in --toolsets, X-MCP-Toolsets and /mcp/x/all.
const All ToolsetID = "all"

// Toolset is a group of a server's tools that a user switches on or off together (gmail: read,
// send, drafts, labels, filters). Its tools name it; it does not list them.
type Toolset struct {
	ID           ToolsetID // lower-case letters, digits and '_'
	Description  string    // what a user gets by switching it on, one line
	Instructions string    // added to the server's instructions while one of its tools is offered
}

// ToolsetInfo is one toolset as --list-toolsets prints it, with the tools the server has in it.
type ToolsetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
}

var toolsetName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// checkToolsets refuses a toolset without a valid name or a description, and a name declared twice.
func checkToolsets(sets []Toolset) error {
	seen := map[ToolsetID]bool{}
	for _, ts := range sets {
		switch {
		case !toolsetName.MatchString(string(ts.ID)) || ts.ID == All:
			return fmt.Errorf("toolset %q: give a name of lower-case letters, digits and _ (not %q)", ts.ID, All)
		case seen[ts.ID]:
			return fmt.Errorf("toolset %q declared twice", ts.ID)
		case ts.Description == "":
			return fmt.Errorf("toolset %q: a description is required", ts.ID)
		}
		seen[ts.ID] = true
	}
	return nil
}
