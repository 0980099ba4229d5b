package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestTrust: without a credential only a request provably from this machine is served, on /mcp,
// every narrowed URL and /metrics; a tunnel host without tokens stops the server at start.
func TestTrust(t *testing.T) {
	mcptest.CheckTrust(t, spec, "--state-dir", t.TempDir())
}
