#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2016  # "cond && ok || bad": ok never fails; $ in single quotes is for the container
# deploy/test/e2e-systemd/run.sh — the fleet under a real systemd, as docs/deploy.md installs it.
#
# For each Debian suite (bookworm = Debian 12, systemd 252; trixie = Debian 13, systemd 257) it
# unpacks a fresh copy of a cached minimal root filesystem, boots it with systemd as PID 1
# (systemd-nspawn --boot, private network), and inside it:
#   - installs the release exactly as docs/deploy.md says: the release's deploy/setup-host.sh,
#     then deploy/deploy.sh --release FILE;
#   - checks every unit reached "active" through Type=notify, every /healthz answers 200 (the
#     Google and Spotify servers "degraded"), deploy.sh --status, and the systemd-analyze
#     security score of each running unit against the limits deploy/test/run.sh enforces;
#   - bearer tokens through LoadCredential= (401 without, a result with the owner token);
#   - the browser server navigating a page served inside the container, with Chromium's own
#     sandbox (no --no-sandbox, renderers in their own user namespace);
#   - the shell server running a command under its drop-in, and under --policy allowlist
#     confined by Landlock; the notes server writing and
#     finding a note in its StateDirectory;
#   - in trixie only, the notes server over a generated vault of 100,000 notes and no index:
#     active and healthy within seconds while the index builds, reads, writes and searches
#     meanwhile, no restart past TimeoutStartSec (notes-vault.sh);
#   - faults: kill -9 (systemd restarts it), a release whose calculator fails its health check
#     (deploy.sh rolls back, exits 1, the previous version answers), systemctl stop during a
#     long tool call (the call completes, the unit stops within TimeoutStopSec);
#   - the fleet's memory (sum of MemoryCurrent), idle and after a browser navigation.
# Everything it starts is stopped and removed when it ends, also on failure or Ctrl-C.
#
# Usage: deploy/test/e2e-systemd/run.sh [--release FILE] [--suites "bookworm trixie"] [--serial]
#        deploy/test/e2e-systemd/run.sh --prepare [--suites ...]   (only build the root filesystems)
#   FILE defaults to the newest dist/mcp-servers-*-linux-amd64.tar.gz (`make release`).
#   With several suites, each boots in a container of its own at the same time (a child run of
#   this script per suite, its output printed whole when it ends); --serial runs them one after
#   another in this process. The bad release is built once and shared (--bad-release FILE).
# Needs: root, mmdebstrap, systemd-nspawn (systemd-container), nsenter, go (for the bad
# release). Root filesystems are cached in $MCP_ROOTFS_CACHE (default
# /var/cache/mcp-servers/rootfs), keyed by suite and package list; containers live in
# $MCP_E2E_TMP (default /var/tmp).
# Ends with "e2e-systemd: N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
IDS=(shell auth calculator calendar gmail drive notes spotify browser)
DEGRADED_IDS=" auth calendar gmail drive spotify " # not signed in (auth: no passkey yet): degraded, not broken
# What the container has besides Debian's minbase: systemd and what setup-host.sh and these
# tests use (curl, jq, Chromium's headless shell for the browser server, python3 for the test
# page and the bad release, iproute2 and procps for looking around).
PACKAGES=(systemd systemd-sysv dbus ca-certificates curl jq chromium-headless-shell python3 iproute2 procps)

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

release=
suites="bookworm trixie"
serial=
prepare=
BAD=
while [[ $# -gt 0 ]]; do
	case $1 in
	--release) [[ $# -ge 2 ]] || { echo "--release needs a file" >&2; exit 2; }; release=$2; shift 2 ;;
	--suites) [[ $# -ge 2 ]] || { echo "--suites needs a list" >&2; exit 2; }; suites=$2; shift 2 ;;
	--serial) serial=1; shift ;;
	--prepare) prepare=1; shift ;;
	--bad-release) [[ $# -ge 2 && -f $2 ]] || { echo "--bad-release needs an existing file" >&2; exit 2; }; BAD=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

[[ $EUID -eq 0 ]] || { echo "e2e-systemd: run as root (it builds and boots containers)" >&2; exit 1; }
for tool in mmdebstrap systemd-nspawn nsenter go tar sha256sum; do
	command -v "$tool" >/dev/null || {
		echo "e2e-systemd: needs $tool (apt-get install mmdebstrap systemd-container util-linux; go for the bad release)" >&2
		exit 1
	}
done
if [[ -n $prepare ]]; then
	# Only the root filesystems, side by side (make test builds them while the code compiles).
	builders=()
	for suite in $suites; do "$HERE/rootfs.sh" "$suite" "${PACKAGES[@]}" & builders+=($!); done
	rc=0
	for p in "${builders[@]}"; do wait "$p" || rc=1; done
	exit "$rc"
fi
if [[ -z $release ]]; then
	release=$(find "$REPO/dist" -maxdepth 1 -name 'mcp-servers-*-linux-amd64.tar.gz' -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2-)
	[[ -n $release ]] || { echo "e2e-systemd: no dist/mcp-servers-*-linux-amd64.tar.gz: run make release first" >&2; exit 1; }
fi
[[ -f $release && -f $release.sha256 ]] || { echo "e2e-systemd: $release or its .sha256 is missing" >&2; exit 1; }

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
bad() {
	failed=$((failed + 1))
	printf 'FAIL  %s\n' "$1"
	if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/      /' | head -n 40; fi
}
note() { printf '      %s\n' "$*"; }

T=$(mktemp -d "${MCP_E2E_TMP:-/var/tmp}/mcp-e2e-systemd.XXXXXX")
CHILDREN=()
NSPAWN_PID=
LEADER=
# stop_container: power the container off (SIGTERM to nspawn = orderly shutdown), kill it if
# it does not stop in 30 s, and unmount whatever is left under its directory.
stop_container() {
	local i
	if [[ -n $NSPAWN_PID ]] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
		kill -TERM "$NSPAWN_PID" 2>/dev/null || true
		for ((i = 0; i < 60; i++)); do
			kill -0 "$NSPAWN_PID" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 "$NSPAWN_PID" 2>/dev/null; then
			echo "e2e-systemd: container did not stop in 30 s; killing it" >&2
			kill -KILL "$NSPAWN_PID" 2>/dev/null || true
			is_pid "$LEADER" && kill -KILL "$LEADER" 2>/dev/null || true
		fi
		wait "$NSPAWN_PID" 2>/dev/null || true
	fi
	NSPAWN_PID=
	LEADER=
	local m
	while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(findmnt -rn -o TARGET | grep -F "$T/" | sort -r)
	drop_cgroups
}
# own_cgroups NAME: make a cgroup NAME below this process's own in each hierarchy systemd uses
# (cgroup v2, or a hybrid host's unified/ and name=systemd ones) and list them in CG_DIRS.
CG_DIRS=()
own_cgroups() {
	local h rel d
	CG_DIRS=()
	for h in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do
		[[ -f $h/cgroup.procs ]] || continue
		if [[ $h == */systemd ]]; then rel=$(sed -n 's/^[0-9]*:name=systemd://p' /proc/self/cgroup); else rel=$(sed -n 's/^0:://p' /proc/self/cgroup); fi
		[[ -n $rel ]] || continue
		d=$h${rel%/}/$1
		mkdir -p "$d" 2>/dev/null && CG_DIRS+=("$d")
	done
}
# drop_cgroups: remove the cgroups own_cgroups made, deepest first, once the container is gone.
drop_cgroups() {
	local d
	for d in "${CG_DIRS[@]}"; do [[ -d $d ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
	CG_DIRS=()
}
# is_pid VALUE: VALUE is a process number above 1. Nothing here is signalled without it: a PID
# read as 0 (a unit that could not be reached) would signal the whole process group, and 1 is init.
is_pid() { [[ ${1:-} =~ ^[0-9]+$ && $1 -gt 1 ]]; }
# kill_tree PID: PID and every process below it (the background release build).
children() { cat /proc/"$1"/task/*/children 2>/dev/null || true; }
kill_tree() {
	local c
	is_pid "$1" || return 0
	for c in $(children "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}
# unit_main_pid UNIT: the unit's main process as the container numbers it, printed only when it
# is a process above 1 that runs in that unit's own cgroup inside the container; fails otherwise.
unit_main_pid() {
	local pid
	pid=$(ct systemctl show -P MainPID "$1" 2>/dev/null) || return 1
	is_pid "$pid" || return 1
	ct grep -qF -- "/$1" "/proc/$pid/cgroup" 2>/dev/null || return 1
	printf '%s\n' "$pid"
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop_container
	[[ -n ${BAD_PID:-} ]] && kill_tree "$BAD_PID"
	[[ -n ${VAULT_PID:-} ]] && kill_tree "$VAULT_PID"
	local c
	for c in "${CHILDREN[@]}"; do is_pid "$c" && kill -TERM "$c" 2>/dev/null || true; done
	for c in "${CHILDREN[@]}"; do wait "$c" 2>/dev/null || true; done
	rm -rf --one-file-system "$T"
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "e2e-systemd: interrupted" >&2; exit 130' INT TERM

# shellcheck source=SCRIPTDIR/notes-vault.sh
. "$HERE/notes-vault.sh"

# ct CMD...: run CMD inside the booted container (all its namespaces, a clean environment).
# -r/-w: the container's root and working directory even when this script itself runs in a
# chroot (there, entering the mount namespace alone lands at that namespace's original root).
ct() { nsenter -t "$LEADER" -a -r -w env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

# boot SUITE DIR: unpack a fresh copy of the suite's cached rootfs into DIR and boot it; sets
# NSPAWN_PID, LEADER (the container's PID 1 as seen here) and BOOT_STATE (is-system-running).
boot() {
	local suite=$1 dir=$2 tarball i pid
	tarball=$("$HERE/rootfs.sh" "$suite" "${PACKAGES[@]}")
	mkdir -p "$dir"
	tar -C "$dir" --numeric-owner -xpf "$tarball"
	own_cgroups "mcp-e2e-$suite-$$"
	# nspawn in cgroups of its own: the container's systemd builds its tree below them, so two
	# containers booted side by side never share (and tear down) each other's unit cgroups.
	(
		for d in "${CG_DIRS[@]}"; do echo "$BASHPID" >"$d/cgroup.procs" 2>/dev/null || true; done
		# nspawn's own seccomp allow list (systemd 252) lacks Landlock's system calls, which the
		# shell's --policy allowlist needs; an LXC container's default profile does not block them.
		exec systemd-nspawn --quiet --boot --register=no --keep-unit --private-network --console=pipe \
			--system-call-filter='landlock_create_ruleset landlock_add_rule landlock_restrict_self' \
			--machine="mcp-e2e-$suite" -D "$dir" </dev/null >"$T/$suite.console" 2>&1
	) &
	NSPAWN_PID=$!
	# The container's PID 1 is a child (or grandchild) of nspawn whose command is systemd.
	for ((i = 0; i < 100; i++)); do
		for pid in $(children "$NSPAWN_PID") $(for c in $(children "$NSPAWN_PID"); do children "$c"; done); do
			if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == systemd ]]; then LEADER=$pid; break 2; fi
		done
		kill -0 "$NSPAWN_PID" 2>/dev/null || break
		sleep 0.2
	done
	[[ -n $LEADER ]] || return 1
	# /run/systemd/system appears before systemd listens on its private bus socket; asking
	# too early answers "Failed to connect to bus", which is not a boot state. Wait for the
	# socket, and ask again while the bus is not yet there (up to two minutes in all).
	for ((i = 0; i < 300; i++)); do
		ct test -S /run/systemd/private 2>/dev/null && break
		sleep 0.2
	done
	local deadline=$((SECONDS + 120))
	while :; do
		BOOT_STATE=$(timeout 120 nsenter -t "$LEADER" -a -r -w systemctl is-system-running --wait 2>&1) || true
		[[ $BOOT_STATE == *"Failed to connect to bus"* && $SECONDS -lt $deadline ]] || break
		sleep 0.5
	done
}

# mcp_call PORT TOKEN TOOL ARGS-JSON [CURL-OPTIONS...]: one tools/call over streamable HTTP
# (the servers are stateless); prints the JSON-RPC response, or "HTTP <code>" on an HTTP error.
mcp_call() {
	local port=$1 token=$2 tool=$3 args=$4 body out code
	shift 4
	body=$(jq -cn --arg t "$tool" --argjson a "$args" '{jsonrpc:"2.0",id:1,method:"tools/call",params:{name:$t,arguments:$a}}')
	local auth=()
	[[ -n $token ]] && auth=(-H "Authorization: Bearer $token")
	out=$(ct curl -sS -w '\n%{http_code}' "${auth[@]}" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' --data-binary "$body" "$@" "http://127.0.0.1:$port/mcp") || true
	code=${out##*$'\n'}
	out=${out%$'\n'*}
	if [[ $code != 200 ]]; then
		echo "HTTP $code"
		return 0
	fi
	# An SSE stream: the response is the data line of the message event.
	if [[ $out == *"data: "* ]]; then sed -n 's/^data: //p' <<<"$out" | tail -n 1; else printf '%s\n' "$out"; fi
}
port_of() {
	case $1 in shell) echo 9001 ;; auth) echo 9002 ;; calculator) echo 9003 ;; calendar) echo 9004 ;; gmail) echo 9005 ;;
	drive) echo 9006 ;; notes) echo 9009 ;; spotify) echo 9010 ;; browser) echo 9011 ;; esac
}
token_of() { ct sed -n 's/^owner://p' "/etc/mcp-servers/credentials/$1/auth-tokens"; }
health_of() { ct curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$(port_of "$1")/healthz" || true; }
# unit_cgroup UNIT: the unit's cgroup folder in the container (cgroup v2, or the hybrid
# layout's unified/ or name=systemd hierarchy when the host runs cgroup v1 controllers).
unit_cgroup() {
	local cg d
	cg=$(ct systemctl show -P ControlGroup "$1")
	for d in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do
		if ct test -f "$d$cg/cgroup.procs"; then echo "$d$cg"; return 0; fi
	done
	return 1
}
# unit_pids UNIT: every process in the unit's cgroup and below it (the shell server moves itself
# and each command into cgroups of their own under its delegated cgroup).
unit_pids() { local d; d=$(unit_cgroup "$1") && ct find "$d" -name cgroup.procs -exec cat {} +; }
# fleet_memory: the nine units' memory in MiB, in total and each. MemoryCurrent= where the
# container has the memory controller (cgroup v2); otherwise the sum of the Pss of each
# unit's processes (smaps_rollup), which leaves out the page cache that MemoryCurrent counts.
fleet_memory() {
	local id m sum=0 parts=() how=MemoryCurrent pid kb
	for id in "${IDS[@]}"; do
		m=$(ct systemctl show -P MemoryCurrent "mcp-server@$id.service")
		if [[ ! $m =~ ^[0-9]+$ ]]; then
			how="Pss of the units' processes (no memory controller: MemoryCurrent=$m)"
			m=0
			for pid in $(unit_pids "mcp-server@$id.service"); do
				kb=$(ct awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null) || kb=0
				m=$((m + ${kb:-0} * 1024))
			done
		fi
		sum=$((sum + m))
		parts+=("$id=$((m / 1048576))")
	done
	echo "$((sum / 1048576)) MiB (${parts[*]}) by $how"
}

# fleet_anon_check: each unit's memory.current with its anon and file parts (memory.stat) where
# the container has the memory controller, else the Pss_Anon of its processes; fails when the
# units' anonymous memory together is over 64 MiB (docs/performance.md).
fleet_anon_check() {
	local id d cur anon file sum=0 parts=() how="memory.current (anon+file from memory.stat)" pid kb
	for id in "${IDS[@]}"; do
		d=$(unit_cgroup "mcp-server@$id.service") || d=""
		if [[ -n $d ]] && ct test -f "$d/memory.stat"; then
			cur=$(ct cat "$d/memory.current")
			anon=$(ct awk '$1 == "anon" { print $2 }' "$d/memory.stat")
			file=$(ct awk '$1 == "file" { print $2 }' "$d/memory.stat")
			parts+=("$id=$((cur / 1048576))/$((anon / 1048576))/$((file / 1048576))")
		else
			how="Pss_Anon of the units' processes (no memory controller)"
			anon=0
			for pid in $(unit_pids "mcp-server@$id.service"); do
				kb=$(ct awk '/^Pss_Anon:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null) || kb=0
				anon=$((anon + ${kb:-0} * 1024))
			done
			parts+=("$id=anon $((anon / 1048576))")
		fi
		sum=$((sum + anon))
	done
	note "fleet memory by unit, MiB (current/anon/file), idle: ${parts[*]} by $how"
	if ((sum <= 64 << 20)); then
		ok "the ${#IDS[@]} units' anonymous memory, idle: $((sum / 1048576)) MiB (budget 64 MiB)"
	else
		bad "the ${#IDS[@]} units' anonymous memory, idle: $((sum / 1048576)) MiB, over the 64 MiB budget"
	fi
}

# bad_release GOOD-TARBALL OUT-DIR: the same fleet under a new version whose calculator starts,
# tells systemd it is ready, and answers /healthz with 503. Prints the new tarball's path.
bad_release() {
	local good=$1 out=$2 version tree tarball
	version=$(tar -xzOf "$good" VERSION)-bad
	mkdir -p "$out"
	VERSION=$version ARCHES=amd64 DIST=$out/build "$REPO/scripts/release.sh" >"$out/release.log" 2>&1 ||
		{ cat "$out/release.log" >&2; return 1; }
	tree=$out/tree
	mkdir -p "$tree"
	tar -C "$tree" -xzf "$out/build/mcp-servers-$version-linux-amd64.tar.gz"
	cat >"$tree/bin/calculator" <<EOF
#!/usr/bin/python3
# A calculator that fails its health check (e2e-systemd's bad release).
import http.server, os, socket, sys
if sys.argv[1:] == ["--version"]:
    print("calculator $version")
    sys.exit(0)
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status":"fail","name":"calculator","version":"$version","checks":{"engine":{"status":"fail"}}}'
        self.send_response(503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
srv = http.server.HTTPServer((os.environ.get("MCP_HOST", "127.0.0.1"), int(os.environ["MCP_PORT"])), Health)
addr = os.environ.get("NOTIFY_SOCKET", "")
if addr:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.connect("\0" + addr[1:] if addr.startswith("@") else addr)
    s.send(b"READY=1")
srv.serve_forever()
EOF
	chmod 0755 "$tree/bin/calculator"
	sed -i "s/^[0-9a-f]*  calculator\$/$(sha256sum "$tree/bin/calculator" | cut -d' ' -f1)  calculator/" "$tree/MANIFEST"
	tarball=$out/mcp-servers-$version-linux-amd64.tar.gz
	tar --sort=name --owner=0 --group=0 --numeric-owner -C "$tree" -cf - VERSION MANIFEST bin deploy docs scripts | gzip -n >"$tarball"
	(cd "$out" && sha256sum "$(basename "$tarball")" >"$(basename "$tarball").sha256")
	echo "$tarball"
}

# ============================================================================================
REL_NAME=$(basename "$release")
GOOD_VERSION=$(tar -xzOf "$release" VERSION)
echo "== e2e-systemd: release $GOOD_VERSION ($REL_NAME)"
read -r -a suite_list <<<"$suites"
if [[ ${#suite_list[@]} -gt 1 && -z $serial ]]; then
	# One container per suite, booted side by side: each is a child run of this script with the
	# shared bad release, its output kept and printed whole, in suite order, when all have ended.
	echo "== building the bad release (calculator answers /healthz 503) and the root filesystems"
	bad_release "$release" "$T/bad" >"$T/bad.path" &
	BAD_PID=$!
	for suite in "${suite_list[@]}"; do "$HERE/rootfs.sh" "$suite" "${PACKAGES[@]}" >/dev/null & CHILDREN+=($!); done
	for c in "${CHILDREN[@]}"; do wait "$c" || { echo "e2e-systemd: building a root filesystem failed" >&2; exit 1; }; done
	CHILDREN=()
	wait "$BAD_PID" || { BAD_PID=; echo "e2e-systemd: building the bad release failed" >&2; exit 1; }
	BAD_PID=
	BAD=$(cat "$T/bad.path")
	echo "== booting ${suite_list[*]} side by side"
	for suite in "${suite_list[@]}"; do
		"${BASH_SOURCE[0]}" --release "$release" --suites "$suite" --bad-release "$BAD" >"$T/$suite.log" 2>&1 &
		CHILDREN+=($!)
	done
	i=0
	for suite in "${suite_list[@]}"; do
		wait "${CHILDREN[$i]}" || true
		i=$((i + 1))
		cat "$T/$suite.log"
		line=$(grep -E '^e2e-systemd: [0-9]+ passed, [0-9]+ failed$' "$T/$suite.log" | tail -n 1) || line=
		if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
		else
			bad "$suite: the run ended without its count"
		fi
	done
	CHILDREN=()
	echo
	echo "e2e-systemd: ${suite_list[*]}"
	echo "e2e-systemd: $passed passed, $failed failed"
	[[ $failed -eq 0 ]]
	exit
fi
if [[ -z $BAD ]]; then
	echo "== building the bad release (calculator answers /healthz 503) in the background"
	bad_release "$release" "$T/bad" >"$T/bad.path" &
	BAD_PID=$!
fi

declare -A MEMORY=() LIMITS_NOTE=()
for suite in $suites; do
	echo "== $suite: boot"
	D=$T/$suite
	[[ $suite == "$VAULT_SUITE" ]] && vault_start
	BOOT_STATE=
	if ! boot "$suite" "$D"; then
		bad "$suite: boot" "$(tail -n 30 "$T/$suite.console")"
		stop_container
		continue
	fi
	state=$BOOT_STATE
	sysver=$(ct systemctl --version | head -n 1)
	debver=$(ct cat /etc/debian_version)
	if [[ $state == running ]]; then
		ok "$suite: booted ($sysver, Debian $debver): $state"
	else
		bad "$suite: system state '$state'" "$(ct systemctl --failed --no-legend 2>&1)"
	fi

	echo "== $suite: install as docs/deploy.md says"
	cp "$release" "$release.sha256" "$D/root/"
	ct mkdir -p /root/release
	ct tar -C /root/release -xzf "/root/$REL_NAME"
	if out=$(ct /root/release/deploy/setup-host.sh 2>&1); then ok "$suite: setup-host.sh"; else bad "$suite: setup-host.sh" "$out"; fi
	[[ $out != *"installing "* ]] && ok "$suite: setup-host.sh found curl, jq and a Chromium already installed" || bad "$suite: setup-host.sh installed packages" "$out"
	if out=$(ct /root/release/deploy/deploy.sh --release "/root/$REL_NAME" 2>&1); then
		ok "$suite: deploy.sh --release (first deploy)"
	else
		bad "$suite: deploy.sh --release" "$out"
	fi
	out=$(ct /root/release/deploy/setup-host.sh 2>&1) || true
	[[ $out == *"nothing changed"* ]] && ok "$suite: setup-host.sh again: nothing changed" || bad "$suite: second setup-host.sh run" "$out"

	echo "== $suite: the fleet"
	for id in "${IDS[@]}"; do
		unit=mcp-server@$id.service
		props=$(ct systemctl show -p ActiveState -p SubState -p Type -p NRestarts "$unit" | sort | paste -sd' ')
		[[ $props == "ActiveState=active NRestarts=0 SubState=running Type=notify" ]] &&
			ok "$unit active through Type=notify" || bad "$unit: $props" "$(ct journalctl -u "$unit" -n 20 --no-pager 2>&1)"
		body=$(ct curl -s -w ' %{http_code}' "http://127.0.0.1:$(port_of "$id")/healthz") || true
		want=ok
		[[ $DEGRADED_IDS == *" $id "* ]] && want=degraded
		status=$(jq -r .status <<<"${body% *}" 2>/dev/null) || status='?'
		version=$(jq -r .version <<<"${body% *}" 2>/dev/null) || version='?'
		[[ ${body##* } == 200 && $status == "$want" && $version == "$GOOD_VERSION" ]] &&
			ok "$id /healthz 200 $status $version" || bad "$id /healthz: want 200 $want $GOOD_VERSION" "$body"
		limit=20
		[[ $id == shell || $id == browser ]] && limit=50
		score=$(ct systemd-analyze security "$unit" 2>&1 | sed -n 's/.*exposure level for .*: \([0-9.]*\) .*/\1/p')
		if ct systemd-analyze security --threshold="$limit" "$unit" >/dev/null 2>&1; then
			ok "security $unit (running): $score <= $((limit / 10)).$((limit % 10))"
		else
			bad "security $unit (running): $score above $((limit / 10)).$((limit % 10))"
		fi
	done
	if out=$(ct /root/release/deploy/deploy.sh --status 2>&1); then
		n=$(grep -cE "^($(IFS='|'; echo "${IDS[*]}")) +active " <<<"$out" || true)
		[[ $n -eq 9 ]] && ok "deploy.sh --status: all nine active, exit 0" || bad "deploy.sh --status lists $n of 9 active" "$out"
	else
		bad "deploy.sh --status exits non-zero" "$out"
	fi
	# The authorization server: its RFC 8414 metadata names the loopback issuer setup-host.sh
	# wrote, and `auth enroll`, run as its user on its state file, prints a one-time code.
	body=$(ct curl -s http://127.0.0.1:9002/.well-known/oauth-authorization-server) || true
	[[ $(jq -r '.issuer + " " + (.code_challenge_methods_supported | join(","))' <<<"$body" 2>/dev/null) == "http://localhost:9002 S256" ]] &&
		ok "auth serves its metadata (issuer, S256 only)" || bad "auth metadata" "$body"
	out=$(ct setpriv --reuid=mcp-auth --regid=mcp-auth --clear-groups /opt/mcp-servers/current/bin/auth enroll --state-dir /var/lib/mcp-servers/auth 2>&1) || true
	[[ $out =~ [a-z2-9]{5}-[a-z2-9]{5}-[a-z2-9]{5}-[a-z2-9]{5} ]] && ok "auth enroll as mcp-auth prints a code" || bad "auth enroll" "$out"
	# MemoryMax= and TasksMax=: systemd took them; the kernel enforces them only where the
	# container has the memory and pids controllers (cgroup v2).
	limits=
	for u in calculator browser; do
		limits+="$(ct systemctl show -P MemoryMax "mcp-server@$u.service") $(ct systemctl show -P TasksMax "mcp-server@$u.service") "
	done
	limits=${limits% }
	[[ $limits == "536870912 64 2147483648 512" ]] && ok "MemoryMax/TasksMax as configured (calculator 512M/64, browser 2G/512)" || bad "MemoryMax/TasksMax: $limits"
	cgdir=$(unit_cgroup mcp-server@calculator.service) || cgdir=
	if [[ -n $cgdir ]] && ct grep -qw memory "$cgdir/cgroup.controllers" 2>/dev/null; then
		got=$(ct cat "$cgdir/memory.max" "$cgdir/pids.max" | paste -sd' ')
		[[ $got == "536870912 64" ]] && ok "the kernel enforces them: memory.max and pids.max $got" || bad "cgroup limits: $got"
	else
		note "MemoryMax/TasksMax not enforceable in this container: no memory/pids controller in its cgroup v2 tree (the host mounts them as cgroup v1)"
		LIMITS_NOTE[$suite]="not enforced (host has cgroup v1 controllers)"
	fi
	sleep 3
	mem_idle=$(fleet_memory) || true
	note "fleet memory, idle: $mem_idle"
	fleet_anon_check

	echo "== $suite: bearer tokens through LoadCredential="
	tok=$(token_of calculator)
	out=$(mcp_call 9003 "" evaluate '{"expression":"6*7"}')
	[[ $out == "HTTP 401" ]] && ok "a call without a token: 401" || bad "a call without a token" "$out"
	out=$(mcp_call 9003 "wrong-token-0123456789" evaluate '{"expression":"6*7"}')
	[[ $out == "HTTP 401" ]] && ok "a call with a wrong token: 401" || bad "a call with a wrong token" "$out"
	out=$(mcp_call 9003 "$tok" evaluate '{"expression":"6*7"}')
	[[ $(jq -r '.result.content[0].text' <<<"$out" 2>/dev/null) == 42 ]] && ok "a call with the owner token: 6*7 = 42" || bad "a call with the owner token" "$out"
	if ! pid=$(unit_main_pid mcp-server@calculator.service); then
		bad "the calculator's environment: no main PID inside the container to read"
	elif ! env=$(ct cat "/proc/$pid/environ" 2>/dev/null | tr '\0' '\n') || [[ -z $env ]]; then
		bad "the calculator's environment could not be read (/proc/$pid/environ)"
	elif grep -qF -- "$tok" <<<"$env"; then
		bad "the token is in the server's environment"
	else
		ok "the token is not in the server's environment"
	fi

	echo "== $suite: deploy.sh --console on and off"
	if out=$(ct /root/release/deploy/deploy.sh --console on 2>&1); then
		ok "deploy.sh --console on: every server restarted healthy"
	else
		bad "deploy.sh --console on" "$(grep -v ' is healthy: \|  [a-z]* checks: ' <<<"$out"; ct journalctl -u mcp-server@auth.service -n 15 --no-pager 2>&1)"
	fi
	ctok=$(ct cat /etc/mcp-servers/credentials/auth/console-token 2>/dev/null | tr -d '\n') || ctok=
	mode=$(ct stat -c '%a %U' /etc/mcp-servers/credentials/auth/console-token 2>/dev/null) || mode=
	[[ ${#ctok} -ge 32 && $mode == "600 root" ]] && ok "the console token: ${#ctok} characters, $mode" || bad "the console token: ${#ctok} characters, mode '$mode'"
	code=$(ct curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9002/console/signin) || code=
	[[ $code == 200 ]] && ok "auth serves /console/signin (the console's token came through LoadCredential=)" || bad "auth /console/signin: HTTP $code" "$(ct journalctl -u mcp-server@auth.service -n 20 --no-pager 2>&1)"
	code=$(ct curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9002/console/api/fleet) || code=
	[[ $code == 401 ]] && ok "the console's JSON without a session: 401" || bad "the console's JSON without a session: HTTP $code"
	admin_ok=0 admin_bad=()
	for id in "${IDS[@]}"; do
		[[ $id == auth ]] && continue
		port=$(port_of "$id")
		with=$(ct curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ctok" "http://127.0.0.1:$port/admin/status") || with=
		without=$(ct curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/admin/status") || without=
		if [[ $with == 200 && $without == 401 ]]; then admin_ok=$((admin_ok + 1)); else admin_bad+=("$id: with the token $with, without $without"); fi
	done
	[[ ${#admin_bad[@]} -eq 0 && $admin_ok -eq 8 ]] && ok "the eight servers' /admin/status: 200 with the console token, 401 without" || bad "/admin/status on $admin_ok of 8" "${admin_bad[*]}"
	if out=$(ct /root/release/deploy/deploy.sh --console off 2>&1); then ok "deploy.sh --console off"; else bad "deploy.sh --console off" "$out"; fi
	code=$(ct curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9002/console/signin) || code=
	with=$(ct curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ctok" http://127.0.0.1:9003/admin/status) || with=
	[[ $code == 404 && $with == 404 ]] && ct test ! -e /etc/mcp-servers/credentials/auth/console-token &&
		ok "console off: /console and /admin/ answer 404, the token is gone" || bad "console off: /console $code, calculator /admin/status $with"

	echo "== $suite: deploy.sh --front-door on and off"
	# setup-host.sh's auth.env names every server's loopback /mcp in MCP_RESOURCES, so the door
	# routes to all eight; a call without a token is challenged with the door's own metadata.
	if out=$(ct /root/release/deploy/deploy.sh --front-door on 2>&1); then
		ok "deploy.sh --front-door on: auth restarted healthy"
	else
		bad "deploy.sh --front-door on" "$(grep -v ' is healthy: \|  [a-z]* checks: ' <<<"$out"; ct journalctl -u mcp-server@auth.service -n 15 --no-pager 2>&1)"
	fi
	challenge=$(ct curl -s -o /dev/null -w '%{http_code} %header{www-authenticate}' -X POST -H 'Host: localhost:9002' \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' http://127.0.0.1:9002/mcp) || challenge=
	meta=$(ct curl -s -H 'Host: localhost:9002' http://127.0.0.1:9002/.well-known/oauth-protected-resource/mcp) || meta=
	if [[ $challenge == "401 Bearer resource_metadata=\"http://localhost:9002/.well-known/oauth-protected-resource/mcp\""* &&
		$meta == *'"resource":"http://localhost:9002/mcp"'* ]]; then
		ok "the front door: /mcp challenges for its own resource, whose metadata names it"
	else
		bad "the front door: /mcp answered '$challenge'" "metadata: $meta"
	fi
	if out=$(ct /root/release/deploy/deploy.sh --front-door off 2>&1); then ok "deploy.sh --front-door off"; else bad "deploy.sh --front-door off" "$out"; fi
	code=$(ct curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Host: localhost:9002' -d '{}' http://127.0.0.1:9002/mcp) || code=
	[[ $code == 404 ]] && ok "front door off: /mcp answers 404" || bad "front door off: /mcp answered HTTP $code"

	echo "== $suite: shell and notes"
	tok=$(token_of shell)
	out=$(mcp_call 9001 "$tok" run_command '{"command":"id -un; echo \"$HOME\"; cat /proc/self/status | grep -E \"^NoNewPrivs\""}')
	text=$(jq -r '.result.structuredContent.stdout // .result.content[0].text' <<<"$out" 2>/dev/null) || text=
	[[ $text == *mcp-shell*"/var/lib/mcp-servers/shell"*"NoNewPrivs:"*1* ]] && ok "shell: run_command as mcp-shell, HOME in its StateDirectory, NoNewPrivs" || bad "shell: run_command" "$out"
	# Delegate=yes in the shell drop-in: the server puts each command in a cgroup of its own, so a
	# descendant that left the process group still dies at the timeout.
	out=$(mcp_call 9001 "$tok" get_environment '{}')
	mode=$(jq -r '.result.structuredContent.containment // empty' <<<"$out" 2>/dev/null) || mode=
	[[ $mode == cgroup ]] && ok "shell: commands contained by cgroups of their own (Delegate=yes)" || bad "shell: containment is '$mode', want cgroup" "$out"
	out=$(mcp_call 9001 "$tok" run_command '{"command":"setsid sleep 307 & (sleep 308 &); sleep 60","timeout_seconds":2}' --max-time 30)
	left=$(ct sh -c 'for p in /proc/[0-9]*; do tr "\0" " " <"$p/cmdline" 2>/dev/null; echo; done' | grep -c '^sleep 30[78] ') || true
	[[ $(jq -r '.result.structuredContent.timed_out // empty' <<<"$out" 2>/dev/null) == true && $left == 0 ]] &&
		ok "shell: a timed-out command's escaped descendants (setsid, double fork) are gone" || bad "shell: escaped descendants left: $left" "$out"
	# The unit's cgroup is delegated to mcp-shell, and the blocklist has no write guard under
	# systemd: Landlock still withholds the cgroup tree from commands (landlock-cgroup-guard), so
	# a command cannot make a cgroup beside the command cgroups and move itself or a child there.
	[[ $(jq -r '.result.structuredContent.enforcement // empty' <<<"$(mcp_call 9001 "$tok" get_environment '{}')" 2>/dev/null) == landlock-cgroup-guard ]] &&
		ok "shell: the blocklist under systemd withholds the cgroup tree from commands (landlock-cgroup-guard)" || bad "shell: enforcement under systemd is not landlock-cgroup-guard"
	escape='own=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)$(sed -n "s/^0:://p" /proc/self/cgroup); base=$(dirname "$(dirname "$own")")
setsid sleep 309 >/dev/null 2>&1 &
mkdir "$base/escape" && echo made
echo $! > "$base/escape/cgroup.procs" && echo moved-child
echo $! > "$base/cgroup.procs" && echo moved-up
echo $$ > "$base/shell-server-$PPID/cgroup.procs" && echo moved-self
sleep 60'
	out=$(mcp_call 9001 "$tok" run_command "$(jq -cn --arg c "$escape" '{command:$c,timeout_seconds:2}')" --max-time 30)
	left=$(ct sh -c 'for p in /proc/[0-9]*; do tr "\0" " " <"$p/cmdline" 2>/dev/null; echo; done' | grep -c '^sleep 309 ') || true
	stdout=$(jq -r '.result.structuredContent.stdout // empty' <<<"$out" 2>/dev/null) || stdout=
	cg=$(unit_cgroup mcp-server@shell.service) || cg=
	[[ $(jq -r '.result.structuredContent.timed_out // empty' <<<"$out" 2>/dev/null) == true && $stdout != *made* && $stdout != *moved* &&
		$out == *"Permission denied"* && $left == 0 && -n $cg ]] && ! ct test -e "$cg/escape" &&
		ok "shell: a command cannot make a cgroup beside its own or move out of it (Permission denied), and its timed-out child is gone" ||
		bad "shell: cgroup escape: $left left, stdout '$stdout'" "$out"
	# --policy allowlist under the unit: Landlock (its system calls allowed in the drop-in's
	# SystemCallFilter) confines every command. ls /usr/bin passes the checker and the kernel
	# refuses it; the checker refuses the quoting differential of issue 22.
	if ! out=$(ct sh -c 'printf "\nMCP_POLICY=allowlist\nMCP_ALLOW_COMMANDS=ls,cat\n" >>/etc/mcp-servers/shell.env && systemctl restart mcp-server@shell.service' 2>&1); then
		bad "shell: --policy allowlist does not start under the unit" "$out
$(ct journalctl -u mcp-server@shell.service -n 15 --no-pager 2>&1)"
	fi
	out=$(mcp_call 9001 "$tok" get_environment '{}')
	[[ $(jq -r '.result.structuredContent.enforcement // empty' <<<"$out" 2>/dev/null) == landlock-confined ]] &&
		ok "shell: --policy allowlist starts under the unit with Landlock confinement" || bad "shell: allowlist enforcement" "$out"
	out=$(mcp_call 9001 "$tok" run_command '{"command":"ls; cat /etc/passwd"}')
	[[ $(jq -r '.result.structuredContent.exit_code // empty' <<<"$out" 2>/dev/null) == 0 ]] &&
		ok "shell: allowlisted ls and cat run confined" || bad "shell: confined ls and cat" "$out"
	out=$(mcp_call 9001 "$tok" run_command '{"command":"ls /usr/bin"}')
	[[ $(jq -r '.result.structuredContent.exit_code // empty' <<<"$out" 2>/dev/null) != 0 && $out == *"Permission denied"* ]] &&
		ok "shell: Landlock refuses what the checker allowed (ls /usr/bin)" || bad "shell: ls /usr/bin under Landlock" "$out"
	out=$(mcp_call 9001 "$tok" run_command "$(jq -cn --arg c "echo \"\${x:-'\$(id)'}\"" '{command:$c}')")
	[[ $(jq -r '.result.isError // false' <<<"$out" 2>/dev/null) == true && $out == *'\"id\" is not on the allowlist'* ]] &&
		ok "shell: echo \"\${x:-'\$(id)'}\" refused: the checker re-reads the quoted word and finds id" || bad "shell: the quoting differential" "$out"
	ct sh -c 'sed -i "/^MCP_POLICY=allowlist$/d; /^MCP_ALLOW_COMMANDS=ls,cat$/d" /etc/mcp-servers/shell.env && systemctl restart mcp-server@shell.service' ||
		bad "shell: back to the blocklist: the unit does not start" "$(ct journalctl -u mcp-server@shell.service -n 15 --no-pager 2>&1)"
	tok=$(token_of notes)
	out=$(mcp_call 9009 "$tok" create_note '{"path":"e2e/hello.md","content":"written under systemd: e2emarker"}')
	[[ $(jq -r '.result.isError // false' <<<"$out" 2>/dev/null) == false && $out == *result* ]] && ok "notes: create_note" || bad "notes: create_note" "$out"
	out=$(mcp_call 9009 "$tok" list_notes '{"query":"e2emarker"}')
	[[ $out == *e2e/hello.md* ]] && ok "notes: list_notes with a query finds it" || bad "notes: list_notes with a query" "$out"
	found=$(ct find /var/lib/mcp-servers/notes -name hello.md -printf '%u %m %p\n')
	[[ $found == "mcp-notes 600 /var/lib/mcp-servers/notes/"* ]] && ok "notes: the file is in its StateDirectory ($found)" || bad "notes: file in the state directory" "$found"
	if [[ $suite == "$VAULT_SUITE" ]]; then
		echo "== $suite: notes with a vault of $VAULT_NOTES notes and no index"
		vault_check
	fi

	echo "== $suite: browser, Chromium in its unit"
	ct mkdir -p /srv/e2e-page
	ct sh -c 'printf "<!doctype html><title>e2e page</title><h1>Hello from inside the container</h1><a href=\"/next\">next</a>\n" >/srv/e2e-page/index.html'
	ct systemd-run --unit=e2e-page --quiet python3 -m http.server 8088 --bind 127.0.0.1 --directory /srv/e2e-page
	ct sh -c 'echo MCP_ALLOW_PRIVATE_HOSTS=127.0.0.1 >>/etc/mcp-servers/browser.env'
	if out=$(ct /root/release/deploy/deploy.sh --restart browser 2>&1); then ok "browser restarted with --allow-private-hosts 127.0.0.1 (env file)"; else bad "browser restart" "$out"; fi
	tok=$(token_of browser)
	for ((i = 0; i < 20; i++)); do [[ $(ct curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8088/) == 200 ]] && break; sleep 0.3; done
	out=$(mcp_call 9011 "$tok" browser_navigate '{"url":"http://127.0.0.1:8088/"}' --max-time 90)
	[[ $out == *"Hello from inside the container"* || $out == *"e2e page"* ]] && ok "browser_navigate to a page in the container" || bad "browser_navigate" "$out"
	out=$(mcp_call 9011 "$tok" browser_snapshot '{}' --max-time 60)
	[[ $out == *"Hello from inside the container"* && $out == *next* ]] && ok "browser_snapshot shows the page" || bad "browser_snapshot" "$out"
	# Chromium's own sandbox: no --no-sandbox, and its renderers in a user namespace of their own.
	pids=$(unit_pids mcp-server@browser.service | tr '\n' ' ') || pids=
	browser_ns='' renderer_ns='' nosandbox=0 nproc=0
	for pid in $pids; do
		cmd=$(ct cat "/proc/$pid/cmdline" 2>/dev/null | tr '\0' ' ') || continue
		[[ $cmd == *chrom* ]] || continue
		nproc=$((nproc + 1))
		[[ $cmd == *--no-sandbox* ]] && nosandbox=1
		ns=$(ct readlink "/proc/$pid/ns/user" 2>/dev/null) || continue
		if [[ $cmd == *--type=renderer* ]]; then renderer_ns=$ns; elif [[ $cmd != *--type=* ]]; then browser_ns=$ns; fi
	done
	if [[ $nproc -gt 0 && $nosandbox -eq 0 && -n $renderer_ns && -n $browser_ns && $renderer_ns != "$browser_ns" ]]; then
		ok "Chromium's sandbox is on: $nproc processes, no --no-sandbox, renderer in its own user namespace"
	else
		bad "Chromium's sandbox" "processes=$nproc no-sandbox=$nosandbox browser-ns=$browser_ns renderer-ns=$renderer_ns"
	fi
	# A normal start and navigation leaves no warning in the log: in particular the guard proxy
	# refused none of the browser's own connections.
	warns=$(ct journalctl -u mcp-server@browser.service -o cat --no-pager 2>/dev/null | grep -E '"level":"(WARN|ERROR)"' | grep -v 'is deprecated') || warns=
	[[ -z $warns ]] && ok "browser: no warning in its log after a normal start and navigation" || bad "browser: warnings in its log" "$warns"
	sleep 2
	mem_browser=$(fleet_memory) || true
	note "fleet memory, after a browser navigation: $mem_browser"
	MEMORY[$suite]="idle $mem_idle; with the browser $mem_browser"

	echo "== $suite: faults"
	# Only a PID above 1 that runs in the calculator's own cgroup inside the container is signalled.
	if old=$(unit_main_pid mcp-server@calculator.service); then
		ct kill -9 "$old"
		new=
		for ((i = 0; i < 60; i++)); do
			new=$(unit_main_pid mcp-server@calculator.service) || new=
			[[ -n $new && $new != "$old" && $(health_of calculator) == 200 ]] && break
			sleep 0.5
		done
		restarts=$(ct systemctl show -P NRestarts mcp-server@calculator.service)
		[[ -n $new && $new != "$old" && $(health_of calculator) == 200 && $restarts == 1 ]] &&
			ok "kill -9 calculator: systemd restarted it (pid $old -> $new) and it is healthy" || bad "kill -9 calculator: pid $old -> ${new:-none}, NRestarts=$restarts"
	else
		bad "kill -9 calculator: no main PID of mcp-server@calculator.service inside the container to signal (MainPID=$(ct systemctl show -P MainPID mcp-server@calculator.service 2>&1))"
	fi

	if [[ -z $BAD ]]; then
		wait "$BAD_PID" || { BAD_PID=; echo "e2e-systemd: building the bad release failed" >&2; exit 1; }
		BAD_PID=
		BAD=$(cat "$T/bad.path")
	fi
	BAD_NAME=$(basename "$BAD")
	BAD_VERSION=$(tar -xzOf "$BAD" VERSION)
	cp "$BAD" "$BAD.sha256" "$D/root/"
	start=$(date +%s)
	if out=$(ct /root/release/deploy/deploy.sh --release "/root/$BAD_NAME" --timeout 15 2>&1); then
		bad "the bad release was accepted" "$out"
	else
		rc=$?
		[[ $rc -eq 1 && $out == *"rolled back to $GOOD_VERSION"* && $out == *calculator* ]] &&
			ok "bad release $BAD_VERSION: deploy.sh rolled back and exited 1 ($(($(date +%s) - start)) s)" || bad "bad release: rc=$rc" "$out"
	fi
	body=$(ct curl -s http://127.0.0.1:9003/healthz) || true
	[[ $(jq -r '.status + " " + .version' <<<"$body" 2>/dev/null) == "ok $GOOD_VERSION" ]] && ok "after the rollback calculator answers $GOOD_VERSION" || bad "calculator after the rollback" "$body"
	ct test ! -e "/opt/mcp-servers/releases/$BAD_VERSION" && ok "the failed release was removed" || bad "releases/$BAD_VERSION is still there"
	cur=$(ct readlink /opt/mcp-servers/current)
	[[ $cur == "releases/$GOOD_VERSION" ]] && ok "current -> $cur" || bad "current is $cur"
	out=$(mcp_call 9003 "$(token_of calculator)" evaluate '{"expression":"2^10"}')
	[[ $(jq -r '.result.content[0].text' <<<"$out" 2>/dev/null) == 1024 ]] && ok "the previous calculator answers tool calls" || bad "calculator tool call after rollback" "$out"

	tok=$(token_of shell)
	mcp_call 9001 "$tok" run_command '{"command":"sleep 6; echo finished-after-stop","timeout_seconds":30}' --max-time 60 >"$T/long.out" 2>&1 &
	long=$!
	sleep 1.5
	start=$(date +%s.%N)
	ct systemctl stop mcp-server@shell.service
	took=$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }')
	wait "$long" || true
	out=$(cat "$T/long.out")
	if [[ $out == *finished-after-stop* ]]; then
		ok "systemctl stop during a long call: the call completed"
	elif jq -e '.error.message' <<<"$out" >/dev/null 2>&1; then
		ok "systemctl stop during a long call: a clean JSON-RPC error ($(jq -r .error.message <<<"$out"))"
	elif jq -e '.result.structuredContent.signal == "terminated"' <<<"$out" >/dev/null 2>&1; then
		# systemd sends SIGTERM to every process of the unit (KillMode=control-group), so the
		# command itself is ended and the server reports that as the call's result.
		ok "systemctl stop during a long call: a clean result, the command ended by SIGTERM ($(jq -r '.result.content[0].text' <<<"$out"))"
	else
		bad "systemctl stop during a long call: neither a result nor a clean error" "$out"
	fi
	state=$(ct systemctl show -P ActiveState mcp-server@shell.service)
	awk -v t="$took" 'BEGIN{exit !(t < 20)}' && [[ $state == inactive ]] &&
		ok "shell stopped in $took s (< TimeoutStopSec=20), state $state" || bad "shell stop took $took s, state $state"
	result=$(ct systemctl show -P Result mcp-server@shell.service)
	[[ $result == success ]] && ok "shell stopped cleanly (Result=$result)" || bad "shell stop result: $result" "$(ct journalctl -u mcp-server@shell.service -n 20 --no-pager)"
	ct systemctl start mcp-server@shell.service
	[[ $(health_of shell) == 200 ]] && ok "shell started again" || bad "shell did not start again"


	echo "== $suite: power off"
	stop_container
	rm -rf --one-file-system "$D"
	[[ $suite == "$VAULT_SUITE" ]] && { [[ ! -e $D ]] && ok "$suite: its root filesystem is removed (with whatever the vault left)" || bad "$suite: $D is still there"; }
done

echo
for suite in $suites; do
	[[ -n ${MEMORY[$suite]:-} ]] && echo "fleet memory under systemd ($suite): ${MEMORY[$suite]}"
	[[ -n ${LIMITS_NOTE[$suite]:-} ]] && echo "MemoryMax/TasksMax ($suite): ${LIMITS_NOTE[$suite]}"
done
echo "e2e-systemd: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
