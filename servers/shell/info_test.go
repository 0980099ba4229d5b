package main

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

func TestGetPathInfo(t *testing.T) {
	_, cs, work := start(t)
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(work, "in-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(work, "out-link")); err != nil {
		t.Fatal(err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, typ, mode, target string
		size                    int64
		inRoots                 bool
	}{
		{path: "a.txt", typ: "file", mode: "0640", size: 5},
		{path: ".", typ: "dir", mode: "0700"},
		{path: "in-link", typ: "symlink", target: "a.txt", inRoots: true},
		{path: "out-link", typ: "symlink", target: "/etc/hostname"},
	}
	for _, tt := range tests {
		var out fileInfoOutput
		mcptest.Decode(t, mcptest.Call(t, cs, "get_path_info", map[string]any{"path": tt.path}), &out)
		if out.Type != tt.typ || out.SymlinkTarget != tt.target || out.TargetInRoots != tt.inRoots || out.Owner != me.Username || out.Modified == "" {
			t.Errorf("%s: %+v", tt.path, out)
		}
		if tt.mode != "" && out.Mode != tt.mode {
			t.Errorf("%s: mode %s, want %s", tt.path, out.Mode, tt.mode)
		}
		if tt.typ == "file" && out.Size != tt.size {
			t.Errorf("%s: size %d", tt.path, out.Size)
		}
	}
	for _, p := range []string{"/etc/hostname", "out-link/hostname", "../..", "/", "missing.txt"} {
		if res := mcptest.Call(t, cs, "get_path_info", map[string]any{"path": p}); !res.IsError {
			t.Errorf("%s: answered %s", p, mcptest.Text(res))
		}
	}
}

func TestListDirectory(t *testing.T) {
	_, cs, work := start(t)
	for _, p := range []string{"b/y/deep.txt", "b/x.txt", "a.txt", "c/z.txt"} {
		full := filepath.Join(work, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(work, "etc-link")); err != nil {
		t.Fatal(err)
	}
	paths := func(o listDirectoryOutput) string {
		var s []string
		for _, e := range o.Entries {
			s = append(s, e.Path+":"+e.Type)
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		args       map[string]any
		want       string
		nextOffset int
	}{
		{map[string]any{}, "a.txt:file b:dir c:dir etc-link:symlink", 0},
		{map[string]any{"depth": 2}, "a.txt:file b:dir b/x.txt:file b/y:dir c:dir c/z.txt:file etc-link:symlink", 0},
		{map[string]any{"depth": 3, "limit": 3}, "a.txt:file b:dir b/x.txt:file", 3},
		{map[string]any{"depth": 3, "limit": 3, "offset": 3}, "b/y:dir b/y/deep.txt:file c:dir", 6},
		{map[string]any{"depth": 3, "limit": 3, "offset": 6}, "c/z.txt:file etc-link:symlink", 0},
		{map[string]any{"path": "b"}, "x.txt:file y:dir", 0},
	}
	for _, tt := range tests {
		var out listDirectoryOutput
		mcptest.Decode(t, mcptest.Call(t, cs, "list_directory", tt.args), &out)
		if got := paths(out); got != tt.want || out.NextOffset != tt.nextOffset || out.Truncated != (tt.nextOffset != 0) {
			t.Errorf("%v: got %q next %d truncated %v, want %q next %d", tt.args, got, out.NextOffset, out.Truncated, tt.want, tt.nextOffset)
		}
	}
	var out listDirectoryOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "list_directory", map[string]any{}), &out)
	if out.Entries[0].Size != int64(len("a.txt")) || out.Entries[0].Modified == "" {
		t.Errorf("a.txt entry: %+v", out.Entries[0])
	}
	for _, args := range []map[string]any{{"path": "etc-link"}, {"path": "/etc"}, {"depth": 0}, {"depth": 11}, {"limit": 5000}} {
		if res := mcptest.Call(t, cs, "list_directory", args); !res.IsError {
			t.Errorf("%v: answered %s", args, mcptest.Text(res))
		}
	}
}
