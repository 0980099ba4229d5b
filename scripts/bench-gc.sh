#!/usr/bin/env bash
# Measures the calculator (evaluate, beside the bare go-sdk), notes (list_notes with a query, over
# a vault of the docs' paragraphs) and the browser (browser_snapshot of the dashboard test page)
# under several garbage collector settings side by side, with `scripts/cmd/bench -gc`:
# CPU per call, calls per second, anonymous memory right after 5 s of 16 clients and after two
# minutes of quiet. The tables go to stdout and results/bench-gc.md.
# Usage: scripts/bench-gc.sh [SETTINGS]   (default: the settings the table in the docs compares;
#        "default" is what the kit sets by itself: Go's defaults, the unit's memory limit)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
settings=${1:-"GOGC=100;GOGC=200;GOGC=400;GOGC=800;GOGC=400,GOMEMLIMIT=16MiB;GOGC=800,GOMEMLIMIT=16MiB;GOGC=off,GOMEMLIMIT=16MiB"}

mkdir -p bin results
for s in calculator notes browser; do
	CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "bin/$s" "./servers/$s"
done
(cd scripts && go build -o "$root/bin/bench" ./cmd/bench)

# The vault: each paragraph of the docs a note, in a folder per document (about 1,200 notes, 4.8 MB).
vault=$(mktemp -d)
trap 'rm -rf "$vault"' EXIT
for f in docs/*.md; do
	d="$vault/$(basename "$f" .md)"
	mkdir -p "$d"
	awk -v dir="$d" -v doc="$(basename "$f" .md)" '
		BEGIN { RS = ""; n = 0 }
		{ n++; file = sprintf("%s/%s-%04d.md", dir, doc, n)
		  printf "---\ntitle: %s %d\ntags: [docs, %s]\n---\n\n%s\n", doc, n, doc, $0 > file; close(file) }' "$f"
done
echo "bench-gc: $(find "$vault" -name '*.md' | wc -l) notes in the vault"

out=results/bench-gc.md
: >"$out"
run() {
	echo "## $1" | tee -a "$out"
	shift
	bin/bench -bin bin -gc "$settings" -duration 5s -rounds 5 "$@" | tee -a "$out"
	echo | tee -a "$out"
}
run "calculator: evaluate 2+3*4, beside the bare go-sdk" -server calculator -sdk-too
run "notes: list_notes \"memory server\"" -server notes -tool list_notes -args '{"query":"memory server"}' \
	-server-args "--notes-dir $vault"
run "browser: browser_snapshot of the dashboard" -server browser -tool browser_snapshot -args '{}' \
	-site servers/browser/testdata -setup 'browser_navigate {"url":"SITE/dashboard.html"}' \
	-server-args "--allow-private-hosts 127.0.0.1/32"
