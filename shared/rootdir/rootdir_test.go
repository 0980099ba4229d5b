package rootdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/swaptest"
)

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func TestEscapes(t *testing.T) {
	r, dir := openRoot(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x", "out/x"} {
		_, err := r.Open(name)
		if !Escapes(err) {
			t.Errorf("%s: %v is not recognised as an escape", name, err)
		}
	}
	if _, err := r.Open("missing"); Escapes(err) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestRel(t *testing.T) {
	tests := []struct{ p, want string }{
		{"a/b", "a/b"},
		{"/base/a/../b", "b"},
		{"/alias/c", "c"},
		{"/base", "."},
		{".", "."},
		{"a/../..", ""},
		{"/other/x", ""},
		{"/base2/x", ""},
		{"/base/../x", ""},
		{"", ""},
		{"a\x00", ""},
	}
	for _, tt := range tests {
		got, err := Rel(tt.p, "/base", "/alias")
		if (err != nil) != (tt.want == "") || got != tt.want {
			t.Errorf("Rel(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
		}
	}
}

func TestOpenCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if _, err := Open(dir, false); err == nil {
		t.Error("opened a missing directory without create")
	}
	r, err := Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("made %v, %v; want 0700", info.Mode(), err)
	}
	if _, err := Open("relative", true); err == nil {
		t.Error("opened a relative path")
	}
}

func TestSave(t *testing.T) {
	r, dir := openRoot(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "target"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "target"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		onExist    OnExist
		limit      int64
		wantName   string
		wantErr    string
	}{
		{"new file", "new.txt", Refuse, 100, "new.txt", ""},
		{"refuse an existing file", "old.txt", Refuse, 100, "", "file exists"},
		{"replace an existing file", "old.txt", Replace, 100, "old.txt", ""},
		{"next free name", "old.txt", NextFree, 100, "old (1).txt", ""},
		{"next free name again", "old.txt", NextFree, 100, "old (2).txt", ""},
		{"replace a symlink, not its target", "link", Replace, 100, "link", ""},
		{"over the limit", "big.txt", Refuse, 3, "", "over the size limit"},
		{"outside", "../x", Refuse, 100, "", "escapes"},
		{"no name", ".", Refuse, 100, "", "not a file name"},
	}
	for _, tt := range tests {
		name, n, err := Save(r, tt.file, strings.NewReader("data"), tt.limit, 0o640, tt.onExist)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: %q, %v; want error %q", tt.name, name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || name != tt.wantName || n != 4 {
			t.Errorf("%s: %q, %d, %v; want %q", tt.name, name, n, err, tt.wantName)
			continue
		}
		info, err := os.Lstat(filepath.Join(dir, name))
		if b, _ := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "data" || info.Mode() != 0o640 {
			t.Errorf("%s: %s holds %q, mode %v", tt.name, name, b, info.Mode())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "target")); string(b) != "outside" {
		t.Errorf("the symlink's target outside was written: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestPlace(t *testing.T) {
	r, dir := openRoot(t)
	for _, name := range []string{"a.txt", "b", "c"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Place(r, "b", "a.txt", NextFree); err != nil || got != "a (1).txt" {
		t.Errorf("Place next free: %q, %v", got, err)
	}
	if _, err := Place(r, "c", "a.txt", Refuse); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Place refusing a taken name: %v", err)
	}
	for name, want := range map[string]string{"a.txt": "a.txt", "a (1).txt": "b", "c": "c"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s holds %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the placed file is still at its old name: %v", err)
	}
}

func TestTemp(t *testing.T) {
	r, dir := openRoot(t)
	f, name, err := CreateTemp(r, "", ".x.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !strings.HasPrefix(name, ".x.tmp-") || len(name) <= len(".x.tmp-") {
		t.Errorf("temporary file %q", name)
	}
	d, err := MkdirTemp(r, "", "d-*")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, d)); err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Errorf("temporary directory %q: %v %v", d, info, err)
	}
	for _, bad := range []string{"a/*", "../*"} {
		if _, _, err := CreateTemp(r, "", bad); err == nil {
			t.Errorf("CreateTemp(%q) accepted", bad)
		}
		if _, err := MkdirTemp(r, "", bad); err == nil {
			t.Errorf("MkdirTemp(%q) accepted", bad)
		}
	}
	if _, _, err := CreateTemp(r, "..", "x-*"); !Escapes(err) {
		t.Errorf("a temporary file outside the root: %v", err)
	}
}

func TestRename(t *testing.T) {
	a, adir := openRoot(t)
	b, bdir := openRoot(t)
	for _, p := range []string{filepath.Join(adir, "f"), filepath.Join(adir, "g"), filepath.Join(bdir, "taken")} {
		if err := os.WriteFile(p, []byte(filepath.Base(p)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Rename(a, "f", b, "moved", true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(bdir, "moved")); string(b) != "f" {
		t.Errorf("moved holds %q", b)
	}
	if err := Rename(a, "g", b, "taken", true); !errors.Is(err, fs.ErrExist) {
		t.Errorf("no-replace over an existing file: %v", err)
	}
	if err := Rename(a, "g", b, "taken", false); err != nil {
		t.Errorf("replace: %v", err)
	}
	for _, bad := range [][2]string{{"../x", "y"}, {"x", "a/b"}, {".", "y"}, {"x", ""}} {
		if err := Rename(a, bad[0], b, bad[1], true); err == nil || !strings.Contains(err.Error(), "not one path element") {
			t.Errorf("Rename(%q, %q): %v", bad[0], bad[1], err)
		}
	}
}

func TestRemoveDir(t *testing.T) {
	r, dir := openRoot(t)
	for _, d := range []string{"empty", "full/x", "target"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("target", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ok   bool
	}{{"empty", true}, {"full", false}, {"link", false}, {"missing", false}, {"..", false}, {"../x", false}}
	for _, tt := range tests {
		if err := RemoveDir(r, tt.name); (err == nil) != tt.ok {
			t.Errorf("RemoveDir(%q): %v", tt.name, err)
		}
	}
	for _, kept := range []string{"full/x", "link", "target"} {
		if _, err := os.Lstat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s was removed", kept)
		}
	}
}

// TestSaveAgainstSwaps saves into a directory below the root while it is swapped for a
// symlink to a sentinel outside; nothing may land there.
func TestSaveAgainstSwaps(t *testing.T) {
	r, dir := openRoot(t)
	s := swaptest.NewSentinel(t, "f")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	sw := swaptest.Start(t, swaptest.SymlinkSwap(t, filepath.Join(dir, "d"), s.Dir))
	saved := 0
	swaptest.Loop(time.Second, func(i int) {
		for _, onExist := range []OnExist{Replace, Refuse, NextFree} {
			if _, _, err := Save(r, "d/f", strings.NewReader("x"), 10, 0o600, onExist); err == nil {
				saved++
			}
		}
	})
	sw.Stop(t)
	s.Check(t)
	if saved == 0 {
		t.Error("nothing was saved inside the root while the directory was swapped back and forth")
	}
}
