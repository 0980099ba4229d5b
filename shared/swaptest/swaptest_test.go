package swaptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(dir string) error
		want   string // "" means no change is reported
	}{
		{"nothing", func(string) error { return nil }, ""},
		{"read", func(dir string) error { _, err := os.ReadFile(filepath.Join(dir, "secret")); return err }, ""},
		{"create", func(dir string) error { return os.WriteFile(filepath.Join(dir, "new"), nil, 0o600) }, "created outside the roots: "},
		{"create and remove", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "tmp"), nil, 0o600); err != nil {
				return err
			}
			return os.Remove(filepath.Join(dir, "tmp"))
		}, "changed outside the roots: "},
		{"rewrite", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "sub", "secret"), []byte("other"), 0o600)
		}, "changed outside the roots: "},
		{"touch", func(dir string) error {
			return os.Chtimes(filepath.Join(dir, "secret"), time.Time{}, time.Now().Add(time.Hour))
		}, "changed outside the roots: "},
		{"chmod", func(dir string) error { return os.Chmod(filepath.Join(dir, "secret"), 0o644) }, "changed outside the roots: "},
		{"remove", func(dir string) error { return os.Remove(filepath.Join(dir, "secret")) }, "removed outside the roots: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSentinel(t, "secret", "sub/secret")
			time.Sleep(10 * time.Millisecond) // a time stamp tick apart from the snapshot
			if err := tt.change(s.Dir); err != nil {
				t.Fatal(err)
			}
			changes, err := s.Changes()
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(changes, "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("changes %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCopies(t *testing.T) {
	s := NewSentinel(t, "secret")
	dir := t.TempDir()
	for name, content := range map[string]string{"a": "harmless", "b": "x" + s.Secret + "y"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(s.Dir, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if got := s.Copies(dir); len(got) != 1 || filepath.Base(got[0]) != "b" {
		t.Errorf("copies %q, want only b (a symlink is not followed)", got)
	}
}

// TestDetects checks that the swapper and the sentinel catch what they are for: plain
// path-string code (os.ReadFile, os.WriteFile) racing a swapped directory reads and writes
// outside, within a few seconds.
func TestDetects(t *testing.T) {
	for _, rename := range []bool{false, true} {
		s := NewSentinel(t, "secret")
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "d", "secret"), []byte("inside"), 0o600); err != nil {
			t.Fatal(err)
		}
		swap := SymlinkSwap(t, filepath.Join(dir, "d"), s.Dir)
		if rename {
			swap = RenameAway(filepath.Join(dir, "d"), s.Dir)
		}
		sw := Start(t, swap)
		read, wrote := false, false
		deadline := time.Now().Add(10 * time.Second)
		for (!read || !wrote) && time.Now().Before(deadline) {
			if b, err := os.ReadFile(filepath.Join(dir, "d", "secret")); err == nil && string(b) == s.Secret {
				read = true
			}
			if os.WriteFile(filepath.Join(dir, "d", "new"), []byte("x"), 0o600) == nil {
				if changes, _ := s.Changes(); len(changes) > 0 {
					wrote = true
				}
			}
		}
		if n := sw.Stop(t); !read || !wrote {
			t.Errorf("rename %v: plain path code was not caught in %d swaps (read outside %v, wrote outside %v)", rename, n, read, wrote)
		}
	}
}

// TestStopRestores checks that after Stop the swapped paths are as they were.
func TestStopRestores(t *testing.T) {
	s := NewSentinel(t)
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		sw := Start(t, SymlinkSwap(t, d, s.Dir))
		time.Sleep(time.Millisecond)
		sw.Stop(t)
		if info, err := os.Lstat(d); err != nil || !info.IsDir() {
			t.Fatalf("after Stop, %s is %v, %v; want the directory", d, info.Mode(), err)
		}
		if err := os.Remove(d + ".swap"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoop(t *testing.T) {
	if n := Loop(0, func(int) {}); n != 1 {
		t.Errorf("Loop(0) ran %d times, want once", n)
	}
	start := time.Now()
	n := Loop(50*time.Millisecond, func(int) { time.Sleep(time.Millisecond) })
	if n < 2 || time.Since(start) < 50*time.Millisecond {
		t.Errorf("Loop ran %d times in %s", n, time.Since(start))
	}
}
