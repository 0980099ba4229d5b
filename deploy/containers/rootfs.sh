#!/usr/bin/env bash
# rootfs.sh — build (once) and cache a Debian root filesystem an image is built on.
#
# Usage: deploy/containers/rootfs.sh KIND ARCH      (KIND browser or shell; ARCH amd64 or arm64)
#   Prints the path of a tarball for ARCH, from Debian 13 (trixie) with its security updates,
#   holding Debian's certificate authorities and
#     browser: chromium-headless-shell, its libraries and fonts;
#     shell:   bash and the everyday command-line tools (coreutils, grep, sed, gawk, find, diff,
#              ps, tar, gzip, git, curl, jq, less): what the shell server's commands run in a box.
#   The packages are only extracted (mmdebstrap --variant=extract): no maintainer script runs, so
#   a foreign architecture needs no emulator, and the image gets no shell, apt or dpkg. What their
#   scripts would have made and the image needs is made here: the certificate bundle (as
#   update-ca-certificates would, from Mozilla's list only) and a dpkg status file naming every
#   package with its version, so image scanners can see what is inside.
#   Like the e2e root filesystems (deploy/test/e2e-systemd/rootfs.sh) it is built once and kept,
#   keyed by the kind, the architecture, the package list and LAYOUT; every user reads its own copy.
# Cache: $MCP_ROOTFS_CACHE (default /var/cache/mcp-servers/rootfs).
# shellcheck disable=SC2016  # the hooks are expanded by mmdebstrap, not here
# (extract hooks: the customize stage does not run for --variant=extract)
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: rootfs.sh KIND ARCH (KIND browser or shell, ARCH amd64 or arm64)" >&2; exit 2; }
kind=$1 arch=$2
case $kind in
browser) packages=chromium-headless-shell,fonts-liberation,fonts-dejavu-core ;;
shell) packages=bash,dash,coreutils,findutils,grep,sed,gawk,diffutils,procps,tar,gzip,git,curl,jq,less ;;
*) echo "rootfs: kind '$kind' not supported (browser, shell)" >&2; exit 2 ;;
esac
packages+=,ca-certificates,base-files
case $arch in
amd64 | arm64) ;;
*) echo "rootfs: architecture '$arch' not supported (amd64, arm64)" >&2; exit 2 ;;
esac
cache=${MCP_ROOTFS_CACHE:-/var/cache/mcp-servers/rootfs}
command -v mmdebstrap >/dev/null || { echo "rootfs: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }

suite=trixie
# Bump LAYOUT when the mmdebstrap command below changes, so old tarballs are not reused.
LAYOUT=1
key=$(echo "layout $LAYOUT $suite $kind $arch $packages" | sha256sum | cut -c1-16)
out=$cache/$kind-$suite-$arch-$key.tar
if [[ -s $out ]]; then
	printf '%s\n' "$out"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp "$cache/.$kind-$suite-$arch-$key.XXXXXX")
trap 'rm -f "$tmp"' EXIT
echo "rootfs: building the $kind image's $suite $arch root filesystem (cached as $out)" >&2
mmdebstrap --quiet --variant=extract --architectures="$arch" --include="$packages" --format=tar \
	--extract-hook='mkdir -p "$1/etc/ssl/certs" && cat "$1"/usr/share/ca-certificates/mozilla/*.crt >"$1/etc/ssl/certs/ca-certificates.crt"' \
	--extract-hook='mkdir -p "$1/var/lib/dpkg" && for d in "$1"/var/cache/apt/archives/*.deb; do dpkg-deb --field "$d" Package Version Architecture Source Maintainer Installed-Size Depends Description; echo "Status: install ok installed"; echo; done >"$1/var/lib/dpkg/status"' \
	--extract-hook='test -s "$1/var/lib/dpkg/status" && grep -q "^Package: ca-certificates$" "$1/var/lib/dpkg/status"' \
	"$suite" "$tmp" \
	"deb http://deb.debian.org/debian $suite main" \
	"deb http://deb.debian.org/debian $suite-updates main" \
	"deb http://deb.debian.org/debian-security $suite-security main" >&2
mv "$tmp" "$out"
trap - EXIT
printf '%s\n' "$out"
