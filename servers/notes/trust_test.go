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

// TestOpenAPI: openapi.json lists exactly the tools offered, under every narrowing, toolset,
// read-only flag and run-time switch, and validates as OpenAPI 3.1 (the validator runs in
// scripts/ts-client-test.sh).
func TestOpenAPI(t *testing.T) {
	mcptest.CheckOpenAPI(t, spec, "--state-dir", t.TempDir())
}

// TestTunnel: every route, as a stranger through the tunnel (no credential, a wrong token, a
// token for another server, the console token), is refused; the owner's token is served.
func TestTunnel(t *testing.T) {
	mcptest.CheckTunnel(t, spec, "--state-dir", t.TempDir())
}
