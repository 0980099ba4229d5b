// Package oauth is the fleet's OAuth client for Google and Spotify: a Provider value holds what
// differs between them, and one Source, status, token record, login and `auth` command do the
// rest. Token and client files are secrets: their folders and modes are checked before use,
// and a token file several servers share is written atomically under a lock.
package oauth

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/jck411/mcp-servers/shared/secretfile"
)

// maxSize bounds what Read accepts: token files are a few KiB.
const maxSize = 1 << 20

// secretFile is one shared secret file. Its mode is 0600, or 0660 in a shared group folder (setgid,
// its group one of this process's; see secretfile.CheckDir), so the servers of that group can read and
// replace it. Read and Update refuse a file or folder that others can get at (secretfile.CheckFile).
type secretFile struct {
	Path string
}

// stamp identifies one version of the file; it changes whenever the file is replaced.
type stamp struct {
	Inode   uint64
	Size    int64
	ModTime time.Time
}

// IsZero reports whether the stamp is that of a missing file.
func (s stamp) IsZero() bool { return s == stamp{} }

// Stat returns the stamp of the current file; a missing file has the zero stamp and no error.
func (f secretFile) Stat() (stamp, error) {
	info, err := os.Stat(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return stamp{}, nil
	}
	if err != nil {
		return stamp{}, err
	}
	return stampOf(info), nil
}

func stampOf(info fs.FileInfo) stamp {
	s := stamp{Size: info.Size(), ModTime: info.ModTime()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.Inode = st.Ino
	}
	return s
}

// Read returns the file's content and its stamp after secretfile.CheckFile; a missing file returns
// fs.ErrNotExist.
func (f secretFile) Read() ([]byte, stamp, error) {
	if err := secretfile.CheckFile(f.Path); err != nil {
		return nil, stamp{}, err
	}
	return readFile(f.Path)
}

func readFile(path string) ([]byte, stamp, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, stamp{}, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, stamp{}, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxSize+1))
	if err != nil {
		return nil, stamp{}, err
	}
	if len(data) > maxSize {
		return nil, stamp{}, fmt.Errorf("%s: larger than %d bytes, not a token file", path, maxSize)
	}
	return data, stampOf(info), nil
}

// Update runs fn under an exclusive lock with the current content (nil when the file is
// missing) and, when fn returns new content, writes it atomically. fn returning nil, nil leaves
// the file as it is. Update reports whether it wrote.
func (f secretFile) Update(fn func(old []byte) ([]byte, error)) (bool, error) {
	unlock, mode, err := f.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	old, _, err := f.Read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	data, err := fn(old)
	if err != nil || data == nil {
		return false, err
	}
	if err := f.write(data, mode); err != nil {
		return false, err
	}
	return true, nil
}

// Remove deletes the file under the lock; a missing file is not an error.
func (f secretFile) Remove() error {
	unlock, _, err := f.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(f.Path))
}

// lock checks the folder (creating it 0700 when missing) and takes an exclusive flock on
// PATH.lock; it returns the mode new files get: 0660 in a shared group folder, else 0600.
func (f secretFile) lock() (func(), os.FileMode, error) {
	shared, err := secretfile.EnsureDir(filepath.Dir(f.Path))
	if err != nil {
		return nil, 0, err
	}
	mode := os.FileMode(0o600)
	if shared {
		mode = 0o660
	}
	lf, err := os.OpenFile(f.Path+".lock", os.O_RDWR|os.O_CREATE, mode)
	if err != nil {
		return nil, 0, err
	}
	_ = lf.Chmod(mode) // the umask may have narrowed it; a lock file owned by another user stays as it is
	for {
		err = syscall.Flock(int(lf.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		lf.Close()
		return nil, 0, fmt.Errorf("lock %s: %w", lf.Name(), err)
	}
	return func() {
		_ = syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
		lf.Close()
	}, mode, nil
}

// write replaces the file: temp file in the same directory, fsync, chmod, rename, fsync the directory.
func (f secretFile) write(data []byte, mode os.FileMode) error {
	dir := filepath.Dir(f.Path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op after the rename
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, f.Path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
