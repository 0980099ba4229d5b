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

// Names in --toolsets and X-MCP-Toolsets that stand for several toolsets.
const (
	All     ToolsetID = "all"     // every toolset (also /mcp/x/all)
	Default ToolsetID = "default" // every toolset that is not Optional: what no --toolsets offers
)

// Toolset is a group of a server's tools that a user switches on or off together (gmail: read,
// send, drafts, labels, filters). Its tools name it; it does not list them.
type Toolset struct {
	ID           ToolsetID // lower-case letters, digits and '_'
	Description  string    // what a user gets by switching it on, one line
	Instructions string    // added to the server's instructions while one of its tools is offered
	// Optional marks a toolset that is off by default: offered only when --toolsets names it
	// (or all), or --tools one of its tools. For tools that need a sign-in scope of their own,
	// or that the fleet's tool-list budget cannot carry for everyone.
	Optional bool
}

// ToolsetInfo is one toolset as --list-toolsets prints it, with the tools the server has in it.
type ToolsetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
	Optional    bool     `json:"optional,omitempty"` // off by default
}

var toolsetName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// checkToolsets refuses a toolset without a valid name or a description, and a name declared twice.
func checkToolsets(sets []Toolset) error {
	seen := map[ToolsetID]bool{}
	for _, ts := range sets {
		switch {
		case !toolsetName.MatchString(string(ts.ID)) || ts.ID == All || ts.ID == Default:
			return fmt.Errorf("toolset %q: give a name of lower-case letters, digits and _ (not %q or %q)", ts.ID, All, Default)
		case seen[ts.ID]:
			return fmt.Errorf("toolset %q declared twice", ts.ID)
		case ts.Description == "":
			return fmt.Errorf("toolset %q: a description is required", ts.ID)
		}
		seen[ts.ID] = true
	}
	return nil
}
