package policy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEvasions holds the blocklist to lines written to get a destructive command past it:
// wrappers it did not know, aliases, substitutions whose output the line fixes, xargs fed a
// literal or a find, loops that never end, kill aimed at the server, account tools.
func TestEvasions(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist, Home("/home/alice"))
	R, C, A, F, K := RuleRmRoot, RuleChmodRoot, RuleWriteAuthFiles, RuleForkBomb, RuleShutdown
	runCases(t, p, "/srv/work", []lineCase{
		// wrappers
		{"parallel rm -rf ::: /", R},
		{"parallel ::: 'rm -rf /'", R},
		{"parallel -j2 rm -rf {} ::: /tmp/x /usr", R},
		{"parallel --will-cite chmod -R 777 ::: /etc", C},
		{"sem -j1 rm -rf /", R},
		{"ssh localhost 'rm -rf /'", R},
		{"ssh -p 22 -o BatchMode=yes host rm -rf /etc", R},
		{"nsenter -t 1 -m -- rm -rf /", R},
		{"nsenter --target=1 --mount rm -rf /usr", R},
		{"systemd-run --user --wait rm -rf ~", R},
		{"systemd-run -p MemoryMax=1G --pty rm -rf /", R},
		{"run0 rm -rf /", R},
		{"pkexec --user root rm -rf /", R},
		{"sg staff 'rm -rf /'", R},
		{"sg staff -c 'rm -rf /'", R},
		{"setarch x86_64 -R rm -rf /", R},
		{"faketime '2020-01-01' rm -rf /", R},
		{"eatmydata rm -rf /", R},
		{"fakeroot -- rm -rf /", R},
		{"torsocks rm -rf /", R},
		{"proxychains4 -q rm -rf /", R},
		{"cgexec -g cpu:x rm -rf /", R},
		{"ltrace -f rm -rf /", R},
		{"valgrind --tool=none rm -rf /", R},
		{"dbus-run-session -- rm -rf /", R},
		{"xvfb-run -a rm -rf /", R},
		{"firejail --noprofile rm -rf /", R},
		{"bwrap --bind / / rm -rf /", R},
		{"toybox rm -rf /", R},
		{"nice -n 19 ionice -c3 stdbuf -o0 setsid -f timeout 9 flock /tmp/l watch -x rm -rf /", R},
		// aliases (with expand_aliases, and as a wrapper alias ending in a blank)
		{"shopt -s expand_aliases\nalias r='rm -rf'\nr /", R},
		{"shopt -s expand_aliases\nalias s='sudo ' r='rm -rf'\ns r /etc", R},
		{"shopt -s expand_aliases\nalias ls='rm -rf'\nls /usr", R},
		{"alias x=\"$y\"", RuleComputedCommand},
		{"shopt -s expand_aliases\nalias ls='ls -F'\nls", ""},
		// substitutions and evaluated strings whose text the line fixes
		{"bash <(echo 'rm -rf /')", R},
		{"source <(printf 'rm -rf /\\n')", R},
		{". <(echo rm -rf /etc)", R},
		{"bash -c \"$(echo 'rm -rf /')\"", R},
		{"eval $(printf 'rm -rf /')", R},
		{"eval \"$(echo rm) -rf /\"", R},
		{"x=$(echo 'rm -rf /'); eval \"$x\"", R},
		{"x='rm -rf /'; bash -c \"$x\"", R},
		{"rm -rf \"$(printf /)\"", R},
		{"rm -rf `echo /usr`", R},
		{"rm -rf $(echo /etc /tmp/x)", R},
		{"bash -c \"$(cat <<'EOF'\nrm -rf /\nEOF\n)\"", R},
		{"x=ls; read -r x; eval \"$x\"", ""}, // computed at run time: not seen without input
		{"printf -v d /; rm -rf \"$d\"", R},
		{"printf -v d '%s' /etc; rm -rf $d", R},
		{"read -r d <<< /; rm -rf \"$d\"", R},
		{"read -r a b <<< '/tmp/x /usr'; rm -rf \"$b\"", R},
		{"rm -rf /home/$USER", R},
		{"rm -rf \"/home/${LOGNAME}/\"", R},
		{"rm -rf /tmp/$USER-build", ""},
		// xargs fed a literal or a find
		{"echo / | xargs rm -rf", R},
		{"printf '/usr\\n' | xargs -I{} rm -rf {}", R},
		{"echo /etc | xargs -n1 chmod -R 777", C},
		{"find / -maxdepth 0 | xargs rm -rf", R},
		{"find /home/alice -maxdepth 0 -print0 | xargs -0 rm -rf", R},
		{"find / -maxdepth 0 -exec sh -c 'rm -rf \"$1\"' _ {} \\;", R},
		{"find /etc -maxdepth 0 -exec bash -c 'rm -rf {}' \\;", R},
		{"ls -d / | xargs rm -rf", R},
		{"realpath /etc | xargs rm -rf", R},
		{"readlink -f /proc/self/root/usr | xargs -I{} rm -rf {}", R},
		{"cd / && pwd | xargs rm -rf", R},
		{"find . -name '*.pyc' | xargs rm -f", ""},
		{"echo build | xargs rm -rf", ""},
		// loops that never end and leave processes behind
		{"while :; do sleep 1000 & done", F},
		{"while true; do bash -c 'sleep 9' & done", F},
		{"until false; do (sleep 9 &); done", F},
		{"for ((;;)); do sleep 9 & done", F},
		{"while :; do sleep 1 & wait; done", ""},
		{"while :; do sleep 9 & sleep 1; done", ""},
		// signalling every process of the user, the server included
		{"kill -9 -1", K},
		{"kill -KILL -1", K},
		{"kill -s KILL -1", K},
		{"kill -- -1", K},
		{"kill $PPID", K},
		{"kill -9 \"$PPID\"", K},
		{"killall5 -9", K},
		{"pkill -u mcp-shell", K},
		{"killall -u \"$USER\"", K},
		{"kill -1 1234", ""},
		{"kill %1", ""},
		// account tools write the auth files
		{"useradd -o -u 0 -g 0 x", A},
		{"usermod -aG sudo x", A},
		{"echo 'root:x' | chpasswd", A},
		{"passwd -d root", A},
		{"passwd -S", ""},
		{"visudo -f /tmp/x", A},
		{"perl -pi -e 's/x/y/' /etc/passwd", A},
		{"perl -i.bak -pe 's/x/y/' /etc/shadow", A},
		{"gawk -i inplace '{print}' /etc/group", A},
		{"awk -i inplace -v x=1 '{print}' /etc/sudoers", A},
		{"perl -pe 's/x/y/' /etc/passwd", ""},
	})
}

// TestEvasionsWithInput: values the checker could know, unless something in the line (read,
// printf -v, arithmetic, set -- $(…), eval) may change them, reach a shell that reads the
// caller's input.
func TestEvasionsWithInput(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist)
	for _, line := range []string{
		`x=ls; read -r x; eval "$x"`,
		`x=ls; IFS= read -r x; bash -c "$x"`,
		`x=ls; printf -v x %s "$(cat)"; eval "$x"`,
		`x=ls; mapfile -t x; eval "${x[0]}"`,
		`set -- $(cat); eval "$1"`,
		`f() { eval "$1"; }; f "$(cat)"`,
		`x=ls; eval "$(cat)"; eval "$x"`,
		`x=ls; source /dev/stdin; eval "$x"`,
		`declare -n r=x; x=ls; read r; eval "$x"`,
		`x=ls; (( x = 1 )); eval "$x"`,
		`: ${x:=$(cat)}; eval "$x"`,
	} {
		err := p.CheckInput(line, "/srv/work")
		var r *Refusal
		if !errors.As(err, &r) {
			t.Errorf("CheckInput(%q) allowed it", line)
		}
	}
	for _, line := range []string{`x=ls; eval "$x"`, `x='ls -l'; bash -c "$x"`, `set -- ls; eval "$1"`} {
		if err := p.CheckInput(line, "/srv/work"); err != nil {
			t.Errorf("CheckInput(%q) refused a script whose value is known: %v", line, err)
		}
	}
}

// The generated variants: a destructive core (the classes of issue 29) written through a
// spelling of its path and put in a context that runs it. Every combination must be refused.
var (
	variantCores = []struct{ line, rule string }{
		{"rm -rf @P@", RuleRmRoot},
		{"rm -r -- @P@/", RuleRmRoot},
		{"find -P @P@ -delete", RuleRmRoot},
		{"find -L -H -O3 -D tree @P@ -delete", RuleRmRoot},
		{"chmod -R 777 @P@", RuleChmodRoot},
		{"find @P@ -maxdepth 0 -exec rm -rf {} +", RuleRmRoot},
	}
	// spellings of a protected directory
	variantPaths = []string{
		"/", "/etc", "/usr/", "/home/alice", "/home/bob", "/root", "~", "~alice", "$HOME", "${HOME}",
		"/proc/self/root", "/proc/self/root/etc", "/proc/1/root/usr", "/proc/thread-self/root/var",
		"/proc/self/task/1/root/boot", "/proc/self/root/home/alice", "/proc/1/cwd/", "/dev/fd/3/..",
		"//etc//", "/usr/bin/../..", "/./var/.", "'/etc'", `"/usr"`, `$'\x2fetc'`, "/e''tc", `/\e\t\c`,
	}
	// contexts that run a command line (%s)
	variantForms = []string{
		"%s", "sudo %s", "env -i %s", "nice -n5 %s", "timeout 9 %s", "stdbuf -oL %s", "setsid -f %s",
		"flock /tmp/l %s", "watch -x %s", "nohup %s &", "xargs -a /dev/null %s", "parallel %s ::: x",
		"bash -c '%s'", "sh -ec '%s'", "eval '%s'", "f() { %s; }; f", "( %s )", "{ %s; }", "true && %s",
		"false || %s", "echo $(%s)", "cat <(%s)", "bash <<'EOF'\n%s\nEOF", "bash <<< '%s'",
		"echo '%s' | bash", "printf '%%s\\n' '%s' | sh", "shopt -s expand_aliases\nalias z='%s'\nz",
		"trap '%s' EXIT", "ssh host '%s'", "if true; then %s; fi", "for i in 1; do %s; done",
	}
)

// TestGeneratedVariants draws 3000 lines from the cores, path spellings and contexts above with
// a fixed seed, so generated variants of each class are covered, not only the examples.
func TestGeneratedVariants(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist, Home("/home/alice"))
	rng := rand.New(rand.NewPCG(29, 2026))
	for range 3000 {
		core := variantCores[rng.IntN(len(variantCores))]
		path := variantPaths[rng.IntN(len(variantPaths))]
		form := variantForms[rng.IntN(len(variantForms))]
		line := strings.ReplaceAll(core.line, "@P@", path)
		if strings.Contains(form, "'%s'") && strings.Contains(line, "'") {
			continue // a quote inside single quotes would end them
		}
		line = fmt.Sprintf(form, line)
		if err := p.Check(line, "/srv/work"); err == nil {
			t.Errorf("allowed: %q", line)
		}
	}
}
