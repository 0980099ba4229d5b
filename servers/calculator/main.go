// Command calculator is the fleet's calculator MCP server (port 9003): exact arithmetic,
// unit conversion and statistics, with no dependencies beyond itself.
package main

import (
	"os"

	"github.com/jck411/mcp-servers/shared/kit"
)

func main() { os.Exit(kit.Main(spec())) }

// spec describes the calculator server.
func spec() kit.Spec {
	return kit.Spec{
		Name:         "calculator",
		Title:        "Calculator",
		Port:         9003,
		Instructions: "Use these tools for any arithmetic instead of computing in your head: evaluate is exact for decimals and big integers, convert_units converts between units, statistics summarizes a list of numbers.",
		Toolsets:     toolsets(),
		Setup: func(s *kit.Server) error {
			addEvaluate(s)
			addConvertUnits(s)
			addStatistics(s)
			return nil
		},
	}
}
