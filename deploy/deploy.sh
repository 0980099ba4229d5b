#!/usr/bin/env bash
# deploy.sh — install a release of the MCP servers on a host and operate the fleet there:
# atomic switch, restart of changed servers only, health gate with automatic rollback.
set -euo pipefail

# id:port — the fixed table (docs/deploy.md). Keep in step with setup-host.sh and
# scripts/gen-*.sh; deploy/test/run.sh checks that the copies agree.
SERVER_TABLE="shell:9001 auth:9002 calculator:9003 calendar:9004 gmail:9005 drive:9006 notes:9009 spotify:9010 browser:9011"

usage() {
	cat <<'EOF'
Usage:
  deploy.sh [HOST] [--release FILE] [--timeout S] [--keep N]   install a release
  deploy.sh [HOST] --status                                     table of the fleet
  deploy.sh [HOST] --rollback [--to VERSION]                    back to the previous release
  deploy.sh [HOST] --restart NAME|all                           restart, then check health
  deploy.sh [HOST] --logs NAME [--lines N] [--follow]           the server's journal
  deploy.sh [HOST] --add-token NAME LABEL                       new bearer token for a client
  deploy.sh [HOST] --remove-token NAME LABEL                    revoke a client's token
  deploy.sh [HOST] --console on|off                             the owner's console on auth
  deploy.sh [HOST] --front-door on|off                          one MCP URL for phones, on auth

With HOST (user@host or an ssh alias), this script and the release are copied to HOST over
ssh and run there (as root, or through sudo). Without HOST it works on this machine, as root.

Install (the default action):
  - FILE is a tarball from `make release` (dist/mcp-servers-VERSION-linux-ARCH.tar.gz); a
    .tar.gz argument is taken as --release. Without one, the newest tarball in dist/ for the
    target's architecture is used. FILE.sha256 beside it is checked when present.
  - The release is unpacked to /opt/mcp-servers/releases/VERSION/, each binary is run with
    --version to prove it executes here, and /opt/mcp-servers/current is switched to it in
    one rename.
  - Only servers whose binary changed (MANIFEST fingerprint, else SHA-256) or that are not
    running are restarted; a server is deployed only if setup-host.sh wrote its
    /etc/mcp-servers/NAME.env.
  - Each restarted server must answer GET /healthz with 200 and the new version within
    --timeout seconds (default 30). If one does not, the whole release is rolled back:
    current points at the previous release again, the restarted servers are restarted on
    it, the failing server and its last journal lines are shown, and the exit code is 1.
  - The newest --keep releases are kept (default 5), and always current and previous.

--status prints SERVER, UNIT (systemd state), VERSION (what /healthz reports), PORT,
HEALTH (ok / degraded / 503 / down), AUTH (bearer tokens in its credential file) and
CHECKS (the server's dependency checks, e.g. google token=missing). Exit code 1 when a
deployed server is not running or not healthy.

--add-token prints the new token once, on standard output; the server is restarted so that
it loads it. --remove-token refuses to remove the last token (the unit needs the file).

--console on turns on the owner's console (docs/console.md): it makes the console token
(/etc/mcp-servers/credentials/auth/console-token, 0600 root, kept if there is one), gives
the auth server its file through LoadCredential= (drop-in 50-console.conf) and the list of
servers set up here (MCP_CONSOLE_SERVERS in auth.env), gives every other server the token's
SHA-256 (MCP_ADMIN_TOKEN_SHA256 in its env file), then restarts them with the health gate.
--console off takes all of that away again and deletes the token.

--front-door on turns on the front door (docs/front-door.md): the auth server's /mcp lists
and routes the tools of every server set up here that auth.env's MCP_RESOURCES names
(MCP_FRONT_DOOR_SERVERS in auth.env), then restarts auth with the health gate.
--front-door off empties the list: /mcp on the auth server answers 404 again.

Environment: MCP_HEALTH_TIMEOUT (--timeout), MCP_KEEP_RELEASES (--keep),
MCP_SSH (ssh command, default ssh), MCP_SCP (default scp).
EOF
}

say() { printf 'deploy: %s\n' "$*"; }
warn() { printf 'deploy: warning: %s\n' "$*" >&2; }
die() { printf 'deploy: error: %s\n' "$*" >&2; exit 1; }

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
ROOT=${MCP_ROOT:-}
OPT=$ROOT/opt/mcp-servers
RELEASES=$OPT/releases
CURRENT=$OPT/current
PREVIOUS=$OPT/previous
ETC=$ROOT/etc/mcp-servers
CREDS=$ETC/credentials
UNIT_DIR=$ROOT/etc/systemd/system

# --- arguments ------------------------------------------------------------------------------
ORIG_ARGS=("$@")
action=deploy
host=
release=
to_version=
name=
label=
timeout=${MCP_HEALTH_TIMEOUT:-30}
keep=${MCP_KEEP_RELEASES:-5}
lines=50
follow=0

set_action() {
	[[ $action == deploy ]] || die "give one action at a time (see --help)"
	action=$1
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--status) set_action status; shift ;;
	--rollback) set_action rollback; shift ;;
	--to) [[ $# -ge 2 ]] || die "--to needs a version"; to_version=$2; shift 2 ;;
	--restart)
		[[ $# -ge 2 ]] || die "--restart needs a server name (or all)"
		set_action restart; name=$2; shift 2 ;;
	--logs)
		[[ $# -ge 2 ]] || die "--logs needs a server name"
		set_action logs; name=$2; shift 2 ;;
	--console)
		[[ $# -ge 2 && ($2 == on || $2 == off) ]] || die "--console takes on or off"
		set_action console; name=$2; shift 2 ;;
	--front-door)
		[[ $# -ge 2 && ($2 == on || $2 == off) ]] || die "--front-door takes on or off"
		set_action front-door; name=$2; shift 2 ;;
	--add-token | --remove-token)
		[[ $# -ge 3 ]] || die "$1 needs a server name and a label"
		set_action "${1#--}"; name=$2; label=$3; shift 3 ;;
	--release) [[ $# -ge 2 ]] || die "--release needs a file"; release=$2; shift 2 ;;
	--timeout) [[ $# -ge 2 ]] || die "--timeout needs seconds"; timeout=$2; shift 2 ;;
	--keep) [[ $# -ge 2 ]] || die "--keep needs a number"; keep=$2; shift 2 ;;
	--lines) [[ $# -ge 2 ]] || die "--lines needs a number"; lines=$2; shift 2 ;;
	--follow) follow=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*)
		if [[ $1 == *.tar.gz ]]; then
			[[ -f $1 ]] || die "release file '$1' not found"
			[[ -z $release ]] || die "give one release"
			release=$1
		elif [[ -z $host ]]; then
			host=$1
		else
			die "unexpected argument '$1' (see --help)"
		fi
		shift ;;
	esac
done

[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a whole number of seconds, not '$timeout'"
[[ $keep =~ ^[1-9][0-9]*$ ]] || die "--keep must be a number of at least 1, not '$keep'"
[[ $lines =~ ^[0-9]+$ ]] || die "--lines must be a number, not '$lines'"
[[ -z $to_version || $action == rollback ]] || die "--to goes with --rollback"
[[ -z $name || $name == all || $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "'$name' is not a server name"
[[ $action != console || $name == on || $name == off ]] || die "--console takes on or off"
[[ $action != front-door || $name == on || $name == off ]] || die "--front-door takes on or off"
[[ -z $label || $label =~ ^[A-Za-z0-9._-]+$ ]] || die "a label may hold only letters, digits and . _ -"
[[ -z $to_version || $to_version =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || die "'$to_version' is not a version"
[[ $action != logs || $name != all ]] || die "--logs takes one server"
[[ $action != deploy || -z $release || -f $release ]] || die "release file '$release' not found"

arch_of() {
	case $1 in
	x86_64 | amd64) echo amd64 ;;
	aarch64 | arm64) echo arm64 ;;
	*) return 1 ;;
	esac
}

# newest_release ARCH: the newest tarball in the repository's dist/ for ARCH.
newest_release() {
	local dist
	dist=$(cd "$(dirname "$SELF")/.." && pwd)/dist
	[[ -d $dist ]] || return 1
	find "$dist" -maxdepth 1 -name "mcp-servers-*-linux-$1.tar.gz" -printf '%T@ %p\n' |
		sort -rn | head -n 1 | cut -d' ' -f2-
}

# --- remote mode ----------------------------------------------------------------------------
if [[ -n $host ]]; then
	read -r -a ssh_cmd <<<"${MCP_SSH:-ssh}"
	read -r -a scp_cmd <<<"${MCP_SCP:-scp}"
	if [[ $action == deploy && -z $release ]]; then
		remote_arch=$("${ssh_cmd[@]}" "$host" uname -m) || die "cannot reach $host over ssh"
		arch=$(arch_of "$remote_arch") || die "$host is $remote_arch: no release is built for it"
		release=$(newest_release "$arch") || true
		[[ -n $release ]] || die "no dist/mcp-servers-*-linux-$arch.tar.gz: run 'make release' first"
	fi
	rdir=$("${ssh_cmd[@]}" "$host" 'mktemp -d /tmp/mcp-deploy.XXXXXX') || die "cannot reach $host over ssh"
	files=("$SELF")
	args=()
	case $action in
	deploy)
		files+=("$release")
		[[ -f $release.sha256 ]] && files+=("$release.sha256")
		args+=(--release "$rdir/$(basename "$release")" --timeout "$timeout" --keep "$keep") ;;
	status) args+=(--status) ;;
	rollback)
		args+=(--rollback --timeout "$timeout")
		[[ -n $to_version ]] && args+=(--to "$to_version") ;;
	restart) args+=(--restart "$name" --timeout "$timeout") ;;
	logs)
		args+=(--logs "$name" --lines "$lines")
		[[ $follow -eq 1 ]] && args+=(--follow) ;;
	add-token | remove-token) args+=("--$action" "$name" "$label" --timeout "$timeout") ;;
	console) args+=(--console "$name" --timeout "$timeout") ;;
	front-door) args+=(--front-door "$name" --timeout "$timeout") ;;
	esac
	"${scp_cmd[@]}" -q "${files[@]}" "$host:$rdir/" || die "copying to $host failed"
	quoted=$(printf ' %q' "$rdir/deploy.sh" "${args[@]}")
	rc=0
	"${ssh_cmd[@]}" "$host" "if [ \"\$(id -u)\" = 0 ]; then bash$quoted; else sudo bash$quoted; fi; rc=\$?; rm -rf $(printf '%q' "$rdir"); exit \$rc" || rc=$?
	exit "$rc"
fi

# --- local mode: helpers --------------------------------------------------------------------
if [[ $EUID -ne 0 ]]; then
	if command -v sudo >/dev/null; then exec sudo -- "$SELF" "${ORIG_ARGS[@]}"; fi
	die "run as root"
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

unit() { printf 'mcp-server@%s.service' "$1"; }

table_port() {
	local e
	for e in $SERVER_TABLE; do
		[[ ${e%%:*} == "$1" ]] && { printf '%s\n' "${e##*:}"; return 0; }
	done
	return 1
}

table_ids() {
	local e
	for e in $SERVER_TABLE; do printf '%s\n' "${e%%:*}"; done
}

# env_value FILE KEY: the last KEY=value in a systemd environment file, quotes removed.
env_value() {
	[[ -f $1 ]] || return 0
	local v
	v=$(sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$1" | tail -n 1)
	v=${v%"${v##*[![:space:]]}"}
	if [[ $v =~ ^\"(.*)\"$ || $v =~ ^\'(.*)\'$ ]]; then v=${BASH_REMATCH[1]}; fi
	printf '%s' "$v"
}

managed() { [[ -f $ETC/$1.env ]]; }

server_port() {
	local p
	p=$(env_value "$ETC/$1.env" MCP_PORT)
	[[ -n $p ]] || p=$(table_port "$1") || p=
	printf '%s' "$p"
}

# health_url NAME: where this host can reach the server's /healthz.
health_url() {
	local h
	h=$(env_value "$ETC/$1.env" MCP_HOST)
	case $h in
	"" | 0.0.0.0 | localhost | 127.*) h=127.0.0.1 ;;
	:: | ::1 | "[::]" | "[::1]") h="[::1]" ;;
	*:*) [[ $h == \[* ]] || h="[$h]" ;;
	esac
	printf 'http://%s:%s/healthz' "$h" "$(server_port "$1")"
}

# healthz NAME: sets HZ_CODE (000 when nothing answers) and HZ_BODY.
healthz() {
	HZ_CODE=$(curl -sS --max-time 3 -o "$TMP/healthz" -w '%{http_code}' "$(health_url "$1")" 2>/dev/null) || true
	[[ -n $HZ_CODE ]] || HZ_CODE=000
	HZ_BODY=$(cat "$TMP/healthz" 2>/dev/null || true)
	rm -f "$TMP/healthz"
}

json_field() { jq -r "$1 // empty" 2>/dev/null <<<"$HZ_BODY" || true; }

# release_servers DIR: the server binaries of a release.
release_servers() {
	local f
	[[ -n $1 && -d $1/bin ]] || return 0
	for f in "$1"/bin/*; do
		[[ -f $f && -x $f ]] && basename "$f"
	done
	return 0
}

has_server() { [[ -n $1 && -x $1/bin/$2 ]]; }

release_version() { [[ -n $1 && -f $1/VERSION ]] && head -n 1 "$1/VERSION"; }

# fingerprint DIR NAME: what decides whether a server changed between releases.
fingerprint() {
	local fp=
	if [[ -f $1/MANIFEST ]]; then
		fp=$(awk -v n="$2" '$2 == n { print $1 }' "$1/MANIFEST")
	fi
	if [[ -z $fp ]]; then
		fp=$(sha256sum "$1/bin/$2")
		fp=${fp%% *}
	fi
	printf '%s' "$fp"
}

current_dir() {
	[[ -L $CURRENT ]] || return 0
	local t
	t=$(readlink "$CURRENT")
	[[ $t == /* ]] || t=$OPT/$t
	[[ -d $t ]] && printf '%s' "$t"
	return 0
}

previous_dir() {
	[[ -L $PREVIOUS ]] || return 0
	local t
	t=$(readlink "$PREVIOUS")
	[[ $t == /* ]] || t=$OPT/$t
	[[ -d $t ]] && printf '%s' "$t"
	return 0
}

# point LINK DIR: switch a symlink in one rename (relative target, so it works under MCP_ROOT).
point() {
	local link=$1 dir=$2 tmp
	tmp="$link.new.$$"
	ln -sfn "releases/$(basename "$dir")" "$tmp"
	mv -Tf "$tmp" "$link"
}

is_active() { systemctl is-active --quiet "$(unit "$1")"; }

show_journal() {
	printf -- '--- last journal lines of %s ---\n' "$(unit "$1")" >&2
	journalctl -u "$(unit "$1")" -n 30 --no-pager >&2 || true
	printf -- '---\n' >&2
}

# wait_healthy DEADLINE NAME VERSION: 0 once /healthz says 200 and VERSION; else WHY is set.
wait_healthy() {
	local deadline=$1 n=$2 want=$3 got
	while :; do
		healthz "$n"
		if [[ $HZ_CODE == 200 ]]; then
			got=$(json_field .version)
			if [[ $got == "$want" ]]; then
				HEALTH_STATUS=$(json_field .status)
				return 0
			fi
			WHY="answers version '${got:-?}', expected '$want'"
		elif [[ $HZ_CODE == 000 ]]; then
			WHY="nothing answers on $(health_url "$n")"
		else
			WHY="GET $(health_url "$n") answers HTTP $HZ_CODE: $(head -c 300 <<<"$HZ_BODY")"
		fi
		((SECONDS < deadline)) || return 1
		sleep 0.5
	done
}

require_setup() {
	[[ -d $RELEASES && -d $ETC ]] || die "this host is not set up: run deploy/setup-host.sh first"
	command -v curl >/dev/null || die "curl is missing: run deploy/setup-host.sh (it installs it)"
	command -v jq >/dev/null || die "jq is missing: run deploy/setup-host.sh (it installs it)"
}

lock() {
	exec 9>"$OPT/.deploy.lock"
	flock -n 9 || die "another deploy.sh is working on this host"
}

contains() {
	local x=$1
	shift
	local y
	for y in "$@"; do [[ $y == "$x" ]] && return 0; done
	return 1
}

# restart_and_check VERSION_DIR NAME...: restart the units, wait for each to be healthy on the
# version of VERSION_DIR. Sets FAILED to the servers that did not come up.
restart_and_check() {
	local dir=$1 want n units=()
	shift
	want=$(release_version "$dir")
	FAILED=()
	for n in "$@"; do units+=("$(unit "$n")"); done
	systemctl enable --quiet "${units[@]}" || warn "could not enable ${units[*]}"
	# A unit that crash-looped into its start limit refuses even a manual start until reset.
	systemctl reset-failed "${units[@]}" 2>/dev/null || true
	systemctl restart "${units[@]}" || warn "systemctl restart reported a failure"
	local deadline=$((SECONDS + timeout))
	for n in "$@"; do
		if wait_healthy "$deadline" "$n" "$want"; then
			say "$n is healthy: $want, ${HEALTH_STATUS:-ok}"
			[[ $HEALTH_STATUS == degraded ]] && say "  $n checks: $(checks_summary)"
		else
			printf 'deploy: error: %s did not become healthy within %ss: %s\n' "$n" "$timeout" "$WHY" >&2
			FAILED+=("$n")
		fi
	done
	[[ ${#FAILED[@]} -eq 0 ]]
}

checks_summary() {
	local s
	# key=status, and the state a check's detail starts with when it says more than its status:
	# "google token (work)=warn (expired)".
	s=$(jq -r '(.checks // {}) | to_entries | map("\(.key)=\(.value.status)" + (
		(((.value.detail // "") | capture("^(?<w>[a-z]+): ").w?) // "") as $w
		| if $w != "" and $w != .value.status and $w != "ok" then " (\($w))" else "" end)) | join(", ")' 2>/dev/null <<<"$HZ_BODY") || s=
	printf '%s' "${s:--}"
}

# activate TARGET: make TARGET the current release; restart what changed; on failure put the
# old release back. Returns 1 on failure.
activate() {
	local target=$1 old n version old_version
	old=$(current_dir)
	version=$(release_version "$target")
	old_version=$(release_version "$old") || old_version=
	local restart=() unchanged=() skipped=() stop=()
	while IFS= read -r n; do
		if ! managed "$n"; then
			skipped+=("$n")
		elif [[ -z $old ]] || ! has_server "$old" "$n" ||
			[[ $(fingerprint "$old" "$n") != "$(fingerprint "$target" "$n")" ]] || ! is_active "$n"; then
			restart+=("$n")
		else
			unchanged+=("$n")
		fi
	done < <(release_servers "$target")
	while IFS= read -r n; do
		managed "$n" && ! has_server "$target" "$n" && stop+=("$n")
	done < <(release_servers "$old")

	[[ ${#skipped[@]} -gt 0 ]] &&
		say "not set up on this host, left alone: ${skipped[*]} (setup-host.sh --servers NAME sets one up)"
	point "$CURRENT" "$target"
	say "current -> releases/$version${old_version:+ (was $old_version)}"

	if [[ ${#stop[@]} -gt 0 ]]; then
		say "not in $version, stopping: ${stop[*]}"
		for n in "${stop[@]}"; do
			systemctl stop "$(unit "$n")" || true
			systemctl disable --quiet "$(unit "$n")" || true
		done
	fi
	[[ ${#unchanged[@]} -gt 0 ]] && say "unchanged, not restarted: ${unchanged[*]}"
	if [[ ${#restart[@]} -eq 0 ]]; then
		say "no server needs a restart"
	else
		say "restarting: ${restart[*]}"
		if ! restart_and_check "$target" "${restart[@]}"; then
			local failed=("${FAILED[@]}")
			for n in "${failed[@]}"; do show_journal "$n"; done
			if [[ -n $old ]]; then
				printf 'deploy: error: %s failed; rolling back to %s\n' "$version" "$old_version" >&2
				point "$CURRENT" "$old"
				local back=() gone=()
				for n in "${restart[@]}" "${stop[@]}"; do
					if has_server "$old" "$n"; then back+=("$n"); else gone+=("$n"); fi
				done
				for n in "${gone[@]}"; do
					systemctl stop "$(unit "$n")" || true
					systemctl disable --quiet "$(unit "$n")" || true
				done
				if [[ ${#back[@]} -gt 0 ]] && ! restart_and_check "$old" "${back[@]}"; then
					printf 'deploy: error: after the rollback to %s these are unhealthy too: %s\n' "$old_version" "${FAILED[*]}" >&2
				fi
				printf 'deploy: error: rolled back to %s; %s failed: %s\n' "$old_version" "$version" "${failed[*]}" >&2
			else
				printf 'deploy: error: %s failed and there is no previous release; stopping %s\n' "$version" "${restart[*]}" >&2
				for n in "${restart[@]}"; do
					systemctl stop "$(unit "$n")" || true
					systemctl disable --quiet "$(unit "$n")" || true
				done
				rm -f "$CURRENT"
			fi
			return 1
		fi
	fi
	if [[ -n $old && $old != "$target" ]]; then
		point "$PREVIOUS" "$old"
	fi
	return 0
}

prune() {
	local cur prev n kept=0
	cur=$(basename "$(current_dir)")
	prev=$(previous_dir)
	prev=${prev:+$(basename "$prev")}
	while read -r _ n; do
		[[ -n $n ]] || continue
		if [[ $n == "$cur" || $n == "$prev" ]] || ((kept < keep)); then
			kept=$((kept + 1))
			continue
		fi
		rm -rf "${RELEASES:?}/$n"
		say "removed old release $n"
	done < <(find "$RELEASES" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%T@ %f\n' | sort -rn)
}

units_drift() {
	local dir=$1 f rel
	[[ -d $dir/deploy/systemd ]] || return 0
	while IFS= read -r f; do
		rel=${f#"$dir/deploy/systemd/"}
		if ! cmp -s "$f" "$UNIT_DIR/$rel"; then
			warn "the unit files of this release differ from the installed ones ($rel):"
			warn "  install them with: $dir/deploy/setup-host.sh --no-packages, then deploy.sh --restart all"
			return 0
		fi
	done < <(find "$dir/deploy/systemd" -type f | sort)
}

# --- actions --------------------------------------------------------------------------------
do_deploy() {
	require_setup
	if [[ -z $release ]]; then
		release=$(newest_release "$(arch_of "$(uname -m)")") || true
		[[ -n $release ]] || die "give the release tarball (make release writes dist/mcp-servers-VERSION-linux-ARCH.tar.gz)"
	fi
	lock
	if [[ -f $release.sha256 ]]; then
		(cd "$(dirname "$release")" && sha256sum -c --quiet "$(basename "$release").sha256") >/dev/null ||
			die "checksum mismatch for $release"
	else
		warn "no $release.sha256 beside the tarball: not verified"
	fi
	local stage
	stage=$(mktemp -d "$RELEASES/.incoming.XXXXXX")
	if ! tar -xzf "$release" -C "$stage" --no-same-owner 2>"$TMP/tar.err"; then
		rm -rf "$stage"
		die "cannot unpack $release: $(cat "$TMP/tar.err")"
	fi
	local version n out err
	version=$(release_version "$stage") || true
	if [[ ! $version =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]]; then
		rm -rf "$stage"
		die "$release has no valid VERSION file"
	fi
	local names=()
	mapfile -t names < <(release_servers "$stage")
	if [[ ${#names[@]} -eq 0 ]]; then
		rm -rf "$stage"
		die "$release has no executables in bin/"
	fi
	for n in "${names[@]}"; do
		if [[ ! $n =~ ^[a-z0-9][a-z0-9-]*$ ]]; then
			rm -rf "$stage"
			die "bin/$n: not a server name"
		fi
		# The version is the first line on stdout; stderr (a library's notice, or the shell's
		# "exec format error") is shown only when that line is wrong.
		out=$(timeout 10 "$stage/bin/$n" --version 2>/dev/null | head -n 1) || true
		if [[ $out != "$n $version" ]]; then
			err=$(timeout 10 "$stage/bin/$n" --version 2>&1 >/dev/null | head -n 3) || true
			rm -rf "$stage"
			die "bin/$n --version says '$out'${err:+ (stderr: $err)}, expected '$n $version' (wrong architecture or a broken build?)"
		fi
	done
	chmod 0755 "$stage"
	local target=$RELEASES/$version fresh=1
	if [[ -e $target ]]; then
		local same=1
		for n in "${names[@]}"; do cmp -s "$stage/bin/$n" "$target/bin/$n" || same=0; done
		[[ $(release_servers "$target" | wc -l) -eq ${#names[@]} ]] || same=0
		rm -rf "$stage"
		[[ $same -eq 1 ]] || die "release $version is already installed with different binaries: build it again with a new version"
		say "release $version is already installed"
		fresh=0
	else
		mv "$stage" "$target"
		touch "$target"
		say "installed release $version to $target"
	fi
	units_drift "$target"
	if ! activate "$target"; then
		[[ $fresh -eq 1 ]] && rm -rf "$target"
		exit 1
	fi
	prune
	say "$version is live"
}

do_rollback() {
	require_setup
	lock
	local target cur
	cur=$(current_dir)
	if [[ -n $to_version ]]; then
		target=$RELEASES/$to_version
		[[ -d $target ]] || die "release $to_version is not installed; installed: $(list_releases)"
	else
		target=$(previous_dir)
		[[ -n $target ]] || die "no previous release recorded; pick one with --to VERSION from: $(list_releases)"
	fi
	[[ $target != "$cur" ]] || die "$(release_version "$target") is already the current release"
	activate "$target" || exit 1
	say "rolled back to $(release_version "$target")"
}

list_releases() {
	find "$RELEASES" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort | paste -sd' ' -
}

do_restart() {
	require_setup
	lock
	local cur n names=()
	cur=$(current_dir)
	[[ -n $cur ]] || die "nothing is deployed yet"
	if [[ $name == all ]]; then
		while IFS= read -r n; do managed "$n" && names+=("$n"); done < <(release_servers "$cur")
		[[ ${#names[@]} -gt 0 ]] || die "no deployed server is set up on this host"
	else
		has_server "$cur" "$name" || die "$name is not in the current release ($(release_version "$cur"))"
		managed "$name" || die "$name is not set up on this host: setup-host.sh --servers $name"
		names=("$name")
	fi
	if ! restart_and_check "$cur" "${names[@]}"; then
		for n in "${FAILED[@]}"; do show_journal "$n"; done
		exit 1
	fi
}

do_logs() {
	local args=(-u "$(unit "$name")" -n "$lines" --no-pager)
	[[ $follow -eq 1 ]] && args+=(-f)
	exec journalctl "${args[@]}"
}

token_count() {
	local f=$CREDS/$1/auth-tokens
	[[ -f $f ]] || { echo 0; return; }
	grep -cEv '^[[:space:]]*(#|$)' "$f" || true
}

# has_label FILE LABEL: the token file has a line LABEL:token.
has_label() {
	[[ -f $1 ]] && awk -v l="$2" '{ k = $0; sub(/:.*/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", k) } k == l && $0 ~ /:/ { found = 1 } END { exit !found }' "$1"
}

# rewrite_tokens NAME: replace the token file with $TMP/tokens, atomically, 0600 root.
rewrite_tokens() {
	local dir=$CREDS/$1 tmp
	tmp=$(mktemp "$dir/.auth-tokens.XXXXXX")
	cat "$TMP/tokens" >"$tmp"
	chmod 0600 "$tmp"
	mv -f "$tmp" "$dir/auth-tokens"
}

reload_if_running() {
	local cur
	cur=$(current_dir)
	if is_active "$1" && has_server "$cur" "$1"; then
		printf 'deploy: restarting %s so that it loads the tokens\n' "$1" >&2
		if ! restart_and_check "$cur" "$1" >&2; then
			show_journal "$1"
			exit 1
		fi
	else
		printf 'deploy: %s is not running; it will load the tokens when it starts\n' "$1" >&2
	fi
}

do_add_token() {
	require_setup
	lock
	local dir=$CREDS/$name f token
	table_port "$name" >/dev/null || managed "$name" || die "unknown server '$name'"
	[[ $name != auth ]] || die "auth takes no bearer tokens: its owner signs in with a passkey (auth enroll, docs/oauth.md)"
	[[ -d $dir ]] || install -d -m 0700 "$dir"
	f=$dir/auth-tokens
	if has_label "$f" "$label"; then
		die "$name already has a token labelled '$label' (remove it first to rotate)"
	fi
	token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	{ [[ -f $f ]] && cat "$f"; printf '%s:%s\n' "$label" "$token"; } >"$TMP/tokens"
	rewrite_tokens "$name"
	printf 'deploy: added token %s for %s; send it as: Authorization: Bearer <token>\n' "$label" "$name" >&2
	reload_if_running "$name"
	printf '%s\n' "$token"
}

do_remove_token() {
	require_setup
	lock
	local f=$CREDS/$name/auth-tokens
	has_label "$f" "$label" || die "$name has no token labelled '$label'"
	awk -v l="$label" '{ k = $0; sub(/:.*/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", k) } k != l' "$f" >"$TMP/tokens"
	if ! grep -qEv '^[[:space:]]*(#|$)' "$TMP/tokens"; then
		die "'$label' is the last token of $name; add another first (the unit needs at least one)"
	fi
	rewrite_tokens "$name"
	printf 'deploy: removed token %s of %s\n' "$label" "$name" >&2
	reload_if_running "$name"
}

# set_env FILE KEY VALUE: KEY=VALUE in a systemd environment file, replacing any KEY= line;
# an empty VALUE removes the key. The file is replaced in one rename, with its mode kept.
set_env() {
	local f=$1 key=$2 value=$3 tmp
	tmp=$(mktemp "$(dirname "$f")/.env.XXXXXX")
	grep -v -E "^[[:space:]]*${key}[[:space:]]*=" "$f" >"$tmp" || true
	[[ -z $value ]] || printf '%s=%s\n' "$key" "$value" >>"$tmp"
	chmod --reference="$f" "$tmp"
	chown --reference="$f" "$tmp"
	mv -f "$tmp" "$f"
}

# server_url NAME: the server's own address as this host reaches it (its /healthz's base).
server_url() {
	local u
	u=$(health_url "$1")
	printf '%s' "${u%/healthz}"
}

do_console() {
	require_setup
	lock
	local cur n token=$CREDS/auth/console-token dropin=$UNIT_DIR/mcp-server@auth.service.d/50-console.conf
	local names=() list=() hash=
	cur=$(current_dir)
	[[ -n $cur ]] || die "nothing is deployed yet"
	{ managed auth && has_server "$cur" auth; } || die "the console is served by the auth server: set it up first (setup-host.sh --servers auth, then deploy)"
	while IFS= read -r n; do
		[[ $n != auth ]] && managed "$n" && names+=("$n")
	done < <(release_servers "$cur")
	if [[ $name == on ]]; then
		[[ ${#names[@]} -gt 0 ]] || die "no server besides auth is set up here for the console to manage"
		if [[ ! -s $token ]]; then
			install -d -m 0700 "$CREDS/auth"
			local tmp
			tmp=$(mktemp "$CREDS/auth/.console-token.XXXXXX")
			head -c 32 /dev/urandom | base64 >"$tmp"
			chmod 0600 "$tmp"
			mv -f "$tmp" "$token"
			say "made the console token $token"
		fi
		hash=$(tr -d '\n' <"$token" | sha256sum)
		hash=${hash%% *}
		for n in "${names[@]}"; do
			set_env "$ETC/$n.env" MCP_ADMIN_TOKEN_SHA256 "$hash"
			list+=("$n=$(server_url "$n")")
		done
		set_env "$ETC/auth.env" MCP_CONSOLE_SERVERS "$(IFS=,; printf '%s' "${list[*]}")"
		install -d -m 0755 "$(dirname "$dropin")"
		cat >"$dropin.new" <<'UNIT'
# Written by deploy.sh --console on: the console token reaches the auth server as a credential.
[Service]
LoadCredential=console-token:/etc/mcp-servers/credentials/auth/console-token
Environment=MCP_CONSOLE_TOKEN_FILE=%d/console-token
UNIT
		mv -f "$dropin.new" "$dropin"
	else
		for n in "${names[@]}"; do set_env "$ETC/$n.env" MCP_ADMIN_TOKEN_SHA256 ""; done
		set_env "$ETC/auth.env" MCP_CONSOLE_SERVERS ""
		rm -f "$dropin" "$token"
	fi
	systemctl daemon-reload
	if ! restart_and_check "$cur" auth "${names[@]}"; then
		for n in "${FAILED[@]}"; do show_journal "$n"; done
		exit 1
	fi
	if [[ $name == on ]]; then
		say "console on: sign in with an enrolled passkey at the auth server's /console (it manages ${names[*]})"
	else
		say "console off: /console and every server's /admin/ answer 404"
	fi
}

do_front_door() {
	require_setup
	lock
	local cur n resources list=()
	cur=$(current_dir)
	[[ -n $cur ]] || die "nothing is deployed yet"
	{ managed auth && has_server "$cur" auth; } || die "the front door is served by the auth server: set it up first (setup-host.sh --servers auth, then deploy)"
	if [[ $name == on ]]; then
		# Only servers auth issues tokens for: the door mints each call's token for its server.
		resources=",$(env_value "$ETC/auth.env" MCP_RESOURCES),"
		while IFS= read -r n; do
			[[ $n != auth ]] && managed "$n" && [[ $resources == *",$n="* ]] && list+=("$n=$(server_url "$n")")
		done < <(release_servers "$cur")
		[[ ${#list[@]} -gt 0 ]] || die "no server set up here is in auth.env's MCP_RESOURCES for the front door to route to"
	fi
	set_env "$ETC/auth.env" MCP_FRONT_DOOR_SERVERS "$(IFS=,; printf '%s' "${list[*]}")"
	if ! restart_and_check "$cur" auth; then
		show_journal auth
		exit 1
	fi
	if [[ $name == on ]]; then
		say "front door on: the auth server's /mcp routes to ${list[*]%%=*}"
	else
		say "front door off: the auth server's /mcp answers 404"
	fi
}

do_status() {
	[[ -d $OPT ]] || die "this host is not set up: run deploy/setup-host.sh first"
	command -v jq >/dev/null || die "jq is missing: run deploy/setup-host.sh (it installs it)"
	local cur prev n names=() bad=0
	cur=$(current_dir)
	prev=$(previous_dir)
	printf 'release: %s   previous: %s   installed: %s\n' \
		"$(release_version "$cur" || echo none)" "$(release_version "$prev" || echo none)" "$(list_releases)"
	while IFS= read -r n; do
		if managed "$n" || has_server "$cur" "$n"; then names+=("$n"); fi
	done < <({ table_ids; release_servers "$cur"; } | awk '!seen[$0]++')
	local fmt='%-11s %-12s %-22s %-6s %-9s %-10s %s\n'
	# shellcheck disable=SC2059
	printf "$fmt" SERVER UNIT VERSION PORT HEALTH AUTH CHECKS
	for n in "${names[@]}"; do
		local state version=- health=- auth checks=- count
		state=$(systemctl is-active "$(unit "$n")" 2>/dev/null) || true
		[[ -n $state ]] || state=unknown
		if ! managed "$n"; then
			state="not set up"
		elif ! has_server "$cur" "$n"; then
			state="not deployed"
		else
			healthz "$n"
			case $HZ_CODE in
			000) health=down ;;
			200)
				health=$(json_field .status)
				health=${health:-ok}
				version=$(json_field .version)
				checks=$(checks_summary) ;;
			*)
				health=$HZ_CODE
				version=$(json_field .version)
				checks=$(checks_summary) ;;
			esac
			[[ $state == active && $HZ_CODE == 200 ]] || bad=1
		fi
		count=$(token_count "$n")
		if [[ $n == auth ]]; then
			auth=passkeys
		elif [[ $(env_value "$ETC/$n.env" MCP_INSECURE_NO_AUTH) == true ]]; then
			auth=insecure
		elif [[ $count -eq 0 ]]; then
			auth="no tokens"
		elif [[ $count -eq 1 ]]; then
			auth="1 token"
		else
			auth="$count tokens"
		fi
		# shellcheck disable=SC2059
		printf "$fmt" "$n" "$state" "${version:--}" "$(server_port "$n")" "$health" "$auth" "$checks"
	done
	return "$bad"
}

case $action in
deploy) do_deploy ;;
status) do_status ;;
rollback) do_rollback ;;
restart) do_restart ;;
logs) do_logs ;;
add-token) do_add_token ;;
remove-token) do_remove_token ;;
console) do_console ;;
front-door) do_front_door ;;
esac
