package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// tree makes files (path: content) under dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

func readAll(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func TestMovePath(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{"a.txt": "A", "b.txt": "B", "d/x.txt": "X", "full/y": "Y"})
	if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
		check   func() bool
	}{
		{"rename a file", map[string]any{"source": "a.txt", "destination": "a2.txt"}, "", func() bool { return readAll(t, filepath.Join(work, "a2.txt")) == "A" }},
		{"refuse to replace", map[string]any{"source": "a2.txt", "destination": "b.txt"}, "set overwrite", func() bool { return readAll(t, filepath.Join(work, "b.txt")) == "B" }},
		{"replace with overwrite", map[string]any{"source": "a2.txt", "destination": "b.txt", "overwrite": true}, "", func() bool { return readAll(t, filepath.Join(work, "b.txt")) == "A" }},
		{"move a directory", map[string]any{"source": "d", "destination": "d2"}, "", func() bool { return readAll(t, filepath.Join(work, "d2/x.txt")) == "X" }},
		{"into itself", map[string]any{"source": "d2", "destination": "d2/sub"}, "inside it", nil},
		{"onto a non-empty directory", map[string]any{"source": "d2", "destination": "full", "overwrite": true}, "non-empty directory", nil},
		{"out of the roots", map[string]any{"source": "b.txt", "destination": "/tmp/moved-out"}, "outside", nil},
		{"from outside the roots", map[string]any{"source": "/etc/hostname", "destination": "h"}, "outside", nil},
		{"the root itself", map[string]any{"source": ".", "destination": "w2"}, "allowed root itself", nil},
		{"missing source", map[string]any{"source": "nope", "destination": "n2"}, "does not exist", nil},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, "move_path", tt.args)
		if (tt.wantErr != "") != res.IsError || !strings.Contains(mcptest.Text(res), tt.wantErr) {
			t.Errorf("%s: got %q, want error %q", tt.name, mcptest.Text(res), tt.wantErr)
		}
		if tt.check != nil && !tt.check() {
			t.Errorf("%s: the files are not as expected", tt.name)
		}
	}
}

func TestCopyPath(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{"a.txt": "A", "b.txt": "B", "d/x.txt": "X", "d/sub/y.txt": "Y"})
	if err := os.Symlink("/etc/hostname", filepath.Join(work, "d", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(work, "etc-link")); err != nil {
		t.Fatal(err)
	}
	var out pathOpOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "copy_path", map[string]any{"source": "d", "destination": "d2"}), &out)
	if out.Entries != 5 || out.Bytes != 2 || readAll(t, filepath.Join(work, "d2/sub/y.txt")) != "Y" {
		t.Errorf("tree copy: %+v", out)
	}
	if l, err := os.Readlink(filepath.Join(work, "d2", "link")); err != nil || l != "/etc/hostname" {
		t.Errorf("symlink copied as %q %v", l, err)
	}
	if info, err := os.Stat(filepath.Join(work, "d2/x.txt")); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode: %v %v", info, err)
	}
	tests := []struct {
		name    string
		args    map[string]any
		wantErr string
	}{
		{"a file", map[string]any{"source": "a.txt", "destination": "c.txt"}, ""},
		{"refuse to replace", map[string]any{"source": "a.txt", "destination": "b.txt"}, "set overwrite"},
		{"replace with overwrite", map[string]any{"source": "a.txt", "destination": "b.txt", "overwrite": true}, ""},
		{"onto a directory", map[string]any{"source": "d", "destination": "d2", "overwrite": true}, "never replaced"},
		{"into itself", map[string]any{"source": "d", "destination": "d/inner"}, "inside it"},
		{"the root into itself", map[string]any{"source": ".", "destination": "copy"}, "allowed root itself"},
		{"through a symlink out", map[string]any{"source": "etc-link", "destination": "etc-copy"}, "outside"},
		{"from outside", map[string]any{"source": "/etc/hostname", "destination": "h"}, "outside"},
		{"to outside", map[string]any{"source": "a.txt", "destination": "/tmp/copied-out"}, "outside"},
	}
	for _, tt := range tests {
		res := mcptest.Call(t, cs, "copy_path", tt.args)
		if (tt.wantErr != "") != res.IsError || !strings.Contains(mcptest.Text(res), tt.wantErr) {
			t.Errorf("%s: got %q, want error %q", tt.name, mcptest.Text(res), tt.wantErr)
		}
	}
	if readAll(t, filepath.Join(work, "c.txt")) != "A" || readAll(t, filepath.Join(work, "b.txt")) != "A" {
		t.Error("file copies wrong")
	}
	entries, _ := os.ReadDir(work)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary left behind: %s", e.Name())
		}
	}
}

func TestCopyPathCap(t *testing.T) {
	_, cs, work := start(t)
	files := map[string]string{}
	for i := range maxCopyEntries + 1 {
		files[fmt.Sprintf("big/%02d/%d", i%50, i)] = ""
	}
	tree(t, work, files)
	res := mcptest.Call(t, cs, "copy_path", map[string]any{"source": "big", "destination": "big2"})
	if !res.IsError || !strings.Contains(mcptest.Text(res), "entries") {
		t.Errorf("over the cap: %s", mcptest.Text(res))
	}
	if _, err := os.Stat(filepath.Join(work, "big2")); err == nil {
		t.Error("a partial copy was left")
	}
}

func TestDeletePath(t *testing.T) {
	_, cs, work := start(t)
	tree(t, work, map[string]string{"a.txt": "A", "d/x.txt": "X", "d/sub/y.txt": "Y"})
	if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, "d"), filepath.Join(work, "d-link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		recursive  bool
		wantErr    string
		gone       string
	}{
		{"a file", "a.txt", false, "", "a.txt"},
		{"a symlink, not its target", "d-link", true, "", "d-link"},
		{"a non-empty directory without recursive", "d", false, "set recursive", ""},
		{"an empty directory", "empty", false, "", "empty"},
		{"a tree with recursive", "d", true, "", "d"},
		{"the root", ".", true, "allowed root itself", ""},
		{"the root by absolute path", work, true, "allowed root itself", ""},
		{"outside", "/etc/hostname", false, "outside", ""},
		{"missing", "nope", false, "does not exist", ""},
	}
	for _, tt := range tests {
		if tt.name == "a tree with recursive" {
			if _, err := os.Stat(filepath.Join(work, "d", "sub", "y.txt")); err != nil {
				t.Fatalf("deleting the symlink touched its target: %v", err)
			}
		}
		res := mcptest.Call(t, cs, "delete_path", map[string]any{"path": tt.path, "recursive": tt.recursive})
		if (tt.wantErr != "") != res.IsError || !strings.Contains(mcptest.Text(res), tt.wantErr) {
			t.Errorf("%s: got %q, want error %q", tt.name, mcptest.Text(res), tt.wantErr)
		}
		if tt.gone != "" {
			if _, err := os.Lstat(filepath.Join(work, tt.gone)); err == nil {
				t.Errorf("%s: %s still there", tt.name, tt.gone)
			}
		}
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("work dir gone: %v", err)
	}
}

func TestCopyBudget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "src"), []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, tt := range []struct {
		budget, left int64
		ok           bool
	}{{5, 0, true}, {4, -1, false}} {
		dst, err := os.OpenRoot(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		budget := tt.budget
		err = copyFile(t.Context(), src, dst, "src", 0o600, &budget)
		if (err == nil) != tt.ok || budget != tt.left {
			t.Errorf("budget %d: err %v, left %d", tt.budget, err, budget)
		}
	}
}
