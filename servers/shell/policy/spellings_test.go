package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type lineCase struct {
	line string
	rule string // "" means allowed
}

func runCases(t *testing.T, p *Policy, dir string, tests []lineCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			err := p.Check(tt.line, dir)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) {
				t.Fatalf("allowed, want rule %s", tt.rule)
			}
			if r.Rule != tt.rule {
				t.Fatalf("rule %s (%v), want %s", r.Rule, err, tt.rule)
			}
			if !strings.Contains(err.Error(), "refused by policy rule "+tt.rule+": ") || len(r.Detail) < 10 {
				t.Errorf("error %q does not name the rule and what was refused", err)
			}
		})
	}
}

// TestAllowlistSyntax covers every class of construct bash evaluates as code or as a name.
func TestAllowlistSyntax(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Allowlist, "echo", "cat", "true", "git", "ls", "grep", "wc", "bash", "sort", "head", "find", "xargs", "sudo", "env", "timeout")
	S, E, A, C := RuleAllowlistSyntax, RuleAllowlistEnv, RuleAllowlist, RuleComputedCommand
	runCases(t, p, "/srv/work", []lineCase{
		// ordinary work keeps working
		{"ls -la | grep x", ""},
		{"git status && git diff", ""},
		{`for f in *.go; do wc -l "$f"; done`, ""},
		{`echo "$HOME"`, ""},
		{"x=1; echo $x", ""},
		{"cat <<'EOF'\nhello $(id)\nEOF", ""},
		{"cat <<EOF\nhello $HOME\nEOF", ""},
		{"echo $((1+2)) $((0x1f * 2#101)) $(( (3) ))", ""},
		{"(( 1 < 2 )) && echo yes", ""},
		{`arr=(a b "c d"); echo "${arr[@]}" "${arr[0]}" "${#arr[@]}" ${arr[*]}`, ""},
		{`a[0]=1; echo "${a[0]}"`, ""},
		{`echo "${HOME:0:4}" "${HOME#/}" "${HOME%/*}" "${HOME//a/b}" "${HOME^^}" "${HOME@Q}" "${x:-def}" "${#HOME}"`, ""},
		{`read -r line < /etc/hostname; echo "$line"`, ""},
		{`read -r -a parts <<< "a b"; echo "${parts[0]}"`, ""},
		{`printf '%s\n' "$HOME" $PWD`, ""},
		{`printf -v out '%s' hi; echo "$out"; printf -vout x; printf -- "$x"`, ""},
		{`[ -f "$f" ] && [ "$a" = "$b" ] && [ ! -d "$d" ] && [ "$x" ] && test -n "$y"`, ""},
		{`[ "$n" -gt 3 ] || [ ! "$x" = y ]`, ""},
		{`[[ -f $f && $x == y* && $x =~ ^a && -n $x ]]`, ""},
		{`[[ 1 -eq 1 ]] && [[ -v HOME ]] && test -v HOME`, ""},
		{`set -euo pipefail; set -- a b; echo "$@"`, ""},
		{`set +x -e`, ""},
		{`export LC_ALL=C TERM; declare -r z=2; local -a q; readonly r; declare -x -g TZ=UTC; foo=1; Bar=2`, ""},
		{`LANG=C.UTF-8 LC_COLLATE=C TZ=UTC COLUMNS=80 NO_COLOR=1 ls`, ""},
		// Variables that reach a started program's environment: only locale, zone and size.
		{`GIT_PAGER=id git log`, E},
		{`EDITOR='id' git commit`, E},
		{`export GIT_PAGER=id; git log`, E},
		{`export git_pager=id`, E},
		{`declare -x LESSOPEN='|id %s'; less x`, E},
		{`declare -gx PAGER=id`, E},
		{`local -x x=1`, E},
		{`typeset -rx y=1`, E},
		{`HOME=/tmp/evil; git log`, E},
		{`SHELL=/tmp/evil`, E},
		{`FOO=1; export FOO`, E},
		{`readonly PAGER=id`, E},
		{`env GIT_PAGER=id git log`, E},
		{`env -i PYTHONSTARTUP=/tmp/x python3`, E},
		{`sudo GIT_SSH_COMMAND=id git fetch`, E},
		{`set -a; pager=id`, S},
		{`set -o allexport`, S},
		{`bash -a -c 'x=1'`, S},
		{`unset FOO; unset -v BAR; unset -f f`, ""},
		{`f() { echo hi; }; echo ok`, ""},
		{`sleep_pid=1; true & wait $!; wait "$!"; wait 12 %1`, ""},
		{`case $x in a*) echo a;; *) echo b;; esac`, ""},
		{`while read -r l; do echo "$l"; done < /dev/null`, ""},
		{`cd /tmp && ls`, S}, // restricted bash refuses cd
		{`ls /tmp`, ""},
		{`bash -c 'git status'`, ""},
		{`bash -e -o pipefail -c 'ls | wc -l'`, ""},
		{"bash <<'EOF'\ngit status\nEOF", ""},
		{`find . -name '*.go' -exec grep -l x {} +`, ""},
		{`ls | xargs grep x`, ""},
		{`ls | xargs -I{} grep x {}`, ""},
		{`ls | xargs printf x`, A},
		{`ls | xargs`, ""},
		{`find . -exec pwd \;`, A},
		{`sudo printf x`, A},
		{`env test -f x`, A},
		{`timeout 5 pwd`, A},
		{`exec pwd`, A},
		{`command echo hi; builtin printf x`, ""},
		{`timeout 5 git status`, ""},
		{`sudo -u root git status`, ""},
		{`command -v git; command git status`, ""},
		{`exec git status`, S},
		{`echo hi >&2; echo x 2>&1 0</dev/null`, ""},
		{`echo x 2>/dev/null`, S}, // restricted bash refuses every redirection of output to a file
		{`echo x >out.txt`, S},

		// arithmetic on anything but literal numbers
		{`x='a[$(id)]'; echo $((x))`, RuleEvaluated},
		{`echo $(( x + 1 ))`, S},
		{`echo $(($x))`, S},
		{`echo $[x]`, S},
		{`(( x ))`, S},
		{`((i++))`, S},
		{`let x=1`, S},
		{`let 1+2`, ""},
		{`for ((i=0; i<3; i++)); do echo $i; done`, S},
		{`[[ $x -eq 1 ]]`, S},
		{`[[ 1 -lt $n ]]`, S},
		{`[[ x -gt 0 ]]`, S},
		{`echo ${x:$n}`, S},
		{`echo ${x:0:n}`, S},
		{`echo $((0x$(id)))`, S},
		{`declare -i n; n=$x`, S},
		{`local -i n=$x`, S},
		{`typeset -i n`, S},
		{`RANDOM=$x`, S},
		{`OPTIND=$x`, S},
		{`SECONDS=1`, S},
		// subscripts
		{`echo ${a[$i]}`, S},
		{`echo "${a[i]}"`, S},
		{`echo ${a[$(id)]}`, S},
		{`a[$i]=1`, S},
		{`a[i]=1`, S},
		{`a=([$i]=1)`, S},
		{`a=([k]=1)`, S},
		{`declare a[$i]=1`, S},
		{`unset 'a[$(id)]'`, S},
		{`unset "a[1]"`, S},
		{`unset "$x"`, S},
		{`unset $x`, S},
		{`[[ -v a[$i] ]]`, S},
		{`[[ -v $x ]]`, S},
		{`test -v "$x"`, S},
		{`test -v 'a[$(id)]'`, S},
		{`[ -v "$x" ]`, S},
		{`[ -R x[1] ]`, S},
		// indirect and evaluating expansions
		{`echo ${!x}`, S},
		{`echo ${!prefix*}`, S},
		{`echo ${!a[@]}`, S},
		{`echo ${x@P}`, S},
		{`y="${x@P}"`, S},
		// builtins that assign through a name
		{`printf -v "$x" %s 1`, S},
		{`printf -v 'a[$(id)]' %s 1`, S},
		{`printf -v a[1] %s 1`, S},
		{`printf '-va[$(id)]' %s 1`, S},
		{`printf -vPATH %s 1`, S},
		{`printf -x`, S},
		{`printf $fmt`, S},
		{`printf "$fmt" x`, S},
		{`read "$x"`, S},
		{`read -a "$x"`, S},
		{`read 'a[1]'`, S},
		{`read $opts line`, S},
		{`read PATH`, S},
		{`read -r RANDOM`, S},
		{`mapfile arr`, S},
		{`readarray -C id arr`, S},
		{`getopts ab opt`, S},
		{`wait -p "$x"`, S},
		{`wait $pid`, S},
		{`declare -n r=x`, S},
		{`local -n r=x`, S},
		{`typeset -n r`, S},
		{`declare "$x"`, S},
		{`declare $x=1`, S},
		{`export "$x"`, S},
		{`export $x`, S},
		{`readonly "$x"`, S},
		{`declare 'a[$(id)]=1'`, S},
		{`declare -- "$x"`, S},
		{`builtin declare x=1`, S},
		{`command export x=1`, S},
		{`builtin $x`, C},
		{`builtin ls`, S},
		// builtins that evaluate later or change lookup
		{`trap id EXIT`, S},
		{`trap 'echo hi' EXIT`, S},
		{`alias ls=id`, S},
		{`unalias ls`, S},
		{`enable -f ./x.so x`, S},
		{`hash -p /bin/id cat`, S},
		{`source ./x.sh`, S},
		{`. ./x.sh`, S},
		{`fc -s`, S},
		{`bind -x '"a":id'`, S},
		{`complete -C id x`, S},
		{`compgen -C id x`, S},
		{`shopt -s expand_aliases`, S},
		{`set -k`, S},
		{`set -o posix`, S},
		{`set +B`, S},
		{`set $x`, S},
		{`coproc id`, S},
		{`coproc cat`, S},
		{`select x in a b; do echo $x; done`, S},
		{`exec {fd}>/dev/null`, S},
		{`exec {a[$(id)]}>/dev/null`, C},
		// test/[ whose shape depends on run-time values
		{`[ $x ]`, S},
		{`[ -n $x ]`, S},
		{`test $x -eq 1`, S},
		{`[ "$op" "$x" ]`, S},
		{`[ "$a" "$op" "$b" ]`, S},
		{`[ "$a" = b -a "$c" = d ]`, S},
		{`test * = x`, S},
		// variables that change lookup
		{`PATH=/tmp/evil ls`, E},
		{`export PATH=/tmp/evil`, E},
		{`declare PATH=/tmp`, E},
		{`for PATH in /tmp; do ls; done`, E},
		{`: ${PATH:=/tmp}`, E},
		{`PS4='$(id)' bash -xc ls`, E},
		{`env PATH=/tmp ls`, E},
		{`env 'BASH_FUNC_ls%%=() { id; }' bash -c ls`, E},
		{`env BASH_ENV=/tmp/x bash -c ls`, E},
		{`sudo LD_PRELOAD=/x.so ls`, E},
		{`IFS=/`, E},
		// shells given anything but a literal -c script
		{`bash x.sh`, S},
		{`bash /dev/stdin <<< id`, A},
		{`bash /dev/stdin < x`, S},
		{`echo ls | bash`, S},
		{`bash < script.sh`, S},
		{`bash -s`, S},
		{`bash -i -c ls`, S},
		{`bash -l -c ls`, S},
		{`bash --login -c ls`, S},
		{`bash --rcfile x -c ls`, S},
		{`bash --init-file x -c ls`, S},
		{`bash -O extglob -c ls`, S},
		{`bash -o posix -c ls`, S},
		{`bash -c "$x"`, A},
		{`bash -c ls$x`, C},
		{`bash -c "ls$x"`, A},
		{`bash $x`, C},
		{`bash -c id`, A},
		{`bash -o errexit -c 'id'`, A},
		{"bash <<EOF\n$x\nEOF", A},
		{`find . -exec bash -c 'echo {}' \;`, S},
		{`ls | xargs -I{} bash -c 'echo {}'`, S},
		{`ls | xargs -I% bash -c 'echo %'`, S},
		// computed command names
		{`$x`, C},
		{`"$x" a`, C},
		{`$(echo id)`, C},
		{"`echo id`", C},
		{`"$@"`, C},
		{`${x:-id}`, C},
		{`{id,x}`, A},
		{`/bin/i?`, C},
		{`./*`, C},
		{`exec $x`, C},
		{`command $x`, C},
		{`sudo $x`, C},
		{`env $x`, C},
		{`env -- $x`, C},
		{`timeout $t ls`, C},
		{`xargs $x`, C},
		{`find . -exec $x {} \;`, C},
		{`find . -exec {} \;`, C},
		// unlisted programs, however reached
		{`id`, A},
		{`/usr/bin/git status`, A},
		{`echo hi > id; ./id`, A},
		{`f() { id; }; f`, A},
		{`echo "$(id)"`, A},
		{`cat <<EOF` + "\n$(id)\nEOF", A},
		{`eval id`, A},
		{`eval "$x"`, A},
		{`eval echo *`, A},
		{`eval 'echo *'`, ""},
		{`trap 'echo hi' *`, S},
		{`sudo id`, A},
		{`env -S 'id' x`, A},
		{`env -S"id -u"`, A},
		{`env --split-string='id -u'`, A},
		{`env --sp 'id'`, A},
		{`env -vS 'id'`, A},
		{`sudo -E -u root id`, A},
		{`sudo -Eu root id`, A},
		{`sudo -uroot id`, A},
		{`sudo --user=root id`, A},
		{`sudo --us root id`, A},
		{`timeout -s KILL 5 id`, A},
		{`timeout --sig=KILL 5 id`, A},
		{`xargs -n1 id`, A},
		{`xargs -I {} id {}`, A},
		{`find . -exec id \;`, A},
		{`sudo -Z id`, S},
		{`exec -a name id`, A},
		{`command -p id`, A},
		{`coproc x { id; }`, S},
		{"\r", RuleParse},
		{"echo \xff", RuleParse},
		{"0=[", RuleParse},
		{"<&-0", RuleParse},
		{"7000000000>0", RuleParse},
		{"echo 2>&1 123456789>&-", ""},
		{"echo #\\\n0", RuleParse},
		{"echo a; # x \\\n id", RuleParse},
		{"echo a # fine\necho b", ""},
		{"cat <&-id", RuleParse},
		{`echo a >&-"b"`, RuleParse},
		{"echo a >&- b 2>&1 3<&-", ""},
		{"1a=x", A},
		{"0=x id", A},
		{"0=[ x", A},
		{"\u0080\nid", RuleParse},
		{"echo a\u0080b; id", RuleParse},
		{"echo \x1b[31m", RuleParse},
		{"echo \u0085", RuleParse},
		{"echo 'tab\there' \u00e9t\u00e9 \u00a0", ""},
		{`echo $"hello"`, S},
		{"echo hi\r\nid", RuleParse},
		{"bash -c $'id\\r'", RuleParse},
	})
}

// TestComputedCommandBothModes: a command name computed at run time is refused by the blocklist
// as well; the allowlist refuses it under the same rule.
func TestComputedCommandBothModes(t *testing.T) {
	t.Parallel()
	lines := []string{
		`$(echo rm) -rf /`, `$cmd -rf /`, `"$cmd" x`, "`echo rm` -rf /", `${cmd:-rm} -rf /`, `"$@"`,
		`/bin/r? -rf /`, `sudo $x -rf /`, `env $x`, `env -- $cmd`, `nice $x`, `timeout 5 $x`, `xargs $x`,
		`find / -exec $x {} \;`, `exec "$x"`, `command $x`, `nohup $x &`, `sudo -u $u rm -rf /`,
		`timeout $t rm -rf /`, `env -S "$x"`, `env -S '$X rm'`, `watch -x $x`,
	}
	for _, p := range []*Policy{mustNew(t, Blocklist), mustNew(t, Allowlist, "rm", "sudo", "env", "nice", "timeout", "xargs", "find", "nohup", "watch")} {
		var tests []lineCase
		for _, l := range lines {
			tests = append(tests, lineCase{l, RuleComputedCommand})
		}
		runCases(t, p, "/srv/work", tests)
	}
}

// TestBlocklistGrammar holds the blocklist to each wrapped program's real argument grammar.
func TestBlocklistGrammar(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Blocklist)
	runCases(t, p, "/srv/work", []lineCase{
		// GNU long options abbreviated, options after operands
		{"rm --recu /", RuleRmRoot},
		{"rm -rf ~root", RuleRmRoot},
		{"rm -rf ~bob/", RuleRmRoot},
		{"rm -rf ~+", ""},
		{"cd /usr && rm -rf ~+/", RuleRmRoot},
		{"rm -rf ~bob/src/build", ""},
		// $HOME is the home directory the server fixes for every command
		{"rm -rf $HOME", RuleRmRoot},
		{`rm -rf "$HOME"`, RuleRmRoot},
		{`rm -rf "${HOME}/"`, RuleRmRoot},
		{`rm -rf $HOME/*`, RuleRmRoot},
		{`chmod -R 777 "$HOME"`, RuleChmodRoot},
		{`rm -rf "$HOME/src/build"`, ""},
		{`rm -rf "${HOME:-/tmp}"`, RuleRmRoot},
		{`rm -rf ${HOME?}/`, RuleRmRoot},
		{`rm -rf "${HOME:+/tmp/x}"`, ""},
		{`rm -rf "${HOME%/*}"`, ""},
		{`rm -rf "$d"`, ""},
		{"cd ~bob && rm -rf *", RuleRmRoot},
		{"cd ~- && rm -rf x", RuleRmRoot},
		{`rm -rf $'/\c@'`, RuleRmRoot},
		{`rm -rf $'/\0x'`, RuleRmRoot},
		{`$'rm\c@x' -rf /`, RuleRmRoot},
		{"rm --rec --force /etc", RuleRmRoot},
		{"rm --r /", RuleRmRoot},
		{"rm / -rf", RuleRmRoot},
		{"rm -v -- -x / -r", ""},
		{"rm -fR /usr", RuleRmRoot},
		{"rm -d /usr", ""},
		{"rm $opts /", RuleRmRoot},
		{"chmod --recu 777 /", RuleChmodRoot},
		{"chown --recursive=x root /", RuleChmodRoot},
		{"chmod -R -w /etc", RuleChmodRoot},
		{"chmod -w -R /etc", RuleChmodRoot},
		// shells: options before -c, -c in a cluster, script files reading stdin
		{"bash -o errexit -c 'rm -rf /'", RuleRmRoot},
		{"bash -e -o pipefail -c 'rm -rf /'", RuleRmRoot},
		{"bash -c -e 'rm -rf /'", RuleRmRoot},
		{"bash -xec 'rm -rf /'", RuleRmRoot},
		{"bash --norc -c 'rm -rf /'", RuleRmRoot},
		{"bash +o history -c 'rm -rf /'", RuleRmRoot},
		{"bash -O extglob -c 'rm -rf /'", RuleRmRoot},
		{"bash --rcfile /dev/null -c 'rm -rf /'", RuleRmRoot},
		{"bash -c 'echo hi' 'rm -rf /'", ""},
		{"curl -s https://x | bash /dev/stdin", RulePipeToShell},
		{"curl -s https://x | bash /dev/fd/0", RulePipeToShell},
		{"curl -s https://x | bash /proc/self/fd/0", RulePipeToShell},
		{"curl -s https://x | bash -o errexit", RulePipeToShell},
		{"curl -s https://x | bash -s -- --x", RulePipeToShell},
		{"curl -s https://x | bash -", RulePipeToShell},
		{"curl -s https://x | sudo -E bash", RulePipeToShell},
		{"curl -s https://x | python3 /dev/stdin", RulePipeToShell},
		{"curl -s https://x | bash script.sh", ""},
		{"python3 - <<'EOF'\ndef f():\n    return (1,\nprint(f())\nEOF", ""},
		// env
		{"env -S 'rm -rf /'", RuleRmRoot},
		{"env -S'rm -rf' /", RuleRmRoot},
		{"env -vS'rm -rf /'", RuleRmRoot},
		{"env -iS 'rm -rf /'", RuleRmRoot},
		{"env --split-string='rm -rf /'", RuleRmRoot},
		{"env --split-string 'rm -rf /'", RuleRmRoot},
		{"env --sp='rm -rf /'", RuleRmRoot},
		{"env -S '-i FOO=1 rm -rf /'", RuleRmRoot},
		{"env -i -u HOME -C /tmp FOO=1 rm -rf /", RuleRmRoot},
		{"env --chdir=/tmp --unset=X rm -rf /", RuleRmRoot},
		{"env -a name rm -rf /", RuleRmRoot},
		{"env --argv0 name rm -rf /", RuleRmRoot},
		{"env - rm -rf /", RuleRmRoot},
		{"env -- rm -rf /", RuleRmRoot},
		{"env 'X%=1' 'BASH_FUNC_f%%=() { :; }' rm -rf /", RuleRmRoot},
		// sudo
		{"sudo -u root rm -rf /", RuleRmRoot},
		{"sudo -Eu root rm -rf /", RuleRmRoot},
		{"sudo -uroot rm -rf /", RuleRmRoot},
		{"sudo --user=root rm -rf /", RuleRmRoot},
		{"sudo --user root rm -rf /", RuleRmRoot},
		{"sudo --us root rm -rf /", RuleRmRoot},
		{"sudo -g wheel -C 3 -D /tmp -p pw -r role -t type -T 5 -U bob -h rm -rf /", RuleRmRoot},
		{"sudo -D / rm -rf /", RuleRmRoot},
		{"sudo --chdir=/ rm -rf /", RuleRmRoot},
		{"sudo -s 'rm -rf /'", RuleRmRoot},
		{"sudo -i rm -rf /", RuleRmRoot},
		{"sudo -Z rm -rf /", RuleRmRoot},
		{"sudo FOO=1 rm -rf /", RuleRmRoot},
		{"sudo -- rm -rf /", RuleRmRoot},
		{"sudoedit /etc/sudoers", RuleWriteAuthFiles},
		// the other wrappers
		{"nice -n 5 rm -rf /", RuleRmRoot},
		{"nice -5 rm -rf /", RuleRmRoot},
		{"nice --adj=5 rm -rf /", RuleRmRoot},
		{"timeout -k 1 -s KILL 5 rm -rf /", RuleRmRoot},
		{"timeout --signal=KILL 5s rm -rf /", RuleRmRoot},
		{"timeout --sig KILL 5s rm -rf /", RuleRmRoot},
		{"timeout -v --foreground 5 rm -rf /", RuleRmRoot},
		{"xargs -0 -n 1 -P4 rm -rf /", RuleRmRoot},
		{"xargs -I{} rm -rf /", RuleRmRoot},
		{"xargs --max-args=1 rm -rf /", RuleRmRoot},
		{"stdbuf -oL -e0 rm -rf /", RuleRmRoot},
		{"stdbuf --output=L rm -rf /", RuleRmRoot},
		{"ionice -c 3 rm -rf /", RuleRmRoot},
		{"ionice -c3 -n7 rm -rf /", RuleRmRoot},
		{"chrt -f 10 rm -rf /", RuleRmRoot},
		{"taskset -c 0 rm -rf /", RuleRmRoot},
		{"taskset 0x1 rm -rf /", RuleRmRoot},
		{"flock /tmp/l rm -rf /", RuleRmRoot},
		{"flock -w 5 /tmp/l rm -rf /", RuleRmRoot},
		{"flock /tmp/l -c 'rm -rf /'", RuleRmRoot},
		{"flock -c 'rm -rf /' /tmp/l", RuleRmRoot},
		{"setsid -f rm -rf /", RuleRmRoot},
		{"nohup rm -rf / &", RuleRmRoot},
		{"watch -n 1 rm -rf /", RuleRmRoot},
		{"watch 'rm -rf /'", RuleRmRoot},
		{"watch -x rm -rf /", RuleRmRoot},
		{"strace -f -o /tmp/x rm -rf /", RuleRmRoot},
		{"strace -e trace=file rm -rf /", RuleRmRoot},
		{"runuser -u bob -- rm -rf /", RuleRmRoot},
		{"runuser bob -c 'rm -rf /'", RuleRmRoot},
		{"runuser -u bob rm -rf /", RuleRmRoot},
		{"runuser -l -u bob -- rm -rf /", RuleRmRoot},
		{"su -c 'rm -rf /'", RuleRmRoot},
		{"su - root -c 'rm -rf /'", RuleRmRoot},
		{"su root -c 'rm -rf /'", RuleRmRoot},
		{"su -lc 'rm -rf /'", RuleRmRoot},
		{"su --command='rm -rf /'", RuleRmRoot},
		{"su --comm 'rm -rf /'", RuleRmRoot},
		{"doas -u root rm -rf /", RuleRmRoot},
		{"busybox rm -rf /", RuleRmRoot},
		{"command -p rm -rf /", RuleRmRoot},
		{"command -v rm", ""},
		{"builtin exec rm -rf /", RuleRmRoot},
		{"exec -a x rm -rf /", RuleRmRoot},
		{"exec -cl rm -rf /", RuleRmRoot},
		{"time -p rm -rf /", RuleRmRoot},
		{"chroot / rm -rf /", RuleRmRoot},
		{"sudo env nice timeout 5 stdbuf -oL rm -rf /", RuleRmRoot},
		{"trap 'rm -rf /' EXIT", RuleRmRoot},
		{"find / -maxdepth 1 -exec rm -rf {} +", RuleRmRoot},
		{"find . -execdir rm -rf / \\;", RuleRmRoot},
	})
}

// TestBlocklistWritesAndCd covers writes onto protected files and cd with options.
func TestBlocklistWritesAndCd(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Blocklist)
	runCases(t, p, "/srv/work", []lineCase{
		{"dd if=x of=/dev/sda", RuleDDDevice},
		{"dd of=/dev/sda if=x", RuleDDDevice},
		{"dd if=x of=/etc/shadow", RuleWriteAuthFiles},
		{"cd /etc && dd if=x of=shadow", RuleWriteAuthFiles},
		{"dd if=/dev/sda of=disk.img", ""},
		{"cp -t /etc shadow", RuleWriteAuthFiles},
		{"cp -t/etc shadow", RuleWriteAuthFiles},
		{"cp --target-directory=/etc shadow", RuleWriteAuthFiles},
		{"cp --target /etc shadow", RuleWriteAuthFiles},
		{"cp --targ=/etc ./build/shadow", RuleWriteAuthFiles},
		{"mv -t /etc/sudoers.d x", RuleWriteAuthFiles},
		{"install -m 600 -t /etc shadow", RuleWriteAuthFiles},
		{"ln -sf /tmp/x -t /etc/sudoers.d", RuleWriteAuthFiles},
		{"cp shadow /etc/", RuleWriteAuthFiles},
		{"cp x/shadow /etc", RuleWriteAuthFiles},
		{"cp -r dir/ /etc/sudoers.d", RuleWriteAuthFiles},
		{"ln -sf /tmp/x /etc/passwd", RuleWriteAuthFiles},
		{"cp -T dir /etc", ""},
		{"cp x.img /dev/", RuleWriteDevice},
		{"cp x /etc/motd", ""},
		{"cp -t /tmp x y", ""},
		{"tee -a /etc/sudoers < x", RuleWriteAuthFiles},
		{"tee --append /etc/passwd", RuleWriteAuthFiles},
		{"tee --output-error=warn /dev/sda", RuleWriteDevice},
		{"sed -i.bak s/a/b/ /etc/passwd", RuleWriteAuthFiles},
		{"sed --in-place=.bak s/a/b/ /etc/passwd", RuleWriteAuthFiles},
		{"sed --in-pl -e s/a/b/ /etc/group", RuleWriteAuthFiles},
		{"sed -e s/a/b/ -i /etc/shadow", RuleWriteAuthFiles},
		{"sed -n s/a/b/p /etc/passwd", ""},
		{"truncate -s 0 /etc/shadow", RuleWriteAuthFiles},
		{"truncate -s0 /dev/sda", RuleWriteDevice},
		{"truncate --size=0 /etc/passwd", RuleWriteAuthFiles},
		{"truncate -r /etc/passwd out.txt", ""},
		{"shred -n 3 -u /dev/sda", RuleWriteDevice},
		{"echo x >> /etc/sudoers.d/x", RuleWriteAuthFiles},
		{"echo x &> /dev/sda", RuleWriteDevice},
		// cd with options, relative paths after it, and cwd the checker cannot follow
		{"cd -P / && rm -rf *", RuleRmRoot},
		{"cd -L /usr && rm -rf ./", RuleRmRoot},
		{"cd -e -- /etc && rm -rf *", RuleRmRoot},
		{"cd -P -- / && rm -rf usr", RuleRmRoot},
		{"pushd / && rm -rf *", RuleRmRoot},
		{"cd && rm -rf *", RuleRmRoot},
		{"cd ~ && rm -rf ./*", RuleRmRoot},
		{"cd /srv/work/a && rm -rf ../../..", RuleRmRoot},
		{"cd / ; cd /srv/work/x ; rm -rf *", RuleRmRoot},
		{"cd /nonexistent || rm -rf ../..", RuleRmRoot},
		{"cd \"$dir\" && rm -rf build", RuleRmRoot},
		{"cd - && rm -rf build", RuleRmRoot},
		{"popd; rm -rf build", RuleRmRoot},
		{"cd /etc && cp x shadow", RuleWriteAuthFiles},
		{"cd \"$d\" && echo x > shadow", RuleWriteAuthFiles},
		{"cd /srv/work/app && rm -rf build", ""},
		{"cd \"$d\" && chmod 644 \"$f\" && chown -R bob: \"$f\"", ""},
		{"cd \"$d\" && chmod -R 755 site", RuleChmodRoot},
		{"chmod -R 755 /etc/", RuleChmodRoot},
		{"chmod 755 /", ""},
		{"chown --reference=ref -R /usr", RuleChmodRoot},
		{"find / -delete", RuleRmRoot},
		{"find /usr -name x -delete", RuleRmRoot},
		{"find . -name '*.o' -delete", ""},
		{"rm /etc/shadow", RuleWriteAuthFiles},
		{"rm -f /etc/sudoers.d/x", RuleWriteAuthFiles},
		{"mv /etc/passwd /tmp/", RuleWriteAuthFiles},
		{"echo x | sponge /etc/group", RuleWriteAuthFiles},
		{"cd build && rm -rf obj", ""},
		{"rm -rf build", ""},
		{"cd \"$dir\" && rm -rf /srv/work/build", ""},
		{"cd \"$dir\" && ls && rm -f x", ""},
	})
}

// TestHugeBraceExpansion: brace expansions too large to expand while checking are one opaque
// word, so a check stays fast and a command name built that way is refused.
func TestHugeBraceExpansion(t *testing.T) {
	for _, mode := range []Mode{Blocklist, Allowlist} {
		var allow []string
		if mode == Allowlist {
			allow = []string{"echo"}
		}
		p := mustNew(t, mode, allow...)
		for line, rule := range map[string]string{
			"echo {1..100000000}": "", "echo {1..100}{1..100}{1..100}{1..100}": "",
			"echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}": "",
			"{rm,echo}{,}{1..2000} -rf /": RuleComputedCommand, "echo {a..c} {1..3..2} {x,y}": "",
		} {
			start := time.Now()
			err := p.Check(line, "/srv/work")
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s: %q took %v", mode, line, d)
			}
			var r *Refusal
			if got := ""; errors.As(err, &r) {
				got = r.Rule
				if got != rule {
					t.Errorf("%s: %q refused by %s, want %q", mode, line, got, rule)
				}
			} else if rule != "" {
				t.Errorf("%s: %q allowed, want %s", mode, line, rule)
			}
		}
	}
}

func TestNewRefusesEvaluatingBuiltins(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"trap", "alias", "enable", "hash", "source", ".", "shopt", "mapfile", "let", "fc", "bind", "complete", "compgen", "getopts"} {
		if _, err := New(Allowlist, []string{"ls", name}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("New allowed listing %q (%v)", name, err)
		}
	}
	if _, err := New(Allowlist, []string{"kill", "printf", "test"}); err != nil {
		t.Errorf("New refused ordinary names: %v", err)
	}
}

// TestRulesDocumented keeps the rule table, the rule constants the checker uses and
// docs/shell.md in step.
func TestRulesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "shell.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := ""
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src += string(b)
	}
	names := map[string]bool{}
	for _, r := range Rules {
		names[r.Name] = true
		if !strings.Contains(string(doc), "| `"+r.Name+"` |") {
			t.Errorf("rule %s is not in the rule table of docs/shell.md", r.Name)
		}
	}
	for _, c := range []string{"RuleParse", "RuleNesting", "RuleComputedCommand", "RuleAllowlist", "RuleAllowlistEnv", "RuleAllowlistSyntax",
		"RuleRmRoot", "RuleMkfs", "RuleDDDevice", "RuleWriteDevice", "RuleShutdown", "RuleForkBomb", "RuleChmodRoot", "RuleWriteAuthFiles", "RulePipeToShell", "RuleEvaluated", "RuleStdinCommands"} {
		if !strings.Contains(src, "c.refuse("+c+",") {
			t.Errorf("%s is declared but no check refuses with it", c)
		}
	}
	if len(names) != 17 {
		t.Errorf("Rules has %d rules, want the 17 the checker refuses with", len(names))
	}
}
