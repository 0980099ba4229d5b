package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/gzip"
)

// The user every image runs as: not root, and no user of a typical host (distroless's number).
const (
	uid  = 65532
	user = "mcp"
)

// stateDir is the one folder a server writes, a volume in every runtime.
const stateDir = "/data"

// entry is one file, folder or link of a layer built here.
type entry struct {
	name     string // without a leading slash
	typ      byte   // tar.TypeReg, tar.TypeDir or tar.TypeSymlink
	mode     int64  // permission bits, with setgid or sticky
	uid      int
	data     []byte // a file's content
	fromFile string // or where to read it
	link     string // a symlink's target
}

// tarLayer writes entries as one gzip-compressed OCI layer in the given order. Every header is
// fixed by its entry alone (owner numbers, no names, one modification time), so the same
// entries give the same digest on any machine.
func tarLayer(entries []entry, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		if err := writeEntry(tw, e, mtime); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	var zbuf bytes.Buffer
	if err := compress(&zbuf, &buf); err != nil {
		return nil, err
	}
	data := zbuf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// compress gzips r into w at the default level with klauspost/compress, a few times faster
// than the standard library's and, like it, the same bytes for the same input and version.
func compress(w io.Writer, r io.Reader) error {
	zw, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, r); err != nil {
		return err
	}
	return zw.Close()
}

func writeEntry(tw *tar.Writer, e entry, mtime time.Time) error {
	h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime, Linkname: e.link}
	var body io.Reader
	switch {
	case e.typ == tar.TypeDir:
		h.Name = strings.TrimSuffix(e.name, "/") + "/"
	case e.fromFile != "":
		f, err := os.Open(e.fromFile)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		h.Size, body = info.Size(), f
	case e.typ == tar.TypeReg:
		h.Size, body = int64(len(e.data)), bytes.NewReader(e.data)
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if body != nil {
		if _, err := io.Copy(tw, body); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	return nil
}

// baseEntries are what every image has besides its binary: the user, the certificate
// authorities, an empty /tmp for a tmpfs and the state folder, owned by the user. extraDirs are
// more folders the user owns (mount points of shared volumes).
func baseEntries(caBundle []byte, extraDirs []string) []entry {
	es := []entry{
		dir("etc", 0o755, 0),
		file("etc/group", 0o644, "root:x:0:\n"+user+":x:65532:\n"),
		file("etc/nsswitch.conf", 0o644, "hosts: files dns\n"),
		file("etc/passwd", 0o644, "root:x:0:0:root:/root:/usr/sbin/nologin\n"+user+":x:65532:65532:MCP server:"+stateDir+":/usr/sbin/nologin\n"),
		dir("etc/ssl", 0o755, 0),
		dir("etc/ssl/certs", 0o755, 0),
		{name: "etc/ssl/certs/ca-certificates.crt", typ: tar.TypeReg, mode: 0o644, data: caBundle},
		dir(strings.TrimPrefix(stateDir, "/"), 0o700, uid),
		{name: "tmp", typ: tar.TypeDir, mode: 0o1777},
	}
	for _, d := range extraDirs {
		parts := strings.Split(strings.Trim(d, "/"), "/")
		for i := range parts[:len(parts)-1] {
			es = append(es, dir(strings.Join(parts[:i+1], "/"), 0o755, 0))
		}
		es = append(es, dir(strings.Join(parts, "/"), 0o700, uid))
	}
	slices.SortStableFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(es, func(a, b entry) bool { return a.name == b.name })
}

// binaryEntries place a server's binary at /usr/local/bin/ID.
func binaryEntries(id, bin string) []entry {
	return []entry{
		dir("usr", 0o755, 0),
		dir("usr/local", 0o755, 0),
		dir("usr/local/bin", 0o755, 0),
		{name: "usr/local/bin/" + id, typ: tar.TypeReg, mode: 0o755, fromFile: bin},
	}
}

func dir(name string, mode int64, owner int) entry {
	return entry{name: name, typ: tar.TypeDir, mode: mode, uid: owner}
}

func file(name string, mode int64, content string) entry {
	return entry{name: name, typ: tar.TypeReg, mode: mode, data: []byte(content)}
}
