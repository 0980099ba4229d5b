#!/usr/bin/env bash
# Installs the Debian packages `make test` needs when they are missing: gcc and libc6-dev for
# go test -race (cgo); shellcheck, systemd
# (systemd-analyze), jq, curl and PyYAML for the deploy tests; a Chromium (its headless shell)
# for the browser server's tests; npm (with Debian's nodejs) for the conformance step, which
# fetches Node 22 and the suite from the npm registry; and, when run as root (make test then
# runs make e2e-systemd), mmdebstrap and systemd-container to build and boot Debian containers,
# and Podman with what it runs on for the containers lane.
# As root it runs apt-get; otherwise it names every missing package and the command, and fails.
# Go 1.26+, git and make are not installed here: make and this script need them to start.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A need=() # package -> why
# go test -race needs cgo: a C compiler and the C library's headers.
command -v gcc >/dev/null || need[gcc]="go test -race (cgo)"
[ -e /usr/include/stdio.h ] || need[libc6-dev]="go test -race (cgo)"
command -v shellcheck >/dev/null || need[shellcheck]="deploy script lint"
command -v systemd-analyze >/dev/null || need[systemd]="systemd-analyze verify/security"
command -v jq >/dev/null || need[jq]="deploy tests"
command -v curl >/dev/null || need[curl]="deploy and conformance scripts"
python3 -c 'import yaml' 2>/dev/null || need[python3-yaml]="tunnel config check"
# Any one of Debian's Chromium packages serves the browser server and its tests.
if [ -f servers/browser/main.go ] && ! command -v chromium-headless-shell >/dev/null &&
	! command -v chromium >/dev/null && [ ! -x /usr/lib/chromium/chromium-headless-shell ]; then
	need[chromium-headless-shell]="browser server tests"
fi
# The full Chromium too: the browser's history test needs its back/forward cache.
if [ -f servers/browser/main.go ] && [ ! -x /usr/lib/chromium/chromium ]; then
	need[chromium]="browser server tests: the back/forward cache (the headless shell has none)"
fi
command -v npm >/dev/null || need[npm]="conformance: npm fetches Node 22 and the suite"
if [ "$(id -u)" -eq 0 ]; then
	command -v mmdebstrap >/dev/null || need[mmdebstrap]="e2e-systemd: builds the Debian root filesystems"
	command -v systemd-nspawn >/dev/null || need[systemd-container]="e2e-systemd: boots them (systemd-nspawn)"
	# The containers lane (deploy/test/containers/run.sh): rootful Podman with runc and netavark,
	# whose bridges need iptables; compose, kube play and a network namespace of its own.
	command -v podman >/dev/null || need[podman]="containers: runs the images"
	command -v podman-compose >/dev/null || need[podman-compose]="containers: compose.yaml"
	command -v runc >/dev/null || need[runc]="containers: Podman's runtime"
	[ -x /usr/libexec/podman/catatonit ] || command -v catatonit >/dev/null || need[catatonit]="containers: kube play's pod infra"
	[ -x /usr/lib/podman/netavark ] || need[netavark]="containers: Podman's networks"
	[ -x /usr/lib/podman/aardvark-dns ] || need[aardvark-dns]="containers: names on compose's network"
	command -v iptables >/dev/null || need[iptables]="containers: netavark's bridges (NAT, port publishing)"
	command -v ip >/dev/null || need[iproute2]="containers: the test's network namespace"
fi

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
pkgs=("${!need[@]}")
for p in "${pkgs[@]}"; do echo "test-deps: missing $p (${need[$p]})"; done
if [ "$(id -u)" -ne 0 ]; then
	echo "test-deps: run make test as root, or install them first: sudo apt-get install -y ${pkgs[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
