#!/usr/bin/env bash
# rootfs.sh — build (once) and cache a minimal Debian root filesystem as a tarball.
#
# Usage: rootfs.sh SUITE PACKAGE...
#   Prints the path of the cached tarball for SUITE with exactly PACKAGE... added to
#   Debian's minbase variant. The cache key is a hash of the suite, the package list and this
#   script, so a changed list builds a new tarball; an unchanged one is reused. The tarball is
#   never modified after it is written: every user unpacks its own copy.
# Cache: $MCP_ROOTFS_CACHE (default /var/cache/mcp-servers/rootfs).
# shellcheck disable=SC2016  # the hooks are expanded by mmdebstrap, not here
set -euo pipefail

[[ $# -ge 2 ]] || { echo "usage: rootfs.sh SUITE PACKAGE..." >&2; exit 2; }
suite=$1
shift
cache=${MCP_ROOTFS_CACHE:-/var/cache/mcp-servers/rootfs}
command -v mmdebstrap >/dev/null || { echo "rootfs: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }

case $suite in
bookworm | trixie) ;;
*) echo "rootfs: suite '$suite' not supported (bookworm, trixie)" >&2; exit 1 ;;
esac

# Bump LAYOUT when the mmdebstrap command below changes, so old tarballs are not reused.
LAYOUT=1
key=$({ echo "layout $LAYOUT $suite"; printf '%s\n' "$@" | sort; } | sha256sum | cut -c1-16)
out=$cache/$suite-$key.tar
if [[ -s $out ]]; then
	printf '%s\n' "$out"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp "$cache/.$suite-$key.XXXXXX")
trap 'rm -f "$tmp"' EXIT
include=$(IFS=,; printf '%s' "$*")
echo "rootfs: building $suite with $include (cached as $out)" >&2
mmdebstrap --quiet --variant=minbase --include="$include" --format=tar \
	--customize-hook='echo mcp-e2e >"$1/etc/hostname"' \
	--customize-hook='rm -f "$1/etc/machine-id"; touch "$1/etc/machine-id"' \
	"$suite" "$tmp" \
	"deb http://deb.debian.org/debian $suite main" \
	"deb http://deb.debian.org/debian $suite-updates main" \
	"deb http://deb.debian.org/debian-security $suite-security main" >&2
mv "$tmp" "$out"
trap - EXIT
printf '%s\n' "$out"
