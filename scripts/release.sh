#!/usr/bin/env bash
# release.sh — build every server as a static Linux binary stamped with the version, and pack
# them into one tarball per architecture with a checksum. `make release` runs this.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: scripts/release.sh [--version V] [--arch "amd64 arm64"] [--out DIR]

Builds each servers/<name>/ module that has a main package with
  CGO_ENABLED=0 GOOS=linux GOARCH=<arch> go build -trimpath \
    -ldflags "-s -w -X github.com/jck411/mcp-servers/shared/buildinfo.Version=<version>"
and writes, for each architecture,
  DIR/mcp-servers-<version>-linux-<arch>.tar.gz         the release
  DIR/mcp-servers-<version>-linux-<arch>.tar.gz.sha256  its checksum (sha256sum -c format)

The tarball holds:
  VERSION            the version, one line
  bin/<name>         one binary per server
  MANIFEST           "<fingerprint>  <name>" per server: the SHA-256 of the same binary built
                     without the version stamp, so deploy.sh restarts only servers whose code
                     (or toolchain, or dependencies) really changed
  deploy/            the unit files, setup-host.sh and deploy.sh of this release
  scripts/           gen-tunnel-config.sh and gen-client-config.sh, to run on the host
  docs/              the deploy guide, deploy.md, and every guide it links to (directly or
                     through another), so that no link in it is broken

Options (environment fallback in brackets):
  --version V   release version [VERSION]; default: `git describe --tags --dirty`, or
                v0.0.0-<commit> without tags; a version ending in -dirty gets
                .<UTC timestamp> added, so that two dirty builds never share a version
  --arch LIST   architectures, space or comma separated [ARCHES]; default "amd64 arm64"
  --out DIR     output directory [DIST]; default dist/ at the repository root
  -h, --help    this text
EOF
}

die() { printf 'release: %s\n' "$*" >&2; exit 1; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${VERSION:-}
arches=${ARCHES:-amd64 arm64}
out=${DIST:-$repo/dist}

while [[ $# -gt 0 ]]; do
	case $1 in
	--version) [[ $# -ge 2 ]] || die "--version needs a value"; version=$2; shift 2 ;;
	--arch) [[ $# -ge 2 ]] || die "--arch needs a value"; arches=$2; shift 2 ;;
	--out) [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

cd "$repo"
command -v go >/dev/null || die "go is not installed"

if [[ -z $version ]]; then
	if git rev-parse --git-dir >/dev/null 2>&1; then
		if ! version=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
			version="v0.0.0-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
			git diff --quiet HEAD 2>/dev/null || version+="-dirty"
		fi
	else
		die "not a git checkout: give --version"
	fi
fi
# A dirty tree gives a new version each build, so that two different builds never share one.
if [[ $version == *-dirty ]]; then
	version+=".$(date -u +%Y%m%dT%H%M%SZ)"
fi
[[ $version =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
	die "version '$version' may hold only letters, digits and . _ + - (it names a folder on the host)"

arches=${arches//,/ }
read -r -a arch_list <<<"$arches"
[[ ${#arch_list[@]} -gt 0 ]] || die "no architecture given"
for a in "${arch_list[@]}"; do
	[[ $a == amd64 || $a == arm64 ]] || die "unsupported architecture '$a' (amd64 or arm64)"
done

# The servers: every servers/<name>/ module whose top folder is a main package.
servers=()
for dir in servers/*/; do
	[[ -f $dir/go.mod ]] || continue
	compgen -G "$dir*.go" >/dev/null || continue
	name=$(basename "$dir")
	pkg=$(go list -f '{{.Name}}' "./servers/$name") || die "go list failed for servers/$name (is it in go.work?)"
	[[ $pkg == main ]] && servers+=("$name")
done
[[ ${#servers[@]} -gt 0 ]] || die "no server with a main package under servers/"

ldpkg=github.com/jck411/mcp-servers/shared/buildinfo.Version
mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

for arch in "${arch_list[@]}"; do
	base="mcp-servers-$version-linux-$arch"
	tree="$stage/$arch"
	mkdir -p "$tree/bin" "$tree/deploy" "$tree/docs" "$tree/scripts" "$stage/fp-$arch"
	: >"$tree/MANIFEST"
	for name in "${servers[@]}"; do
		printf 'release: building %s %s for linux/%s\n' "$name" "$version" "$arch" >&2
		CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
			-ldflags "-s -w -X $ldpkg=$version" -o "$tree/bin/$name" "./servers/$name"
		# The fingerprint build: the same binary without the version stamp or VCS details.
		CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -buildvcs=false \
			-ldflags "-s -w" -o "$stage/fp-$arch/$name" "./servers/$name"
		fp=$(sha256sum "$stage/fp-$arch/$name")
		printf '%s  %s\n' "${fp%% *}" "$name" >>"$tree/MANIFEST"
	done
	printf '%s\n' "$version" >"$tree/VERSION"
	cp -R deploy/systemd "$tree/deploy/"
	cp deploy/setup-host.sh deploy/deploy.sh "$tree/deploy/"
	cp scripts/gen-tunnel-config.sh scripts/gen-client-config.sh "$tree/scripts/"
	queue=(deploy.md) packed=" "
	while [[ ${#queue[@]} -gt 0 ]]; do
		d=${queue[0]} queue=("${queue[@]:1}")
		[[ -f docs/$d && $packed != *" $d "* ]] || continue
		packed+="$d "
		cp "docs/$d" "$tree/docs/"
		while IFS= read -r l; do queue+=("$l"); done < <(grep -oE '\]\([A-Za-z0-9_.-]+\.md' "docs/$d" | cut -c3- | sort -u)
	done
	chmod 0755 "$tree/bin/"* "$tree/deploy/"*.sh "$tree/scripts/"*.sh

	tarball="$out/$base.tar.gz"
	mtime=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
		-C "$tree" -cf - VERSION MANIFEST bin deploy docs scripts | gzip -n -9 >"$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
	(cd "$out" && sha256sum "$base.tar.gz" >"$base.tar.gz.sha256")
	printf '%s\n' "$tarball"
done
