package oauth

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestUpdateWritesAtomicallyWithMode(t *testing.T) {
	tests := []struct {
		name    string
		dirMode os.FileMode
		want    os.FileMode
	}{
		{"private folder", 0o700, 0o600},
		{"group folder", 0o770 | os.ModeSetgid, 0o660},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(privateDir(t), "google")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			f := secretFile{Path: filepath.Join(dir, "token.json")}
			if _, _, err := f.Read(); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Read of a missing file: %v, want ErrNotExist", err)
			}
			if s, err := f.Stat(); err != nil || !s.IsZero() {
				t.Fatalf("Stat of a missing file = %v, %v", s, err)
			}
			wrote, err := f.Update(func(old []byte) ([]byte, error) {
				if old != nil {
					t.Errorf("old = %q, want nil", old)
				}
				return []byte(`{"a":1}`), nil
			})
			if err != nil || !wrote {
				t.Fatalf("Update = %v, %v", wrote, err)
			}
			data, stamp, err := f.Read()
			if err != nil || string(data) != `{"a":1}` {
				t.Fatalf("Read = %q, %v", data, err)
			}
			info, _ := os.Stat(f.Path)
			if info.Mode().Perm() != tt.want {
				t.Errorf("mode %o, want %o", info.Mode().Perm(), tt.want)
			}
			wrote, err = f.Update(func([]byte) ([]byte, error) { return nil, nil })
			if err != nil || wrote {
				t.Errorf("Update returning nil wrote=%v err=%v", wrote, err)
			}
			if s, _ := f.Stat(); s != stamp {
				t.Errorf("stamp changed without a write: %v → %v", stamp, s)
			}
			if _, err := f.Update(func([]byte) ([]byte, error) { return []byte(`{"a":2}`), nil }); err != nil {
				t.Fatal(err)
			}
			if s, _ := f.Stat(); s == stamp {
				t.Errorf("stamp unchanged after a write")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "token.json" && e.Name() != "token.json.lock" {
					t.Errorf("left behind %s", e.Name())
				}
			}
			if err := f.Remove(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(f.Path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("file still there after Remove: %v", err)
			}
		})
	}
}

// TestConcurrentUpdatesSerialize runs read-modify-write increments from many goroutines, each
// with its own lock file descriptor as separate processes would have: none may be lost.
func TestConcurrentUpdatesSerialize(t *testing.T) {
	f := secretFile{Path: filepath.Join(privateDir(t), "counter")}
	const n = 40
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.Update(func(old []byte) ([]byte, error) {
				v := 0
				if old != nil {
					var err error
					if v, err = strconv.Atoi(string(old)); err != nil {
						return nil, err
					}
				}
				return []byte(strconv.Itoa(v + 1)), nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, _, err := f.Read()
	if err != nil || string(data) != strconv.Itoa(n) {
		t.Fatalf("counter = %q, %v; want %d", data, err, n)
	}
}

func TestUpdateCreatesPrivateFolders(t *testing.T) {
	base := privateDir(t)
	path := filepath.Join(base, "state", "mcp-servers", "spotify", "token.json")
	if _, err := (secretFile{Path: path}).Update(func([]byte) ([]byte, error) { return []byte("x"), nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(base, "state"), filepath.Dir(path)} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 folder", p, info.Mode(), err)
		}
	}
	for _, p := range []string{path, path + ".lock"} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want 0600", p, info.Mode(), err)
		}
	}
}

func TestUpdateRefusesAnOpenFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "token.json")
	_, err := secretFile{Path: path}.Update(func([]byte) ([]byte, error) { return []byte("x"), nil })
	if err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Fatalf("Update in a 0755 folder: %v, want a refusal naming chmod 700", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the token was written anyway: %v", err)
	}
	if _, err := os.Lstat(path + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a lock file was made anyway: %v", err)
	}
}

func TestMissingFileIsNotExist(t *testing.T) {
	if _, _, err := (secretFile{Path: filepath.Join(privateDir(t), "none.json")}).Read(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want fs.ErrNotExist", err)
	}
}
