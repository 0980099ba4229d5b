# shellcheck shell=bash disable=SC2015  # "cond && ok || bad": ok never fails
# deploy/test/e2e-systemd/notes-vault.sh — sourced by run.sh: the notes unit over a generated
# vault of 100,000 notes with no index yet (issue 34), in one suite only (VAULT_SUITE), from
# outside as a user sees it: systemctl, journalctl, curl and jq against the unit's port.
#
# vault_start: build scripts/cmd/notesbench on the host and write the vault into $T/vault in the
# background (about 370 MB), while the container boots and the fleet is checked.
# vault_check: move the vault into the notes unit's StateDirectory, point the unit at it and at
# a fresh index through its env file, restart it, and check that it is active and /healthz
# answers within VAULT_READY_LIMIT seconds saying the index is being built; that a note is read
# and written by path and a search answers (saying the index is incomplete) while it builds;
# that VAULT_WATCH seconds after the restart (past TimeoutStartSec=30) the unit has not
# restarted, nothing was killed, and the build has gone on; then put the unit back on its own
# notes folder, remove the vault and its index, and check that it is healthy again.
# Uses run.sh's T, D, REPO, ct, ok, bad, note, token_of, health_of and mcp_call; run.sh's cleanup
# ends a generation still running (VAULT_PID) and removes $T with the container in it.

# shellcheck disable=SC2034  # used by run.sh
VAULT_SUITE=trixie
VAULT_NOTES=100000
VAULT_SEED=34
VAULT_READY_LIMIT=5 # seconds from systemctl restart to active and /healthz 200
VAULT_WATCH=35      # seconds after the restart to look again; the build is not waited for
VAULT_PID=

vault_start() {
	(
		cd "$REPO" &&
			# The release's flags, so the packages the release build compiled (SQLite) are reused.
			CGO_ENABLED=0 go build -trimpath -o "$T/notesbench" ./scripts/cmd/notesbench &&
			"$T/notesbench" gen -notes "$VAULT_NOTES" -seed "$VAULT_SEED" "$T/vault"
	) >"$T/vault.log" 2>&1 &
	VAULT_PID=$!
}

# vault_health TOKEN: the notes /healthz report as "STATUS|INDEX-DETAIL" (the details are shown
# to a request from the host itself or with a token).
vault_health() {
	ct curl -s -H "Authorization: Bearer $1" http://127.0.0.1:9009/healthz |
		jq -r '.status + "|" + (.checks.index.detail // "")' 2>/dev/null || true
}

# vault_indexed DETAIL: "DONE TOTAL" from "N of M notes indexed so far"; fails without them.
vault_indexed() {
	[[ $1 =~ building\ the\ index:\ ([0-9]+)\ of\ ([0-9]+)\ notes\ indexed\ so\ far ]] || return 1
	echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# since T0: seconds from T0 (date +%s.%N) to now, one decimal.
since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }

vault_check() {
	local unit=mcp-server@notes.service state=/var/lib/mcp-servers/notes tok rc waited
	local vault=$state/vault-e2e index=$state/vault-e2e-index.sqlite
	local began rel title word t0 t1 took active code h i out out2 pid1 pid2 first firstat second restarts journal mem
	tok=$(token_of notes)
	began=$SECONDS
	waited=$SECONDS
	wait "$VAULT_PID" && rc=0 || rc=$?
	VAULT_PID=
	if [[ $rc -ne 0 || ! -d $T/vault ]]; then
		bad "notes vault: building notesbench or writing $VAULT_NOTES notes failed" "$(tail -n 20 "$T/vault.log")"
		rm -rf "$T/vault"
		return
	fi
	note "vault (notesbench gen -notes $VAULT_NOTES -seed $VAULT_SEED, on the host): $(tail -n 1 "$T/vault.log"); waited $((SECONDS - waited)) s for it here"
	# The note read by path: the last in path order, so among the last the build reaches.
	rel=$(cd "$T/vault" && find . -name '*.md' -printf '%P\n' | LC_ALL=C sort | tail -n 1)
	title=$(sed -n 's/^title: //p' "$T/vault/$rel" | head -n 1)
	word=${title%% *}
	word=${word,,}
	mv "$T/vault" "$D$vault"
	if ! out=$(ct chown -R mcp-notes:mcp-notes "$vault" 2>&1) ||
		! out=$(ct sh -c "printf '\nMCP_NOTES_DIR=$vault\nMCP_INDEX_FILE=$index\n' >>/etc/mcp-servers/notes.env" 2>&1); then
		bad "notes vault: handing the vault to mcp-notes" "$out"
		return
	fi
	ct test ! -e "$index" && ok "notes vault: $VAULT_NOTES notes in $vault (mcp-notes), no index yet ($index)" ||
		bad "notes vault: $index exists before the start"

	# 2. The restart: active and /healthz 200 within seconds, saying the index is being built.
	t0=$(date +%s.%N)
	out=$(ct systemctl restart "$unit" 2>&1) || bad "notes vault: systemctl restart $unit" "$out"
	for ((i = 0; i < 300; i++)); do
		[[ $(ct systemctl is-active "$unit") == active && $(health_of notes) == 200 ]] && break
		sleep 0.1
	done
	took=$(since "$t0")
	active=$(ct systemctl is-active "$unit") || true
	code=$(health_of notes)
	h=$(vault_health "$tok")
	pid1=$(ct systemctl show -P MainPID "$unit")
	awk -v t="$took" -v l="$VAULT_READY_LIMIT" 'BEGIN { exit !(t <= l) }' && [[ $active == active && $code == 200 ]] &&
		ok "notes vault: active and /healthz 200 $took s after systemctl restart (limit $VAULT_READY_LIMIT s): ${h%%|*}, ${h#*|}" ||
		bad "notes vault: $took s after the restart: $active, /healthz $code; the limit for active and 200 is $VAULT_READY_LIMIT s" \
			"$(ct journalctl -u "$unit" -n 20 --no-pager 2>&1)"
	# The build lists the folder first ("listing the notes folder, N notes found so far"), then
	# indexes ("N of M notes indexed so far"): wait for the second to read a count.
	first=
	for ((i = 0; i < 100; i++)); do
		h=$(vault_health "$tok")
		first=$(vault_indexed "${h#*|}") && break
		sleep 0.2
	done
	firstat=$(since "$t0")
	[[ ${h%%|*} == degraded && -n $first && ${first#* } == "$VAULT_NOTES" ]] &&
		ok "notes vault: /healthz ${h%%|*} at $firstat s: ${h#*|}" ||
		bad "notes vault: /healthz does not say the index is being built, with $VAULT_NOTES notes to index" "$h"

	# 3. While it builds: a read and a write by path at once, a search that says it is incomplete.
	t1=$(date +%s.%N)
	out=$(mcp_call 9009 "$tok" get_note "$(jq -cn --arg p "$rel" '{path:$p}')" --max-time 30)
	took=$(since "$t1")
	[[ $(jq -r '.result.isError // false' <<<"$out" 2>/dev/null) == false && -n $title && $out == *"$title"* ]] &&
		ok "notes vault: get_note '$rel' while the index builds ($took s)" || bad "notes vault: get_note '$rel' while the index builds" "$out"
	out=$(mcp_call 9009 "$tok" create_note '{"path":"e2e/written-during-build.md","content":"written while the index builds"}' --max-time 30)
	[[ $(jq -r '.result.isError // false' <<<"$out" 2>/dev/null) == false && $out == *result* ]] && ct test -f "$vault/e2e/written-during-build.md" &&
		ok "notes vault: create_note while the index builds" || bad "notes vault: create_note while the index builds" "$out"
	t1=$(date +%s.%N)
	out=$(mcp_call 9009 "$tok" list_notes "$(jq -cn --arg q "$word" '{query:$q}')" --max-time 30)
	took=$(since "$t1")
	h=$(jq -r '.result.structuredContent.index // empty' <<<"$out" 2>/dev/null) || h=
	[[ $(jq -r '.result.isError // false' <<<"$out" 2>/dev/null) == false && $h == "the index is being built: "*" so results may be incomplete" ]] &&
		ok "notes vault: list_notes query '$word' answers in $took s with $(jq '.result.structuredContent.notes | length' <<<"$out" 2>/dev/null) notes and says: $h" ||
		bad "notes vault: list_notes with a query while the index builds" "$out"

	# 4. Past TimeoutStartSec: the same process, no restart, nothing killed, the build further on.
	sleep "$(awk -v w="$VAULT_WATCH" -v s="$(since "$t0")" 'BEGIN { d = w - s; print (d > 0 ? d : 0) }')"
	took=$(since "$t0")
	pid2=$(ct systemctl show -P MainPID "$unit")
	restarts=$(ct systemctl show -P NRestarts "$unit")
	[[ $(ct systemctl is-active "$unit") == active && $pid2 == "$pid1" && $restarts == 0 ]] &&
		ok "notes vault: still active $took s after the restart (TimeoutStartSec=30), same process ($pid2), NRestarts=0" ||
		bad "notes vault: at $took s: $(ct systemctl is-active "$unit"), MainPID $pid1 -> $pid2, NRestarts=$restarts"
	journal=$(ct journalctl -u "$unit" --since "@${t0%.*}" --no-pager -o cat 2>&1 | grep -Eiw 'oom|out of memory|killed|timed out|failed with result') || journal=
	[[ -z $journal ]] && ok "notes vault: no OOM, kill or timeout in the unit's journal since the restart" || bad "notes vault: the journal since the restart" "$journal"
	h=$(vault_health "$tok")
	second=$(vault_indexed "${h#*|}") || second=
	# A fast machine may have ended the build by now: the index is then whole ("N notes").
	if [[ -z $second && $h =~ ^ok\|([0-9]+)\ notes ]] && ((BASH_REMATCH[1] >= VAULT_NOTES)); then
		ok "notes vault: the build went on and ended before $took s: ${h#*|}"
	else
		[[ -n $first && -n $second && ${second%% *} -gt ${first%% *} ]] &&
			ok "notes vault: the build goes on: ${first%% *} of ${first#* } indexed at $firstat s, ${second%% *} at $took s" ||
			bad "notes vault: the build did not go on (${first:-?} at $firstat s, /healthz at $took s: $h)"
	fi
	mem=$(ct systemctl show -p MemoryCurrent -p MemoryPeak "$unit" | paste -sd' ')
	mem+=" $(ct sh -c "grep -E '^(VmHWM|VmRSS|RssAnon):' /proc/$pid2/status" 2>/dev/null | tr -s ' \t' ' ' | paste -sd' ')"
	note "notes vault: memory at $took s: $mem"

	# 5. Back to its own notes folder: stop the build, remove the vault and its index.
	t1=$(date +%s.%N)
	out=$(ct systemctl stop "$unit" 2>&1) || bad "notes vault: systemctl stop $unit" "$out"
	took=$(since "$t1")
	out=$(du -smc "$D$vault" "$D$index"* 2>/dev/null | tail -n 1 | cut -f1) || out='?'
	ct sed -i "\|^MCP_NOTES_DIR=$vault\$|d; \|^MCP_INDEX_FILE=$index\$|d" /etc/mcp-servers/notes.env
	rm -rf --one-file-system "$D$vault" "$D$index" "$D$index-wal" "$D$index-shm" "$D$index.rebuild"
	out2=$(ct systemctl start "$unit" 2>&1) || bad "notes vault: systemctl start $unit on its own notes" "$out2"
	for ((i = 0; i < 100; i++)); do
		[[ $(vault_health "$tok") == ok\|* ]] && break
		sleep 0.2
	done
	h=$(vault_health "$tok")
	out2=$(mcp_call 9009 "$tok" list_notes '{"query":"e2emarker"}')
	[[ $h == ok\|* && $out2 == *e2e/hello.md* ]] && ! ct sh -c "ls -d $vault $index* 2>/dev/null | grep -q ." &&
		ok "notes vault: stopped in $took s; the vault and its index removed ($out MB); back on its own notes: ${h#*|}, e2e/hello.md found" ||
		bad "notes vault: back on its own notes: /healthz '$h'" "$out2"
	note "notes vault: $((SECONDS - began)) s for these checks"
}
