#!/usr/bin/env bash
# load.sh — load the images of an OCI image layout (make images: dist/images/oci) into Podman,
# each as localhost/mcp-ID:VERSION and localhost/mcp-ID:latest, for this machine's architecture.
# compose.yaml and the Kubernetes manifests name them so.
set -euo pipefail

[[ $# -eq 1 && $1 != -h && $1 != --help ]] || { echo "usage: deploy/containers/load.sh LAYOUT (e.g. dist/images/oci)" >&2; exit 2; }
layout=$(cd "$1" && pwd)
[[ -f $layout/index.json && -f $layout/oci-layout ]] || { echo "load: $1 is not an OCI image layout (make images writes dist/images/oci)" >&2; exit 1; }
command -v podman >/dev/null || { echo "load: needs podman" >&2; exit 1; }
command -v jq >/dev/null || { echo "load: needs jq" >&2; exit 1; }

# `podman pull oci:DIR:REF` also names each image after DIR (with its links resolved), which
# must then be a valid, lowercase image name: pull from a layout of this name whose blobs are
# the given layout's.
link=/tmp/mcp-images-load-$$
mkdir -m 0700 "$link"
trap 'rm -rf "$link"' EXIT
cp "$layout/index.json" "$layout/oci-layout" "$link/"
ln -s "$layout/blobs" "$link/blobs"
while read -r id digest; do
	version=$(jq -r '.annotations["org.opencontainers.image.version"]' "$layout/blobs/${digest/://}")
	image=$(podman pull -q "oci:$link:$id")
	podman tag "$image" "localhost/mcp-$id:$version" "localhost/mcp-$id:latest"
	printf 'localhost/mcp-%s:%s\n' "$id" "$version"
done < <(jq -r '.manifests[] | [.annotations["org.opencontainers.image.ref.name"], .digest] | @tsv' "$layout/index.json")
# Only the names above stay: remove that one name (untag with no name would remove them all).
podman untag "localhost$link:latest" "localhost$link:latest" 2>/dev/null || true
