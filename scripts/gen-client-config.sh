#!/usr/bin/env bash
# gen-client-config.sh — print MCP client configuration for the chosen servers: Claude Code,
# VS Code, Cursor, Claude Desktop (through mcp-remote) and the chat backend's registry.
set -euo pipefail

# id:port — the fixed table (docs/deploy.md); deploy/test/run.sh checks the copies agree.
SERVER_TABLE="shell:9001 auth:9002 calculator:9003 calendar:9004 gmail:9005 drive:9006 notes:9009 spotify:9010 browser:9011"

usage() {
	cat <<'EOF'
Usage: scripts/gen-client-config.sh --base-url URL [options]
       scripts/gen-client-config.sh --stdio [--bin-dir DIR] [options]

Server URLs:
  --base-url http://192.168.1.110        LAN: each server at http://192.168.1.110:PORT/mcp
  --base-url http://192.168.1.110:9003   one server (--servers calculator) at exactly that port
  --base-url 'https://mcp-{id}.example.com'
                                         tunnel: {id} is replaced by the server id, no port

Options:
  --servers LIST       comma-separated server ids, or "all" (default: all)
  --port-offset N      added to each server's fixed port, as make run's FLEET_PORT_OFFSET
                       (default: $FLEET_PORT_OFFSET, else 0)
  --client NAME        claude-code | vscode | cursor | claude-desktop | backend | all
                       (default: all, each under a heading; a single client prints pure JSON)
  --out-dir DIR        write the files instead of printing them:
                         DIR/.mcp.json  DIR/.vscode/mcp.json  DIR/.cursor/mcp.json
                         DIR/claude_desktop_config.json  DIR/backend-servers.json
Local (stdio) entries, for a client that starts each server itself on this machine:
  --stdio              each entry runs BIN-DIR/<id> --transport stdio (no URL, no token:
                       nothing listens on the network); not for the backend
  --bin-dir DIR        where the server binaries are (default /opt/mcp-servers/current/bin;
                       make build puts them in bin/)
Bearer tokens (the servers' auth). Without one of these no Authorization header is written,
and that is refused where a server would refuse the client: for the shell (it always needs a
token), and for every server when --base-url is not loopback, unless --oauth says the clients
sign in through the fleet's authorization server:
  --token TOKEN        the same token for every server
  --token-label LABEL  each server's token with that label, read from
                       CREDS/<id>/auth-tokens (run on the host as root)
  --credentials-dir D  CREDS for --token-label (default /etc/mcp-servers/credentials)
  --token-env          no secret in the output: reference environment variables
                       MCP_TOKEN_<ID> (e.g. MCP_TOKEN_CALCULATOR), or VS Code password prompts
  --oauth              no token: the clients sign in with OAuth (docs/oauth.md); the servers'
                       401 tells them where
  --no-auth            no token: the servers run with --insecure-no-auth (docs/configuration.md)
Cloudflare Access service token (second layer in front of a tunnel):
  --cf-access-id ID --cf-access-secret SECRET
                       adds CF-Access-Client-Id / CF-Access-Client-Secret headers
  --cf-access-env      the same headers as references to CF_ACCESS_CLIENT_ID and
                       CF_ACCESS_CLIENT_SECRET (VS Code: password prompts)
With --token-env or --cf-access-env only the clients that expand references are written
(Claude Code, VS Code, Cursor); Claude Desktop and the backend need literal values.
  -h, --help           this text

Where each file goes:
  Claude Code     .mcp.json in the project (or: claude mcp add --transport http NAME URL --header ...)
  VS Code         .vscode/mcp.json in the workspace
  Cursor          .cursor/mcp.json in the project, or ~/.cursor/mcp.json
  Claude Desktop  claude_desktop_config.json (it bridges through `npx mcp-remote`; needs Node)
  backend         the chat backend's server registry
EOF
}

die() { printf 'gen-client-config: %s\n' "$*" >&2; exit 1; }

table_port() {
	local e
	for e in $SERVER_TABLE; do
		[[ ${e%%:*} == "$1" ]] && { printf '%s\n' "${e##*:}"; return 0; }
	done
	return 1
}

# json STRING: a JSON string literal.
json() {
	local s=$1 out='' c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		'"') out+='\"' ;;
		"\\") out+="\\\\" ;;
		$'\n') out+='\n' ;;
		$'\r') out+='\r' ;;
		$'\t') out+='\t' ;;
		[[:cntrl:]]) out+=$(printf '\\u%04x' "'$c") ;;
		*) out+=$c ;;
		esac
	done
	printf '"%s"' "$out"
}

# label_token FILE LABEL: the token labelled LABEL in a tokens file, read as the servers read it
# (shared/guard): blank lines and # lines skipped, a trailing "   # comment" dropped. A token
# followed by anything but a comment is refused (printed as the reason, status 1); no such label
# prints nothing.
label_token() {
	awk -v l="$2" '
	{ line = $0; gsub(/^[ \t\r]+|[ \t\r]+$/, "", line) }
	line == "" || line ~ /^#/ { next }
	{
		i = index(line, ":"); if (i == 0) next
		k = substr(line, 1, i - 1); gsub(/^[ \t]+|[ \t]+$/, "", k); if (k != l) next
		rest = substr(line, i + 1); sub(/^[ \t]+/, "", rest)
		tok = rest; extra = ""
		if (match(rest, /[ \t]/)) { tok = substr(rest, 1, RSTART - 1); extra = substr(rest, RSTART); sub(/^[ \t]+/, "", extra) }
		if (extra != "" && extra !~ /^#/) { printf "line %d: the token labelled %s is followed by \"%s\": a token holds no whitespace, and a comment after it starts with #\n", NR, l, extra; bad = 1; exit }
		print tok; exit
	}
	END { exit bad }' "$1"
}

base_url='' servers_arg=all client=all out_dir='' token='' token_label='' creds_dir=/etc/mcp-servers/credentials
token_env=0 cf_id='' cf_secret='' cf_env=0 port_offset=${FLEET_PORT_OFFSET:-0}
stdio=0 bin_dir=/opt/mcp-servers/current/bin oauth=0 no_auth=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--base-url) [[ $# -ge 2 ]] || die "--base-url needs a value"; base_url=$2; shift 2 ;;
	--servers) [[ $# -ge 2 ]] || die "--servers needs a value"; servers_arg=$2; shift 2 ;;
	--port-offset) [[ $# -ge 2 ]] || die "--port-offset needs a value"; port_offset=$2; shift 2 ;;
	--client) [[ $# -ge 2 ]] || die "--client needs a value"; client=$2; shift 2 ;;
	--out-dir) [[ $# -ge 2 ]] || die "--out-dir needs a value"; out_dir=$2; shift 2 ;;
	--token) [[ $# -ge 2 ]] || die "--token needs a value"; token=$2; shift 2 ;;
	--token-label) [[ $# -ge 2 ]] || die "--token-label needs a value"; token_label=$2; shift 2 ;;
	--credentials-dir) [[ $# -ge 2 ]] || die "--credentials-dir needs a value"; creds_dir=$2; shift 2 ;;
	--token-env) token_env=1; shift ;;
	--oauth) oauth=1; shift ;;
	--no-auth) no_auth=1; shift ;;
	--stdio) stdio=1; shift ;;
	--bin-dir) [[ $# -ge 2 ]] || die "--bin-dir needs a value"; bin_dir=$2; shift 2 ;;
	--cf-access-id) [[ $# -ge 2 ]] || die "--cf-access-id needs a value"; cf_id=$2; shift 2 ;;
	--cf-access-secret) [[ $# -ge 2 ]] || die "--cf-access-secret needs a value"; cf_secret=$2; shift 2 ;;
	--cf-access-env) cf_env=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

if [[ $stdio -eq 1 ]]; then
	[[ -z $base_url ]] || die "--stdio entries run the servers on this machine: leave out --base-url"
	[[ $client != backend ]] || die "the backend reaches servers over HTTP: leave out --stdio"
	[[ -z $token && -z $token_label && $token_env -eq 0 && $oauth -eq 0 && $no_auth -eq 0 && -z $cf_id && $cf_env -eq 0 ]] ||
		die "--stdio entries need no token or Access header: nothing listens on the network"
	[[ $bin_dir == /* ]] || die "--bin-dir must be an absolute path (clients start the command from their own folder), got '$bin_dir'"
else
	[[ -n $base_url ]] || die "--base-url is required (e.g. http://192.168.1.110 or 'https://mcp-{id}.example.com'), or --stdio for local entries"
	[[ $base_url =~ ^https?://[^/[:space:]]+/?$ ]] || die "--base-url '$base_url' must be scheme://host, without a path"
	base_url=${base_url%/}
fi
[[ $port_offset =~ ^[0-9]+$ ]] || die "--port-offset (or FLEET_PORT_OFFSET) must be a whole number, got '$port_offset'"
# A port in the base URL ("http://192.168.1.110:9003") is the one server's port, used as given.
url_port=''
[[ $base_url =~ ^https?://[^/]*:([0-9]+)$ && $base_url != *"{id}"* ]] && url_port=${BASH_REMATCH[1]}
case $client in claude-code | vscode | cursor | claude-desktop | backend | all) ;; *) die "unknown --client '$client'" ;; esac
modes=0
[[ -n $token ]] && modes=$((modes + 1))
[[ -n $token_label ]] && modes=$((modes + 1))
[[ $token_env -eq 1 ]] && modes=$((modes + 1))
[[ $oauth -eq 1 ]] && modes=$((modes + 1))
[[ $no_auth -eq 1 ]] && modes=$((modes + 1))
[[ $modes -le 1 ]] || die "give only one of --token, --token-label, --token-env, --oauth, --no-auth"
[[ -z $cf_id && -z $cf_secret || -n $cf_id && -n $cf_secret ]] || die "--cf-access-id and --cf-access-secret go together"
[[ $cf_env -eq 0 || -z $cf_id ]] || die "give either --cf-access-env or --cf-access-id/--cf-access-secret"
refs=0
[[ $token_env -eq 1 || $cf_env -eq 1 ]] && refs=1
if [[ $refs -eq 1 && ( $client == claude-desktop || $client == backend ) ]]; then
	die "$client does not expand references: give literal values (--token or --token-label, --cf-access-id/--cf-access-secret)"
fi

servers=()
if [[ $servers_arg == all ]]; then
	# The MCP servers; auth is the fleet's authorization server, not one a client connects to.
	for e in $SERVER_TABLE; do [[ ${e%%:*} == auth ]] || servers+=("${e%%:*}"); done
else
	IFS=, read -r -a servers <<<"$servers_arg"
	for s in "${servers[@]}"; do
		[[ $s != auth ]] || die "auth is the authorization server, not an MCP server: clients find it through the servers' OAuth metadata (docs/oauth.md)"
	done
fi
[[ ${#servers[@]} -gt 0 ]] || die "no server chosen"
# loopback_base: the base URL names this machine (127.x, ::1, localhost).
loopback_base() { [[ $base_url =~ ^https?://(127\.[0-9.]+|localhost|\[::1\])(:[0-9]+)?$ ]]; }
if [[ $stdio -eq 0 && $modes -eq 0 ]]; then
	for s in "${servers[@]}"; do
		[[ $s != shell ]] || die "the shell server always needs a bearer token (it runs commands): give --token, --token-label or --token-env (deploy.sh --add-token shell LABEL makes one; make run prints its own), --oauth if clients sign in through the fleet's authorization server, or leave shell out (--servers)"
	done
	loopback_base || die "servers reached at $base_url refuse clients without credentials: give --token, --token-label or --token-env, --oauth if clients sign in through the fleet's authorization server (docs/oauth.md), or --no-auth if they run with --insecure-no-auth"
fi
if [[ -n $url_port && ${#servers[@]} -gt 1 ]]; then
	die "--base-url $base_url names port $url_port, but each of the ${#servers[@]} servers has its own port: give the host alone (--base-url ${base_url%:*}, with --port-offset N for a fleet run with FLEET_PORT_OFFSET), or one server (--servers ID)"
fi

urls=() secrets=()
for s in "${servers[@]}"; do
	port=$(table_port "$s") || die "unknown server '$s'"
	if [[ $stdio -eq 1 ]]; then
		urls+=("")
	elif [[ $base_url == *"{id}"* ]]; then
		urls+=("${base_url//\{id\}/$s}/mcp")
	elif [[ -n $url_port ]]; then
		urls+=("$base_url/mcp")
	else
		port=$((port + port_offset))
		[[ $port -le 65535 ]] || die "--port-offset $port_offset puts $s on port $port, above 65535"
		urls+=("$base_url:$port/mcp")
	fi
	t=$token
	if [[ -n $token_label ]]; then
		f=$creds_dir/$s/auth-tokens
		[[ -r $f ]] || die "cannot read $f (run on the host as root, or give --token)"
		t=$(label_token "$f" "$token_label") || die "$f: $t"
		[[ -n $t ]] || die "$f has no token labelled '$token_label' (deploy.sh --add-token $s $token_label)"
	fi
	secrets+=("$t")
done
auth=0
[[ $modes -eq 1 && $oauth -eq 0 && $no_auth -eq 0 ]] && auth=1
cf=0
[[ -n $cf_id || $cf_env -eq 1 ]] && cf=1

env_name() { local u=${1^^}; printf 'MCP_TOKEN_%s' "${u//-/_}"; }

# headers I STYLE: the JSON headers object for server I; STYLE says how environment
# references are written: claude (${VAR}), cursor (${env:VAR}), vscode (${input:ID}).
headers() {
	local i=$1 style=$2 s=${servers[$1]} parts=() v
	if [[ $auth -eq 1 ]]; then
		if [[ $token_env -eq 1 ]]; then
			case $style in
			claude) v="Bearer \${$(env_name "$s")}" ;;
			cursor) v="Bearer \${env:$(env_name "$s")}" ;;
			vscode) v="Bearer \${input:mcp-token-$s}" ;;
			esac
		else
			v="Bearer ${secrets[i]}"
		fi
		parts+=("$(json Authorization): $(json "$v")")
	fi
	if [[ $cf -eq 1 ]]; then
		local id=$cf_id secret=$cf_secret
		if [[ $cf_env -eq 1 ]]; then
			# shellcheck disable=SC2016 # these are references for the client to expand
			case $style in
			claude) id='${CF_ACCESS_CLIENT_ID}' secret='${CF_ACCESS_CLIENT_SECRET}' ;;
			cursor) id='${env:CF_ACCESS_CLIENT_ID}' secret='${env:CF_ACCESS_CLIENT_SECRET}' ;;
			vscode) id='${input:cf-access-client-id}' secret='${input:cf-access-client-secret}' ;;
			esac
		fi
		parts+=("$(json CF-Access-Client-Id): $(json "$id")")
		parts+=("$(json CF-Access-Client-Secret): $(json "$secret")")
	fi
	[[ ${#parts[@]} -gt 0 ]] || return 0
	local joined
	joined=$(printf '%s, ' "${parts[@]}")
	printf '{%s}' "${joined%, }"
}

# stdio_entry I TYPE: the entry that starts server I itself; TYPE adds "type": "stdio" (Claude
# Code, VS Code), empty leaves it out (Cursor, Claude Desktop).
stdio_entry() {
	local t=''
	[[ -n $2 ]] && t='"type": "stdio", '
	printf '%s{%s"command": %s, "args": ["--transport", "stdio"]}' "$(json "${servers[$1]}"): " "$t" "$(json "$bin_dir/${servers[$1]}")"
}

# A comma between entries, not after the last.
sep() { if [[ $1 -lt $((${#servers[@]} - 1)) ]]; then printf ','; fi; }

gen_claude_code() {
	printf '{\n  "mcpServers": {\n'
	for i in "${!servers[@]}"; do
		if [[ $stdio -eq 1 ]]; then printf '    %s%s\n' "$(stdio_entry "$i" stdio)" "$(sep "$i")"; continue; fi
		printf '    %s: {"type": "http", "url": %s' "$(json "${servers[i]}")" "$(json "${urls[i]}")"
		h=$(headers "$i" claude)
		[[ -n $h ]] && printf ', "headers": %s' "$h"
		printf '}%s\n' "$(sep "$i")"
	done
	printf '  }\n}\n'
}

gen_vscode() {
	printf '{\n'
	local inputs=() i
	if [[ $auth -eq 1 && $token_env -eq 1 ]]; then
		for i in "${!servers[@]}"; do
			inputs+=("$(printf '{"type": "promptString", "id": %s, "description": %s, "password": true}' \
				"$(json "mcp-token-${servers[i]}")" "$(json "Bearer token for the ${servers[i]} MCP server")")")
		done
	fi
	if [[ $cf_env -eq 1 ]]; then
		inputs+=('{"type": "promptString", "id": "cf-access-client-id", "description": "Cloudflare Access client id"}')
		inputs+=('{"type": "promptString", "id": "cf-access-client-secret", "description": "Cloudflare Access client secret", "password": true}')
	fi
	if [[ ${#inputs[@]} -gt 0 ]]; then
		printf '  "inputs": [\n'
		for i in "${!inputs[@]}"; do
			printf '    %s' "${inputs[i]}"
			[[ $i -lt $((${#inputs[@]} - 1)) ]] && printf ','
			printf '\n'
		done
		printf '  ],\n'
	fi
	printf '  "servers": {\n'
	for i in "${!servers[@]}"; do
		if [[ $stdio -eq 1 ]]; then printf '    %s%s\n' "$(stdio_entry "$i" stdio)" "$(sep "$i")"; continue; fi
		printf '    %s: {"type": "http", "url": %s' "$(json "${servers[i]}")" "$(json "${urls[i]}")"
		h=$(headers "$i" vscode)
		[[ -n $h ]] && printf ', "headers": %s' "$h"
		printf '}%s\n' "$(sep "$i")"
	done
	printf '  }\n}\n'
}

gen_cursor() {
	printf '{\n  "mcpServers": {\n'
	for i in "${!servers[@]}"; do
		if [[ $stdio -eq 1 ]]; then printf '    %s%s\n' "$(stdio_entry "$i" "")" "$(sep "$i")"; continue; fi
		printf '    %s: {"url": %s' "$(json "${servers[i]}")" "$(json "${urls[i]}")"
		h=$(headers "$i" cursor)
		[[ -n $h ]] && printf ', "headers": %s' "$h"
		printf '}%s\n' "$(sep "$i")"
	done
	printf '  }\n}\n'
}

# Claude Desktop runs local (stdio) servers only; mcp-remote bridges to the HTTP server. The
# header value goes through an environment variable because arguments with spaces break on
# some platforms (mcp-remote's own advice).
gen_claude_desktop() {
	printf '{\n  "mcpServers": {\n'
	for i in "${!servers[@]}"; do
		if [[ $stdio -eq 1 ]]; then printf '    %s%s\n' "$(stdio_entry "$i" "")" "$(sep "$i")"; continue; fi
		local s=${servers[i]} args env=() a
		args=("-y" "mcp-remote" "${urls[i]}")
		[[ ${urls[i]} == http://* ]] && args+=("--allow-http")
		if [[ $auth -eq 1 ]]; then
			args+=("--header" "Authorization:\${AUTH_HEADER}")
			env+=("$(json AUTH_HEADER): $(json "Bearer ${secrets[i]}")")
		fi
		if [[ $cf -eq 1 ]]; then
			args+=("--header" "CF-Access-Client-Id:\${CF_ACCESS_CLIENT_ID}" "--header" "CF-Access-Client-Secret:\${CF_ACCESS_CLIENT_SECRET}")
			env+=("$(json CF_ACCESS_CLIENT_ID): $(json "$cf_id")" "$(json CF_ACCESS_CLIENT_SECRET): $(json "$cf_secret")")
		fi
		local jargs=()
		for a in "${args[@]}"; do jargs+=("$(json "$a")"); done
		local ja je
		ja=$(printf '%s, ' "${jargs[@]}")
		printf '    %s: {"command": "npx", "args": [%s]' "$(json "$s")" "${ja%, }"
		if [[ ${#env[@]} -gt 0 ]]; then
			je=$(printf '%s, ' "${env[@]}")
			printf ', "env": {%s}' "${je%, }"
		fi
		printf '}%s\n' "$(sep "$i")"
	done
	printf '  }\n}\n'
}

# The chat backend's registry: {"servers":[{"id","url","enabled","disabled_tools"}]}, plus
# "headers" when a token or Access header is needed. It does not expand variables.
gen_backend() {
	printf '{\n  "servers": [\n'
	for i in "${!servers[@]}"; do
		printf '    {"id": %s, "url": %s, "enabled": true, "disabled_tools": []' "$(json "${servers[i]}")" "$(json "${urls[i]}")"
		h=$(headers "$i" claude)
		[[ -n $h ]] && printf ', "headers": %s' "$h"
		printf '}%s\n' "$(sep "$i")"
	done
	printf '  ]\n}\n'
}

clients=(claude-code vscode cursor claude-desktop backend)
if [[ $client != all ]]; then
	clients=("$client")
elif [[ $stdio -eq 1 ]]; then
	clients=(claude-code vscode cursor claude-desktop)
elif [[ $refs -eq 1 ]]; then
	clients=(claude-code vscode cursor)
	printf 'gen-client-config: note: claude-desktop and backend skipped: they need literal tokens\n' >&2
fi

file_of() {
	case $1 in
	claude-code) echo .mcp.json ;;
	vscode) echo .vscode/mcp.json ;;
	cursor) echo .cursor/mcp.json ;;
	claude-desktop) echo claude_desktop_config.json ;;
	backend) echo backend-servers.json ;;
	esac
}

for c in "${clients[@]}"; do
	fn=gen_${c//-/_}
	if [[ -n $out_dir ]]; then
		f=$out_dir/$(file_of "$c")
		mkdir -p "$(dirname "$f")"
		(umask 077 && "$fn" >"$f")
		printf 'gen-client-config: wrote %s\n' "$f" >&2
	elif [[ ${#clients[@]} -gt 1 ]]; then
		printf '### %s (%s)\n' "$c" "$(file_of "$c")"
		"$fn"
		printf '\n'
	else
		"$fn"
	fi
done
