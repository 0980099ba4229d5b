package resolver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout builds root/{dir/file, link-in -> dir, link-out -> outside, dangling -> nowhere} and
// a sibling directory outside the root.
func layout(t testing.TB) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "dir", "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"link-in": filepath.Join(root, "dir"), "link-out": outside, "dangling": filepath.Join(outside, "nope"), "rel-out": "../outside"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestResolve(t *testing.T) {
	root, outside := layout(t)
	r, err := New([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" means refused
	}{
		{"dir/file", filepath.Join(root, "dir", "file")},
		{".", root},
		{"", ""},
		{filepath.Join(root, "dir"), filepath.Join(root, "dir")},
		{"dir/new.txt", filepath.Join(root, "dir", "new.txt")},
		{"dir/a/b/c", filepath.Join(root, "dir", "a", "b", "c")},
		{"link-in/file", filepath.Join(root, "dir", "file")},
		{"dir/../dir/file", filepath.Join(root, "dir", "file")},
		{"..", ""},
		{"../outside/secret", ""},
		{"dir/../../outside", ""},
		{outside, ""},
		{"/etc/passwd", ""},
		{"/", ""},
		{"link-out/secret", ""},
		{"link-out", ""},
		{"rel-out/secret", ""},
		{"link-out/new", ""},
		{"dangling", ""},
		{"dangling/x", ""},
		{"dir/file/x", ""},
		{"a\x00b", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := r.Resolve(tt.path, root)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("resolved to %s, want refusal", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	_, err = r.Resolve("../outside", root)
	var oe *OutsideError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "outside the allowed roots") {
		t.Errorf("escape error %v", err)
	}
}

func TestNew(t *testing.T) {
	root, _ := layout(t)
	file := filepath.Join(root, "dir", "file")
	for _, dirs := range [][]string{nil, {"relative"}, {file}, {filepath.Join(root, "missing")}} {
		if _, err := New(dirs); err == nil {
			t.Errorf("New(%q) accepted", dirs)
		}
	}
	r, err := New([]string{filepath.Join(root, "link-in")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Dirs(); len(got) != 1 || got[0] != filepath.Join(root, "dir") {
		t.Errorf("roots %q, want the symlink resolved", got)
	}
	if !r.Contains(filepath.Join(root, "dir", "x")) || r.Contains(filepath.Join(root, "dirx")) {
		t.Error("Contains is wrong about a sibling with a common prefix")
	}
}

// FuzzResolve checks that whatever path comes in, a resolved path is inside the root, and so
// is the real path of the part of it that exists.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"dir/file", "..", "link-out/secret", "/etc", "dir/../../x", "dangling", "rel-out", "./link-in/../../outside", "dir//file/"} {
		f.Add(s)
	}
	root, _ := layout(f)
	r, err := New([]string{root})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := r.Resolve(p, root)
		if err != nil {
			return
		}
		if !r.Contains(got) || !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("%q resolved to %q, outside the root %s", p, got, root)
		}
		existing := got
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			existing = filepath.Dir(existing)
		}
		real, err := filepath.EvalSymlinks(existing)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		if !r.Contains(real) {
			t.Fatalf("%q resolved to %q whose existing part %q is really %q, outside the root", p, got, existing, real)
		}
	})
}
