#!/usr/bin/env bash
# secrets.sh — write the compose fleet's secret files in deploy/compose/secrets/: a bearer tokens
# file per server (label "owner" and 32 random bytes in hex, printed once), and copies of the
# Google and Spotify OAuth clients and the cloudflared tunnel token when given. Each file is
# owned by 65532, the user the images run as, with mode 0600: a server refuses a secret that
# others can read, and compose hands file secrets to containers as they are on disk.
# It also writes .env beside compose.yaml when there is none: every setting compose.yaml reads,
# blank (the defaults), for the OAuth recipe to fill in (docs/containers.md).
# Existing files are left alone (the tokens keep working); run it again after adding a server.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: deploy/compose/secrets.sh [--google-client FILE] [--spotify-client FILE]
                                 [--cloudflared-token FILE] [--rootless]

Writes what is missing of deploy/compose/secrets/:
  SERVER-tokens          for shell calculator calendar gmail drive notes spotify browser
  google-client.json     a copy of FILE (the Google OAuth client, docs/google.md)
  spotify-client.json    a copy of FILE ({"client_id": "..."}, docs/spotify.md)
  cloudflared-token      a copy of FILE (the tunnel's token from Cloudflare's dashboard)
and gives each file to user 65532 with mode 0600. As root it runs chown; with --rootless
(rootless Podman) it runs `podman unshare chown`, which maps 65532 into your user namespace.
Writes DIR/../.env (beside compose.yaml) with every setting blank when it does not exist.

Options:
  --dir DIR   write there instead of deploy/compose/secrets
  -h, --help  this text
EOF
}

die() { printf 'secrets: %s\n' "$*" >&2; exit 1; }

dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/secrets
google='' spotify='' tunnel='' rootless=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--google-client) [[ $# -ge 2 ]] || die "--google-client needs a file"; google=$2; shift 2 ;;
	--spotify-client) [[ $# -ge 2 ]] || die "--spotify-client needs a file"; spotify=$2; shift 2 ;;
	--cloudflared-token) [[ $# -ge 2 ]] || die "--cloudflared-token needs a file"; tunnel=$2; shift 2 ;;
	--rootless) rootless=1; shift ;;
	--dir) [[ $# -ge 2 ]] || die "--dir needs a value"; dir=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
if [[ $rootless -eq 0 && $(id -u) -ne 0 ]]; then
	die "run as root (rootful Docker or Podman), or with --rootless for rootless Podman"
fi

umask 077
mkdir -p "$dir"
chmod 0755 "$dir"

# give FILE...: hand the files to the images' user.
give() {
	chmod 0600 "$@"
	if [[ $rootless -eq 1 ]]; then
		podman unshare chown 65532:65532 "$@"
	else
		chown 65532:65532 "$@"
	fi
}

written=()
for id in shell calculator calendar gmail drive notes spotify browser; do
	f=$dir/$id-tokens
	[[ -e $f ]] && continue
	token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	printf 'owner:%s\n' "$token" >"$f"
	give "$f"
	printf '%-10s owner:%s\n' "$id" "$token"
	written+=("$f")
done
copy() {
	local src=$1 dst=$dir/$2
	[[ -n $src ]] || return 0
	[[ -r $src ]] || die "cannot read $src"
	if [[ -e $dst ]]; then
		echo "secrets: $dst exists; left as it is" >&2
		return 0
	fi
	cp "$src" "$dst"
	give "$dst"
	written+=("$dst")
}
copy "$google" google-client.json
copy "$spotify" spotify-client.json
copy "$tunnel" cloudflared-token
env=$(dirname "$dir")/.env
if [[ ! -e $env ]]; then
	{
		echo "# compose.yaml's settings; blank is the default (docs/containers.md). MCP_TAG picks the"
		echo "# images' tag, MCP_BIND the address ports are published on (127.0.0.1)."
		echo "MCP_TAG=latest"
		echo "MCP_BIND=127.0.0.1"
		echo "# The OAuth recipe (docs/containers.md, \"Remote clients\"):"
		for k in AUTH_TRUSTED_PROXIES MCP_OAUTH_ISSUER MCP_OAUTH_ISSUER_INTERNAL_URL; do echo "$k="; done
		for id in CALCULATOR NOTES BROWSER GMAIL CALENDAR DRIVE SPOTIFY SHELL; do
			echo "${id}_PUBLIC_URL="
			echo "${id}_ALLOWED_HOSTS="
		done
		echo "# Addresses the browser may reach although private (its --allow-private-hosts):"
		echo "BROWSER_ALLOW_PRIVATE_HOSTS="
	} >"$env"
	written+=("$env")
fi
if [[ ${#written[@]} -eq 0 ]]; then
	echo "secrets: nothing to write in $dir"
else
	echo "secrets: wrote ${#written[@]} file(s) in $dir (the tokens above are shown once)"
fi
