package runner

import (
	"os"
	"testing"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"
)

// TestMain runs the sandbox helper when a sandboxed command re-executes this binary.
func TestMain(m *testing.M) {
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
