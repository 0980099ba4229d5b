// Package swaptest races code that takes paths against a goroutine that swaps what the paths
// name: a directory for a symlink to outside and back, a file for a symlink, a directory
// renamed away. A Sentinel is the tree outside the roots that such code must never create
// in, change or read; the tests of every server that takes a path from a caller use both.
package swaptest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Sentinel is a directory outside the roots holding files of secret content, recorded when
// it is made so that Check can tell whether anything there was created, removed or changed.
type Sentinel struct {
	Dir    string // the sentinel directory
	Secret string // the content of every sentinel file; no result may hold it
	state  map[string]entry
}

type entry struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
	sum   [32]byte
	link  string
}

// NewSentinel makes a sentinel directory holding the files names (slash-separated, parents
// made as needed), each 0600 and holding the secret.
func NewSentinel(t testing.TB, names ...string) *Sentinel {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &Sentinel{Dir: dir, Secret: "sentinel-secret-" + rand.Text()}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s.Secret), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if s.state, err = snapshot(dir); err != nil {
		t.Fatalf("sentinel: %v", err)
	}
	return s
}

// snapshot records every entry under dir, not following symlinks.
func snapshot(dir string) (map[string]entry, error) {
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{mode: info.Mode(), size: info.Size(), mtime: info.ModTime()}
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(b)
		case info.Mode()&fs.ModeSymlink != 0:
			if e.link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		out[p] = e
		return nil
	})
	return out, err
}

// Changes lists every entry of the sentinel created, removed or changed (mode, size,
// modification time, content or link target) since NewSentinel. A directory's time changes
// when an entry is made in it, even one removed since.
func (s *Sentinel) Changes() ([]string, error) {
	now, err := snapshot(s.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for p, e := range now {
		was, ok := s.state[p]
		switch {
		case !ok:
			out = append(out, "created outside the roots: "+p)
		case was != e:
			out = append(out, fmt.Sprintf("changed outside the roots: %s (%v %d %s -> %v %d %s)", p, was.mode, was.size, was.mtime.Format(time.RFC3339Nano), e.mode, e.size, e.mtime.Format(time.RFC3339Nano)))
		}
	}
	for p := range s.state {
		if _, ok := now[p]; !ok {
			out = append(out, "removed outside the roots: "+p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Check fails t for every change Changes finds.
func (s *Sentinel) Check(t testing.TB) {
	t.Helper()
	changes, err := s.Changes()
	if err != nil {
		t.Fatalf("sentinel: %v", err)
	}
	for _, c := range changes {
		t.Error(c)
	}
}

// CheckText fails t when text, the result of what, holds the secret.
func (s *Sentinel) CheckText(t testing.TB, what, text string) {
	t.Helper()
	if strings.Contains(text, s.Secret) {
		t.Errorf("%s read a file outside the roots: its result holds the sentinel's secret", what)
	}
}

// Copies lists the regular files under dir (symlinks not followed) that hold the secret:
// copied in from outside the roots.
func (s *Sentinel) Copies(dir string) []string {
	secret := []byte(s.Secret)
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, secret) {
				out = append(out, p)
			}
		}
		return nil // an unreadable entry holds nothing to find
	})
	return out
}

// CheckTree fails t for every file Copies finds under dir.
func (s *Sentinel) CheckTree(t testing.TB, dir string) {
	t.Helper()
	for _, p := range s.Copies(dir) {
		t.Errorf("%s holds the sentinel's secret: it was copied from outside the roots", p)
	}
}

// Swapper runs one swap over and over in a goroutine until stopped.
type Swapper struct {
	stop  chan struct{}
	done  chan struct{}
	swaps int
	err   error
}

// Start runs swap in a loop until Stop (or the end of the test). Swaps run in pairs, and a
// swap run twice must leave things as they were (Exchange does; RenameAway restores each
// time), so after Stop the paths are as before Start. A swap that fails stops the loop;
// Stop reports it.
func Start(t testing.TB, swap func() error) *Swapper {
	s := &Swapper{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			default:
			}
			for range 2 {
				if err := swap(); err != nil {
					s.err = err
					return
				}
				s.swaps++
			}
		}
	}()
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop ends the loop, waits for it, fails t if a swap failed, and returns how many swaps ran.
func (s *Swapper) Stop(t testing.TB) int {
	t.Helper()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	if s.err != nil {
		t.Errorf("swapper: %v", s.err)
		s.err = nil
	}
	return s.swaps
}

// Exchange swaps the names a and b in one step (renameat2 RENAME_EXCHANGE), so both always
// exist; swapped again, they are back.
func Exchange(a, b string) func() error {
	return func() error {
		return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	}
}

// SymlinkSwap makes a symlink to target beside path (an existing directory or file) and
// returns the swap that exchanges the two: path is by turns the real entry and the symlink.
func SymlinkSwap(t testing.TB, path, target string) func() error {
	t.Helper()
	link := path + ".swap"
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return Exchange(path, link)
}

// RenameAway returns the swap that renames path away and back, and in between puts a
// symlink to target at its name: a parent directory renamed while a path below it is used.
func RenameAway(path, target string) func() error {
	away := path + ".away"
	return func() error {
		if err := os.Rename(path, away); err != nil {
			return err
		}
		if err := os.Symlink(target, path); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		return os.Rename(away, path)
	}
}

// Loop calls fn with 0, 1, 2… for about d, and at least once.
func Loop(d time.Duration, fn func(i int)) int {
	deadline := time.Now().Add(d)
	i := 0
	for ; i == 0 || time.Now().Before(deadline); i++ {
		fn(i)
	}
	return i
}
