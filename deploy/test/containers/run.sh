#!/usr/bin/env bash
# run.sh — the fleet as containers, proven with Podman: `make containers-test` (root).
#
# Usage: deploy/test/containers/run.sh --prepare     the Debian root filesystems the browser and
#                                                    shell images are built on (cached)
#        deploy/test/containers/run.sh --build DIR   step 1 into DIR
#        deploy/test/containers/run.sh --run DIR     steps 2 and 3 on DIR's build; DIR is removed
#        deploy/test/containers/run.sh               all of it in a fresh folder:
#   1. the release tarballs (scripts/release.sh, amd64 and arm64) and, from them, every server's
#      image (scripts/cmd/images); a second build from the same inputs with an empty layer cache
#      must give the same digests; the arm64 images are inspected (each index holds linux/amd64
#      and linux/arm64; the arm64 image's user, entry point and labels, and its server binary, read
#      from its layer, an aarch64 ELF file);
#   2. in a network namespace of its own (the fixed ports and Podman's bridges stay private) with
#      a Podman configuration of its own (storage, runc, lowered ulimits — runc refuses the
#      default ones on the CI machine — and netavark):
#      a. each image alone with `podman run`: /healthz through the image's own health check
#         command, the server process's uid (65532) and its read-only root, one tool call (gmail,
#         calendar and drive signed in with a token in their volume, against google_fake.py);
#      b. three spotify replicas sharing one token against a fake Spotify that rotates refresh
#         tokens and revokes a grant whose old refresh token comes back: one refresh, no reuse;
#         and the same with a token copy per replica, which must be caught reusing it;
#      c. `podman-compose up` of deploy/compose/compose.yaml: every server healthy, one tool call
#         each through its published port and bearer token (the Google and Spotify servers not
#         signed in: the error that names the sign-in);
#      d. `podman kube play` of the Kubernetes manifests (kustomize build of the test overlay,
#         then kubeplay.py): auth, calculator and notes up; a passkey enrolled with the code
#         `auth enroll` prints in the auth pod, an OAuth sign-in and consent in headless Chromium
#         and a calculator tool call with the access token (servers/auth TestDeployedFleet);
#   3. everything removed, also on failure.
# Environment: MCP_CACHE (default /var/cache/mcp-servers) keeps the root filesystems and layers;
# ARCHES (default "amd64 arm64", the release's) the architectures built: ARCHES=amd64 skips the
# arm64 release, root filesystems and inspection for a quicker run (the containers run amd64);
# IMAGES (default all nine) the servers whose images are built and run, at least auth, calculator
# and notes (kube play runs them): without browser and shell no Debian root filesystem is made,
# and the images' CA bundle is this machine's /etc/ssl/certs/ca-certificates.crt (Debian's
# ca-certificates, as in the root filesystems). `make test`'s containers lane (root) runs all of it,
# as --prepare, --build and --run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
REPO=$(pwd)
HERE=$REPO/deploy/test/containers
CACHE=${MCP_CACHE:-/var/cache/mcp-servers}
export MCP_ROOTFS_CACHE=$CACHE/rootfs
read -r -a SERVERS <<<"${IMAGES:-auth browser calculator calendar drive gmail notes shell spotify}"
has() { [[ " ${SERVERS[*]} " == *" $1 "* ]]; }
for id in auth calculator notes; do has "$id" || { echo "containers: IMAGES must include $id" >&2; exit 1; }; done
DEBIAN_KINDS=()
for kind in browser shell; do has "$kind" && DEBIAN_KINDS+=("$kind"); done
read -r -a ARCH_LIST <<<"${ARCHES:-amd64 arm64}"
[[ " ${ARCH_LIST[*]} " == *" amd64 "* ]] || { echo "containers: ARCHES must include amd64, the architecture the containers run" >&2; exit 1; }
step() { printf '\n== containers: %s (%s s)\n' "$*" "$((SECONDS - T0))"; }
die() { printf 'containers: FAILED: %s\n' "$*" >&2; exit 1; }
T0=$SECONDS

rootfs() { deploy/containers/rootfs.sh "$1" "$2"; }

# build DIR: the releases, the images twice, the arm64 inspection and the auth test binary.
build() {
	W=$1
	mkdir -p "$W"
	step "release tarballs (${ARCH_LIST[*]}), the auth test binary, root filesystems"
	scripts/release.sh --arch "${ARCH_LIST[*]}" --out "$W/dist" >"$W/release.log" 2>&1 &
	local rel=$! authtest args=() kind arch f
	go test -c -o "$W/auth.test" ./servers/auth >"$W/authtest.log" 2>&1 &
	authtest=$!
	for kind in "${DEBIAN_KINDS[@]}"; do
		for arch in "${ARCH_LIST[@]}"; do args+=(--rootfs "$kind/$arch=$(rootfs "$kind" "$arch")"); done
	done
	if [[ ${#DEBIAN_KINDS[@]} -eq 0 ]]; then
		tar -C / -cf "$W/ca.tar" etc/ssl/certs/ca-certificates.crt
		args+=(--ca-rootfs "$W/ca.tar")
	fi
	args+=(--servers "$(IFS=,; echo "${SERVERS[*]}")")
	wait "$rel" || { cat "$W/release.log"; die "scripts/release.sh"; }
	for f in "$W"/dist/*.tar.gz; do args+=(--release "$f"); done
	args+=(--revision "$(git rev-parse HEAD)" --created "$(git log -1 --format=%ct)")
	go build -o "$W/images" ./scripts/cmd/images

	step "images, twice from the same inputs"
	"$W/images" "${args[@]}" --out "$W/oci" --cache "$CACHE/images"
	# The second build compresses every layer again (an empty cache) and must match digest for digest.
	"$W/images" "${args[@]}" --out "$W/oci2" --cache "$W/layers2" >/dev/null
	diff "$W/oci/digests.txt" "$W/oci2/digests.txt" || die "two builds of the same inputs gave different digests"
	echo "same digests from both builds: $(wc -l <"$W/oci/digests.txt") indexes"
	rm -rf "$W/oci2" "$W/layers2"

	if [[ " ${ARCH_LIST[*]} " != *" arm64 "* ]]; then
		echo "arm64 not built (ARCHES=${ARCH_LIST[*]})"
		wait "$authtest" || { cat "$W/authtest.log"; die "go test -c ./servers/auth"; }
		return 0
	fi
	step "the arm64 images, inspected"
	local version id idx man cfg got layer machine revision
	version=$(tar -xOzf "$(ls "$W"/dist/*-linux-arm64.tar.gz)" VERSION)
	revision=$(git rev-parse HEAD)
	blob() { cat "$W/oci/blobs/${1/://}"; }
	for id in "${SERVERS[@]}"; do
		idx=$(jq -r --arg id "$id" '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"] == $id) | .digest' "$W/oci/index.json")
		[[ -n $idx ]] || die "no $id in the layout"
		got=$(blob "$idx" | jq -r '[.manifests[].platform | .os + "/" + .architecture] | sort | join(" ")')
		[[ $got == "linux/amd64 linux/arm64" ]] || die "$id's index holds $got, not linux/amd64 and linux/arm64"
		man=$(blob "$idx" | jq -r '.manifests[] | select(.platform.architecture == "arm64" and .platform.os == "linux") | .digest')
		cfg=$(blob "$man" | jq -r .config.digest)
		got=$(blob "$cfg" | jq -r '[.architecture, .variant, .config.User, .config.Entrypoint[0], .config.Labels["org.opencontainers.image.version"]] | join(" ")')
		[[ $got == "arm64 v8 65532:65532 /usr/local/bin/$id $version" ]] || die "$id arm64: $got"
		blob "$cfg" | jq -e --arg r "$revision" '.config.Labels | .["org.opencontainers.image.revision"] == $r and (.["org.opencontainers.image.source"] | startswith("https://")) and .["org.opencontainers.image.licenses"] != null' >/dev/null ||
			die "$id arm64: labels $(blob "$cfg" | jq -c .config.Labels)"
		# The server binary in the image's layers: an ELF file for the machine 183 (EM_AARCH64).
		machine=
		for layer in $(blob "$man" | jq -r '.layers | reverse | .[].digest'); do
			machine=$(blob "$layer" | tar -xzOf - "usr/local/bin/$id" 2>/dev/null | head -c 20 | od -An -tu1 -w20 | tr -s ' ') || true
			[[ -n $machine ]] && break
		done
		[[ $machine == " 127 69 76 70 2 1 1 "*" 183 0" ]] || die "$id arm64: /usr/local/bin/$id is not a 64-bit aarch64 ELF file (header:$machine)"
		echo "$id arm64: $got, labels (revision ${revision:0:12}), /usr/local/bin/$id aarch64 ELF"
	done
	wait "$authtest" || { cat "$W/authtest.log"; die "go test -c ./servers/auth"; }
}

case ${1:-} in
--prepare)
	n=0
	for kind in "${DEBIAN_KINDS[@]}"; do
		for arch in "${ARCH_LIST[@]}"; do rootfs "$kind" "$arch" >/dev/null & n=$((n + 1)); done
	done
	rc=0
	for _ in $(seq "$n"); do wait -n || rc=1; done
	exit "$rc"
	;;
--build | --run | "")
	[[ $(id -u) -eq 0 ]] || die "run as root: Podman here runs rootful, in a network namespace of its own"
	for tool in podman podman-compose runc catatonit iptables mmdebstrap jq curl python3 unshare ip; do
		command -v "$tool" >/dev/null || [[ -x /usr/libexec/podman/$tool ]] || die "$tool is missing: apt-get install podman podman-compose runc catatonit netavark aardvark-dns iptables iproute2 mmdebstrap jq curl python3-yaml (scripts/test-deps.sh does, as root)"
	done
	KUSTOMIZE=$(make --no-print-directory -s kustomize) || die "make kustomize"
	export KUSTOMIZE
	case ${1:-} in
	--build) build "${2:?--build DIR}"; exit 0 ;;
	--run) W=${2:?--run DIR} ;;
	"")
		W=$(mktemp -d /var/tmp/mcp-containers.XXXXXX)
		build "$W"
		;;
	esac
	[[ -s $W/oci/digests.txt && -x $W/auth.test ]] || die "$W holds no build: run.sh --build $W first"
	trap 'rm -rf --one-file-system "$W"' EXIT
	step "into a network namespace of its own"
	rc=0
	unshare --net -- "$HERE/run.sh" --inside "$W" || rc=$?
	step "done, exit $rc"
	exit "$rc"
	;;
--inside) ;;
*) die "unknown argument '$1' (see the header of this script)" ;;
esac

# ---- inside the network namespace ----
W=$2
ip link set lo up
cat >"$W/containers.conf" <<'EOF'
[containers]
# runc cannot set the default (high) rlimits on the CI machine: "error setting rlimit type 7".
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[network]
network_backend = "netavark"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
cat >"$W/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$W/storage"
runroot = "$W/run"
EOF
export CONTAINERS_CONF=$W/containers.conf CONTAINERS_STORAGE_CONF=$W/storage.conf
VERSION=$(tar -xOzf "$(ls "$W"/dist/*-linux-amd64.tar.gz)" VERSION)
pids=()
cleanup() {
	local rc=$? p
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	(cd "$W/compose" 2>/dev/null && podman-compose -p mcptest down -v >/dev/null 2>&1)
	[[ -s $W/play.yaml ]] && podman kube down "$W/play.yaml" >/dev/null 2>&1
	podman rm -af -t 2 >/dev/null 2>&1
	podman pod rm -af >/dev/null 2>&1
	podman volume prune -f >/dev/null 2>&1
	podman system reset -f >/dev/null 2>&1
	exit "$rc"
}
trap cleanup EXIT

port_of() {
	case $1 in shell) echo 9001 ;; auth) echo 9002 ;; calculator) echo 9003 ;; calendar) echo 9004 ;; gmail) echo 9005 ;;
	drive) echo 9006 ;; notes) echo 9009 ;; spotify) echo 9010 ;; browser) echo 9011 ;; esac
}
# mcp_call PORT TOKEN TOOL ARGS: the JSON-RPC answer of one tools/call (stateless, no session).
mcp_call() {
	local body out code
	body=$(jq -cn --arg t "$3" --argjson a "$4" '{jsonrpc:"2.0",id:1,method:"tools/call",params:{name:$t,arguments:$a}}')
	out=$(curl -sS --max-time 90 -w '\n%{http_code}' -H "Authorization: Bearer $2" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' --data-binary "$body" "http://127.0.0.1:$1/mcp") || true
	code=${out##*$'\n'}
	out=${out%$'\n'*}
	[[ $code == 200 ]] || { echo "HTTP $code: $out"; return 0; }
	if [[ $out == *"data: "* ]]; then sed -n 's/^data: //p' <<<"$out" | tail -n 1; else printf '%s\n' "$out"; fi
}
# healthy CONTAINER ID: the image's own health check command, retried for up to 30 s.
healthy() {
	local i out
	for i in $(seq 60); do
		if out=$(podman exec "$1" "/usr/local/bin/$2" healthcheck 2>"$W/healthcheck.err"); then
			echo "$1: $out"
			return 0
		fi
		out+=$(cat "$W/healthcheck.err")
		sleep 0.5
	done
	podman logs --tail 20 "$1" >&2
	die "$1 not healthy: $out"
}
# confined CONTAINER ID: the server process runs as 65532 on a read-only root, with no
# capabilities but the browser's CAP_SYS_CHROOT (for Chromium's sandbox, compose.yaml).
confined() {
	local pid uid caps root want=0000000000000000
	[[ $2 == browser ]] && want=0000000000040000
	pid=$(podman inspect --format '{{.State.Pid}}' "$1")
	uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")
	caps=$(awk '/^CapEff:/ {print $2}' "/proc/$pid/status")
	root=$(awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | head -n 1)
	[[ $uid == 65532 && $caps == "$want" && $root == ro,* ]] || die "$1: uid $uid, capabilities $caps (want $want), root mounted $root"
	echo "$1: uid $uid, capabilities $caps, root $root"
}
# expect WHAT TEXT PATTERN: TEXT matches the extended regular expression PATTERN.
expect() {
	grep -Eq -- "$3" <<<"$2" || die "$1: $2"
	echo "$1: ok"
}
TOKEN_SUFFIX=-for-the-container-test

step "loading the images (deploy/containers/load.sh)"
deploy/containers/load.sh "$W/oci"

# A page for the browser and a fake Spotify, served from this namespace on every bridge's gateway.
mkdir -p "$W/www"
printf '<html><head><title>Container page</title></head><body><h1>Served to the browser image</h1></body></html>\n' >"$W/www/index.html"
(cd "$W/www" && exec /usr/bin/python3 -m http.server 18080 --bind 0.0.0.0 >/dev/null 2>&1 </dev/null) &
pids+=($!)
GW=$(podman network inspect podman --format '{{range .Subnets}}{{.Gateway}}{{end}}')
[[ -n $GW ]] || die "no gateway on Podman's default network"
secret_dir() { # secret_dir DIR FILE CONTENT: FILE in DIR, both the images' user's, 0700/0600
	mkdir -p "$1"
	printf '%s\n' "$3" >"$1/$2"
	chown -R 65532:65532 "$1"
	chmod 0700 "$1"
	chmod 0600 "$1/$2"
}
secret_dir "$W/google" client.json '{"installed":{"client_id":"container-test.apps.googleusercontent.com","client_secret":"container-test","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","redirect_uris":["http://localhost"]}}'
secret_dir "$W/spotify-client" client.json '{"client_id":"container-test"}'
# A fake Google (google_fake.py) and a live sign-in for it: the shared token folder the Google
# images mount at /var/lib/mcp-servers/google, as compose's google-token volume is.
GOOGLE_ACCESS=live-token-for-the-container-test
/usr/bin/python3 "$HERE/google_fake.py" 18095 "$GOOGLE_ACCESS" >"$W/google-fake.log" 2>&1 &
pids+=($!)
secret_dir "$W/google-signin" token.json "$(jq -cn --arg a "$GOOGLE_ACCESS" --arg g https://www.googleapis.com/auth/ \
	'{account:"ada@example.com",client_id:"container-test.apps.googleusercontent.com",scopes:["openid","email",($g+"gmail.modify"),($g+"gmail.settings.basic"),($g+"calendar"),($g+"drive")],access_token:$a,token_type:"Bearer",refresh_token:"refresh-1",expiry:"2099-01-01T00:00:00Z",signed_in:(now|todate)}')"

step "each image alone: health, uid 65532, no capabilities, read-only root, one tool call"
start_one() { # start_one ID: the image as its own container, the way compose.yaml runs it
	local id=$1 port args
	port=$(port_of "$id")
	args=(-d --name "t-$id" --read-only --cap-drop ALL --security-opt no-new-privileges -p "127.0.0.1:$port:$port")
	if [[ $id != auth ]]; then
		secret_dir "$W/tokens/$id" auth-tokens "owner:token-of-$id$TOKEN_SUFFIX"
		args+=(-v "$W/tokens/$id:/run/secrets/mcp:ro" -e MCP_AUTH_TOKENS_FILE=/run/secrets/mcp/auth-tokens)
	fi
	case $id in
	auth) args+=(-e MCP_ISSUER=http://localhost:9002 -e MCP_RESOURCES=calculator=http://localhost:9003/mcp) ;;
	browser) args+=(--cap-add SYS_CHROOT -e "MCP_ALLOW_PRIVATE_HOSTS=$GW") ;;
	gmail | calendar | drive) args+=(-v "$W/google:/run/secrets/google:ro" -e MCP_GOOGLE_CLIENT_FILE=/run/secrets/google/client.json
		-v "$W/google-signin:/var/lib/mcp-servers/google" -e "MCP_GMAIL_ENDPOINT=http://$GW:18095/"
		-e "MCP_CALENDAR_ENDPOINT=http://$GW:18095/calendar/v3/" -e "MCP_DRIVE_ENDPOINT=http://$GW:18095/drive/v3/") ;;
	spotify) args+=(-v "$W/spotify-client:/run/secrets/spotify:ro" -e MCP_SPOTIFY_CLIENT_FILE=/run/secrets/spotify/client.json) ;;
	esac
	podman run "${args[@]}" "localhost/mcp-$id:$VERSION" >/dev/null
}
# google_check ID PORT TOKEN: one call of a signed-in Google server, answered by the fake Google.
google_check() {
	local out
	case $1 in
	gmail)
		out=$(mcp_call "$2" "$3" get_gmail_profile '{}')
		expect "gmail get_gmail_profile from the fake Google" "$out" '"email":"ada@example.com","messages_total":42' ;;
	calendar)
		out=$(mcp_call "$2" "$3" list_calendars '{}')
		expect "calendar list_calendars from the fake Google" "$out" '"name":"Container calendar"' ;;
	drive)
		out=$(mcp_call "$2" "$3" search_files '{"query":"report"}')
		expect "drive search_files from the fake Google" "$out" '"name":"Container report.txt"' ;;
	esac
}
# tool_check ID PORT TOKEN GATEWAY [signed-in]: one tool call the server must answer as
# expected; with signed-in the Google servers call the fake Google with their volume's token.
tool_check() {
	local id=$1 port=$2 tok=$3 out
	case $id in
	auth)
		out=$(curl -sS "http://127.0.0.1:$port/.well-known/oauth-authorization-server")
		expect "auth metadata" "$out" '"issuer":"http://localhost:9002"' ;;
	calculator)
		out=$(mcp_call "$port" "$tok" evaluate '{"expression":"2^100"}')
		expect "calculator evaluate" "$out" '1267650600228229401496703205376' ;;
	notes)
		out=$(mcp_call "$port" "$tok" create_note '{"path":"containers/hello.md","content":"Written in a container."}')
		expect "notes create_note" "$out" '"isError":false|containers/hello.md' ;;
	browser)
		out=$(mcp_call "$port" "$tok" browser_navigate "{\"url\":\"http://$4:18080/\"}")
		expect "browser navigate (Chromium's own sandbox)" "$out" 'Title: Container page' ;;
	shell)
		out=$(mcp_call "$port" "$tok" run_command '{"command":"id -un; touch /usr/x 2>&1; echo done"}')
		expect "shell run_command as mcp on a read-only root" "$out" 'mcp\\n.*Read-only file system.*done' ;;
	gmail | calendar | drive | spotify)
		if [[ ${5:-} == signed-in && $id != spotify ]]; then
			google_check "$id" "$port" "$tok"
			return 0
		fi
		# Not signed in: a tool error that names the command that signs in.
		local tool
		case $id in gmail) tool=search_messages ;; calendar) tool=list_events ;; drive) tool=search_files ;; spotify) tool=get_playback ;; esac
		out=$(mcp_call "$port" "$tok" "$tool" '{}')
		expect "$id $tool before sign-in" "$out" 'auth login.*"isError":true' ;;
	esac
}
for id in "${SERVERS[@]}"; do start_one "$id"; done
for id in "${SERVERS[@]}"; do
	healthy "t-$id" "$id"
	confined "t-$id" "$id"
	tool_check "$id" "$(port_of "$id")" "token-of-$id$TOKEN_SUFFIX" "$GW" signed-in
done
if has gmail || has calendar || has drive; then
	stats=$(curl -sS http://127.0.0.1:18095/stats)
	echo "fake Google: $stats"
	for id in gmail calendar drive; do
		! has "$id" || [[ $(jq ".$id" <<<"$stats") -ge 1 ]] || die "$id's call did not reach the fake Google: $stats"
	done
	[[ $(jq .unauthorized <<<"$stats") == 0 ]] || die "the fake Google refused a token: $stats"
fi
podman rm -f -t 5 "${SERVERS[@]/#/t-}" >/dev/null

if has spotify; then
step "three spotify replicas, one token: one refresh, never a refresh token twice"
SCOPES='["user-read-playback-state","user-read-currently-playing","user-read-recently-played","user-top-read","playlist-read-private","playlist-read-collaborative","user-library-read","user-modify-playback-state","playlist-modify-private","playlist-modify-public","user-library-modify"]'
# replicas NAME PORT SHARED: a fake Spotify on PORT and three replicas; SHARED=1 gives them one
# state folder (one volume, as compose's --scale does), 0 a copy each.
replicas() {
	local name=$1 port=$2 shared=$3 i dir
	/usr/bin/python3 "$HERE/spotify_fake.py" "$port" refresh-1 >"$W/$name-fake.log" 2>&1 &
	pids+=($!)
	for i in 1 2 3; do
		dir=$W/$name-state
		[[ $shared == 1 ]] || dir=$W/$name-state-$i
		if [[ ! -d $dir ]]; then
			secret_dir "$dir" token.json "$(jq -cn --argjson s "$SCOPES" '{account:"container-test",client_id:"container-test",scopes:$s,access_token:"expired",token_type:"Bearer",refresh_token:"refresh-1",expiry:"2020-01-01T00:00:00Z",signed_in:(now|todate)}')"
		fi
		podman run -d --name "$name-$i" --read-only --cap-drop ALL --security-opt no-new-privileges \
			-v "$dir:/data" -v "$W/spotify-client:/run/secrets/spotify:ro" -v "$W/tokens/spotify:/run/secrets/mcp:ro" \
			-e MCP_AUTH_TOKENS_FILE=/run/secrets/mcp/auth-tokens -e MCP_SPOTIFY_CLIENT_FILE=/run/secrets/spotify/client.json \
			-e "MCP_SPOTIFY_ACCOUNTS_URL=http://$GW:$port" -e "MCP_SPOTIFY_API_URL=http://$GW:$port/v1/" \
			-p "127.0.0.1:$((19010 + i)):9010" "localhost/mcp-spotify:$VERSION" >/dev/null
	done
	for i in 1 2 3; do healthy "$name-$i" spotify >/dev/null; done
	confined "$name-1" spotify >/dev/null
	# All three at once, twice: the first round finds the access token expired.
	local calls=()
	for _ in 1 2; do
		for i in 1 2 3; do
			mcp_call "$((19010 + i))" "token-of-spotify$TOKEN_SUFFIX" get_playback '{}' >"$W/$name-call-$i" &
			calls+=($!)
		done
		wait "${calls[@]}"
		calls=()
	done
	podman rm -f -t 5 "$name-1" "$name-2" "$name-3" >/dev/null
	curl -sS "http://127.0.0.1:$port/stats" >"$W/$name-stats"
}
replicas spotify-shared 18090 1
stats=$(cat "$W/spotify-shared-stats")
echo "one shared token: $stats"
[[ $(jq .refreshes <<<"$stats") == 1 && $(jq .reused <<<"$stats") == 0 && $(jq .unauthorized <<<"$stats") == 0 && $(jq .api_calls <<<"$stats") -ge 6 ]] ||
	die "replicas sharing the token: $stats (want 1 refresh, no reuse, six calls)"
for i in 1 2 3; do expect "replica $i's last call" "$(cat "$W/spotify-shared-call-$i")" '"playing":false'; done
replicas spotify-copies 18091 0
stats=$(cat "$W/spotify-copies-stats")
echo "a token copy per replica: $stats"
[[ $(jq .reused <<<"$stats") -ge 1 ]] || die "replicas with their own copies spent no refresh token twice: the fake would not catch a race ($stats)"
fi

step "podman-compose up: the fleet from deploy/compose/compose.yaml"
cp -r "$REPO/deploy/compose" "$W/compose"
rm -rf "$W/compose/secrets" "$W/compose/.env"
"$W/compose/secrets.sh" --google-client "$W/google/client.json" --spotify-client "$W/spotify-client/client.json" >"$W/compose-tokens"
# The page server is on the compose network's gateway, in 10.89.0.0/16 (netavark's default pool).
sed -i -e "s/^MCP_TAG=.*/MCP_TAG=$VERSION/" -e "s|^BROWSER_ALLOW_PRIVATE_HOSTS=.*|BROWSER_ALLOW_PRIVATE_HOSTS=10.89.0.0/16|" "$W/compose/.env"
COMPOSE_SERVICES=()
for id in auth calculator notes browser gmail calendar drive spotify shell; do has "$id" && COMPOSE_SERVICES+=("$id"); done
(cd "$W/compose" && podman-compose -p mcptest up -d "${COMPOSE_SERVICES[@]}") >"$W/compose-up.log" 2>&1 || { cat "$W/compose-up.log"; die "podman-compose up"; }
CGW=$(podman network inspect mcptest_default --format '{{range .Subnets}}{{.Gateway}}{{end}}')
for id in "${COMPOSE_SERVICES[@]}"; do
	healthy "mcptest_${id}_1" "$id"
	confined "mcptest_${id}_1" "$id"
	tool_check "$id" "$(port_of "$id")" "$(awk -v id="$id" '$1 == id {sub("owner:", "", $2); print $2}' "$W/compose-tokens")" "$CGW"
done
(cd "$W/compose" && podman-compose -p mcptest down -v) >/dev/null 2>&1

step "podman kube play: the Kubernetes manifests (kustomize build, then kubeplay.py)"
for id in calculator notes; do secret_dir "$W/kube-tokens/$id-tokens" auth-tokens "owner:token-of-$id$TOKEN_SUFFIX"; done
"$KUSTOMIZE" build "$HERE/kube" >"$W/rendered.yaml"
/usr/bin/python3 "$HERE/kubeplay.py" --keep auth,calculator,notes --tokens "$W/kube-tokens" <"$W/rendered.yaml" >"$W/play.yaml"
podman network create mcpkube >/dev/null
podman kube play --network mcpkube "$W/play.yaml" >"$W/play.log" 2>&1 || { cat "$W/play.log"; die "podman kube play"; }
podman pod ps --format '{{.Name}} {{.Status}}'
for c in auth-0-auth:auth calculator-pod-0-calculator:calculator notes-0-notes:notes; do
	healthy "${c%%:*}" "${c##*:}"
	confined "${c%%:*}" "${c##*:}"
done
tool_check notes 9009 "token-of-notes$TOKEN_SUFFIX"
out=$(curl -si -X POST http://127.0.0.1:9003/mcp)
expect "calculator without a token: 401 naming its OAuth metadata" "$out" 'resource_metadata="http://localhost:9003/.well-known/oauth-protected-resource/mcp"'
MCP_DEPLOYED_ISSUER=http://localhost:9002 MCP_DEPLOYED_SERVER=http://localhost:9003 \
	MCP_DEPLOYED_ENROLL="podman exec auth-0-auth /usr/local/bin/auth enroll" \
	MCP_DEPLOYED_CALL='evaluate {"expression":"6*7"}' MCP_DEPLOYED_WANT='"result":"42"' CI=true \
	"$W/auth.test" -test.run '^TestDeployedFleet$' -test.v -test.count=1 2>&1 | tail -n 5
[[ ${PIPESTATUS[0]} -eq 0 ]] || die "the OAuth tool call through the kube play pods"
# kube down complains on standard error that it cannot reach systemd for the health check timers.
podman kube down "$W/play.yaml" >/dev/null 2>"$W/kube-down.log" || { cat "$W/kube-down.log"; die "podman kube down"; }
step "all checks passed"
