package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// rootfsFormat names what rootfsLayer makes of a root filesystem; change it when that changes,
// so that cached layers of the old kind are not reused.
const rootfsFormat = "rootfs-1"

// mergedUsr are the links Debian's base-files ships since /usr was merged; a root filesystem
// extracted without running maintainer scripts may lack them, and ELF binaries name their
// loader as /lib64/ld-linux-x86-64.so.2 (or /lib/ld-linux-aarch64.so.1).
var mergedUsr = []string{"bin", "lib", "lib64", "sbin"}

// rootfsLayer turns a Debian root filesystem tarball (deploy/containers/rootfs.sh: packages
// extracted with mmdebstrap, no maintainer scripts run) into an image's base layer: device nodes
// (the runtime makes /dev), manuals and documentation other than copyright files are left out,
// the merged-/usr links are added where missing, and every entry gets the time mtime and no
// owner names. The compressed layer is kept in cacheDir under the tarball's SHA-256, so that a
// second build does not compress it again.
func rootfsLayer(rootfs, cacheDir string, mtime time.Time) (v1.Layer, error) {
	sum, err := fileSHA256(rootfs)
	if err != nil {
		return nil, err
	}
	key := sha256.Sum256([]byte(rootfsFormat + " " + compressor() + " " + sum + " " + strconv.FormatInt(mtime.Unix(), 10)))
	out := filepath.Join(cacheDir, "layer-"+hex.EncodeToString(key[:16])+".tar.gz")
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return nil, err
		}
		if err := writeRootfsLayer(rootfs, out, mtime); err != nil {
			return nil, fmt.Errorf("%s: %w", rootfs, err)
		}
	} else if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return os.Open(out) }, tarball.WithMediaType(types.OCILayer))
}

// writeRootfsLayer writes the normalized, compressed layer to out through a temporary file, so
// that an interrupted build leaves no half layer in the cache.
func writeRootfsLayer(rootfs, out string, mtime time.Time) (err error) {
	in, err := os.Open(rootfs)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(out), ".layer-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(normalizeRootfs(tar.NewReader(in), tar.NewWriter(pw), mtime)) }()
	if err := compress(tmp, pr); err != nil {
		pr.CloseWithError(err)
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// normalizeRootfs copies the entries an image needs from tr to tw (see rootfsLayer) and closes tw.
func normalizeRootfs(tr *tar.Reader, tw *tar.Writer, mtime time.Time) error {
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(path.Clean(strings.TrimPrefix(h.Name, "./")), "/")
		if name == "." || name == "" || leaveOut(name, h.Typeflag) {
			continue
		}
		seen[name] = true
		out := &tar.Header{Name: name, Typeflag: h.Typeflag, Mode: h.Mode, Uid: h.Uid, Gid: h.Gid, ModTime: mtime, Size: h.Size}
		switch h.Typeflag {
		case tar.TypeDir:
			out.Name += "/"
		case tar.TypeSymlink:
			out.Linkname = h.Linkname
		case tar.TypeLink:
			out.Linkname = strings.TrimPrefix(path.Clean(strings.TrimPrefix(h.Linkname, "./")), "/")
		case tar.TypeReg:
		default:
			return fmt.Errorf("%s: unexpected entry type %q in a root filesystem", h.Name, h.Typeflag)
		}
		if err := tw.WriteHeader(out); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.Copy(tw, tr); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	for _, l := range mergedUsr {
		if seen[l] || !seen["usr/"+l] {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: l, Typeflag: tar.TypeSymlink, Linkname: "usr/" + l, Mode: 0o777, ModTime: mtime}); err != nil {
			return err
		}
	}
	return tw.Close()
}

// leaveOut reports whether a root filesystem entry stays out of the image: device nodes and
// what only people read (manuals, info pages, documentation but its copyright files, which the
// licences ask to keep).
func leaveOut(name string, typ byte) bool {
	switch {
	case strings.HasPrefix(name, "dev/"):
		return true
	case typ == tar.TypeChar || typ == tar.TypeBlock || typ == tar.TypeFifo:
		return true
	case strings.HasPrefix(name, "usr/share/man/"), strings.HasPrefix(name, "usr/share/info/"),
		strings.HasPrefix(name, "usr/share/lintian/"), strings.HasPrefix(name, "var/cache/apt/"),
		strings.HasPrefix(name, "var/lib/apt/lists/"):
		return true
	case strings.HasPrefix(name, "usr/share/doc/") && typ != tar.TypeDir:
		return path.Base(name) != "copyright"
	}
	return false
}

// compressor names the gzip implementation and its version: another version may compress the
// same bytes differently, so a layer it made is not reused.
func compressor() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/klauspost/compress" {
				return d.Path + "@" + d.Version
			}
		}
	}
	return "github.com/klauspost/compress@unknown"
}

func fileSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// caBundle reads the certificate authorities' bundle from a Debian root filesystem tarball.
func caBundle(rootfs string) ([]byte, error) {
	f, err := os.Open(rootfs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: no etc/ssl/certs/ca-certificates.crt (made by deploy/containers/rootfs.sh)", rootfs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rootfs, err)
		}
		if strings.TrimPrefix(h.Name, "./") == "etc/ssl/certs/ca-certificates.crt" && h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(io.LimitReader(tr, 4<<20))
			if err != nil {
				return nil, err
			}
			if !strings.Contains(string(b), "-----BEGIN CERTIFICATE-----") {
				return nil, fmt.Errorf("%s: etc/ssl/certs/ca-certificates.crt holds no certificate", rootfs)
			}
			return b, nil
		}
	}
}
