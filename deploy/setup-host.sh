#!/usr/bin/env bash
# setup-host.sh — prepare a Debian 12 or 13 container to run the MCP servers under systemd.
# Run as root on the host. Safe to run again: it changes only what is missing or wrong,
# and never overwrites a settings file or a token file that already exists.
set -euo pipefail

# id:port — the fixed table (docs/deploy.md). Keep in step with deploy.sh and scripts/gen-*.sh;
# deploy/test/run.sh checks that the copies agree.
SERVER_TABLE="shell:9001 auth:9002 calculator:9003 calendar:9004 gmail:9005 drive:9006 notes:9009 spotify:9010 browser:9011"
GOOGLE_SERVERS="calendar gmail drive notes"

usage() {
	cat <<'EOF'
Usage: setup-host.sh [--servers LIST] [--host ADDR] [--allowed-hosts LIST] [--no-packages]

Prepares this host (as root) for the MCP servers:
  - installs curl and jq (deploy.sh uses them) and, when the browser server is chosen and
    no Chromium is installed, chromium-headless-shell (chromium serves as well)
  - creates one system user per server (mcp-<id>, no login, no shared groups), so the shell
    server never runs as a user that can read the Google or Spotify tokens
  - for the Google servers, creates the group mcp-google and the shared token folder
    /var/lib/mcp-servers/google (root:mcp-google, 2770)
  - creates /opt/mcp-servers/releases, /etc/mcp-servers (0750) and
    /etc/mcp-servers/credentials (0700) with a 0700 folder per server
  - installs the systemd template mcp-server@.service and its drop-ins into /etc/systemd/system
  - writes /etc/mcp-servers/<id>.env with the server's fixed port, unless it exists
  - writes a first bearer token (label "owner") to
    /etc/mcp-servers/credentials/<id>/auth-tokens, unless that file exists (not for auth,
    which signs its owner in with passkeys)
  - enables mcp-server@<id> for each chosen server whose binary is already deployed
    (deploy.sh enables and starts the others when a release brings them)

Options:
  --servers LIST        comma-separated server ids, or "all" (default: all):
                        shell, auth, calculator, calendar, gmail, drive, notes, spotify, browser
                        (auth is the fleet's OAuth authorization server, docs/oauth.md)
  --host ADDR           MCP_HOST written into new env files (default 127.0.0.1, loopback only;
                        0.0.0.0 or the LAN address to let the LAN reach the servers)
  --allowed-hosts LIST  MCP_ALLOWED_HOSTS written into new env files (e.g. the LAN address
                        192.168.1.110 when binding 0.0.0.0, or tunnel host names)
  --no-packages         do not install packages
  -h, --help            this text

The unit files are taken from the systemd/ folder beside this script.
EOF
}

say() { printf 'setup-host: %s\n' "$*"; }
die() { printf 'setup-host: error: %s\n' "$*" >&2; exit 1; }

# MCP_ROOT prefixes every path this script touches (tests point it at a scratch folder).
ROOT=${MCP_ROOT:-}
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
UNIT_SRC=$SCRIPT_DIR/systemd
UNIT_DIR=$ROOT/etc/systemd/system
OPT=$ROOT/opt/mcp-servers
ETC=$ROOT/etc/mcp-servers
CREDS=$ETC/credentials

changes=0
changed() { changes=$((changes + 1)); say "$*"; }

table_ids() {
	local e
	for e in $SERVER_TABLE; do printf '%s\n' "${e%%:*}"; done
}

table_port() {
	local e
	for e in $SERVER_TABLE; do
		[[ ${e%%:*} == "$1" ]] && { printf '%s\n' "${e##*:}"; return 0; }
	done
	return 1
}

servers_arg=all
host=127.0.0.1
allowed_hosts=
packages=1
env_flags_given=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--servers) [[ $# -ge 2 ]] || die "--servers needs a value"; servers_arg=$2; shift 2 ;;
	--host) [[ $# -ge 2 ]] || die "--host needs a value"; host=$2; env_flags_given=1; shift 2 ;;
	--allowed-hosts) [[ $# -ge 2 ]] || die "--allowed-hosts needs a value"; allowed_hosts=$2; env_flags_given=1; shift 2 ;;
	--no-packages) packages=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

[[ $host =~ ^[A-Za-z0-9.:_-]+$ ]] || die "--host '$host' is not an address"
[[ -z $allowed_hosts || $allowed_hosts =~ ^[A-Za-z0-9.:,_-]+$ ]] ||
	die "--allowed-hosts '$allowed_hosts' must be a comma list of host names or addresses"

servers=()
if [[ $servers_arg == all ]]; then
	mapfile -t servers < <(table_ids)
else
	IFS=, read -r -a servers <<<"$servers_arg"
	for s in "${servers[@]}"; do
		table_port "$s" >/dev/null || die "unknown server '$s'; known: $(table_ids | paste -sd, -)"
	done
fi
[[ ${#servers[@]} -gt 0 ]] || die "no server chosen"

[[ $EUID -eq 0 ]] || die "run as root (it creates users and installs systemd units)"
[[ -f $UNIT_SRC/mcp-server@.service ]] || die "unit files not found in $UNIT_SRC"

if [[ -r /etc/os-release ]]; then
	# shellcheck disable=SC1091
	os_id=$(. /etc/os-release && printf '%s %s' "${ID:-}" "${VERSION_ID:-}")
	case $os_id in
	"debian 12" | "debian 13") ;;
	*) say "warning: made for Debian 12 or 13; this is '$os_id'" ;;
	esac
fi

chosen() {
	local s
	for s in "${servers[@]}"; do [[ $s == "$1" ]] && return 0; done
	return 1
}

# --- packages -------------------------------------------------------------------------------
if [[ $packages -eq 1 ]]; then
	missing=()
	command -v curl >/dev/null || missing+=(curl)
	command -v jq >/dev/null || missing+=(jq)
	if chosen browser; then
		# Any one Chromium serves the browser server (it prefers the headless shell).
		if ! command -v chromium-headless-shell >/dev/null && ! command -v chromium >/dev/null &&
			[[ ! -x /usr/lib/chromium/chromium-headless-shell ]]; then
			missing+=(chromium-headless-shell)
		fi
	fi
	if [[ ${#missing[@]} -gt 0 ]]; then
		say "installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
		changes=$((changes + 1))
	fi
fi

# --- users ----------------------------------------------------------------------------------
user_exists() { [[ -f $ROOT/etc/passwd ]] && awk -F: -v u="$1" '$1 == u { found = 1 } END { exit !found }' "$ROOT/etc/passwd"; }

for s in "${servers[@]}"; do
	u=mcp-$s
	user_exists "$u" && continue
	prefix=()
	[[ -n $ROOT ]] && prefix=(--prefix "$ROOT")
	useradd "${prefix[@]}" --system --user-group --no-create-home \
		--home-dir "/var/lib/mcp-servers/$s" --shell /usr/sbin/nologin \
		--comment "MCP server $s" "$u"
	changed "created user $u"
done

# --- folders --------------------------------------------------------------------------------
# ensure_dir MODE PATH: a root-owned folder with exactly MODE.
ensure_dir() {
	local mode=$1 dir=$2
	if [[ ! -d $dir ]]; then
		install -d -m "$mode" -o root -g root "$dir"
		changed "created $dir ($mode)"
		return
	fi
	if [[ $(stat -c '%a %U %G' "$dir") != "${mode#0} root root" ]]; then
		chown root:root "$dir"
		chmod "$mode" "$dir"
		changed "fixed owner and mode of $dir ($mode)"
	fi
}

ensure_dir 0755 "$OPT"
ensure_dir 0755 "$OPT/releases"
ensure_dir 0750 "$ETC"
ensure_dir 0700 "$CREDS"
for s in "${servers[@]}"; do ensure_dir 0700 "$CREDS/$s"; done
google_chosen=0
for g in $GOOGLE_SERVERS; do
	if chosen "$g"; then google_chosen=1; break; fi
done
if [[ $google_chosen -eq 1 ]]; then
	ensure_dir 0700 "$CREDS/google"
	# The Google token the Google servers share (docs/google.md): group mcp-google, which their
	# units run as (Group= in 10-google.conf); setgid so files made in it stay in the group.
	if ! { [[ -f $ROOT/etc/group ]] && awk -F: '$1 == "mcp-google" { found = 1 } END { exit !found }' "$ROOT/etc/group"; }; then
		gprefix=()
		[[ -n $ROOT ]] && gprefix=(--prefix "$ROOT")
		groupadd "${gprefix[@]}" --system mcp-google
		changed "created group mcp-google"
	fi
	gdir=$ROOT/var/lib/mcp-servers/google
	if [[ ! -d $gdir ]]; then
		# The group id from the (possibly prefixed) group file: MCP_ROOT tests have no such group on the host.
		gid=$(awk -F: '$1 == "mcp-google" { print $3 }' "$ROOT/etc/group")
		[[ -d $ROOT/var/lib/mcp-servers ]] || install -d -m 0755 "$ROOT/var/lib/mcp-servers"
		install -d -m 2770 -o root -g "$gid" "$gdir"
		chmod 2770 "$gdir"
		changed "created $gdir (2770, group mcp-google)"
	elif [[ $(stat -c '%a' "$gdir") != 2770 ]]; then
		chmod 2770 "$gdir"
		changed "fixed the mode of $gdir (2770)"
	fi
fi
if chosen spotify; then ensure_dir 0700 "$CREDS/spotify"; fi

# --- systemd units --------------------------------------------------------------------------
units_changed=0
# install_file SRC DST: copy when the content differs; 0644 root.
install_file() {
	local src=$1 dst=$2
	if [[ -f $dst ]] && cmp -s "$src" "$dst"; then
		if [[ $(stat -c '%a %U' "$dst") != "644 root" ]]; then
			chown root:root "$dst"
			chmod 0644 "$dst"
			changed "fixed owner and mode of $dst"
		fi
		return
	fi
	install -D -m 0644 -o root -g root "$src" "$dst"
	units_changed=1
	changed "installed $dst"
}

[[ -d $UNIT_DIR ]] || { install -d -m 0755 "$UNIT_DIR"; changed "created $UNIT_DIR"; }
install_file "$UNIT_SRC/mcp-server@.service" "$UNIT_DIR/mcp-server@.service"
for dropdir in "$UNIT_SRC"/mcp-server@*.service.d; do
	[[ -d $dropdir ]] || continue
	name=$(basename "$dropdir")
	for f in "$dropdir"/*.conf; do
		[[ -f $f ]] && install_file "$f" "$UNIT_DIR/$name/$(basename "$f")"
	done
done
# Drop-ins this project ships are named 10-*.conf; remove ones a newer release no longer has.
# Local additions (any other name, e.g. 50-local.conf) are left alone.
for old in "$UNIT_DIR"/mcp-server@*.service.d/10-*.conf; do
	[[ -f $old ]] || continue
	rel=${old#"$UNIT_DIR"/}
	if [[ ! -f $UNIT_SRC/$rel ]]; then
		rm -f "$old"
		units_changed=1
		changed "removed obsolete drop-in $old"
	fi
done
if [[ $units_changed -eq 1 ]]; then
	systemctl daemon-reload
fi

# --- settings files -------------------------------------------------------------------------
# auth_env PORT: the authorization server's settings. It starts on loopback names (a working
# issuer for tests on this host); publishing it means setting MCP_ISSUER to its tunnel URL and
# MCP_RESOURCES to the servers' public /mcp URLs (docs/oauth.md).
auth_env() {
	local port=$1 res='' e id
	for e in $SERVER_TABLE; do
		id=${e%%:*}
		[[ $id == auth ]] && continue
		res+="${res:+,}$id=http://127.0.0.1:${e##*:}/mcp"
	done
	printf '# Settings for mcp-server@auth, the fleet'"'"'s OAuth authorization server (not secret).\n'
	printf '# Written by setup-host.sh; yours to edit. Apply: deploy.sh --restart auth. See docs/oauth.md.\n'
	printf '# Every --flag has an MCP_* variable; see: auth --help\n'
	printf 'MCP_HOST=%s\n' "$host"
	printf 'MCP_PORT=%s\n' "$port"
	printf 'MCP_LOG_LEVEL=info\n'
	printf '# Its public URL, e.g. https://mcp-auth.example.com once published through the tunnel:\n'
	printf 'MCP_ISSUER=http://localhost:%s\n' "$port"
	printf '# The MCP URLs tokens may be for (each server runs with --oauth-issuer and --public-url):\n'
	printf 'MCP_RESOURCES=%s\n' "$res"
	printf '# Client registration: cimd (client ID metadata documents), dcr (RFC 7591), or both:\n'
	printf 'MCP_REGISTRATION=cimd,dcr\n'
}

for s in "${servers[@]}"; do
	f=$ETC/$s.env
	if [[ -e $f ]]; then
		[[ $env_flags_given -eq 1 ]] && say "kept the existing $f (edit it to change MCP_HOST or MCP_ALLOWED_HOSTS)"
		continue
	fi
	port=$(table_port "$s")
	tmp=$(mktemp "$ETC/.$s.env.XXXXXX")
	if [[ $s == auth ]]; then
		auth_env "$port" >"$tmp"
		chmod 0640 "$tmp"
		mv "$tmp" "$f"
		changed "wrote $f (port $port, host $host, loopback issuer until you set MCP_ISSUER)"
		continue
	fi
	{
		printf '# Settings for mcp-server@%s (not secret). Written by setup-host.sh; yours to edit.\n' "$s"
		printf '# Secrets go in %s/credentials/%s/, never here. Apply: deploy.sh --restart %s\n' /etc/mcp-servers "$s" "$s"
		printf '# Every --flag of the server has an MCP_* variable; see: %s --help\n' "$s"
		printf 'MCP_HOST=%s\n' "$host"
		printf 'MCP_PORT=%s\n' "$port"
		printf 'MCP_LOG_LEVEL=info\n'
		if [[ -n $allowed_hosts ]]; then
			printf 'MCP_ALLOWED_HOSTS=%s\n' "$allowed_hosts"
		else
			printf '# Host names this server answers to besides loopback and its bind address\n'
			printf '# (tunnel host names, the LAN address when binding 0.0.0.0):\n'
			printf '#MCP_ALLOWED_HOSTS=mcp-%s.example.com\n' "$s"
		fi
		printf '#MCP_ALLOWED_ORIGINS=\n'
		printf '#MCP_READ_ONLY=true\n'
		printf '#MCP_TOOLSETS=\n'
	} >"$tmp"
	chmod 0640 "$tmp"
	mv "$tmp" "$f"
	changed "wrote $f (port $port, host $host)"
done

# --- bearer tokens --------------------------------------------------------------------------
new_token() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

for s in "${servers[@]}"; do
	[[ $s == auth ]] && continue # passkeys, not bearer tokens
	f=$CREDS/$s/auth-tokens
	if [[ -e $f ]]; then
		if [[ $(stat -c '%a %U' "$f") != "600 root" ]]; then
			chown root:root "$f"
			chmod 0600 "$f"
			changed "fixed owner and mode of $f"
		fi
		continue
	fi
	tmp=$(mktemp "$CREDS/$s/.auth-tokens.XXXXXX")
	{
		printf '# Bearer tokens for %s: one label:token a line. The label names the caller in logs.\n' "$s"
		printf '# Add one per client: deploy.sh --add-token %s LABEL. Read by systemd (LoadCredential=).\n' "$s"
		printf 'owner:%s\n' "$(new_token)"
	} >"$tmp"
	chmod 0600 "$tmp"
	mv "$tmp" "$f"
	changed "created $f with a token labelled 'owner'"
done

# --- enable ---------------------------------------------------------------------------------
not_deployed=()
for s in "${servers[@]}"; do
	unit=mcp-server@$s.service
	if [[ ! -x $OPT/current/bin/$s ]]; then
		not_deployed+=("$s")
		continue
	fi
	if ! systemctl is-enabled --quiet "$unit" 2>/dev/null; then
		systemctl enable --quiet "$unit"
		changed "enabled $unit"
	fi
done

if [[ $changes -eq 0 ]]; then
	say "already set up: nothing changed"
else
	say "done: $changes change(s)"
fi
if [[ $units_changed -eq 1 && -L $OPT/current ]]; then
	say "unit files changed: apply them to running servers with 'deploy.sh --restart all'"
fi
if [[ ${#not_deployed[@]} -gt 0 ]]; then
	say "not deployed yet (deploy.sh enables and starts them): ${not_deployed[*]}"
fi
