package policy

import (
	"errors"
	"testing"
)

// TestEvaluatedCode covers, in both modes, text bash evaluates as code after the checker has
// read it: the quoting differential of ${…} words inside double quotes, builtins that
// evaluate or assign indirectly, find's start paths and programs that run programs.
func TestEvaluatedCode(t *testing.T) {
	t.Parallel()
	E := RuleEvaluated
	tests := []lineCase{
		// single quotes in a double-quoted ${…} word are literal; what is between them runs
		{`echo "${x:-'$(rm -rf /)'}"`, RuleRmRoot},
		{`echo "${x-'$(rm -rf /)'}"`, RuleRmRoot},
		{`echo "${x:='$(rm -rf /)'}"`, RuleRmRoot},
		{`echo "${x+'$(rm -rf /)'}"`, RuleRmRoot},
		{`echo "${x:?'$(rm -rf /)'}"`, RuleRmRoot},
		{"echo \"${x:-'`rm -rf /`'}\"", RuleRmRoot},
		{`echo "${x:-"$(echo ${y:-'$(rm -rf /)'})"}"`, RuleRmRoot},
		{`echo "${x/a/'$(rm -rf /)'}"`, RuleRmRoot},
		{`echo "${x#'$(rm -rf /)'}"`, RuleRmRoot},
		{"cat <<EOF\n${x:-'$(rm -rf /)'}\nEOF", RuleRmRoot},
		{`echo "${x:-'$(mkfs /dev/sda)'}"`, RuleMkfs},
		{`echo "${x:-'a"b$(id)'}"`, E},
		{`echo "${x:-'plain text'}" '$(not run)' "${y:-'$HOME'}"`, ""},
		{"cat <<'EOF'\n${x:-'$(rm -rf /)'}\nEOF", ""},
		// builtins that evaluate or assign indirectly
		{`declare "a=(\$(rm -rf /))"`, E},
		{`typeset "a=(\$(id))"`, E},
		{`local "$x"`, E},
		{`declare -a a=(x y)`, ""},
		{`x='$(rm -rf /)'; echo ${x@P}`, E},
		{`echo ${x@Q}`, ""},
		{`PS4='$(id)'; set -x; true`, E},
		{`PS4='+ '; set -x; true`, ""},
		{`mapfile -C 'rm -rf /' -c 1 a < x`, E},
		{`readarray -tC cb a < x`, E},
		{`mapfile -t a < x`, ""},
		{`printf -v 'a[$(id)]' x`, E},
		{`read -r 'a[$(id)]' < x`, E},
		{`a='x[$(id)]'; (( a ))`, E},
		{"a='x[`id`]'; echo $((a))", E},
		{`x='a[$(id)]'; echo ${!x}`, E},
		{`unset 'a[$(id)]'`, E},
		{`declare -n r='a[$(id)]'`, E},
		{`for n in ${!a[@]}; do echo ${a[n]}; done`, ""},
		{`awk '{print a[$1]}' f`, ""},
		{`trap 'rm -rf /' EXIT`, RuleRmRoot},
		// find hands its start path to -exec and the rest
		{`find / -exec rm -rf {} \;`, RuleRmRoot},
		{`find /etc -execdir rm -r {} +`, RuleRmRoot},
		{`find /usr -ok chmod -R 777 {} \;`, RuleChmodRoot},
		{`find / -okdir chown -R me {} \;`, RuleChmodRoot},
		{`find /tmp/build -name '*.o' -exec rm -rf {} +`, ""},
		{`find ./build -exec rm -rf {} \;`, ""},
		// programs that run programs
		{`script -qc 'rm -rf /' /dev/null`, RuleRmRoot},
		{`script -c "mkfs /dev/sda" log`, RuleMkfs},
		{`script out.log`, ""},
		{`setpriv --nnp rm -rf /`, RuleRmRoot},
		{`unshare -r rm -rf /`, RuleRmRoot},
		{`unshare --map-root-user --mount=/x rm -rf /etc`, RuleRmRoot},
		{`prlimit --nofile=64 rm -rf /`, RuleRmRoot},
		{`prlimit --pid 1`, ""},
		{`nice -n 5 timeout 3 env A=1 rm -rf /`, RuleRmRoot},
		// interpreters and awk: string literals that read as shell are checked as scripts
		{`perl -e 'system("rm -rf /")'`, RuleRmRoot},
		{"perl -ne 'print `mkfs.ext4 /dev/sda`'", RuleMkfs},
		{`python3 -c 'import os; os.system("rm -rf /etc")'`, RuleRmRoot},
		{`python3 -c "import subprocess; subprocess.run('shutdown -h now', shell=True)"`, RuleShutdown},
		{`awk 'BEGIN { system("rm -rf /") }'`, RuleRmRoot},
		{`awk -F: '{ print $1 }' /etc/passwd`, ""},
		{`python3 -c 'print("hello, world")'`, ""},
		{`node -e 'console.log(require("os").cpus().length)'`, ""},
	}
	bl, err := New(Blocklist, nil)
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, bl, "/tmp", tests)
	// Under the allowlist every one of them is refused, whichever rule says so first.
	al, err := New(Allowlist, []string{"ls", "cat"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if tt.rule != "" && al.Check(tt.line, "/tmp") == nil {
			t.Errorf("allowlist allowed %q", tt.line)
		}
	}
}

func TestCheckEnvValue(t *testing.T) {
	t.Parallel()
	bl, _ := New(Blocklist, nil)
	off, _ := New(Off, nil)
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"x[$(rm -rf /)]", false},
		{"a[`id`]", false},
		{"$(id)", true}, // a value is not expanded when bash reads it
		{"plain [text]", true},
	} {
		err := bl.CheckEnvValue("v", tt.value)
		var r *Refusal
		if tt.ok != (err == nil) || err != nil && (!errors.As(err, &r) || r.Rule != RuleEvaluated) {
			t.Errorf("%q: %v", tt.value, err)
		}
	}
	if off.CheckEnvValue("v", "x[$(id)]") != nil {
		t.Error("--policy off refused a value")
	}
}
