package policy

import "testing"

// TestVariableValues: an operand computed from a variable, a positional parameter, a loop or an
// alias the line sets is judged by every value it may have there, and by the empty value when
// the variable may be unset (rm -rf "$d/" with d unset is rm -rf /).
func TestVariableValues(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist, Home("/home/alice"))
	R, C, A, W := RuleRmRoot, RuleChmodRoot, RuleWriteAuthFiles, RuleWriteDevice
	runCases(t, p, "/srv/work", []lineCase{
		{"d=/; rm -rf $d", R},
		{`d=/usr; rm -rf "$d"`, R},
		{`d=/usr; rm -rf "${d}/"`, R},
		{`d=/u; rm -rf "${d}sr"`, R},
		{`a=/; b=$a; rm -rf $b`, R},
		{`d="/ /tmp/x"; rm -rf $d`, R},
		{`declare d=/etc; rm -rf "$d"`, R},
		{`local d=/etc 2>/dev/null; rm -rf "$d"`, R},
		{`export D=/var; rm -rf "$D"`, R},
		{`readonly d=/boot; rm -rf $d`, R},
		{`arr=(/tmp/x /usr); rm -rf "${arr[@]}"`, R},
		{`for d in /tmp/x /; do rm -rf "$d"; done`, R},
		{`for d in /srv/work/a /srv/work/b; do rm -rf "$d"; done`, ""},
		{`rm -rf "$d/"`, R},
		{`rm -rf "$d"/*`, R},
		{`rm -rf $undefined/etc`, R},
		{`rm -rf "${d:-/}"`, R},
		{`rm -rf "${d:=/usr}"`, R},
		{`rm -rf "${d:?}/"`, ""},
		{`d=/srv/work/x; rm -rf "$d/"`, ""},
		{`d=/srv/work/x; unset d; rm -rf "$d/"`, R},
		{`d=; rm -rf "$d"/*`, R},
		{`d=$(mktemp -d); rm -rf "$d"`, ""},
		{`d=$(mktemp -d); rm -rf "$d"/*`, R},
		{`rm -rf "$(pwd)/"`, R},
		{`rm -rf "$HOME"`, R},
		{`rm -rf "${HOME}"/`, R},
		{`rm -rf $HOME/.cache/x`, ""},
		{`rm -rf "$TMPDIR/x"`, ""},
		{`rm -rf "$PWD"`, ""},
		{`cd /usr && rm -rf "$PWD"`, R},
		// positional parameters: set --, a function's arguments, bash -c's arguments
		{`set -- /usr; rm -rf "$1"`, R},
		{`set -- /tmp/x /etc; rm -rf "$@"`, R},
		{`f() { rm -rf "$1"; }; f /`, R},
		{`f() { rm -rf "$@"; }; f /tmp/x /usr`, R},
		{`f() { chmod -R 777 "$1"; }; f /etc`, C},
		{`bash -c 'rm -rf "$1"' _ /`, R},
		{`sh -c 'rm -rf $0' /etc`, ""}, // $0 is the shell's name: not judged
		{`f() { for d; do rm -rf "$d"; done; }; f /var`, R},
		{`f() { rm -rf "$1"; }; f build`, ""},
		// writes through variables
		{`f=/etc/shadow; echo x > "$f"`, A},
		{`d=/etc; echo x >> $d/sudoers`, A},
		{`dev=/dev/sda; cat img > $dev`, W},
		{`t=/etc/passwd; cp x "$t"`, A},
		{`o=of=/dev/sda; dd if=x $o`, RuleDDDevice},
		{`f=out.txt; echo x > "$f"`, ""},
	})
}

// TestForkBombs: functions that reach themselves again and fork on the way, however the
// recursion is spelled.
func TestForkBombs(t *testing.T) {
	t.Parallel()
	p := mustNewWith(t, Blocklist)
	F := RuleForkBomb
	runCases(t, p, "/srv/work", []lineCase{
		{":(){ :|:& };:", F},
		{"a(){ b|b& }; b(){ a|a& }; a", F},
		{"a(){ b & }; b(){ c & }; c(){ a & a; }; a", F},
		{"a(){ b; }; b(){ a | a; }; a", F},
		{"f(){ f & f; }; f", F},
		{"f(){ (f); (f); }; f", F},
		{"f(){ echo $(f); }; f", F},
		{"f(){ cat <(f); }; f", F},
		{"f(){ eval 'f|f&'; }; f", F},
		{`f(){ eval "$FUNCNAME|$FUNCNAME&"; }; f`, F},
		{`f(){ "$FUNCNAME" & }; f`, RuleComputedCommand},
		{"f(){ bash -c 'f|f&'; }; export -f f; f", F},
		{"a(){ eval 'b&'; }; b(){ a; }; a", F},
		{"shopt -s expand_aliases\nalias b='f|f&'\nf(){ b; }\nf", F},
		{"f(){ coproc f; }; f", F},
		{"f(){ g; }; g(){ x=$(f); }; f", F},
		{"bash -c ':(){ :|:& };:'", F},
		{"eval ':(){ :|:& };:'", F},
		{"f(){ f; }; f", ""},                          // recursion without a fork: one process, bash stops it
		{"f(){ echo hi | cat; }; f; f", ""},           // a pipe, no recursion
		{"a(){ echo a | tr a b; }; b(){ a; }; b", ""}, // calls, no cycle
	})
}
