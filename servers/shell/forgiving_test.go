package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestSkippedDirsNamed: find_files and search_text do not enter .git and node_modules unless
// include_all_dirs is set, and their text says which folders they left out and how to enter.
func TestSkippedDirsNamed(t *testing.T) {
	_, cs, work := start(t)
	files := map[string]string{"app/main.js": "const token = 1\n", ".git/HEAD": "token\n"}
	for _, dep := range []string{"a", "b", "c", "d", "e", "f"} {
		files["pkgs/"+dep+"/node_modules/x/token.js"] = "token\n"
	}
	tree(t, work, files)
	tests := []struct {
		tool      string
		args      map[string]any
		wantText  []string
		wantNot   string
		wantFound int
	}{
		{"search_text", map[string]any{"pattern": "token"}, []string{"app/main.js:1:const token = 1", "[not entered: .git, pkgs/a/node_modules", "and 2 more; include_all_dirs enters them]"}, "HEAD", 1},
		{"search_text", map[string]any{"pattern": "token", "include_all_dirs": true}, []string{".git/HEAD:1:token", "pkgs/f/node_modules/x/token.js:1:token"}, "not entered", 8},
		{"find_files", map[string]any{"pattern": "token*"}, []string{"no matches", "[not entered: .git, pkgs/a/node_modules"}, "token.js", 0},
		{"find_files", map[string]any{"pattern": "token*", "include_all_dirs": true}, []string{"pkgs/a/node_modules/x/token.js"}, "not entered", 6},
		// A skipped folder is still listed when its name matches; it is only not entered.
		{"find_files", map[string]any{"pattern": ".git", "type": "dir"}, []string{".git/\n"}, "HEAD", 1},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		text := mcptest.Text(res)
		for _, w := range tt.wantText {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: text lacks %q:\n%s", tt.tool, tt.args, w, text)
			}
		}
		if strings.Contains(text, tt.wantNot) {
			t.Errorf("%s %v: text has %q:\n%s", tt.tool, tt.args, tt.wantNot, text)
		}
		var out struct {
			Matches []textMatch `json:"matches"`
			Files   []fileEntry `json:"files"`
		}
		mcptest.Decode(t, res, &out)
		if n := len(out.Matches) + len(out.Files); n != tt.wantFound {
			t.Errorf("%s %v: found %d, want %d", tt.tool, tt.args, n, tt.wantFound)
		}
	}
}

// TestWriteCreateParents: writing into a missing folder says to set create_parents, which
// makes the folders (inside the roots only) and says which it made.
func TestWriteCreateParents(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{"plain": "x"})
	res := mcptest.Call(t, cs, "write_text_file", map[string]any{"path": "notes/2026/todo.md", "content": "- a\n"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "folder "+filepath.Join(work, "notes")+" does not exist; set create_parents") {
		t.Errorf("write into a missing folder: %s", mcptest.Text(res))
	}
	if _, err := os.Stat(filepath.Join(work, "notes")); err == nil {
		t.Error("a refused write made a folder")
	}

	res = mcptest.Call(t, cs, "write_text_file", map[string]any{"path": "notes/2026/todo.md", "content": "- a\n", "create_parents": true})
	if res.IsError || !strings.Contains(mcptest.Text(res), "made folder "+filepath.Join(work, "notes")) {
		t.Errorf("create_parents: %s", mcptest.Text(res))
	}
	if got := readAll(t, filepath.Join(work, "notes/2026/todo.md")); got != "- a\n" {
		t.Errorf("written %q", got)
	}
	// The folder exists now: nothing made, nothing said.
	res = mcptest.Call(t, cs, "write_text_file", map[string]any{"path": "notes/2026/done.md", "content": "", "create_parents": true})
	if res.IsError || strings.Contains(mcptest.Text(res), "made folder") {
		t.Errorf("second write: %s", mcptest.Text(res))
	}

	for _, tt := range []struct{ path, want string }{
		{"plain/sub/f.txt", "not a directory"},
		{"/tmp/mcp-outside-" + filepath.Base(work) + "/f.txt", "outside the allowed roots"},
	} {
		res := mcptest.Call(t, cs, "write_text_file", map[string]any{"path": tt.path, "content": "x", "create_parents": true})
		if !res.IsError || !strings.Contains(mcptest.Text(res), tt.want) {
			t.Errorf("%s: %s, want an error saying %q", tt.path, mcptest.Text(res), tt.want)
		}
	}
	if _, err := os.Stat("/tmp/mcp-outside-" + filepath.Base(work)); err == nil {
		t.Error("create_parents made a folder outside the roots")
	}
}

// TestReadTextFileTextHasHash: the text of read_text_file carries the sha256 write_text_file
// and edit_file take, and where to read on, not only the structured result.
func TestReadTextFileTextHasHash(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	var w writeTextFileOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "write_text_file", map[string]any{"path": "b.txt", "content": "one\ntwo\nthree\n"}), &w)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "a.txt"}, "one\ntwo\nthree\n[sha256 " + w.SHA256 + "]"},
		{map[string]any{"path": "a.txt", "limit": 1}, "one\n[lines 1-1 shown; continue with offset 2; sha256 " + w.SHA256 + "]"},
	} {
		if got := mcptest.Text(mcptest.Call(t, cs, "read_text_file", tt.args)); got != tt.want {
			t.Errorf("%v: text %q, want %q", tt.args, got, tt.want)
		}
	}
}
