#!/usr/bin/env bash
# Runs every built server on loopback on its fixed port, each line of output prefixed with the
# server's name. Ctrl-C, or SIGINT, SIGTERM or SIGHUP to this script or to the make running it
# (make passes SIGTERM on to its recipe), stops them all: each server gets SIGTERM, its shutdown
# lines are printed, and one still running after FLEET_STOP_SECONDS (default 20) is killed.
#
# Usage: scripts/run-fleet.sh [server ...]
# Environment:
#   FLEET_BIN          directory of the server binaries (default bin)
#   FLEET_PORT_OFFSET  added to every server's fixed port, to run beside another fleet (default 0)
#   FLEET_STOP_SECONDS how long the servers get to stop (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."

bindir=${FLEET_BIN:-bin}
offset=${FLEET_PORT_OFFSET:-0}
grace=${FLEET_STOP_SECONDS:-20}
for v in FLEET_PORT_OFFSET:"$offset" FLEET_STOP_SECONDS:"$grace"; do
	if ! [[ ${v#*:} =~ ^[0-9]+$ ]]; then
		echo "run-fleet: ${v%%:*} must be a whole number, got '${v#*:}'" >&2
		exit 2
	fi
done

servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
	# Every MCP server; the authorization server (servers/auth) speaks OAuth, not MCP.
	for d in servers/*/; do [ "$(basename "$d")" = auth ] || servers+=("$(basename "$d")"); done
fi

# The fixed ports, asked of each binary before anything starts.
ports=()
for s in "${servers[@]}"; do
	bin="$bindir/$s"
	if [ ! -x "$bin" ]; then
		echo "run-fleet: $bin is missing; run make build" >&2
		exit 1
	fi
	port=$("$bin" --list-tools 2>/dev/null | sed -n 's/^  "port": \([0-9]*\).*/\1/p')
	if [ -z "$port" ]; then
		echo "run-fleet: $bin --list-tools names no port" >&2
		exit 1
	fi
	port=$((port + offset))
	if [ "$port" -gt 65535 ]; then
		echo "run-fleet: FLEET_PORT_OFFSET $offset puts $s on port $port, above 65535" >&2
		exit 2
	fi
	ports+=("$port")
done

pids=()   # the servers
relays=() # the sed processes prefixing their output
stopping=0

# stop sends SIGTERM to every server still running, waits for each to exit (bounded), kills any
# left, and then waits for the relays to print the last lines. It runs once.
stop() {
	[ "$stopping" = 1 ] && return
	stopping=1
	trap '' INT TERM HUP # a second Ctrl-C must not cut the shutdown short
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	local deadline=$((SECONDS + grace)) p
	for p in "${pids[@]}"; do
		while kill -0 "$p" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
		if kill -0 "$p" 2>/dev/null; then
			echo "run-fleet: pid $p still running after ${grace}s; killing it" >&2
			kill -KILL "$p" 2>/dev/null || true
		fi
		wait "$p" 2>/dev/null || true
	done
	# Each relay ends at the end of its server's output; bounded in case a server left a child
	# holding the pipe open.
	deadline=$((SECONDS + 5))
	for p in "${relays[@]}"; do
		while kill -0 "$p" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
	done
	echo "fleet stopped"
}
trap 'stop; exit 0' INT TERM HUP
trap stop EXIT

for i in "${!servers[@]}"; do
	s=${servers[$i]}
	# The relay ignores INT and TERM: Ctrl-C reaches the whole process group, and the relay must
	# outlive its server to print the server's shutdown lines. It ends when the server's output
	# does, once the server and this script have closed the pipe.
	exec {out}> >(trap '' INT TERM HUP; exec sed -u "s/^/[$s] /")
	relays+=($!)
	MCP_PORT=${ports[$i]} "$bindir/$s" >&"$out" 2>&1 &
	pids+=($!)
	exec {out}>&-
done

echo "fleet running (Ctrl-C stops it):"
for i in "${!servers[@]}"; do
	echo "  ${servers[$i]}  http://127.0.0.1:${ports[$i]}/mcp   health: http://127.0.0.1:${ports[$i]}/healthz"
done

# Wait until a signal arrives or every server has exited; wait returns early when a trapped
# signal arrives, and the trap then stops the rest.
for p in "${pids[@]}"; do
	wait "$p" || true
done
