package main

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/jck411/mcp-servers/servers/shell/sandbox"

	"github.com/jck411/mcp-servers/shared/kit"
)

func runMain(t *testing.T, args []string, stderr io.Writer) int {
	t.Helper()
	return kit.Run(t.Context(), spec(), args, func(string) string { return "" }, &bytes.Buffer{}, stderr)
}

// TestMain runs the sandbox helper when the server under test re-executes this binary, and
// the server itself when a test starts this binary as its own process (serveEnv).
func TestMain(m *testing.M) {
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}
