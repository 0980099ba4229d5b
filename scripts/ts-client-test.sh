#!/usr/bin/env bash
# ts-client-test.sh — clients we did not write, against ours: installs the official TypeScript
# MCP SDK, mcp-remote and the MCP Inspector (the exact versions in
# servers/auth/testdata/tsclient/package-lock.json) into a cache folder, then runs servers/auth's
# TestTypeScriptClient, TestMcpRemote and TestInspector, which drive them through discovery, DCR,
# a passkey sign-in and consent in headless Chromium, the token exchange, a tool call and a
# refresh against the auth server and a protected MCP server (the last two: the fleet's calculator);
# then the TestTypeScriptSDK* tests of shell, calendar and gmail, which drive the same SDK's client
# through cancellation, progress, the owner's confirmation and every shell tool.
# Needs node (18 or newer), npm, go and chromium (scripts/test-deps.sh). The first run fetches
# about 230 packages (130 MB) from the npm registry; later runs reuse the cache.
set -euo pipefail

usage() {
	cat <<'EOF_USAGE'
Usage: scripts/ts-client-test.sh [-h]

Environment:
  MCP_TS_CACHE   where the SDK is installed (default: ${XDG_CACHE_HOME:-~/.cache}/mcp-servers/ts-client/<lock hash>)
EOF_USAGE
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
[[ $# -eq 0 ]] || { usage >&2; exit 2; }

die() { printf 'ts-client-test: %s\n' "$*" >&2; exit 1; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$REPO/servers/auth/testdata/tsclient
for tool in node npm go; do
	command -v "$tool" >/dev/null || die "$tool is needed (scripts/test-deps.sh installs it)"
done
major=$(node -p 'process.versions.node.split(".")[0]')
[[ $major -ge 18 ]] || die "node $major is too old: the SDK needs 18 or newer"

# Node trusts only its own certificate list unless told otherwise; the system's list also holds
# the authorities this machine's network adds (a TLS-inspecting egress proxy), as curl and apt do.
if [[ -z ${NODE_EXTRA_CA_CERTS:-} && -s /etc/ssl/certs/ca-certificates.crt ]]; then
	export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
lock_hash=$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -c1-16)
cache=${MCP_TS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-servers/ts-client/$lock_hash}
if [[ ! -f $cache/.installed ]]; then
	mkdir -p "$cache"
	cp "$SRC/package.json" "$SRC/package-lock.json" "$cache/"
	printf 'ts-client-test: installing the TypeScript SDK, mcp-remote and the Inspector into %s\n' "$cache" >&2
	(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) || die "npm ci failed in $cache"
	touch "$cache/.installed"
fi

rc=0
(cd "$REPO/servers/auth" && MCP_TS_CLIENT_DIR=$cache go test -count=1 -run '^(TestTypeScriptClient|TestTypeScriptFrontDoor|TestMcpRemote|TestInspector)$' -v .) || rc=1
# The same SDK through the protocol's other features (shared/mcptest/tsdriver.mjs): a cancelled
# run_command leaves no process, progress resets the client's timeout, the owner's confirmation
# over stdio for the shell, calendar and gmail, and every shell tool at 2025-11-25.
(cd "$REPO" && MCP_TS_CLIENT_DIR=$cache go test -count=1 -run '^TestTypeScriptSDK' -v ./servers/shell/ ./servers/calendar/ ./servers/gmail/) || rc=1
exit "$rc"
