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
	links := map[string]string{
		"link-in": filepath.Join(root, "dir"), "link-out": outside, "dangling": filepath.Join(outside, "nope"), "rel-out": "../outside",
		"rel-in": "dir", "dir/up": "..", "dangling-in": "missing", "loop": "loop", "chain": "link-in/../rel-in",
	}
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
		{"link-in", filepath.Join(root, "dir")},
		{"rel-in/file", filepath.Join(root, "dir", "file")},
		{"dir/up/dir/file", filepath.Join(root, "dir", "file")},
		{"chain/file", filepath.Join(root, "dir", "file")},
		{"link-in/new/deeper", filepath.Join(root, "dir", "new", "deeper")},
		{"dangling-in", ""},
		{"dangling-in/x", ""},
		{"loop", ""},
		{"dir/up/../x", filepath.Join(root, "dir", "x")}, // ".." is taken lexically first, as before any symlink
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
					t.Fatalf("resolved to %s, want refusal", got.Abs)
				}
				return
			}
			if err != nil || got.Abs != tt.want {
				t.Fatalf("got %q, %v; want %q", got.Abs, err, tt.want)
			}
			if rel, _ := filepath.Rel(root, tt.want); got.Rel != rel {
				t.Errorf("name below the root %q, want %q", got.Rel, rel)
			}
		})
	}
	_, err = r.Resolve("../outside", root)
	var oe *OutsideError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "outside the allowed roots") {
		t.Errorf("escape error %v", err)
	}
	_, err = r.Resolve("link-out/secret", root)
	if want := "the symlink " + filepath.Join(root, "link-out") + " points to " + outside; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("escape through a symlink: %v; want it to say %q", err, want)
	}
}

func TestEntry(t *testing.T) {
	root, outside := layout(t)
	other := filepath.Join(filepath.Dir(root), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other), filepath.Join(root, "to-other")); err != nil {
		t.Fatal(err)
	}
	r, err := New([]string{root, other})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		path, want string // want "" means refused
		isRoot     bool
	}{
		{"link-out", filepath.Join(root, "link-out"), false},
		{"dangling", filepath.Join(root, "dangling"), false},
		{"link-in/file", filepath.Join(root, "dir", "file"), false},
		{root, root, true},
		{"to-other", other, true}, // a symlink to a root is that root, which move and delete refuse
		{"to-other/x", filepath.Join(other, "x"), false},
		{"link-out/secret", "", false},
		{outside, "", false},
		{"/", "", false},
	}
	for _, tt := range tests {
		got, err := r.Entry(tt.path, root)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s: resolved to %s, want refusal", tt.path, got.Abs)
		case tt.want != "" && (err != nil || got.Abs != tt.want || got.IsRoot() != tt.isRoot):
			t.Errorf("%s: got %q (root %v), %v; want %q", tt.path, got.Abs, got.IsRoot(), err, tt.want)
		}
	}
	p, err := r.Entry("to-other/x", root)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Root.WriteFile(p.Rel, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(other, "x")); err != nil || string(b) != "y" {
		t.Errorf("written through the other root: %q %v", b, err)
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
	if p, err := r.Resolve(filepath.Join(root, "link-in", "file"), "/"); err != nil || p.Abs != filepath.Join(root, "dir", "file") {
		t.Errorf("a path spelled through the root as given: %q, %v", p.Abs, err)
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
		p2, err := r.Resolve(p, root)
		if err != nil {
			return
		}
		got := p2.Abs
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
