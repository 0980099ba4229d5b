package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
)

func runMain(t *testing.T, args []string, stderr io.Writer) int {
	t.Helper()
	return kit.Run(t.Context(), spec(), args, func(string) string { return "" }, &bytes.Buffer{}, stderr)
}
