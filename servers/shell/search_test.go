package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestSearchText(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{
		"main.go":           "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
		"lib/util.go":       "package lib\n// hello there\nvar x = 1 // a.b\n",
		"lib/util_test.go":  "package lib\n// hello test\n",
		"docs/readme.md":    "Hello docs\nno match\nhello again\n",
		".git/config":       "hello from git\n",
		"vendor/dep/dep.go": "hello vendored\n",
		"bin.dat":           "hello\x00binary\n",
	})
	if err := os.Symlink("/etc", filepath.Join(work, "etc-link")); err != nil {
		t.Fatal(err)
	}
	list := func(o searchTextOutput) string {
		var s []string
		for _, m := range o.Matches {
			s = append(s, fmt.Sprintf("%s:%d", m.Path, m.Line))
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		name string
		args map[string]any
		want string
		next int
	}{
		{"literal, case-sensitive; .git not entered", map[string]any{"pattern": "hello"}, "docs/readme.md:3 lib/util.go:2 lib/util_test.go:2 vendor/dep/dep.go:1", 0},
		{"include_all_dirs enters .git", map[string]any{"pattern": "hello", "include_all_dirs": true}, ".git/config:1 docs/readme.md:3 lib/util.go:2 lib/util_test.go:2 vendor/dep/dep.go:1", 0},
		{"ignore case", map[string]any{"pattern": "hello", "ignore_case": true, "exclude": []string{".git", "vendor"}}, "docs/readme.md:1 docs/readme.md:3 lib/util.go:2 lib/util_test.go:2 main.go:4", 0},
		{"literal dot is not a wildcard", map[string]any{"pattern": "a.b"}, "lib/util.go:3", 0},
		{"regex", map[string]any{"pattern": `^func \w+\(`, "regex": true}, "main.go:3", 0},
		{"include globs", map[string]any{"pattern": "hello", "include": []string{"*.go"}, "exclude": []string{"*_test.go", "vendor"}}, "lib/util.go:2", 0},
		{"include by path", map[string]any{"pattern": "hello", "ignore_case": true, "include": []string{"docs/*"}}, "docs/readme.md:1 docs/readme.md:3", 0},
		{"first page", map[string]any{"pattern": "hello", "ignore_case": true, "max_results": 2}, "docs/readme.md:1 docs/readme.md:3", 2},
		{"second page", map[string]any{"pattern": "hello", "ignore_case": true, "max_results": 2, "offset": 2}, "lib/util.go:2 lib/util_test.go:2", 4},
		{"anchored to each line", map[string]any{"pattern": `\Apackage lib\z`, "regex": true}, "lib/util.go:1 lib/util_test.go:1", 0},
		{"under a root", map[string]any{"pattern": "package", "root": "lib"}, "util.go:1 util_test.go:1", 0},
	}
	for _, tt := range tests {
		var out searchTextOutput
		mcptest.Decode(t, mcptest.Call(t, cs, "search_text", tt.args), &out)
		if got := list(out); got != tt.want || out.NextOffset != tt.next || out.Truncated != (tt.next != 0) {
			t.Errorf("%s: got %q next %d truncated %v, want %q next %d", tt.name, got, out.NextOffset, out.Truncated, tt.want, tt.next)
		}
	}
	var out searchTextOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "search_text", map[string]any{"pattern": "Hello", "include": []string{"main.go"}}), &out)
	if len(out.Matches) != 1 || out.Matches[0].Text != "\tprintln(\"Hello\")" {
		t.Errorf("match text: %+v", out.Matches)
	}
	for _, args := range []map[string]any{
		{"pattern": "(", "regex": true},
		{"pattern": "x", "include": []string{"["}},
		{"pattern": "x", "root": "etc-link"},
		{"pattern": "x", "root": "/etc"},
		{"pattern": ""},
		{"pattern": "x", "max_results": 1001},
	} {
		if res := mcptest.Call(t, cs, "search_text", args); !res.IsError {
			t.Errorf("%v: answered %s", args, mcptest.Text(res))
		}
	}
}

func TestSearchTextTimeLimit(t *testing.T) {
	work := t.TempDir()
	makeTree(t, work, 2000)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out searchTextOutput
	dir, err := os.OpenRoot(work)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	s := searcher{dir: dir, re: mustLiteral("needle"), limit: 10, out: &out}
	if err := s.file(ctx, "d0/f0.txt"); err == nil {
		t.Error("a cancelled search read on")
	}
}
