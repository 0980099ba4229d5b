#!/usr/bin/env bash
# shellcheck disable=SC2015,SC2016  # "cond && ok || bad": ok never fails; jq programs are single-quoted on purpose
# deploy/test/run.sh — tests of everything under deploy/ and the deploy helpers in scripts/:
#   1. shellcheck of every script
#   2. systemd-analyze verify (any output fails) and security --offline (score limits) of the
#      template unit and its drop-ins, for every server id
#   3. scripts/release.sh on a scratch workspace of fake servers, then setup-host.sh and
#      deploy.sh against a scratch root with systemctl, journalctl, apt-get, ssh and scp
#      replaced by recording stand-ins (stubs/): first install, a second setup run that
#      changes nothing, an upgrade over "ssh" that restarts only the changed server, a release
#      that fails its health check (rollback), --status, --rollback, --restart, --logs,
#      tokens, pruning, a refused tampered tarball, a failing first install
#   4. scripts/gen-tunnel-config.sh: its YAML parsed and checked against what cloudflared needs
#   5. scripts/gen-client-config.sh: valid JSON with the keys each client expects, stdio
#      entries, and the refusals of a protected server without its token
# Needs: root, bash, shellcheck, systemd (systemd-analyze), go, curl, jq, python3 with yaml.
# Ends with "deploy tests: N passed, M failed"; exits 1 if anything failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
IDS=(shell auth calculator calendar gmail drive notes spotify browser)

passed=0
failed=0
ok() { passed=$((passed + 1)); printf 'ok    %s\n' "$1"; }
bad() {
	failed=$((failed + 1))
	printf 'FAIL  %s\n' "$1"
	if [[ $# -gt 1 && -n $2 ]]; then printf '%s\n' "$2" | sed 's/^/      /' | head -n 60; fi
}
# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else bad "$name" "$out"; fi
}
has() { grep -qE -- "$2" "$1"; }

for tool in shellcheck systemd-analyze go curl jq useradd flock; do
	command -v "$tool" >/dev/null || { echo "deploy tests need $tool (see docs/deploy.md, 'Tests')"; exit 1; }
done
# A python3 with PyYAML: the first on PATH, else Debian's (python3-yaml).
PY=''
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
[[ -n $PY ]] || { echo "deploy tests need python3 with PyYAML (apt-get install python3-yaml)"; exit 1; }
[[ $EUID -eq 0 ]] || { echo "deploy tests run as root (setup-host.sh creates users under a scratch root)"; exit 1; }

T=$(mktemp -d /tmp/mcp-deploy-test.XXXXXX)
cleanup() {
	local f
	# Stop the fake servers the stub systemctl started (only those: their pids are recorded).
	for f in "$T"/state*/pid/*; do
		[[ -f $f ]] && kill "$(cat "$f")" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap cleanup EXIT

# ============================================================================================
echo "== shellcheck"
scripts=("$REPO"/deploy/*.sh "$REPO"/scripts/*.sh
	"$HERE"/run.sh "$HERE"/stubs/* "$HERE"/e2e-systemd/*.sh)
for s in "${scripts[@]}"; do
	check "shellcheck ${s#"$REPO"/}" shellcheck -x "$s"
	bash -n "$s" || bad "bash -n ${s#"$REPO"/}"
done
for s in "$REPO"/deploy/setup-host.sh "$REPO"/deploy/deploy.sh "$REPO"/scripts/release.sh \
	"$REPO"/scripts/gen-tunnel-config.sh "$REPO"/scripts/gen-client-config.sh; do
	check "${s#"$REPO"/} --help" bash -c '"$1" --help | grep -q "^Usage"' _ "$s"
done

# The id:port table is copied into each script that needs it; the copies must agree.
tables=$(grep -h '^SERVER_TABLE=' "$REPO"/deploy/setup-host.sh "$REPO"/deploy/deploy.sh \
	"$REPO"/scripts/gen-tunnel-config.sh "$REPO"/scripts/gen-client-config.sh | sort -u)
if [[ $(wc -l <<<"$tables") -eq 1 && $tables == *'calculator:9003'* ]]; then
	ok "the server table is the same in all four scripts"
else
	bad "the server table differs between scripts" "$tables"
fi

# ============================================================================================
echo "== systemd units"
SA=$T/sa
mkdir -p "$SA/usr/lib/systemd" "$SA/etc/systemd/system" "$SA/opt/mcp-servers/current/bin"
cp -a /lib/systemd/system "$SA/usr/lib/systemd/"
cp -R "$REPO"/deploy/systemd/. "$SA/etc/systemd/system/"
for id in "${IDS[@]}"; do
	printf '#!/bin/sh\n' >"$SA/opt/mcp-servers/current/bin/$id"
	chmod +x "$SA/opt/mcp-servers/current/bin/$id"
	unit=mcp-server@$id.service
	if out=$(systemd-analyze verify --man=no --root="$SA" "$unit" 2>&1) && [[ -z $out ]]; then
		ok "verify $unit: no output"
	else
		bad "verify $unit printed something (or failed)" "$out"
	fi
	limit=20
	[[ $id == shell || $id == browser ]] && limit=50
	score=$(systemd-analyze security --offline=true --root="$SA" "$unit" 2>&1 | sed -n 's/.*exposure level for .*: \([0-9.]*\) .*/\1/p')
	if systemd-analyze security --offline=true --root="$SA" --threshold="$limit" "$unit" >/dev/null 2>&1; then
		ok "security $unit: $score <= $((limit / 10)).$((limit % 10))"
	else
		bad "security $unit: $score above $((limit / 10)).$((limit % 10))"
	fi
done
# The verify check must catch what systemd-analyze only warns about.
mkdir -p "$SA/etc/systemd/system/mcp-server@calculator.service.d"
printf '[Service]\nBogusKey=1\nProtectSystem=strickt\n' >"$SA/etc/systemd/system/mcp-server@calculator.service.d/99-bad.conf"
out=$(systemd-analyze verify --man=no --root="$SA" mcp-server@calculator.service 2>&1 || true)
if [[ $out == *BogusKey* && $out == *strickt* ]]; then
	ok "verify prints unknown keys and bad values (so 'any output fails' catches them)"
else
	bad "verify stayed silent on a broken drop-in" "$out"
fi
grep -q '^Type=notify' "$REPO/deploy/systemd/mcp-server@.service" && ok "template is Type=notify" || bad "template is not Type=notify"
if grep -qE '^(Environment=.*(TOKEN|SECRET)|SetCredential=)' -r "$REPO/deploy/systemd"; then
	bad "a secret goes through the environment or SetCredential="
else
	ok "no secret in Environment= or SetCredential="
fi

# ============================================================================================
echo "== release.sh on a scratch workspace of fake servers"
W=$T/ws
mkdir -p "$W/shared/buildinfo" "$W/scripts" "$W/docs"
cp -R "$REPO/deploy" "$W/deploy"
rm -rf "$W/deploy/test"
cp "$REPO/scripts/release.sh" "$REPO/scripts/gen-tunnel-config.sh" "$REPO/scripts/gen-client-config.sh" "$W/scripts/"
cp "$REPO"/docs/*.md "$W/docs/"
printf 'go 1.25.0\n\nuse (\n\t./shared\n\t./servers/calculator\n\t./servers/notes\n\t./servers/notaserver\n)\n' >"$W/go.work"
printf 'module github.com/jck411/mcp-servers/shared\n\ngo 1.25.0\n' >"$W/shared/go.mod"
printf 'package buildinfo\n\nvar Version = ""\n' >"$W/shared/buildinfo/buildinfo.go"

# fake_server NAME MODE TAG: a tiny server with the kit's --version and /healthz contract.
# MODE ok | degraded | exit (cannot start). TAG changes the code without changing behaviour.
fake_server() {
	local d=$W/servers/$1
	mkdir -p "$d"
	printf 'module github.com/jck411/mcp-servers/servers/%s\n\ngo 1.25.0\n\nrequire github.com/jck411/mcp-servers/shared v0.0.0\n\nreplace github.com/jck411/mcp-servers/shared => ../../shared\n' "$1" >"$d/go.mod"
	cat >"$d/main.go" <<EOF
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/jck411/mcp-servers/shared/buildinfo"
)

const mode, tag = "$2", "$3"

func main() {
	name := filepath.Base(os.Args[0])
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(name, buildinfo.Version)
		return
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, \`{"level":"ERROR","msg":"fake failure: cannot open the database"}\`)
		os.Exit(1)
	}
	host := os.Getenv("MCP_HOST")
	ln, err := net.Listen("tcp", net.JoinHostPort(host, os.Getenv("MCP_PORT")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start := time.Now()
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		_, credErr := os.Stat(filepath.Join(os.Getenv("CREDENTIALS_DIRECTORY"), "auth-tokens"))
		body := map[string]any{"status": "ok", "name": name, "version": buildinfo.Version, "tag": tag,
			"credential": credErr == nil, "state_dir": os.Getenv("STATE_DIRECTORY"),
			"uptime_seconds": time.Since(start).Seconds(), "tools": 3, "checks": map[string]any{}}
		if mode == "degraded" {
			body["status"] = "degraded"
			body["checks"] = map[string]any{"google token": map[string]string{"status": "missing", "detail": "sign in"},
				"google token (work)": map[string]string{"status": "warn", "detail": "expired: run notes auth login --account work"}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	fmt.Fprintf(os.Stderr, "{\"level\":\"INFO\",\"msg\":\"listening\",\"addr\":%q}\n", ln.Addr().String())
	_ = http.Serve(ln, nil)
}
EOF
}

# elf_is FILE MACHINE: a 64-bit little-endian ELF for e_machine MACHINE without PT_INTERP.
elf_is() {
	"$PY" - "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF"
machine, = struct.unpack_from("<H", data, 18)
assert machine == int(sys.argv[2]), f"e_machine {machine}, want {sys.argv[2]}"
phoff, = struct.unpack_from("<Q", data, 32)
phentsize, phnum = struct.unpack_from("<HH", data, 54)
for i in range(phnum):
    ptype, = struct.unpack_from("<I", data, phoff + i * phentsize)
    assert ptype != 3, "has a program interpreter: not static"
PY
}

export GOPROXY=off GOTOOLCHAIN=local SOURCE_DATE_EPOCH=1700000000
unset GOWORK GOFLAGS
DIST=$W/dist
# build VERSION [ARCHES]: run release.sh in the scratch workspace.
build() {
	local log=$T/build-$1.log
	if ! "$W/scripts/release.sh" --version "$1" --arch "${2:-amd64}" --out "$DIST" >"$log" 2>&1; then
		bad "release.sh --version $1" "$(cat "$log")"
		return 1
	fi
	sleep 1 # distinct mtimes: deploy.sh picks the newest tarball
}

V1=$DIST/mcp-servers-v1.0.0-linux-amd64.tar.gz
fake_server calculator ok a
fake_server notes degraded a
# A folder without a main package is not a server.
mkdir -p "$W/servers/notaserver" && printf 'module example.com/x\n\ngo 1.25.0\n' >"$W/servers/notaserver/go.mod"
printf 'package x\n' >"$W/servers/notaserver/x.go"
if build v1.0.0 "amd64 arm64"; then
	ok "release.sh builds v1.0.0 for amd64 and arm64"
	check "both tarballs and checksums exist" test -f "$V1" -a -f "$V1.sha256" \
		-a -f "$DIST/mcp-servers-v1.0.0-linux-arm64.tar.gz" -a -f "$DIST/mcp-servers-v1.0.0-linux-arm64.tar.gz.sha256"
	check "checksum verifies" bash -c "cd '$DIST' && sha256sum -c --quiet mcp-servers-v1.0.0-linux-amd64.tar.gz.sha256"
	listing=$(tar -tzf "$V1" | sort | tr '\n' ' ')
	for want in VERSION MANIFEST bin/calculator bin/notes deploy/deploy.sh deploy/setup-host.sh deploy/systemd/mcp-server@.service scripts/gen-tunnel-config.sh scripts/gen-client-config.sh; do
		[[ " $listing " == *" $want "* ]] && ok "tarball has $want" || bad "tarball lacks $want" "$listing"
	done
	[[ $listing != *notaserver* ]] && ok "a module without main is not packed" || bad "notaserver was packed"
	x=$T/x1 && mkdir -p "$x" && tar -xzf "$V1" -C "$x"
	check "tarball has docs/deploy.md and every guide its docs link to" bash -c "
		cd '$x/docs' && [[ -f deploy.md ]] || exit 1
		grep -oE '\]\([A-Za-z0-9_.-]+\.md' *.md | cut -d'(' -f2 | sort -u | while read -r f; do [[ -f \$f ]] || { echo \"broken link to \$f\"; exit 1; }; done"
	check "VERSION says v1.0.0" grep -qx v1.0.0 "$x/VERSION"
	check "bin/calculator --version prints 'calculator v1.0.0'" bash -c "[[ \$('$x/bin/calculator' --version) == 'calculator v1.0.0' ]]"
	check "binary is a static amd64 ELF (no program interpreter)" elf_is "$x/bin/calculator" 62
	check "MANIFEST lists both servers" bash -c "[[ \$(awk '{print \$2}' '$x/MANIFEST' | sort | tr '\n' ' ') == 'calculator notes ' ]]"
	xa=$T/xa && mkdir -p "$xa" && tar -xzf "$DIST/mcp-servers-v1.0.0-linux-arm64.tar.gz" -C "$xa"
	check "arm64 build is a static aarch64 ELF" elf_is "$xa/bin/calculator" 183
	check "release is reproducible (same tarball twice)" bash -c "
		'$W/scripts/release.sh' --version v1.0.0 --arch amd64 --out '$T/again' >/dev/null 2>&1 &&
		cmp '$V1' '$T/again/mcp-servers-v1.0.0-linux-amd64.tar.gz'"
fi
check "release.sh refuses a version with a slash" bash -c "! '$W/scripts/release.sh' --version v1/2 --out '$T/no' >/dev/null 2>&1"

# ============================================================================================
echo "== setup-host.sh against a scratch root"
R=$T/root
S=$T/state
BIN=$T/bin
mkdir -p "$R/etc" "$S" "$BIN"
: >"$R/etc/passwd"; : >"$R/etc/group"; : >"$R/etc/shadow"; : >"$R/etc/gshadow"
cp "$HERE"/stubs/* "$BIN/"
export MCP_ROOT=$R FAKE_SYSTEMD_STATE=$S PATH=$BIN:$PATH
SETUP=$W/deploy/setup-host.sh
DEPLOY=$W/deploy/deploy.sh
mark() { if [[ -f $S/calls.log ]]; then wc -l <"$S/calls.log"; else echo 0; fi; }
calls_since() { tail -n +"$(($1 + 1))" "$S/calls.log" 2>/dev/null || true; }

# snapshot: every path with type, mode, owner and content hash (symlinks by target).
snapshot() {
	(cd "$R" && find . -printf '%y %m %u:%g %p %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum) 
}

# This machine may have a Chromium already (any one of Debian's packages); then setup must not
# install another.
chromium_before=0
if command -v chromium >/dev/null || command -v chromium-headless-shell >/dev/null ||
	[[ -x /usr/lib/chromium/chromium-headless-shell ]]; then
	chromium_before=1
fi
m=$(mark)
if "$SETUP" >"$T/setup1.log" 2>&1; then ok "setup-host.sh: first run"; else bad "setup-host.sh: first run" "$(cat "$T/setup1.log")"; fi
for id in "${IDS[@]}"; do
	grep -q "^mcp-$id:" "$R/etc/passwd" || bad "user mcp-$id missing"
done
check "nine users, one per server, each with its own group" bash -c "[[ \$(grep -c '^mcp-' '$R/etc/passwd') -eq 9 && \$(cut -d: -f4 '$R/etc/passwd' | sort -u | wc -l) -eq 9 ]]"
check "auth.env: a working loopback issuer and the servers' loopback URLs; no bearer tokens" bash -c "grep -qx 'MCP_ISSUER=http://localhost:9002' '$R/etc/mcp-servers/auth.env' && grep -qx 'MCP_RESOURCES=shell=http://127.0.0.1:9001/mcp,calculator=http://127.0.0.1:9003/mcp,calendar=http://127.0.0.1:9004/mcp,gmail=http://127.0.0.1:9005/mcp,drive=http://127.0.0.1:9006/mcp,notes=http://127.0.0.1:9009/mcp,spotify=http://127.0.0.1:9010/mcp,browser=http://127.0.0.1:9011/mcp' '$R/etc/mcp-servers/auth.env' && [[ ! -e '$R/etc/mcp-servers/credentials/auth/auth-tokens' ]]"
check "users have no login shell" bash -c "! grep '^mcp-' '$R/etc/passwd' | grep -v ':/usr/sbin/nologin$'"
check "/etc/mcp-servers is 0750" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers') == 750 ]]"
check "credentials folder is 0700" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers/credentials') == 700 ]]"
check "per-server and provider credential folders are 0700" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers/credentials/shell' '$R/etc/mcp-servers/credentials/google' '$R/etc/mcp-servers/credentials/spotify' | sort -u) == 700 ]]"
check "/opt/mcp-servers/releases exists" test -d "$R/opt/mcp-servers/releases"
check "template unit installed" cmp "$REPO/deploy/systemd/mcp-server@.service" "$R/etc/systemd/system/mcp-server@.service"
check "shell and browser drop-ins installed" test -f "$R/etc/systemd/system/mcp-server@shell.service.d/10-shell.conf" -a -f "$R/etc/systemd/system/mcp-server@browser.service.d/10-browser.conf"
check "calculator.env: loopback, port 9003" bash -c "grep -qx 'MCP_HOST=127.0.0.1' '$R/etc/mcp-servers/calculator.env' && grep -qx 'MCP_PORT=9003' '$R/etc/mcp-servers/calculator.env'"
check "browser.env: port 9011" grep -qx 'MCP_PORT=9011' "$R/etc/mcp-servers/browser.env"
check "token file 0600 with one 64-hex token labelled owner" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers/credentials/calculator/auth-tokens') == 600 ]] && grep -qE '^owner:[0-9a-f]{64}$' '$R/etc/mcp-servers/credentials/calculator/auth-tokens'"
check "tokens differ between servers" bash -c "! cmp -s '$R/etc/mcp-servers/credentials/calculator/auth-tokens' '$R/etc/mcp-servers/credentials/notes/auth-tokens'"
calls=$(calls_since "$m")
if [[ $chromium_before -eq 1 ]]; then
	[[ $calls != *"apt-get install"*chromium* ]] && ok "chromium already here: not installed again" || bad "chromium installed again" "$calls"
else
	[[ $calls == *"apt-get install"*chromium-headless-shell* ]] && ok "chromium-headless-shell installed for the browser server" || bad "chromium not installed" "$calls"
fi
[[ $calls == *daemon-reload* ]] && ok "daemon-reload after installing units" || bad "no daemon-reload" "$calls"
[[ $calls != *enable* ]] && ok "nothing enabled before a release is deployed" || bad "enabled without binaries" "$calls"

before=$(snapshot)
m=$(mark)
"$SETUP" >"$T/setup2.log" 2>&1 || bad "setup-host.sh: second run failed" "$(cat "$T/setup2.log")"
after=$(snapshot)
if [[ $before == "$after" ]]; then ok "second setup run changes nothing on disk"; else bad "second setup run changed files" "$(diff <(echo "$before") <(echo "$after"))"; fi
check "second setup run says nothing changed" grep -q 'nothing changed' "$T/setup2.log"
calls=$(calls_since "$m")
[[ -z $(grep -vE '^(is-enabled|is-active)' <<<"$calls" || true) ]] && ok "second setup run makes no systemctl or apt-get change" || bad "second setup run called" "$calls"

# Repairs: a wrong mode is put right, an edited settings file is kept.
chmod 0755 "$R/etc/mcp-servers/credentials"
printf 'MCP_LOG_LEVEL=debug\n' >>"$R/etc/mcp-servers/shell.env"
"$SETUP" --no-packages >"$T/setup2b.log" 2>&1 || bad "setup-host.sh: repair run failed" "$(cat "$T/setup2b.log")"
check "a loosened credentials folder is set back to 0700" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers/credentials') == 700 ]]"
check "an edited env file is kept" grep -qx 'MCP_LOG_LEVEL=debug' "$R/etc/mcp-servers/shell.env"

# From here on two servers, on free test ports (the fixed ones may be in use on this machine).
base=$((20000 + RANDOM % 20000))
sed -i "s/^MCP_PORT=.*/MCP_PORT=$base/" "$R/etc/mcp-servers/calculator.env"
sed -i "s/^MCP_PORT=.*/MCP_PORT=$((base + 1))/" "$R/etc/mcp-servers/notes.env"
for id in shell calendar gmail drive spotify browser; do rm -f "$R/etc/mcp-servers/$id.env"; done
check "setup-host.sh rejects an unknown server" bash -c "! '$SETUP' --servers calculator,nope >/dev/null 2>&1"

# ============================================================================================
echo "== deploy.sh: first install"
# runs PORT VERSION: the server on PORT answers /healthz with that version.
runs() {
	local got
	got=$(curl -sS --max-time 3 "http://127.0.0.1:$1/healthz" | jq -r .version) || return 1
	[[ $got == "$2" ]] || { echo "answers '$got', want '$2'"; return 1; }
}
cur() { readlink "$R/opt/mcp-servers/current" || true; }
prev() { readlink "$R/opt/mcp-servers/previous" || true; }

m=$(mark)
if "$DEPLOY" --release "$V1" --timeout 10 >"$T/d1.log" 2>&1; then ok "deploy v1.0.0 (first install)"; else bad "deploy v1.0.0 (first install)" "$(cat "$T/d1.log")"; fi
[[ $(cur) == releases/v1.0.0 ]] && ok "current -> releases/v1.0.0" || bad "current is '$(cur)'"
calls=$(calls_since "$m")
[[ $calls == *"restart mcp-server@calculator.service mcp-server@notes.service"* ]] && ok "both servers started" || bad "servers not started" "$calls"
[[ $calls == *"enable"*"mcp-server@calculator.service"* ]] && ok "servers enabled" || bad "servers not enabled" "$calls"
check "calculator answers /healthz with v1.0.0" runs "$base" v1.0.0
check "the server got its auth-tokens credential and a state folder" bash -c "set -o pipefail; curl -sS --max-time 3 http://127.0.0.1:$base/healthz | jq -e '.credential == true and (.state_dir | endswith(\"/lib/calculator\"))'"
check "deploy output reports notes degraded with its check" grep -q 'notes is healthy: v1.0.0, degraded' "$T/d1.log"

m=$(mark)
"$SETUP" --servers calculator,notes >"$T/setup3.log" 2>&1 || bad "setup-host.sh after deploy failed" "$(cat "$T/setup3.log")"
check "setup after the first deploy: nothing changed (servers already enabled)" grep -q 'nothing changed' "$T/setup3.log"

echo "== deploy.sh --status"
"$DEPLOY" --status >"$T/status1.log" 2>&1 && st=0 || st=$?
cat "$T/status1.log"
[[ $st -eq 0 ]] && ok "--status exits 0 when all are healthy" || bad "--status exit $st"
check "--status header names the release" grep -q '^release: v1.0.0' "$T/status1.log"
check "--status: calculator active v1.0.0 ok 1 token" bash -c "grep -E '^calculator +active +v1.0.0 +$base +ok +1 token' '$T/status1.log'"
check "--status: notes degraded with google token=missing and each account's state" bash -c "grep -E '^notes +active +v1.0.0 +$((base + 1)) +degraded +1 token +google token=missing, google token \(work\)=warn \(expired\)$' '$T/status1.log'"
check "--status has the columns" grep -qE '^SERVER +UNIT +VERSION +PORT +HEALTH +AUTH +CHECKS' "$T/status1.log"

# ============================================================================================
echo "== deploy.sh HOST: upgrade over ssh, only the changed server restarts"
fake_server calculator ok b # new code for calculator; notes untouched
build v2.0.0 || true
m=$(mark)
if "$DEPLOY" fakehost --timeout 10 >"$T/d2.log" 2>&1; then ok "deploy fakehost (newest tarball from dist/)"; else bad "deploy fakehost" "$(cat "$T/d2.log")"; fi
calls=$(calls_since "$m")
[[ $calls == *"ssh fakehost uname -m"* && $calls == *"scp -q"*"mcp-servers-v2.0.0-linux-amd64.tar.gz"* ]] && ok "picked v2.0.0 for the host's arch and copied it over scp" || bad "remote plumbing" "$calls"
[[ $calls == *"restart mcp-server@calculator.service"* ]] && ok "calculator restarted" || bad "calculator not restarted" "$calls"
! grep -qE '^restart .*mcp-server@notes' <<<"$calls" && ok "notes (unchanged fingerprint) not restarted" || bad "notes restarted" "$calls"
[[ $(cur) == releases/v2.0.0 && $(prev) == releases/v1.0.0 ]] && ok "current -> v2.0.0, previous -> v1.0.0" || bad "links: current=$(cur) previous=$(prev)"
check "calculator runs v2.0.0" runs "$base" v2.0.0
check "notes still runs v1.0.0 (same binary)" runs "$((base + 1))" v1.0.0
check "remote temp folder removed" bash -c "! ls -d /tmp/mcp-deploy.* 2>/dev/null | grep -q ."

echo "== deploy.sh: a release whose server fails → rollback"
fake_server calculator exit c
build v3.0.0 || true
fake_server calculator ok d
V3=$DIST/mcp-servers-v3.0.0-linux-amd64.tar.gz
m=$(mark)
if "$DEPLOY" "$V3" --timeout 3 >"$T/d3.log" 2>&1; then bad "deploy of a failing release exited 0" "$(cat "$T/d3.log")"; else ok "deploy of a failing release exits non-zero"; fi
cat "$T/d3.log"
check "message names the failing server" grep -q 'calculator did not become healthy' "$T/d3.log"
check "message shows its journal lines" grep -q 'fake failure: cannot open the database' "$T/d3.log"
check "message says it rolled back to v2.0.0" grep -q 'rolled back to v2.0.0' "$T/d3.log"
[[ $(cur) == releases/v2.0.0 ]] && ok "current back on v2.0.0" || bad "current is $(cur)"
check "failed release removed" test ! -e "$R/opt/mcp-servers/releases/v3.0.0"
check "calculator healthy again on v2.0.0" runs "$base" v2.0.0
calls=$(calls_since "$m")
[[ $(grep -c 'restart mcp-server@calculator.service' <<<"$calls") -eq 2 ]] && ok "calculator restarted on v3, then on v2" || bad "restart calls" "$calls"
[[ $calls == *"journalctl -u mcp-server@calculator.service"* ]] && ok "journal read for the failing server" || bad "journal not read" "$calls"
[[ $(prev) == releases/v1.0.0 ]] && ok "previous still v1.0.0 after the failed deploy" || bad "previous is $(prev)"

echo "== deploy.sh --rollback"
m=$(mark)
if "$DEPLOY" --rollback --timeout 10 >"$T/rb.log" 2>&1; then ok "--rollback"; else bad "--rollback" "$(cat "$T/rb.log")"; fi
[[ $(cur) == releases/v1.0.0 && $(prev) == releases/v2.0.0 ]] && ok "current -> v1.0.0, previous -> v2.0.0" || bad "links: current=$(cur) previous=$(prev)"
calls=$(calls_since "$m")
[[ $calls == *"restart mcp-server@calculator.service"* ]] && ! grep -qE '^restart .*mcp-server@notes' <<<"$calls" &&
	ok "rollback restarted calculator only" || bad "rollback restarts" "$calls"
check "calculator runs v1.0.0 again" runs "$base" v1.0.0
check "--rollback --to v2.0.0 (remote)" "$DEPLOY" fakehost --rollback --to v2.0.0 --timeout 10
[[ $(cur) == releases/v2.0.0 ]] && ok "current -> v2.0.0 after --to" || bad "current is $(cur)"
check "--rollback --to an unknown version fails" bash -c "! '$DEPLOY' --rollback --to v9.9.9 >/dev/null 2>&1"

echo "== deploy.sh --restart, --logs, --status over ssh"
m=$(mark)
check "--restart calculator" "$DEPLOY" --restart calculator --timeout 10
[[ $(calls_since "$m") == *"restart mcp-server@calculator.service"* ]] && ok "--restart called systemctl restart" || bad "--restart calls" "$(calls_since "$m")"
check "--restart all" "$DEPLOY" --restart all --timeout 10
check "--restart of a server that is not deployed fails" bash -c "! '$DEPLOY' --restart gmail >/dev/null 2>&1"
"$DEPLOY" --logs calculator --lines 5 >"$T/logs.log" 2>&1 || true
check "--logs shows the server's journal" grep -q '"msg":"listening"' "$T/logs.log"
check "--status over ssh" bash -c "'$DEPLOY' fakehost --status | grep -qE '^calculator +active +v2.0.0'"

echo "== deploy.sh --add-token / --remove-token"
tok=$("$DEPLOY" --add-token calculator chat-backend --timeout 10 2>"$T/tok.log") || bad "--add-token" "$(cat "$T/tok.log")"
[[ $tok =~ ^[0-9a-f]{64}$ ]] && ok "--add-token prints a 64-hex token" || bad "--add-token printed '$tok'"
check "token stored with its label" grep -qx "chat-backend:$tok" "$R/etc/mcp-servers/credentials/calculator/auth-tokens"
check "token file still 0600" bash -c "[[ \$(stat -c %a '$R/etc/mcp-servers/credentials/calculator/auth-tokens') == 600 ]]"
check "--status shows 2 tokens" bash -c "'$DEPLOY' --status | grep -E '^calculator ' | grep -q '2 tokens'"
check "--add-token refuses a duplicate label" bash -c "! '$DEPLOY' --add-token calculator chat-backend >/dev/null 2>&1"
check "--remove-token" "$DEPLOY" --remove-token calculator chat-backend --timeout 10
check "token removed" bash -c "! grep -q chat-backend '$R/etc/mcp-servers/credentials/calculator/auth-tokens'"
check "--remove-token refuses the last token" bash -c "! '$DEPLOY' --remove-token calculator owner >/dev/null 2>&1"

echo "== deploy.sh: pruning, refusals"
fake_server calculator ok e
build v4.0.0 || true
V4=$DIST/mcp-servers-v4.0.0-linux-amd64.tar.gz
check "deploy v4.0.0 --keep 1" "$DEPLOY" "$V4" --keep 1 --timeout 10
rels=$(find "$R/opt/mcp-servers/releases" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | sort | tr '\n' ' ')
[[ $rels == "v2.0.0 v4.0.0 " ]] && ok "--keep 1 keeps current and previous only ($rels)" || bad "releases left: $rels"
fake_server calculator ok f
check "same version, different binaries: rebuilt" build v4.0.0
check "redeploying v4.0.0 with different binaries is refused" bash -c "! '$DEPLOY' '$V4' >/dev/null 2>&1"
cp "$V4" "$T/tampered.tar.gz" && printf 'x' >>"$T/tampered.tar.gz"
sed "s/mcp-servers-v4.0.0-linux-amd64.tar.gz/tampered.tar.gz/" "$V4.sha256" >"$T/tampered.tar.gz.sha256"
out=$("$DEPLOY" "$T/tampered.tar.gz" 2>&1) && bad "a tampered tarball was accepted" "$out" || {
	[[ $out == *"checksum mismatch"* ]] && ok "a tampered tarball is refused (checksum)" || bad "tampered: wrong message" "$out"
}
xa=$DIST/mcp-servers-v1.0.0-linux-arm64.tar.gz
out=$("$DEPLOY" "$xa" 2>&1) && bad "an arm64 release was accepted on amd64" "$out" || {
	[[ $out == *"--version says"* ]] && ok "a release for another architecture is refused before switching" || bad "arm64: wrong message" "$out"
}
[[ $(cur) == releases/v4.0.0 ]] && ok "refusals left current alone" || bad "current is $(cur)"
check "--status exits 0 at the end" "$DEPLOY" --status

echo "== deploy.sh: a failing first install leaves nothing running"
R2=$T/root2
S2=$T/state2
mkdir -p "$R2/etc" "$S2"
: >"$R2/etc/passwd"; : >"$R2/etc/group"; : >"$R2/etc/shadow"; : >"$R2/etc/gshadow"
(
	export MCP_ROOT=$R2 FAKE_SYSTEMD_STATE=$S2
	"$SETUP" --servers calculator --no-packages --host 0.0.0.0 --allowed-hosts 192.168.1.110 >/dev/null
	sed -i "s/^MCP_PORT=.*/MCP_PORT=$((base + 2))/" "$R2/etc/mcp-servers/calculator.env"
	if "$DEPLOY" "$V3" --timeout 3 >"$T/d5.log" 2>&1; then exit 1; fi
	[[ ! -e $R2/opt/mcp-servers/current && ! -e $R2/opt/mcp-servers/releases/v3.0.0 ]] || exit 2
	grep -q 'no previous release' "$T/d5.log" || exit 3
	[[ ! -f $S2/enabled/calculator ]] || exit 4
) && ok "failed first install: non-zero, no current link, unit stopped and disabled" || bad "failed first install" "$(cat "$T/d5.log" 2>/dev/null)"
check "setup --host/--allowed-hosts write MCP_HOST=0.0.0.0 and the LAN name" bash -c "grep -qx 'MCP_HOST=0.0.0.0' '$R2/etc/mcp-servers/calculator.env' && grep -qx 'MCP_ALLOWED_HOSTS=192.168.1.110' '$R2/etc/mcp-servers/calculator.env'"
MCP_ROOT=$R2 FAKE_SYSTEMD_STATE=$S2 "$DEPLOY" "$V1" --timeout 10 >"$T/d6.log" 2>&1 && ok "deploy to a server bound to 0.0.0.0 (health checked on 127.0.0.1)" || bad "deploy with 0.0.0.0" "$(cat "$T/d6.log")"
check "a server in the release but not set up here is left alone" grep -q 'not set up on this host, left alone: notes' "$T/d6.log"
check "the 0.0.0.0 server answers" runs "$((base + 2))" v1.0.0

# ============================================================================================
echo "== gen-tunnel-config.sh"
GT=$REPO/scripts/gen-tunnel-config.sh
TUN=6ff42ae2-765d-4adf-8112-31c55c1551ef
validate_yaml() { # FILE REWRITE(0|1) EXPECTED "id:port ..."
	"$PY" - "$@" <<'PY'
import re, sys, yaml
path, rewrite, expected = sys.argv[1], sys.argv[2] == "1", sys.argv[3].split()
cfg = yaml.safe_load(open(path))
errors = []
def need(cond, msg):
    if not cond:
        errors.append(msg)
top = {"tunnel", "credentials-file", "originRequest", "ingress"}
need(set(cfg) <= top, f"unknown top-level keys {set(cfg) - top}")
need(re.fullmatch(r"[0-9a-f-]{36}", str(cfg.get("tunnel", ""))) is not None, "tunnel is not a UUID")
need(str(cfg.get("credentials-file", "")).startswith("/"), "credentials-file is not absolute")
origin_keys = {"connectTimeout", "tlsTimeout", "tcpKeepAlive", "noHappyEyeballs", "keepAliveConnections",
               "keepAliveTimeout", "httpHostHeader", "originServerName", "caPool", "noTLSVerify",
               "disableChunkedEncoding", "bastionMode", "proxyAddress", "proxyPort", "proxyType",
               "http2Origin", "access", "matchSNItoHost"}
need(set(cfg.get("originRequest", {})) <= origin_keys, "unknown originRequest keys")
rules = cfg.get("ingress")
need(isinstance(rules, list) and len(rules) >= 2, "ingress must list the servers and a catch-all")
last = rules[-1]
need(last == {"service": "http_status:404"}, f"last rule must be only service: http_status:404, got {last}")
seen = set()
for want, rule in zip(expected, rules[:-1]):
    sid, port = want.split(":")
    need(set(rule) <= {"hostname", "service", "path", "originRequest"}, f"unknown keys in {rule}")
    need(rule.get("hostname") == f"mcp-{sid}.example.com", f"hostname {rule.get('hostname')} for {sid}")
    need(rule.get("service") == f"http://127.0.0.1:{port}", f"service {rule.get('service')} for {sid}")
    need(re.fullmatch(r"https?://[^/]+", rule.get("service", "")) is not None, "service needs a scheme")
    need(rule["hostname"] not in seen, "duplicate hostname")
    seen.add(rule["hostname"])
    host_header = rule.get("originRequest", {}).get("httpHostHeader")
    if rewrite:
        need(host_header == f"127.0.0.1:{port}", f"httpHostHeader {host_header} for {sid}")
    else:
        need(host_header is None, "httpHostHeader set without --rewrite-host")
need(len(rules) - 1 == len(expected), f"{len(rules) - 1} server rules, expected {len(expected)}")
if errors:
    print("\n".join(errors))
    sys.exit(1)
PY
}
"$GT" --tunnel $TUN --domain example.com --servers calculator,notes,browser >"$T/t1.yml" 2>"$T/t1.err" || bad "gen-tunnel-config" "$(cat "$T/t1.err")"
check "tunnel YAML: structure cloudflared requires (allowed-hosts mode)" validate_yaml "$T/t1.yml" 0 "calculator:9003 notes:9009 browser:9011"
"$GT" --tunnel $TUN --domain example.com --servers calculator --rewrite-host >"$T/t2.yml"
check "tunnel YAML: --rewrite-host sets httpHostHeader per rule" validate_yaml "$T/t2.yml" 1 "calculator:9003"
"$GT" --tunnel $TUN --domain example.com >"$T/t3.yml"
check "tunnel YAML: all nine servers by default" validate_yaml "$T/t3.yml" 0 "shell:9001 auth:9002 calculator:9003 calendar:9004 gmail:9005 drive:9006 notes:9009 spotify:9010 browser:9011"
check "tunnel --env prints MCP_ALLOWED_HOSTS lines" bash -c "[[ \$('$GT' --tunnel $TUN --domain example.com --servers calculator --env) == 'calculator.env: MCP_ALLOWED_HOSTS=mcp-calculator.example.com' ]]"
E=$T/envdir
mkdir -p "$E"
printf 'MCP_HOST=0.0.0.0\nMCP_PORT=19003\nMCP_ALLOWED_HOSTS=192.168.1.110\n' >"$E/calculator.env"
printf 'MCP_PORT=9009\n#MCP_ALLOWED_HOSTS=mcp-notes.example.com\n' >"$E/notes.env"
chmod 0640 "$E"/*.env
"$GT" --tunnel $TUN --domain example.com --env-dir "$E" --apply-env --out "$T/t4.yml" 2>"$T/t4.err" || bad "--apply-env" "$(cat "$T/t4.err")"
check "--env-dir: servers and ports from the env files" validate_yaml "$T/t4.yml" 0 "calculator:19003 notes:9009"
check "--apply-env keeps the LAN address and adds the host name" grep -qx 'MCP_ALLOWED_HOSTS=192.168.1.110,mcp-calculator.example.com' "$E/calculator.env"
check "--apply-env adds a line where there was none" bash -c "grep -qx 'MCP_ALLOWED_HOSTS=mcp-notes.example.com' '$E/notes.env' && grep -qx '#MCP_ALLOWED_HOSTS=mcp-notes.example.com' '$E/notes.env'"
check "--apply-env keeps the file mode" bash -c "[[ \$(stat -c %a '$E/calculator.env') == 640 ]]"
sum1=$(sha256sum "$E"/*.env)
"$GT" --tunnel $TUN --domain example.com --env-dir "$E" --apply-env >/dev/null 2>&1
[[ $sum1 == "$(sha256sum "$E"/*.env)" ]] && ok "--apply-env twice changes nothing" || bad "--apply-env is not idempotent"
# --oauth: the auth server becomes the issuer of the others, in their env files.
O=$T/oauthenv
mkdir -p "$O"
printf 'MCP_PORT=9002\nMCP_ISSUER=http://localhost:9002\nMCP_RESOURCES=notes=http://127.0.0.1:9009/mcp\n' >"$O/auth.env"
printf 'MCP_PORT=9009\n' >"$O/notes.env"
printf 'MCP_PORT=9004\nMCP_OAUTH_ISSUER=https://old.example.com\n# keep me\n' >"$O/calendar.env"
chmod 0640 "$O"/*.env
"$GT" --tunnel $TUN --domain example.com --env-dir "$O" --apply-env --oauth --out "$T/t5.yml" 2>"$T/t5.err" || bad "--oauth --apply-env" "$(cat "$T/t5.err")"
check "--oauth: auth.env names the public issuer and the servers' /mcp URLs" bash -c "grep -qx 'MCP_ISSUER=https://mcp-auth.example.com' '$O/auth.env' &&
	grep -qx 'MCP_RESOURCES=calendar=https://mcp-calendar.example.com/mcp,notes=https://mcp-notes.example.com/mcp' '$O/auth.env' &&
	[[ \$(grep -c '^MCP_ISSUER=' '$O/auth.env') == 1 && \$(grep -c '^MCP_RESOURCES=' '$O/auth.env') == 1 ]]"
check "--oauth: auth trusts CF-Connecting-IP from cloudflared on loopback only" grep -qx 'MCP_TRUSTED_PROXIES=127.0.0.1,::1' "$O/auth.env"
check "--oauth: auth.env gets no MCP_ALLOWED_HOSTS (auth has no such flag)" bash -c "! grep -q MCP_ALLOWED_HOSTS '$O/auth.env'"
check "--oauth: each server is a resource of the issuer, keys fetched on loopback" bash -c "
	grep -qx 'MCP_OAUTH_ISSUER=https://mcp-auth.example.com' '$O/notes.env' && grep -qx 'MCP_PUBLIC_URL=https://mcp-notes.example.com' '$O/notes.env' &&
	grep -qx 'MCP_OAUTH_ISSUER_INTERNAL_URL=http://127.0.0.1:9002' '$O/notes.env' && grep -qx 'MCP_ALLOWED_HOSTS=mcp-notes.example.com' '$O/notes.env'"
check "--oauth: an old issuer line is replaced, other lines kept" bash -c "
	[[ \$(grep -c '^MCP_OAUTH_ISSUER=' '$O/calendar.env') == 1 ]] && grep -qx 'MCP_OAUTH_ISSUER=https://mcp-auth.example.com' '$O/calendar.env' &&
	grep -qx '# keep me' '$O/calendar.env' && [[ \$(stat -c %a '$O/calendar.env') == 640 ]]"
check "--oauth: the tunnel publishes auth too" validate_yaml "$T/t5.yml" 0 "auth:9002 calendar:9004 notes:9009"
sum2=$(sha256sum "$O"/*.env)
"$GT" --tunnel $TUN --domain example.com --env-dir "$O" --apply-env --oauth >/dev/null 2>&1
[[ $sum2 == "$(sha256sum "$O"/*.env)" ]] && ok "--oauth --apply-env twice changes nothing" || bad "--oauth --apply-env is not idempotent"
check "--oauth --apply-env: the first run asks for a restart" grep -q 'restart the servers to apply' "$T/t5.err"
"$GT" --tunnel $TUN --domain example.com --env-dir "$O" --apply-env --oauth >/dev/null 2>"$T/t5b.err"
check "--oauth --apply-env again: says nothing changed, asks for no restart" bash -c "grep -q 'nothing to restart' '$T/t5b.err' && ! grep -q 'restart the servers' '$T/t5b.err'"
check "--oauth without the auth server is refused" bash -c "! '$GT' --tunnel $TUN --domain example.com --servers notes --oauth --env >/dev/null 2>&1"
check "--oauth --env prints every setting" bash -c "[[ \$('$GT' --tunnel $TUN --domain example.com --servers auth,notes --oauth --env | grep -c '=') == 7 ]]"
check "tunnel generator rejects a bad domain" bash -c "! '$GT' --tunnel $TUN --domain 'bad domain' >/dev/null 2>&1"
check "tunnel generator needs --tunnel" bash -c "! '$GT' --domain example.com >/dev/null 2>&1"
if [[ -f $REPO/deploy/cloudflared/config.example.yml ]]; then
	"$GT" --tunnel $TUN --domain example.com >"$T/example.yml"
	check "deploy/cloudflared/config.example.yml is what the generator prints" cmp "$T/example.yml" "$REPO/deploy/cloudflared/config.example.yml"
fi

# ============================================================================================
echo "== gen-client-config.sh"
GC=$REPO/scripts/gen-client-config.sh
jqcheck() { # NAME FILE JQ-EXPRESSION
	local name=$1 file=$2 expr=$3
	if jq -e "$expr" "$file" >/dev/null 2>"$T/jq.err"; then ok "$name"; else bad "$name" "$(cat "$T/jq.err"; cat "$file")"; fi
}
LAN=http://192.168.1.110
TOKEN=0123456789abcdef
for c in claude-code vscode cursor claude-desktop backend; do
	"$GC" --base-url $LAN --servers calculator,notes --client $c --token $TOKEN >"$T/c-$c.json" 2>"$T/c.err" || bad "gen-client-config --client $c" "$(cat "$T/c.err")"
	check "$c: valid JSON" jq -e . "$T/c-$c.json"
done
jqcheck "claude-code: mcpServers with type http, URL and bearer header" "$T/c-claude-code.json" \
	'.mcpServers.calculator == {"type":"http","url":"http://192.168.1.110:9003/mcp","headers":{"Authorization":"Bearer 0123456789abcdef"}} and .mcpServers.notes.url == "http://192.168.1.110:9009/mcp"'
jqcheck "vscode: servers with type http and bearer header" "$T/c-vscode.json" \
	'.servers.calculator.type == "http" and .servers.calculator.url == "http://192.168.1.110:9003/mcp" and .servers.calculator.headers.Authorization == "Bearer 0123456789abcdef"'
jqcheck "cursor: mcpServers with url and headers" "$T/c-cursor.json" \
	'.mcpServers.notes == {"url":"http://192.168.1.110:9009/mcp","headers":{"Authorization":"Bearer 0123456789abcdef"}}'
jqcheck "claude-desktop: npx mcp-remote URL --allow-http with the header through env" "$T/c-claude-desktop.json" \
	'.mcpServers.calculator.command == "npx" and .mcpServers.calculator.args == ["-y","mcp-remote","http://192.168.1.110:9003/mcp","--allow-http","--header","Authorization:${AUTH_HEADER}"] and .mcpServers.calculator.env.AUTH_HEADER == "Bearer 0123456789abcdef"'
jqcheck "backend: the registry format" "$T/c-backend.json" \
	'.servers[0] == {"id":"calculator","url":"http://192.168.1.110:9003/mcp","enabled":true,"disabled_tools":[],"headers":{"Authorization":"Bearer 0123456789abcdef"}} and (.servers | length) == 2'
"$GC" --base-url $LAN --servers calculator --client backend --no-auth >"$T/c-noauth.json"
jqcheck "backend with --no-auth: exactly the registry example" "$T/c-noauth.json" \
	'. == {"servers":[{"id":"calculator","url":"http://192.168.1.110:9003/mcp","enabled":true,"disabled_tools":[]}]}'
"$GC" --base-url $LAN --servers calculator,shell --client claude-code --oauth >"$T/c-oauth.json"
jqcheck "--oauth: URLs without a header (the 401 sends the client to sign in)" "$T/c-oauth.json" \
	'.mcpServers.shell == {"type":"http","url":"http://192.168.1.110:9001/mcp"} and .mcpServers.calculator.headers == null'
"$GC" --base-url http://127.0.0.1 --servers calculator,notes --client cursor >"$T/c-loop.json"
jqcheck "loopback without a token (as make run serves them)" "$T/c-loop.json" '.mcpServers.notes == {"url":"http://127.0.0.1:9009/mcp"}'
check "the shell without a token is refused, with the ways out" bash -c \
	"out=\$('$GC' --base-url http://127.0.0.1 --servers shell,calculator --client cursor 2>&1) && exit 1; grep -qF 'the shell server always needs a bearer token' <<<\"\$out\" && grep -qF -- '--token-label' <<<\"\$out\""
check "servers on the LAN without a token are refused, with the ways out" bash -c \
	"out=\$('$GC' --base-url $LAN --servers calculator --client cursor 2>&1) && exit 1; grep -qF 'refuse clients without credentials' <<<\"\$out\" && grep -qF -- '--oauth' <<<\"\$out\""
check "two ways of auth at once are refused" bash -c "! '$GC' --base-url $LAN --servers calculator --token $TOKEN --oauth >/dev/null 2>&1"
"$GC" --stdio --bin-dir /opt/mcp-servers/current/bin --servers calculator,shell --client claude-code >"$T/c-stdio.json"
jqcheck "--stdio (Claude Code): type stdio, the binary and --transport stdio, no token" "$T/c-stdio.json" \
	'.mcpServers.shell == {"type":"stdio","command":"/opt/mcp-servers/current/bin/shell","args":["--transport","stdio"]} and (.mcpServers | length) == 2'
"$GC" --stdio --bin-dir /usr/local/bin --servers notes --client vscode >"$T/c-stdio-vs.json"
jqcheck "--stdio (VS Code): servers with type stdio" "$T/c-stdio-vs.json" '.servers.notes == {"type":"stdio","command":"/usr/local/bin/notes","args":["--transport","stdio"]}'
"$GC" --stdio --servers notes --client claude-desktop >"$T/c-stdio-cd.json"
jqcheck "--stdio (Claude Desktop): the binary itself, no mcp-remote" "$T/c-stdio-cd.json" '.mcpServers.notes == {"command":"/opt/mcp-servers/current/bin/notes","args":["--transport","stdio"]}'
"$GC" --stdio --servers calculator --out-dir "$T/out-stdio" 2>/dev/null
check "--stdio --out-dir writes the four clients' files, not the backend's" bash -c \
	"jq -e . '$T/out-stdio/.cursor/mcp.json' >/dev/null && [[ ! -e '$T/out-stdio/backend-servers.json' ]]"
check "--stdio refuses the backend, a token, a base URL and a relative --bin-dir" bash -c \
	"! '$GC' --stdio --client backend >/dev/null 2>&1 && ! '$GC' --stdio --token $TOKEN >/dev/null 2>&1 && ! '$GC' --stdio --base-url $LAN >/dev/null 2>&1 && ! '$GC' --stdio --bin-dir bin >/dev/null 2>&1"
"$GC" --base-url 'https://mcp-{id}.example.com' --servers calculator --client claude-desktop --token $TOKEN \
	--cf-access-id id.access --cf-access-secret 's3cr"et' >"$T/c-tun.json"
jqcheck "tunnel URL template, no --allow-http, Access headers, JSON escaping" "$T/c-tun.json" \
	'.mcpServers.calculator.args[2] == "https://mcp-calculator.example.com/mcp" and (.mcpServers.calculator.args | index("--allow-http")) == null and .mcpServers.calculator.env.CF_ACCESS_CLIENT_SECRET == "s3cr\"et"'
"$GC" --base-url 'https://mcp-{id}.example.com' --servers calculator --client vscode --token-env --cf-access-env >"$T/c-vsenv.json"
jqcheck "vscode --token-env: password prompts, no secret" "$T/c-vsenv.json" \
	'(.inputs | map(.id)) == ["mcp-token-calculator","cf-access-client-id","cf-access-client-secret"] and .servers.calculator.headers.Authorization == "Bearer ${input:mcp-token-calculator}"'
"$GC" --base-url 'https://mcp-{id}.example.com' --servers calculator --client claude-code --token-env >"$T/c-ccenv.json"
jqcheck "claude-code --token-env: \${MCP_TOKEN_CALCULATOR}" "$T/c-ccenv.json" \
	'.mcpServers.calculator.headers.Authorization == "Bearer ${MCP_TOKEN_CALCULATOR}"'
mkdir -p "$T/creds/calculator" && printf '# c\n\n  owner:aaa\nphone:bbb   # openssl rand -hex 32\r\nlaptop : ccc\t#x\nspaced:dd ee\n' >"$T/creds/calculator/auth-tokens"
"$GC" --base-url $LAN --servers calculator --client cursor --token-label phone --credentials-dir "$T/creds" >"$T/c-label.json"
jqcheck "--token-label reads that label's token, without its trailing comment" "$T/c-label.json" '.mcpServers.calculator.headers.Authorization == "Bearer bbb"'
"$GC" --base-url $LAN --servers calculator --client cursor --token-label laptop --credentials-dir "$T/creds" >"$T/c-label2.json"
jqcheck "--token-label: spaces around the colon, a tab before the comment" "$T/c-label2.json" '.mcpServers.calculator.headers.Authorization == "Bearer ccc"'
check "--token-label refuses a token followed by more than a comment, naming file and line" bash -c \
	"out=\$('$GC' --base-url $LAN --servers calculator --client cursor --token-label spaced --credentials-dir '$T/creds' 2>&1) && exit 1; grep -qF '$T/creds/calculator/auth-tokens: line 6:' <<<\"\$out\""
"$GC" --base-url $LAN:9003 --servers calculator --client backend --no-auth >"$T/c-port.json"
jqcheck "a port in the base URL is used as given for one server" "$T/c-port.json" '.servers[0].url == "http://192.168.1.110:9003/mcp"'
check "a port in the base URL is refused for several servers, with the fix" bash -c \
	"out=\$('$GC' --base-url $LAN:9003 --servers calculator,notes --client backend --no-auth 2>&1) && exit 1; grep -qF 'give the host alone (--base-url $LAN' <<<\"\$out\""
"$GC" --base-url $LAN --servers calculator,notes --client backend --port-offset 100 --no-auth >"$T/c-off.json"
jqcheck "--port-offset moves every port" "$T/c-off.json" '[.servers[].url] == ["http://192.168.1.110:9103/mcp","http://192.168.1.110:9109/mcp"]'
FLEET_PORT_OFFSET=7 "$GC" --base-url $LAN --servers notes --client backend --no-auth >"$T/c-envoff.json"
jqcheck "FLEET_PORT_OFFSET is --port-offset's default" "$T/c-envoff.json" '.servers[0].url == "http://192.168.1.110:9016/mcp"'
check "--port-offset must be a number" bash -c "! '$GC' --base-url $LAN --port-offset x >/dev/null 2>&1"
"$GC" --base-url $LAN --servers calculator,notes --token $TOKEN --out-dir "$T/out" 2>/dev/null
for f in .mcp.json .vscode/mcp.json .cursor/mcp.json claude_desktop_config.json backend-servers.json; do
	check "--out-dir writes $f (valid JSON, 0600)" bash -c "jq -e . '$T/out/$f' >/dev/null && [[ \$(stat -c %a '$T/out/$f') == 600 ]]"
done
check "client generator refuses --token-env for the backend" bash -c "! '$GC' --base-url $LAN --client backend --token-env >/dev/null 2>&1"
check "client generator rejects a base URL with a path" bash -c "! '$GC' --base-url $LAN/mcp >/dev/null 2>&1"

echo
echo "deploy tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
