package policy

import (
	"errors"
	"testing"
)

// TestCheckInput: when standard input carries the caller's text (start_process, whose input
// comes later with send_process_input, or run_command with stdin), a program that would read
// its commands from it is refused, however it is reached; programs that read data are not.
func TestCheckInput(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Blocklist, Allowlist} {
		var allow []string
		if mode == Allowlist {
			allow = []string{"bash", "sh", "python3", "cat", "grep", "sort", "env", "nohup", "sqlite3", "xargs"}
		}
		p := mustNew(t, mode, allow...)
		for _, line := range []string{
			"bash", "sh", "bash -s", "bash -i", "bash -s -- a b", "bash -", "bash /dev/stdin", "bash /dev/fd/0",
			"env bash", "nohup bash", "cat | bash", "cat | sh -s", "(bash)", "{ bash; }", "f(){ bash; }; f",
			"bash -c bash", "bash -c 'exec sh'", "sh -c 'cat | sh'", "python3", "sqlite3 db",
		} {
			err := p.CheckInput(line, "/srv/work")
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != RuleStdinCommands && r.Rule != RuleAllowlistSyntax {
				t.Errorf("%s: CheckInput(%q) = %v, want a refusal", mode, line, err)
			}
		}
		for _, line := range []string{"cat", "grep x", "sort | cat", "bash -c 'cat'"} {
			if err := p.CheckInput(line, "/srv/work"); err != nil {
				t.Errorf("%s: CheckInput(%q) refused: %v", mode, line, err)
			}
		}
	}
	p := mustNewWith(t, Blocklist)
	S := RuleStdinCommands
	cases := []lineCase{
		{"dash -s", S}, {"zsh", S}, {"ksh", S}, {"fish", S}, {"rbash", S}, {"busybox sh", S}, {"busybox ash", S},
		{"env -i bash --norc", S}, {"exec bash", S}, {"setsid bash", S}, {"stdbuf -i0 -o0 bash", S},
		{"timeout 100 sh", S}, {"flock /tmp/l bash", S}, {"script -q /dev/null", S}, {"su", S}, {"su -", S},
		{"sudo -s", S}, {"sudo -i", S}, {"sudo su", S}, {"doas -s", S}, {"ssh host", S}, {"unshare -r", S},
		{"nsenter -t 1 -m", S}, {"chroot /", S}, {"systemd-run --pty", S}, {"run0", S}, {"pkexec", S},
		{"tee /dev/null | sh", S}, {"bash < /dev/stdin", S}, {"bash <&0", S}, {"exec 3<&0; bash <&3", S},
		{"python3 -i app.py", S}, {"python3 -m code", S}, {"python3 -m pdb app.py", S}, {"perl", S},
		{"perl -de 0", S}, {"node", S}, {"node -i", S}, {"php -a", S}, {"ruby", S}, {"irb", S},
		{"gdb ./a.out", S}, {"ed notes.txt", S}, {"vim -es", S}, {"tclsh", S}, {"expect", S}, {"dc", S},
		{"ftp host", S}, {"at now", S}, {"batch", S}, {"parallel", S}, {"parallel -j4", S}, {"crontab -", S},
		{"awk -f /dev/stdin", S}, {"sed -f - x", S},
		{`while read -r l; do eval "$l"; done`, S}, {`read -r l; bash -c "$l"`, S},
		{"xargs -I{} sh -c {}", S}, {"awk '{system($0)}'", S}, {"perl -ne 'system $_'", S},
		{"python3 -c 'exec(input())'", S}, {"ruby -e 'eval STDIN.read'", S},
		{"expect -c 'spawn bash; interact'", S}, {"source /dev/stdin", S}, {". /dev/fd/0", S}, {"python3 <(cat)", S},
		{"bash <(cat)", S}, {"source <(cat)", S}, {"bash /dev/fd/3 3<&0", S}, {`python3 -c "$(cat)"`, S},
		{`perl -e "$(cat)"`, S}, {`awk "$(cat)"`, S}, {`sed "$(cat)" f`, S}, {`x=$(cat); node -e "$x"`, S},
		{"script -qc bash /dev/null", S}, {`bash -c "$(cat)"`, S}, {`eval "$(head -1)"`, S},
		{`bash -c 'read l; $l'`, RuleComputedCommand},
		// data readers and programs with their own script run
		{"python3 app.py", ""}, {"python3 -m http.server 8000", ""}, {"sort | uniq -c", ""}, {"grep --line-buffered x", ""},
		{"bash < /dev/null", ""}, {"bash <<'EOF'\nls\nEOF", ""}, {"sqlite3 db 'select 1'", ""},
		{"at -f job.sh now", ""}, {"crontab -l", ""}, {"awk '{print $1}'", ""}, {"ssh -N -L 8080:localhost:80 host", ""},
		{"watch -n 5 df -h", ""}, {"node server.js", ""}, {"tail -f log.txt", ""},
	}
	for _, tt := range cases {
		t.Run(tt.line, func(t *testing.T) {
			err := p.CheckInput(tt.line, "/srv/work")
			var r *Refusal
			switch {
			case tt.rule == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.rule != "" && (!errors.As(err, &r) || r.Rule != tt.rule):
				t.Fatalf("got %v, want rule %s", err, tt.rule)
			}
			if tt.rule == RuleStdinCommands {
				// The same line with empty standard input reads nothing: allowed (unless it is
				// refused for another reason).
				if err := p.Check(tt.line, "/srv/work"); errors.As(err, &r) && r.Rule == RuleStdinCommands {
					t.Errorf("Check refuses %q as %s too: %v", tt.line, RuleStdinCommands, err)
				}
			}
		})
	}
}

// TestStdinScripts: a script a shell reads from a here-document, a here-string or literal
// output piped into it is checked as a script, through wrappers, inline scripts and functions;
// and a command in it that may read the rest of it is refused unless it is in the last
// statement.
func TestStdinScripts(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist)
	R, S := RuleRmRoot, RuleStdinCommands
	runCases(t, p, "/srv/work", []lineCase{
		{"echo 'rm -rf /' | bash", R},
		{"echo rm -rf / | sh", R},
		{"printf 'rm -rf /\\n' | sh", R},
		{"printf '%s\\n' 'rm -rf /' | bash -s", R},
		{"printf 'rm -rf %s\\n' / | bash", R},
		{"echo -e 'ls\\nrm -rf /' | bash", R},
		{"echo -n 'rm -rf /' | bash", R},
		{"{ echo ls; echo 'rm -rf /'; } | bash", R},
		{"(echo 'rm -rf /') | sh", R},
		{"echo 'rm -rf /' | cat | bash", R},
		{"cat <<'EOF' | bash\nrm -rf /\nEOF", R},
		{"echo 'rm -rf /' 2>/dev/null | bash", R},
		{"sudo bash <<'EOF'\nrm -rf /\nEOF", R},
		{"env -i sh -s <<< 'rm -rf /'", R},
		{"bash -c bash <<'EOF'\nrm -rf /\nEOF", R},
		{"bash -c 'sh' <<< 'rm -rf /'", R},
		{"f(){ bash; }; f <<'EOF'\nrm -rf /\nEOF", R},
		{"f(){ g; }; g(){ sh; }; f <<< 'rm -rf /'", R},
		{"{ bash; } <<< 'rm -rf /'", R},
		{"at now <<< 'rm -rf /'", R},
		{"python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF", R},
		{"su <<'EOF'\nrm -rf /\nEOF", R},
		{"parallel <<< 'rm -rf /'", R},
		// a command that may read the rest of the script
		{"bash <<'EOF'\nread x\ncat <<'E'\nrm -rf /\nE\nEOF", S},
		{"printf 'head -c 6\\nxxxxx rm -rf /\\n' | bash", S},
		{"printf 'head -c 6\\nxxxxx echo hi\\n' | bash", S},
		{"bash <<'EOF'\ncat > /dev/null\necho x\nEOF", S},
		{"bash <<'EOF'\nf(){ read x; }\nf\nls\nEOF", S},
		{"bash <<'EOF'\nsh\nls\nEOF", S},
		{"bash <<'EOF'\nls\nwhile read -r l; do echo \"$l\"; done\nEOF", ""}, // in the last statement: nothing is left to run
		{"bash <<'EOF'\necho a; mkdir -p x; ls\ngrep x f < /dev/null\necho b\nEOF", ""},
		{"bash <<'EOF'\nset -e\ncd /srv/work\napt-get update\nEOF", ""},
		{"echo 'echo hi' | bash", ""},
		{"make -s | bash", ""}, // a program's output: computed at run time, not seen (documented)
	})
}
