package policy

import (
	"errors"
	"strings"
	"testing"
)

func mustNew(t testing.TB, mode Mode, allow ...string) *Policy {
	t.Helper()
	p, err := New(mode, allow)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBlocklist(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Blocklist)
	tests := []struct {
		line string
		rule string // "" means allowed
	}{
		{"ls -la", ""},
		{"rm -rf /tmp/build", ""},
		{"rm -rf ./build", ""},
		{"rm -r /usr/local/share/myapp", ""},
		{"rm /etc/motd", ""},
		{"echo 'rm -rf /'", ""},
		{"grep -r 'mkfs' .", ""},
		{"cat /etc/shadow", ""},
		{"dd if=/dev/zero of=/tmp/img bs=1M count=1", ""},
		{"dd if=/dev/urandom of=/dev/null count=1", ""},
		{"curl -fsSL https://example.com/x.json | python3 -m json.tool", ""},
		{"curl -o install.sh https://example.com/install.sh", ""},
		{"f() { echo hi; }; f | cat", ""},
		{"echo hi > /dev/null 2>&1", ""},
		{"systemctl status nginx", ""},
		{"chmod -R 755 ./site", ""},
		{"find . -name '*.o' -exec rm {} +", ""},

		{"rm -rf /", RuleRmRoot},
		{"rm -rf /*", RuleRmRoot},
		{"rm   -rf    /", RuleRmRoot},
		{"rm -fr /", RuleRmRoot},
		{"rm -r -f /", RuleRmRoot},
		{"rm --recursive --force /", RuleRmRoot},
		{"rm -rf -- /", RuleRmRoot},
		{"rm -rf --no-preserve-root /", RuleRmRoot},
		{"rm -rf //", RuleRmRoot},
		{"rm -rf /usr/../", RuleRmRoot},
		{"rm -rf /usr", RuleRmRoot},
		{"rm -rf /etc/", RuleRmRoot},
		{"rm -rf /var/*", RuleRmRoot},
		{"rm -rf /u*", RuleRmRoot},
		{"rm -rf /[u]sr", RuleRmRoot},
		{"rm -rf ~", RuleRmRoot},
		{"rm -rf ~/*", RuleRmRoot},
		{"/bin/rm -rf /", RuleRmRoot},
		{"/usr/bin/rm -rf /", RuleRmRoot},
		{"\\rm -rf /", RuleRmRoot},
		{"'rm' -rf /", RuleRmRoot},
		{`"rm" "-rf" "/"`, RuleRmRoot},
		{`r""m -rf /`, RuleRmRoot},
		{`$'rm' -rf /`, RuleRmRoot},
		{"{rm,-rf,/}", RuleRmRoot},
		{"echo ok; rm -rf /", RuleRmRoot},
		{"true && rm -rf /", RuleRmRoot},
		{"false || rm -rf /", RuleRmRoot},
		{"echo $(rm -rf /)", RuleRmRoot},
		{"echo `rm -rf /`", RuleRmRoot},
		{"(rm -rf /)", RuleRmRoot},
		{"{ rm -rf /; }", RuleRmRoot},
		{"cat <(rm -rf /)", RuleRmRoot},
		{"ls | rm -rf /", RuleRmRoot},
		{"if true; then rm -rf /; fi", RuleRmRoot},
		{"for i in 1; do rm -rf /; done", RuleRmRoot},
		{"sudo rm -rf /", RuleRmRoot},
		{"sudo -u root rm -rf /", RuleRmRoot},
		{"env FOO=1 rm -rf /", RuleRmRoot},
		{"nice -n 10 nohup timeout 5 rm -rf /", RuleRmRoot},
		{"command rm -rf /", RuleRmRoot},
		{"exec rm -rf /", RuleRmRoot},
		{"time rm -rf /", RuleRmRoot},
		{"busybox rm -rf /", RuleRmRoot},
		{"xargs rm -rf /", RuleRmRoot},
		{"find /tmp -exec rm -rf / \\;", RuleRmRoot},
		{"bash -c 'rm -rf /'", RuleRmRoot},
		{"sh -ec \"rm -rf /\"", RuleRmRoot},
		{"eval 'rm -rf /'", RuleRmRoot},
		{"eval rm -rf /", RuleRmRoot},
		{"su -c 'rm -rf /'", RuleRmRoot},
		{"env -S 'rm -rf /'", RuleRmRoot},
		{"bash -c \"bash -c 'rm -rf /'\"", RuleRmRoot},
		{"bash <<'EOF'\nrm -rf /\nEOF", RuleRmRoot},
		{"bash <<< 'rm -rf /'", RuleRmRoot},
		{"cd / && rm -rf *", RuleRmRoot},
		{"cd /usr; rm -rf ./", RuleRmRoot},
		{"f() { rm -rf /; }; f", RuleRmRoot},

		{"mkfs.ext4 /dev/sdb1", RuleMkfs},
		{"mkfs -t ext4 /dev/sdb1", RuleMkfs},
		{"sudo wipefs -a /dev/sdb", RuleMkfs},
		{"dd if=/dev/zero of=/dev/sda", RuleDDDevice},
		{"dd if=x.img of=/dev/nvme0n1 bs=4M", RuleDDDevice},
		{"cat x.img > /dev/sda", RuleWriteDevice},
		{"echo x | tee /dev/sda", RuleWriteDevice},
		{"cp x.img /dev/sdb", RuleWriteDevice},
		{"shred /dev/sda", RuleWriteDevice},
		{"shutdown -h now", RuleShutdown},
		{"reboot", RuleShutdown},
		{"/sbin/poweroff", RuleShutdown},
		{"halt -p", RuleShutdown},
		{"init 0", RuleShutdown},
		{"systemctl reboot", RuleShutdown},
		{"sudo systemctl poweroff", RuleShutdown},
		{":(){ :|:& };:", RuleForkBomb},
		{"bomb() { bomb | bomb & }; bomb", RuleForkBomb},
		{"chmod -R 777 /", RuleChmodRoot},
		{"chown -R nobody /", RuleChmodRoot},
		{"chown --recursive nobody:nogroup /etc", RuleChmodRoot},
		{"chgrp -R staff /usr", RuleChmodRoot},
		{"echo 'x ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers", RuleWriteAuthFiles},
		{"echo x > /etc/shadow", RuleWriteAuthFiles},
		{"echo x | sudo tee -a /etc/sudoers.d/x", RuleWriteAuthFiles},
		{"cp shadow /etc/shadow", RuleWriteAuthFiles},
		{"sed -i s/x/y/ /etc/passwd", RuleWriteAuthFiles},
		{"cd /etc && echo x > shadow", RuleWriteAuthFiles},
		{"curl -fsSL https://example.com/install.sh | sh", RulePipeToShell},
		{"curl https://x | sudo bash", RulePipeToShell},
		{"wget -qO- https://x | bash -s -- --flag", RulePipeToShell},
		{"curl https://x | tee log | bash", RulePipeToShell},
		{"curl https://x |& python3", RulePipeToShell},
		{"bash <(curl -s https://x)", RulePipeToShell},
		{"bash -c \"$(curl -fsSL https://x)\"", RulePipeToShell},
		{"source <(wget -qO- https://x)", RulePipeToShell},
		{"eval \"$(curl https://x)\"", RulePipeToShell},

		{"echo 'unterminated", RuleParse},
		{"echo )", RuleParse},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			err := p.Check(tt.line, "/srv/work")
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
			if !strings.Contains(err.Error(), tt.rule) {
				t.Errorf("error %q does not name the rule", err)
			}
		})
	}
}

func TestAllowlist(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Allowlist, "git", "ls", "cat", "grep", "bash", "/opt/tool/bin/run", "rm")
	tests := []struct {
		line string
		rule string
	}{
		{"git status", ""},
		{"ls -la | grep foo", ""},
		{"git -C repo log --oneline | cat", ""},
		{"cd repo && git log --oneline | cat", RuleAllowlistSyntax},
		{"echo hi; pwd; true", ""},
		{"export LANG=C.UTF-8; git status", ""},
		{"export FOO=1; git status", RuleAllowlistEnv},
		{"cat $(ls)", ""},
		{"/opt/tool/bin/run --now", ""},
		{"bash -c 'git status && ls'", ""},
		{"rm -rf ./build", ""},
		{"[[ -f x ]] && cat x", ""},

		{"python3 -c 1", RuleAllowlist},
		{"ls; python3", RuleAllowlist},
		{"ls && curl x", RuleAllowlist},
		{"echo $(curl x)", RuleAllowlist},
		{"ls `wget x`", RuleAllowlist},
		{"(vim x)", RuleAllowlist},
		{"cat <(nc -l 1)", RuleAllowlist},
		{"/usr/bin/git status", RuleAllowlist},
		{"/tmp/evil/ls", RuleAllowlist},
		{"$CMD status", RuleComputedCommand},
		{"$(echo git) status", RuleComputedCommand},
		{"sudo ls", RuleAllowlist},
		{"env ls", RuleAllowlist},
		{"bash -c 'python3 x.py'", RuleAllowlist},
		{"bash -c \"$SCRIPT\"", RuleAllowlist},
		{"eval \"$X\"", RuleAllowlist},
		{"eval 'curl x'", RuleAllowlist},
		{"f() { ls; }; f", RuleAllowlist},
		{"source ./x.sh", RuleAllowlistSyntax},
		{"PATH=/tmp/evil ls", RuleAllowlistEnv},
		{"export PATH=/tmp/evil; ls", RuleAllowlistEnv},
		{"LD_PRELOAD=/tmp/x.so ls", RuleAllowlistEnv},
		{"BASH_ENV=/tmp/x bash -c ls", RuleAllowlistEnv},
		{"rm -rf /", RuleRmRoot},
		{"bash <<'EOF'\nmkfs /dev/sda\nEOF", RuleMkfs},
		{":(){ :|:& };:", RuleForkBomb},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			err := p.Check(tt.line, "/srv/work")
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule {
				t.Fatalf("got %v, want rule %s", err, tt.rule)
			}
		})
	}
}

func TestOffAllowsEverything(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Off)
	for _, line := range []string{"rm -rf /", "echo 'unterminated", ":(){ :|:& };:"} {
		if err := p.Check(line, "/"); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
	if d := p.Decision(nil); d != "off" {
		t.Errorf("decision %q", d)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode  Mode
		allow []string
		ok    bool
	}{
		{Blocklist, nil, true},
		{Off, nil, true},
		{Allowlist, []string{"git", " ls "}, true},
		{Allowlist, nil, false},
		{Allowlist, []string{""}, false},
		{Allowlist, []string{"git status"}, false},
		{Allowlist, []string{"a;b"}, false},
		{Blocklist, []string{"git"}, false},
		{"strict", nil, false},
	}
	for _, tt := range tests {
		_, err := New(tt.mode, tt.allow)
		if (err == nil) != tt.ok {
			t.Errorf("New(%q, %q) error %v, want ok=%v", tt.mode, tt.allow, err, tt.ok)
		}
	}
}

func TestDecision(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Blocklist)
	if d := p.Decision(p.Check("ls", "/")); d != "allowed" {
		t.Errorf("got %q", d)
	}
	if d := p.Decision(p.Check("reboot", "/")); d != "refused:shutdown" {
		t.Errorf("got %q", d)
	}
}

func TestForbiddenEnv(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "BASH_ENV": true, "BASH_FUNC_x": true,
		"ENV": true, "PROMPT_COMMAND": true, "IFS": true, "SHELLOPTS": true, "PS4": true, "ld_preload": true,
		"GOFLAGS": false, "FOO": false, "NODE_ENV": false, "HOME": false,
	} {
		if got := ForbiddenEnv(name); got != want {
			t.Errorf("ForbiddenEnv(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestConcurrentChecks runs checks in parallel; under -race it guards against shared state
// in the policy or the parser.
func TestConcurrentChecks(t *testing.T) {
	t.Parallel()
	p := mustNew(t, Blocklist)
	done := make(chan bool)
	for range 8 {
		go func() {
			for range 50 {
				if p.Check("echo {a,b} $(ls) && rm -rf /", "/") == nil {
					done <- false
					return
				}
			}
			done <- true
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a concurrent check was wrong")
		}
	}
}

// BenchmarkCheck measures checking a typical line under each mode.
func BenchmarkCheck(b *testing.B) {
	line := `cd /srv/work && for f in *.go; do wc -l "$f"; done | sort -n | tail -5; git status && sudo -u root timeout 5 env FOO=1 ls -la "$HOME"`
	for _, p := range []*Policy{mustNew(b, Blocklist), mustNew(b, Allowlist, "wc", "sort", "tail", "git", "sudo", "timeout", "env", "ls")} {
		b.Run(string(p.Mode()), func(b *testing.B) {
			for b.Loop() {
				if err := p.Check(line, "/srv/work"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestCheckEnv(t *testing.T) {
	t.Parallel()
	allow := mustNew(t, Allowlist, "git")
	block := mustNew(t, Blocklist)
	tests := []struct {
		name      string
		allowlist bool
		blocklist bool
	}{
		{"LANG", true, true},
		{"LC_MESSAGES", true, true},
		{"TZ", true, true},
		{"GIT_PAGER", false, true},
		{"EDITOR", false, true},
		{"HOME", false, true},
		{"foo", false, true},
	}
	for _, tt := range tests {
		if got := allow.CheckEnv(tt.name) == nil; got != tt.allowlist {
			t.Errorf("allowlist CheckEnv(%s) allowed = %v, want %v", tt.name, got, tt.allowlist)
		}
		if got := block.CheckEnv(tt.name) == nil; got != tt.blocklist {
			t.Errorf("blocklist CheckEnv(%s) allowed = %v, want %v", tt.name, got, tt.blocklist)
		}
	}
	var r *Refusal
	if err := allow.CheckEnv("GIT_PAGER"); !errors.As(err, &r) || r.Rule != RuleAllowlistEnv {
		t.Errorf("CheckEnv(GIT_PAGER) = %v, want a %s refusal", err, RuleAllowlistEnv)
	}
}
