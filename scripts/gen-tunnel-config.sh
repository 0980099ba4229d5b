#!/usr/bin/env bash
# gen-tunnel-config.sh — write a cloudflared config.yml that publishes the chosen MCP servers,
# one host name each, and the MCP_ALLOWED_HOSTS lines that let each server accept its name;
# with --oauth, also the settings that make the servers OAuth resources of the auth server.
set -euo pipefail

# id:port — the fixed table (docs/deploy.md); deploy/test/run.sh checks the copies agree.
SERVER_TABLE="shell:9001 auth:9002 calculator:9003 calendar:9004 gmail:9005 drive:9006 notes:9009 spotify:9010 browser:9011"

usage() {
	cat <<'EOF'
Usage: scripts/gen-tunnel-config.sh --tunnel ID --domain DOMAIN [options]

Prints a locally managed cloudflared config.yml: one ingress rule per server,
  PREFIX<id>.DOMAIN -> http://127.0.0.1:PORT
and the mandatory last rule `service: http_status:404`. cloudflared forwards the public
Host header; each server accepts it once the name is in its MCP_ALLOWED_HOSTS, which
--env prints and --apply-env writes.

Options:
  --tunnel ID             tunnel UUID (or name) from `cloudflared tunnel create NAME`
  --domain DOMAIN         the Cloudflare zone, e.g. example.com
  --prefix P              host name prefix (default "mcp-": mcp-calculator.example.com)
  --servers LIST          comma-separated server ids, or "all"; default: the servers with an
                          env file in --env-dir, else all
  --credentials-file F    tunnel credentials (default /etc/cloudflared/<tunnel>.json)
  --env-dir DIR           read each server's MCP_PORT from DIR/<id>.env (e.g. /etc/mcp-servers)
  --apply-env             add each host name to MCP_ALLOWED_HOSTS in DIR/<id>.env (needs
                          --env-dir); restart the servers afterwards (deploy.sh --restart all)
  --env                   print "<id>.env: MCP_ALLOWED_HOSTS=<host name>" lines, not the YAML
  --rewrite-host          also make cloudflared send Host: 127.0.0.1:PORT (originRequest
                          httpHostHeader), for a server whose env you cannot change
  --oauth                 publish the auth server (it must be among the servers) as the OAuth
                          issuer of the others: --env prints and --apply-env writes
                            auth.env: MCP_ISSUER, MCP_RESOURCES (every other server's /mcp URL),
                                      MCP_TRUSTED_PROXIES=127.0.0.1,::1 (cloudflared's address)
                            <id>.env: MCP_OAUTH_ISSUER, MCP_PUBLIC_URL, and
                                      MCP_OAUTH_ISSUER_INTERNAL_URL=http://127.0.0.1:AUTHPORT (the
                                      keys are fetched on loopback, which IPAddressDeny allows)
                          replacing those keys' values and keeping every other line
  --out FILE              write the YAML to FILE instead of standard output
  -h, --help              this text

Example, on the host:
  scripts/gen-tunnel-config.sh --tunnel 6ff42ae2-765d-4adf-8112-31c55c1551ef \
    --domain example.com --env-dir /etc/mcp-servers --apply-env --out /etc/cloudflared/config.yml
EOF
}

die() { printf 'gen-tunnel-config: %s\n' "$*" >&2; exit 1; }

table_port() {
	local e
	for e in $SERVER_TABLE; do
		[[ ${e%%:*} == "$1" ]] && { printf '%s\n' "${e##*:}"; return 0; }
	done
	return 1
}

env_value() {
	[[ -f $1 ]] || return 0
	local v
	v=$(sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$1" | tail -n 1)
	v=${v%"${v##*[![:space:]]}"}
	if [[ $v =~ ^\"(.*)\"$ || $v =~ ^\'(.*)\'$ ]]; then v=${BASH_REMATCH[1]}; fi
	printf '%s' "$v"
}

tunnel='' domain='' prefix=mcp- servers_arg='' creds='' env_dir='' apply=0 env_only=0 rewrite=0 oauth=0 out=''
while [[ $# -gt 0 ]]; do
	case $1 in
	--tunnel) [[ $# -ge 2 ]] || die "--tunnel needs a value"; tunnel=$2; shift 2 ;;
	--domain) [[ $# -ge 2 ]] || die "--domain needs a value"; domain=$2; shift 2 ;;
	--prefix) [[ $# -ge 2 ]] || die "--prefix needs a value"; prefix=$2; shift 2 ;;
	--servers) [[ $# -ge 2 ]] || die "--servers needs a value"; servers_arg=$2; shift 2 ;;
	--credentials-file) [[ $# -ge 2 ]] || die "--credentials-file needs a value"; creds=$2; shift 2 ;;
	--env-dir) [[ $# -ge 2 ]] || die "--env-dir needs a value"; env_dir=$2; shift 2 ;;
	--apply-env) apply=1; shift ;;
	--env) env_only=1; shift ;;
	--rewrite-host) rewrite=1; shift ;;
	--oauth) oauth=1; shift ;;
	--out) [[ $# -ge 2 ]] || die "--out needs a value"; out=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

[[ -n $tunnel ]] || die "--tunnel is required (the UUID that 'cloudflared tunnel create' printed)"
[[ -n $domain ]] || die "--domain is required (e.g. example.com)"
[[ $tunnel =~ ^[A-Za-z0-9._-]+$ ]] || die "--tunnel '$tunnel' is not a tunnel UUID or name"
[[ $domain =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ && $domain == *.* ]] || die "--domain '$domain' is not a domain name"
[[ $prefix =~ ^[a-z0-9-]*$ ]] || die "--prefix '$prefix' may hold only a-z, 0-9 and -"
[[ $apply -eq 0 || -n $env_dir ]] || die "--apply-env needs --env-dir"
[[ -z $env_dir || -d $env_dir ]] || die "--env-dir '$env_dir' is not a folder"
[[ -n $creds ]] || creds=/etc/cloudflared/$tunnel.json
[[ $creds =~ ^/[A-Za-z0-9._/-]+$ ]] || die "--credentials-file must be an absolute path of plain characters"

servers=()
if [[ -z $servers_arg && -n $env_dir ]]; then
	for e in $SERVER_TABLE; do
		[[ -f $env_dir/${e%%:*}.env ]] && servers+=("${e%%:*}")
	done
	[[ ${#servers[@]} -gt 0 ]] || die "no <id>.env in $env_dir; give --servers"
elif [[ -z $servers_arg || $servers_arg == all ]]; then
	for e in $SERVER_TABLE; do servers+=("${e%%:*}"); done
else
	IFS=, read -r -a servers <<<"$servers_arg"
fi

ports=() hosts=()
for s in "${servers[@]}"; do
	table_port "$s" >/dev/null || die "unknown server '$s'"
	p=
	[[ -n $env_dir ]] && p=$(env_value "$env_dir/$s.env" MCP_PORT)
	[[ -n $p ]] || p=$(table_port "$s")
	[[ $p =~ ^[0-9]+$ ]] || die "bad MCP_PORT '$p' for $s"
	ports+=("$p")
	hosts+=("$prefix$s.$domain")
done

# With --oauth: settings[i] holds "KEY=VALUE" lines for servers[i]'s env file.
settings=()
if [[ $oauth -eq 1 ]]; then
	auth_i=-1
	for i in "${!servers[@]}"; do [[ ${servers[i]} == auth ]] && auth_i=$i; done
	[[ $auth_i -ge 0 ]] || die "--oauth needs the auth server among the servers (setup-host.sh --servers auth, or --servers ...,auth)"
	[[ ${#servers[@]} -gt 1 ]] || die "--oauth needs at least one MCP server besides auth"
	issuer=https://${hosts[auth_i]}
	resources=''
	for i in "${!servers[@]}"; do
		[[ $i -eq $auth_i ]] && continue
		resources+="${resources:+,}${servers[i]}=https://${hosts[i]}/mcp"
	done
	for i in "${!servers[@]}"; do
		if [[ $i -eq $auth_i ]]; then
			settings[i]=$(printf 'MCP_ISSUER=%s\nMCP_RESOURCES=%s\nMCP_TRUSTED_PROXIES=127.0.0.1,::1' "$issuer" "$resources")
		else
			settings[i]=$(printf 'MCP_OAUTH_ISSUER=%s\nMCP_PUBLIC_URL=https://%s\nMCP_OAUTH_ISSUER_INTERNAL_URL=http://127.0.0.1:%s' \
				"$issuer" "${hosts[i]}" "${ports[auth_i]}")
		fi
	done
fi

if [[ $env_only -eq 1 ]]; then
	for i in "${!servers[@]}"; do
		# auth checks no Host header (its issuer URL is fixed), so it has no allowed-hosts list.
		[[ ${servers[i]} == auth ]] || printf '%s.env: MCP_ALLOWED_HOSTS=%s\n' "${servers[i]}" "${hosts[i]}"
		if [[ -n ${settings[i]:-} ]]; then
			while IFS= read -r line; do printf '%s.env: %s\n' "${servers[i]}" "$line"; done <<<"${settings[i]}"
		fi
	done
fi

# set_env FILE KEY VALUE: make KEY=VALUE the one active KEY line of FILE (replacing the first,
# dropping later ones), or add it; other lines, mode and owner stay.
set_env() {
	local f=$1 k=$2 v=$3 tmp
	if [[ $(env_value "$f" "$k") == "$v" ]] && grep -qE "^[[:space:]]*${k}[[:space:]]*=" "$f"; then
		return 0
	fi
	tmp=$(mktemp "$f.XXXXXX")
	if grep -qE "^[[:space:]]*${k}[[:space:]]*=" "$f"; then
		awk -v k="$k" -v v="$v" '
			$0 ~ "^[[:space:]]*" k "[[:space:]]*=" { if (!done) print k "=" v; done = 1; next }
			{ print }' "$f" >"$tmp"
	else
		{ cat "$f"; printf '%s=%s\n' "$k" "$v"; } >"$tmp"
	fi
	chmod --reference="$f" "$tmp"
	chown --reference="$f" "$tmp" 2>/dev/null || true
	mv -f "$tmp" "$f"
	changed=$((changed + 1))
	printf 'gen-tunnel-config: %s: %s=%s\n' "$f" "$k" "$v" >&2
}

# apply_env FILE HOST: add HOST to the MCP_ALLOWED_HOSTS list of FILE, keeping what is there.
apply_env() {
	local f=$1 h=$2 cur list tmp
	cur=$(env_value "$f" MCP_ALLOWED_HOSTS)
	IFS=, read -r -a list <<<"$cur"
	for x in "${list[@]}"; do
		if [[ $x == "$h" ]]; then
			printf 'gen-tunnel-config: %s already allows %s\n' "$f" "$h" >&2
			return 0
		fi
	done
	list+=("$h")
	local joined
	joined=$(printf '%s,' "${list[@]}")
	joined=${joined%,}
	joined=${joined#,}
	tmp=$(mktemp "$f.XXXXXX")
	if grep -qE '^[[:space:]]*MCP_ALLOWED_HOSTS[[:space:]]*=' "$f"; then
		awk -v v="$joined" '
			/^[[:space:]]*MCP_ALLOWED_HOSTS[[:space:]]*=/ { if (!done) print "MCP_ALLOWED_HOSTS=" v; done = 1; next }
			{ print }' "$f" >"$tmp"
	else
		{ cat "$f"; printf 'MCP_ALLOWED_HOSTS=%s\n' "$joined"; } >"$tmp"
	fi
	chmod --reference="$f" "$tmp"
	chown --reference="$f" "$tmp" 2>/dev/null || true
	mv -f "$tmp" "$f"
	changed=$((changed + 1))
	printf 'gen-tunnel-config: %s now allows %s\n' "$f" "$joined" >&2
}

# changed counts the env files' lines set_env and apply_env rewrote: no restart without one.
changed=0
if [[ $apply -eq 1 ]]; then
	for i in "${!servers[@]}"; do
		f=$env_dir/${servers[i]}.env
		if [[ -f $f ]]; then
			[[ ${servers[i]} == auth ]] || apply_env "$f" "${hosts[i]}"
			if [[ -n ${settings[i]:-} ]]; then
				while IFS= read -r line; do set_env "$f" "${line%%=*}" "${line#*=}"; done <<<"${settings[i]}"
			fi
		else
			printf 'gen-tunnel-config: %s missing: %s is not set up on this host\n' "$f" "${servers[i]}" >&2
		fi
	done
	if [[ $changed -gt 0 ]]; then
		printf 'gen-tunnel-config: restart the servers to apply: deploy.sh --restart all\n' >&2
	else
		printf 'gen-tunnel-config: the env files already had these settings: nothing to restart\n' >&2
	fi
fi

[[ $env_only -eq 1 ]] && exit 0

yaml() {
	printf '# cloudflared configuration for the MCP servers: %s\n' "$(
		IFS=,
		printf '%s' "${servers[*]}"
	)"
	printf '# Generated by scripts/gen-tunnel-config.sh; generate it again rather than editing it.\n'
	printf '# Check it on the host: cloudflared tunnel --config /etc/cloudflared/config.yml ingress validate\n'
	printf '# Each host name needs a DNS route to the tunnel (once):\n'
	for h in "${hosts[@]}"; do
		printf '#   cloudflared tunnel route dns %s %s\n' "$tunnel" "$h"
	done
	if [[ $rewrite -eq 1 ]]; then
		printf '# httpHostHeader makes each server see a loopback Host, which it always accepts.\n'
	else
		printf '# The public Host header is forwarded: each server needs its host name in MCP_ALLOWED_HOSTS\n'
		printf '# (gen-tunnel-config.sh --env-dir /etc/mcp-servers --apply-env), else it answers 403.\n'
	fi
	printf 'tunnel: %s\n' "$tunnel"
	printf 'credentials-file: %s\n' "$creds"
	printf 'originRequest:\n'
	printf '  connectTimeout: 10s\n'
	printf '  # Shorter than the servers'"'"' idle timeout (120 s), so cloudflared never reuses a closed connection.\n'
	printf '  keepAliveTimeout: 90s\n'
	printf 'ingress:\n'
	for i in "${!servers[@]}"; do
		printf '  - hostname: %s\n' "${hosts[i]}"
		printf '    service: http://127.0.0.1:%s\n' "${ports[i]}"
		if [[ $rewrite -eq 1 ]]; then
			printf '    originRequest:\n'
			printf '      httpHostHeader: "127.0.0.1:%s"\n' "${ports[i]}"
		fi
	done
	printf '  - service: http_status:404\n'
}

if [[ -n $out ]]; then
	tmp=$(mktemp "$out.XXXXXX")
	yaml >"$tmp"
	chmod 0644 "$tmp"
	mv -f "$tmp" "$out"
	printf 'gen-tunnel-config: wrote %s\n' "$out" >&2
else
	yaml
fi
