package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"golang.org/x/sys/unix"
)

// folders are the directories the server reads and writes for callers, each held open as an
// os.Root from the start, so every name in them is resolved by the kernel beneath the folder
// and nothing swapped in at a path leads outside.
type folders struct {
	downloads    *os.Root // --downloads-dir
	downloadsDir string
	uploads      *os.Root // --upload-dir
	uploadDir    string   // as given, absolute
	uploadReal   string   // as resolved
	// staging holds what Chromium is given to upload: it opens files by path, so it gets a
	// link to (or copy of) the file the server opened beneath the upload folder, in this
	// private folder of the state directory where nothing else names paths.
	staging    *os.Root
	stagingDir string
}

// openFolders makes (0700) and opens the downloads, upload and staging folders.
func openFolders(o *options) (*folders, error) {
	f := &folders{downloadsDir: o.downloadsDir, uploadDir: o.uploadDir, stagingDir: filepath.Join(o.stateDir, "upload-staging")}
	var err error
	if f.downloads, err = rootdir.Open(f.downloadsDir, true); err != nil {
		return nil, fmt.Errorf("--downloads-dir: %w", err)
	}
	if f.uploads, err = rootdir.Open(f.uploadDir, true); err == nil {
		f.uploadReal, err = filepath.EvalSymlinks(f.uploadDir)
	}
	if err != nil {
		f.close()
		return nil, fmt.Errorf("--upload-dir: %w", err)
	}
	// What an earlier run staged is no longer in any page.
	if err := os.RemoveAll(f.stagingDir); err != nil {
		f.close()
		return nil, fmt.Errorf("upload staging folder: %w", err)
	}
	if f.staging, err = rootdir.Open(f.stagingDir, true); err != nil {
		f.close()
		return nil, fmt.Errorf("upload staging folder: %w", err)
	}
	return f, nil
}

// close closes the folders and empties the staging folder.
func (f *folders) close() {
	for _, r := range []*os.Root{f.downloads, f.uploads, f.staging} {
		if r != nil {
			_ = r.Close()
		}
	}
	if f.staging != nil {
		_ = os.RemoveAll(f.stagingDir)
	}
}

// openUpload opens name, relative to the upload folder or absolute inside it, for reading
// through the held folder, and checks that it is a regular file.
func (f *folders) openUpload(name string) (*os.File, error) {
	rel, err := rootdir.Rel(name, f.uploadReal, f.uploadDir)
	if err != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "refused: %q is outside the upload directory %s", name, f.uploadDir)
	}
	file, err := f.uploads.Open(rel)
	switch {
	case rootdir.Escapes(err):
		return nil, kit.Errorf(kit.CodeInvalidInput, "refused: %q is outside the upload directory %s (a symlink on its way leads out)", name, f.uploadDir)
	case errors.Is(err, fs.ErrNotExist):
		return nil, kit.Errorf(kit.CodeNotFound, "no file %q in the upload directory %s", name, f.uploadDir)
	case err != nil:
		return nil, kit.Errorf(kit.CodeInvalidInput, "%q cannot be read from the upload directory %s: %v", name, f.uploadDir, err)
	}
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		_ = file.Close()
		return nil, kit.Errorf(kit.CodeInvalidInput, "%q is not a regular file", name)
	}
	return file, nil
}

// stage opens each of names beneath the upload folder and puts it, under its own base name,
// in a new directory of the staging folder, returning the staged paths for Chromium and that
// directory's name for unstage.
func (f *folders) stage(names []string) ([]string, string, error) {
	dir, err := rootdir.MkdirTemp(f.staging, "", "up-*")
	if err != nil {
		return nil, "", kit.Errorf(kit.CodeInternal, "upload staging folder: %v", err)
	}
	paths := make([]string, 0, len(names))
	for i, name := range names {
		file, err := f.openUpload(name)
		if err != nil {
			f.unstage(dir)
			return nil, "", err
		}
		rel := filepath.Join(dir, strconv.Itoa(i), filepath.Base(name))
		err = f.stageFile(file, rel)
		_ = file.Close()
		if err != nil {
			f.unstage(dir)
			return nil, "", kit.Errorf(kit.CodeInternal, "staging %q for the browser: %v", name, err)
		}
		paths = append(paths, filepath.Join(f.stagingDir, rel))
	}
	return paths, dir, nil
}

// stageFile puts the open file at rel beneath the staging folder: a hard link to it through
// /proc/self/fd when the kernel allows (same file system, and protected_hardlinks satisfied),
// else a copy.
func (f *folders) stageFile(file *os.File, rel string) error {
	if err := f.staging.Mkdir(filepath.Dir(rel), 0o700); err != nil {
		return err
	}
	parent, err := f.staging.Open(filepath.Dir(rel))
	if err != nil {
		return err
	}
	defer parent.Close()
	proc := "/proc/self/fd/" + strconv.Itoa(int(file.Fd()))
	if unix.Linkat(unix.AT_FDCWD, proc, int(parent.Fd()), filepath.Base(rel), unix.AT_SYMLINK_FOLLOW) == nil {
		return nil
	}
	info, err := file.Stat()
	if err != nil {
		return err
	}
	_, _, err = rootdir.Save(f.staging, rel, file, info.Size(), 0o600, rootdir.Refuse)
	return err
}

// export writes data (0600) as name in the folder dir of the downloads folder, made 0700,
// atomically: a temporary file there, synced, renamed over name.
func (f *folders) export(dir, name string, data []byte) error {
	if err := f.downloads.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	d, err := f.downloads.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	self, err := d.Open(".")
	if err != nil {
		return err
	}
	err = self.Chmod(0o700) // MkdirAll leaves an existing folder's mode alone
	_ = self.Close()
	if err != nil {
		return err
	}
	_, _, err = rootdir.Save(d, name, bytes.NewReader(data), int64(len(data)), 0o600, rootdir.Replace)
	return err
}

// unstage removes a directory stage made.
func (f *folders) unstage(dir string) { _ = f.staging.RemoveAll(dir) }
