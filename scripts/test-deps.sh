#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: shellcheck, systemd
# (for systemd-analyze), jq, curl and PyYAML for the deploy tests; Chromium (its headless shell) for the browser
# server's tests. As root it runs apt-get; otherwise it prints the command and fails.
# Go tools and Node come from their registries inside the make targets that use them.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A need=() # package -> why
command -v shellcheck >/dev/null || need[shellcheck]="deploy script lint"
command -v systemd-analyze >/dev/null || need[systemd]="systemd-analyze verify/security"
command -v jq >/dev/null || need[jq]="deploy tests"
command -v curl >/dev/null || need[curl]="deploy and conformance scripts"
python3 -c 'import yaml' 2>/dev/null || need[python3-yaml]="tunnel config check"
if [ -f servers/browser/main.go ] && ! command -v chromium-headless-shell >/dev/null && ! command -v chromium >/dev/null; then
	need[chromium-headless-shell]="browser server tests"
fi

if [ ${#need[@]} -eq 0 ]; then
	exit 0
fi
pkgs=("${!need[@]}")
for p in "${pkgs[@]}"; do echo "test-deps: missing $p (${need[$p]})"; done
if [ "$(id -u)" -ne 0 ]; then
	echo "test-deps: run as root, or install them first: sudo apt-get install -y ${pkgs[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${pkgs[@]}"
