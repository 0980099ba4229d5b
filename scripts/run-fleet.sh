#!/usr/bin/env bash
# Runs every built server on loopback on its fixed port, each line of output prefixed with the
# server's name, and prints where each one is once every server answers /healthz. A port already
# taken, or a server that exits before it answers, stops the fleet with the reason and exit
# status 1. The shell server runs commands as the user, and any local process can reach loopback,
# so it gets a fresh random bearer token (in a 0600 file, --auth-tokens-file) that the banner
# prints. Ctrl-C, or SIGINT, SIGTERM or SIGHUP to this script or to the make running it
# (make passes SIGTERM on to its recipe), stops them all: each server gets SIGTERM, its shutdown
# lines are printed, and one still running after FLEET_STOP_SECONDS (default 20) is killed.
#
# Usage: scripts/run-fleet.sh [server ...]   (no server: every MCP server; auth is not one)
# Environment:
#   FLEET_BIN          directory of the server binaries (default bin)
#   FLEET_PORT_OFFSET  added to every server's fixed port, to run beside another fleet (default 0)
#   FLEET_STOP_SECONDS how long the servers get to stop (default 20)
#   FLEET_START_SECONDS how long each server gets to answer /healthz (default 30)
#   FLEET_STATE_DIR    where each server keeps its state (notes, the shell's work folder, browser
#                      profiles), one folder per server; default a new folder under /tmp, removed
#                      when the fleet stops, so that trying things never touches the real state in
#                      ~/.local/state/mcp-servers (FLEET_STATE_DIR=~/.local/state/mcp-servers uses it)
#   NAME_FLAGS         flags for one server, NAME in capitals (docs/configuration.md lists them):
#                      BROWSER_FLAGS='--allow-private-hosts localhost,127.0.0.1' lets the browser open local
#                      pages; SHELL_FLAGS='--allowed-roots /home/me/src --work-dir /home/me/src'
#                      lets the shell work in a folder of yours
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

# Every MCP server; the authorization server (servers/auth) speaks OAuth, not MCP.
known=()
for d in servers/*/; do
	n=$(basename "$d")
	[ "$n" = auth ] || [ ! -f "$d/main.go" ] || known+=("$n")
done

bindir=${FLEET_BIN:-bin}
offset=${FLEET_PORT_OFFSET:-0}
grace=${FLEET_STOP_SECONDS:-20}
start_grace=${FLEET_START_SECONDS:-30}
for v in FLEET_PORT_OFFSET:"$offset" FLEET_STOP_SECONDS:"$grace" FLEET_START_SECONDS:"$start_grace"; do
	if ! [[ ${v#*:} =~ ^[0-9]+$ ]]; then
		echo "run-fleet: ${v%%:*} must be a whole number, got '${v#*:}'" >&2
		exit 2
	fi
done

servers=()
for a in "$@"; do
	case $a in
	-h | --help)
		usage
		exit 0
		;;
	-*)
		echo "run-fleet: unknown option $a; it takes server names (--help says more)" >&2
		exit 2
		;;
	auth)
		echo "run-fleet: auth is the authorization server (OAuth, not MCP), which make run does not run; start it as docs/auth.md says. The servers make run runs: ${known[*]}" >&2
		exit 2
		;;
	esac
	if [[ " ${known[*]} " != *" $a "* ]]; then
		echo "run-fleet: there is no server named '$a'; the servers make run runs: ${known[*]}" >&2
		exit 2
	fi
	servers+=("$a")
done
[ ${#servers[@]} -gt 0 ] || servers=("${known[@]}")

# Each server's own flags, from NAME_FLAGS, split into words as a shell would (no globbing).
declare -A flags
for s in "${servers[@]}"; do
	var=${s^^}_FLAGS
	flags[$s]=${!var:-}
done

state=${FLEET_STATE_DIR:-}
throwaway=0
if [ -z "$state" ]; then
	state=$(mktemp -d "${TMPDIR:-/tmp}/mcp-run-fleet-state.XXXXXX")
	throwaway=1
fi

# The fixed ports, asked of each binary before anything starts.
ports=()
for s in "${servers[@]}"; do
	bin="$bindir/$s"
	if [ ! -x "$bin" ]; then
		echo "run-fleet: $bin is missing; run make build" >&2
		exit 1
	fi
	if ! listing=$("$bin" --list-tools 2>&1); then
		echo "run-fleet: $bin --list-tools failed:" >&2
		printf '%s\n' "$listing" | head -n 20 >&2
		exit 1
	fi
	port=$(printf '%s\n' "$listing" | sed -n 's/^  "port": \([0-9]*\).*/\1/p')
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

# answers PORT: something on 127.0.0.1:PORT answers an HTTP GET /healthz (any status). A
# subshell, so that a refused connection cannot end this script.
answers() (
	exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
	printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$1" >&3 || true
	reply=''
	IFS= read -r -t 5 reply <&3 || true
	[[ $reply == HTTP/* ]]
)

# A port something already listens on (another fleet, an installed server) stops us before any
# server starts, with the fix.
for i in "${!servers[@]}"; do
	if (exec 3<>"/dev/tcp/127.0.0.1/${ports[$i]}") 2>/dev/null; then
		echo "run-fleet: port ${ports[$i]} (${servers[$i]}) is already in use, by another fleet or server; stop it, or run beside it with FLEET_PORT_OFFSET=100 make run" >&2
		exit 1
	fi
done

pids=()   # the servers
relays=() # the sed processes prefixing their output
stopping=0
tokdir='' shell_token='' shell_port='' # the shell server's token folder, token and port

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
	[ -z "$tokdir" ] || rm -rf "$tokdir"
	[ "$throwaway" = 0 ] || rm -rf "$state"
	echo "fleet stopped"
}
trap 'stop; exit 0' INT TERM HUP
trap stop EXIT

# The shell server's bearer token: new for every run, in a private folder removed at the end.
for i in "${!servers[@]}"; do
	[ "${servers[$i]}" = shell ] || continue
	tokdir=$(umask 077 && mktemp -d "${TMPDIR:-/tmp}/mcp-run-fleet.XXXXXX")
	shell_token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	(umask 077 && printf 'make-run:%s\n' "$shell_token" >"$tokdir/shell-auth-tokens")
	shell_port=${ports[$i]}
done

for i in "${!servers[@]}"; do
	s=${servers[$i]}
	# The relay ignores INT and TERM: Ctrl-C reaches the whole process group, and the relay must
	# outlive its server to print the server's shutdown lines. It ends when the server's output
	# does, once the server and this script have closed the pipe.
	exec {out}> >(trap '' INT TERM HUP; exec sed -u "s/^/[$s] /")
	relays+=($!)
	read -ra own <<<"${flags[$s]}"
	args=(--state-dir "$state/$s" "${own[@]}")
	if [ "$s" = shell ]; then
		MCP_PORT=${ports[$i]} MCP_AUTH_TOKENS_FILE=$tokdir/shell-auth-tokens "$bindir/$s" "${args[@]}" >&"$out" 2>&1 &
	else
		MCP_PORT=${ports[$i]} "$bindir/$s" "${args[@]}" >&"$out" 2>&1 &
	fi
	pids+=($!)
	exec {out}>&-
done

# Each server must answer /healthz on its port while still running; one that exits first, or
# never answers, stops the fleet.
for i in "${!servers[@]}"; do
	deadline=$((SECONDS + start_grace))
	until answers "${ports[$i]}" 2>/dev/null; do
		if ! kill -0 "${pids[$i]}" 2>/dev/null; then
			st=0
			wait "${pids[$i]}" || st=$?
			echo "run-fleet: ${servers[$i]} exited with status $st before answering on port ${ports[$i]} (its log is above); if the port is taken, run beside it with FLEET_PORT_OFFSET=100 make run" >&2
			stop
			exit 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "run-fleet: ${servers[$i]} did not answer http://127.0.0.1:${ports[$i]}/healthz within ${start_grace}s (FLEET_START_SECONDS)" >&2
			stop
			exit 1
		fi
		sleep 0.1
	done
done

echo "fleet running (Ctrl-C stops it):"
for i in "${!servers[@]}"; do
	extra=''
	[ -z "${flags[${servers[$i]}]}" ] || extra="   flags: ${flags[${servers[$i]}]}"
	echo "  ${servers[$i]}  http://127.0.0.1:${ports[$i]}/mcp   health: http://127.0.0.1:${ports[$i]}/healthz$extra"
done
if [ "$throwaway" = 1 ]; then
	echo "State (notes, the shell's work folder, browser profiles) is in $state, removed when the fleet stops; FLEET_STATE_DIR=~/.local/state/mcp-servers make run keeps it in the real folder."
else
	echo "State is in $state/NAME (FLEET_STATE_DIR), kept when the fleet stops."
fi
if [ -n "$shell_token" ]; then
	url=http://127.0.0.1:$shell_port/mcp
	cat <<EOF
The shell server runs commands as you, and any local user can reach 127.0.0.1: it takes only this
bearer token, new for this run (also in $tokdir/shell-auth-tokens until the fleet stops):
  $shell_token
  claude mcp add --transport http shell $url --header "Authorization: Bearer $shell_token"
  curl -sS $url -H "Authorization: Bearer $shell_token" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
EOF
fi

# Wait until a signal arrives or every server has exited; wait returns early when a trapped
# signal arrives, and the trap then stops the rest. A server that exits on its own is reported,
# and make run then fails.
status=0
for i in "${!pids[@]}"; do
	st=0
	wait "${pids[$i]}" || st=$?
	if [ "$st" -ne 0 ]; then
		echo "run-fleet: ${servers[$i]} exited with status $st" >&2
		status=1
	fi
done
exit "$status"
