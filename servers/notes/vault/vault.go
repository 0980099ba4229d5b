package vault

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jck411/mcp-servers/shared/rootdir"
)

// Vault is the notes folder. Every operation goes through an os.Root, so no path, symlink or
// race leads outside it. It is safe for concurrent use; callers serialize writes that must not
// interleave.
type Vault struct {
	dir  string
	root *os.Root
}

// ErrExists is returned when a write that must not overwrite finds a file in its way.
var ErrExists = errors.New("a note already exists at that path")

// ErrSymlink is returned when a write would replace a symlink: the vault writes only real files.
var ErrSymlink = errors.New("the path is a symlink: change the note it points to instead")

// Open opens (creating it 0700 when missing) the notes folder dir, an absolute path.
func Open(dir string) (*Vault, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%q is not an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Vault{dir: dir, root: root}, nil
}

// Dir is the folder's absolute path.
func (v *Vault) Dir() string { return v.dir }

// Close releases the folder.
func (v *Vault) Close() error { return v.root.Close() }

// Hash is the content hash callers pass back to refuse overwriting someone else's change.
func Hash(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:12])
}

// ReadFile reads the file at the clean relative path rel.
func (v *Vault) ReadFile(rel string) ([]byte, error) {
	return v.root.ReadFile(rel)
}

// ReadHead reads at most max bytes from the start of the file at rel; more reports that the
// file goes on.
func (v *Vault) ReadHead(rel string, max int) (data []byte, more bool, err error) {
	f, err := v.root.Open(rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	size := max // the buffer fits the file: most notes are a few KiB, and max is far more
	if info, err := f.Stat(); err == nil && info.Size() < int64(max) {
		size = int(info.Size())
	}
	buf := make([]byte, size+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return buf[:min(n, size)], n > size, nil // a file grown since the Stat goes on
}

// Stat stats rel, following symlinks that stay inside the folder.
func (v *Vault) Stat(rel string) (fs.FileInfo, error) { return v.root.Stat(rel) }

// Lstat stats rel itself: a symlink is reported as one.
func (v *Vault) Lstat(rel string) (fs.FileInfo, error) { return v.root.Lstat(rel) }

// Exists reports whether something is at rel (a dangling or escaping symlink counts).
func (v *Vault) Exists(rel string) bool {
	_, err := v.root.Lstat(rel)
	return err == nil
}

// Write writes data to rel atomically: a temporary file beside it, synced, then renamed over
// it (or, with exclusive, hard-linked so that an existing file is never replaced). Parent
// folders are created.
func (v *Vault) Write(rel string, data []byte, exclusive bool) error {
	dir := path.Dir(rel)
	if dir != "." {
		if err := v.root.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	if !exclusive {
		if info, err := v.root.Lstat(rel); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return ErrSymlink
		}
	}
	tmp, err := v.writeTemp(dir, data)
	if err != nil {
		return err
	}
	defer func() { _ = v.root.Remove(tmp) }()
	if exclusive {
		if err := v.root.Link(tmp, rel); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return ErrExists
			}
			return err
		}
		return nil
	}
	return v.root.Rename(tmp, rel)
}

func (v *Vault) writeTemp(dir string, data []byte) (string, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := v.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = v.root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Move renames from to to without replacing anything at to; parent folders are created.
func (v *Vault) Move(from, to string) error {
	dir := path.Dir(to)
	if dir != "." {
		if err := v.root.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	if err := v.root.Link(from, to); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		if !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EPERM) {
			return err
		}
		if v.Exists(to) {
			return ErrExists
		}
		if err := v.root.Rename(from, to); err != nil {
			return err
		}
	} else if err := v.root.Remove(from); err != nil {
		return err
	}
	v.pruneDirs(path.Dir(from))
	return nil
}

// Remove deletes the file at rel and then its parent folders that became empty.
func (v *Vault) Remove(rel string) error {
	if err := v.root.Remove(rel); err != nil {
		return err
	}
	v.pruneDirs(path.Dir(rel))
	return nil
}

// pruneDirs removes dir and the folders above it while they are empty. rmdir fails on a
// symlink, so a symlinked folder a note was reached through stays.
func (v *Vault) pruneDirs(dir string) {
	for dir != "." && dir != "/" && dir != TrashDir {
		if err := rootdir.RemoveDir(v.root, dir); err != nil { // fails unless an empty directory
			return
		}
		dir = path.Dir(dir)
	}
}

// File is one note file found by Walk.
type File struct {
	Path  string // clean relative path
	Size  int64
	MTime int64 // unix nanoseconds
}

// Walk lists every note file under folder ("" for all; TrashDir for the trash). Hidden folders
// are skipped unless folder is inside one, symlinks are not followed, and files whose names
// CleanPath refuses are left out.
func (v *Vault) Walk(folder string) ([]File, error) { return v.WalkCounting(folder, nil) }

// walkReport is how many notes WalkCounting finds between two calls of its found.
const walkReport = 1000

// WalkCounting is Walk that calls found (when not nil) with the number of notes found so far,
// every walkReport notes: a walk of a large vault takes seconds.
func (v *Vault) WalkCounting(folder string, found func(n int)) ([]File, error) {
	start := "."
	if folder != "" {
		start = folder
	}
	var out []File
	err := fs.WalkDir(v.root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != start && strings.HasPrefix(name, ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, Ext) || strings.HasPrefix(name, ".") {
			return nil
		}
		if !validName(p) {
			return nil // a name CleanPath refuses is not a note
		}
		if info, ierr := d.Info(); ierr == nil { // a file gone since the listing is skipped
			out = append(out, File{Path: p, Size: info.Size(), MTime: info.ModTime().UnixNano()})
			if found != nil && len(out)%walkReport == 0 {
				found(len(out))
			}
		}
		return nil
	})
	return out, err
}

// Folders lists the folder and every folder under it ("" for the root, listed as "") that
// Walk enters: hidden folders are skipped, symlinks are not followed.
func (v *Vault) Folders(folder string) ([]string, error) {
	start := "."
	if folder != "" {
		start = folder
	}
	var out []string
	err := fs.WalkDir(v.root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == start {
				return err
			}
			return nil
		case !d.IsDir():
			return nil
		case p != start && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		}
		if p == "." {
			p = ""
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// IsNote reports whether rel, a clean relative path, names a note file Walk would list: a
// visible .md file outside hidden folders.
func IsNote(rel string) bool {
	return strings.HasSuffix(rel, Ext) && validName(rel)
}

func validName(rel string) bool {
	_, err := CleanPath(strings.TrimPrefix(rel, TrashDir+"/"))
	return err == nil
}
