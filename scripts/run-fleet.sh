#!/usr/bin/env bash
# Runs every built server on loopback on its fixed port, each line of output prefixed with the
# server's name. Ctrl-C (or SIGTERM) stops them all. Usage: scripts/run-fleet.sh [server ...]
set -euo pipefail
cd "$(dirname "$0")/.."

servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
	for d in servers/*/; do servers+=("$(basename "$d")"); done
fi

pids=()
stop() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap stop INT TERM EXIT

for s in "${servers[@]}"; do
	bin="bin/$s"
	if [ ! -x "$bin" ]; then
		echo "run-fleet: $bin is missing; run make build" >&2
		exit 1
	fi
	# Each server's output, stdout and stderr, prefixed with its name.
	"$bin" > >(sed -u "s/^/[$s] /") 2>&1 &
	pids+=($!)
done

sleep 1
echo "fleet running (Ctrl-C stops it):"
for s in "${servers[@]}"; do
	port=$("bin/$s" --list-tools 2>/dev/null | sed -n 's/^  "port": \([0-9]*\).*/\1/p')
	echo "  $s  http://127.0.0.1:$port/mcp   health: http://127.0.0.1:$port/healthz"
done
wait
