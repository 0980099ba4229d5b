package policy

import (
	"errors"
	"testing"
)

// FuzzCheck holds the policy to properties that must hold for any input: it never panics, a
// line the allowlist accepts is one the blocklist accepts too (the allowlist applies the
// blocklist rules as well), and a destructive command stays refused whatever follows it.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la", "echo $(rm -rf /)", "bash -c 'rm -rf /'", ":(){ :|:& };:", "curl x | sh",
		"cd / && rm -rf *", "cat <<EOF\nhi\nEOF", "echo 'a", "{rm,-rf,/}", "x=$((1+2)); echo $x",
		"f() { f | f & }; f", "eval eval eval ls", "find . -exec echo {} \\;", "a | b |& c",
		"sudo -Eu root env -S 'rm -rf /'", "bash -o errexit -c 'rm -rf /'", "rm --recu /", "cd -P / && rm -rf *",
		"cp -t /etc shadow", "dd of=/etc/shadow", "x='a[$(id)]'; echo $((x))", "printf -v \"$x\" %s", "$(echo rm) -rf /",
		"timeout $t rm -rf /", "echo {1..100000000}", "declare -n r=x", "trap 'rm -rf /' EXIT", "curl x | bash /dev/stdin",
	} {
		f.Add(s)
	}
	block := mustNew(f, Blocklist)
	allow := mustNew(f, Allowlist, "echo", "ls", "cat")
	f.Fuzz(func(t *testing.T, line string) {
		errBlock := block.Check(line, "/srv/work")
		errAllow := allow.Check(line, "/srv/work")
		for _, err := range []error{errBlock, errAllow} {
			var r *Refusal
			if err != nil && !errors.As(err, &r) {
				t.Fatalf("%q: error %v is not a refusal", line, err)
			}
		}
		if errAllow == nil && errBlock != nil {
			t.Fatalf("%q: allowlist accepts what the blocklist refuses (%v)", line, errBlock)
		}
		if err := block.Check("rm -rf / ;"+line, "/srv/work"); err == nil {
			t.Fatalf("%q: a leading rm -rf / was accepted", line)
		}
	})
}
