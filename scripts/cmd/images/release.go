package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// release is one unpacked release tarball (scripts/release.sh): its version, architecture,
// servers and their fixed ports.
type release struct {
	version string
	arch    string            // amd64 or arm64
	bins    map[string]string // server id → unpacked binary
	ports   map[string]int    // server id → fixed port, from the release's own table
}

// releaseName is how release.sh names a tarball.
var releaseName = regexp.MustCompile(`^mcp-servers-(.+)-linux-(amd64|arm64)\.tar\.gz$`)

// elfMachine is the ELF machine each architecture's binaries must carry.
var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// readRelease unpacks a release tarball's VERSION, bin/ and port table into dir and checks that
// every binary is a static executable of the tarball's architecture.
func readRelease(file, dir string) (*release, error) {
	m := releaseName.FindStringSubmatch(filepath.Base(file))
	if m == nil {
		return nil, fmt.Errorf("%s: not a release tarball (mcp-servers-VERSION-linux-ARCH.tar.gz from scripts/release.sh)", file)
	}
	r := &release{arch: m[2], bins: map[string]string{}}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case name == "VERSION":
			b, err := io.ReadAll(io.LimitReader(tr, 256))
			if err != nil {
				return nil, err
			}
			r.version = strings.TrimSpace(string(b))
		case name == "deploy/setup-host.sh":
			if r.ports, err = portTable(tr); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", file, name, err)
			}
		case path.Dir(name) == "bin" && h.Typeflag == tar.TypeReg:
			id := path.Base(name)
			out := filepath.Join(dir, r.arch, id)
			if err := writeFile(out, tr); err != nil {
				return nil, err
			}
			if err := checkBinary(out, r.arch); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", file, name, err)
			}
			r.bins[id] = out
		}
	}
	switch {
	case r.version == "" || r.version != m[1]:
		return nil, fmt.Errorf("%s: VERSION %q does not match the file name", file, r.version)
	case len(r.bins) == 0:
		return nil, fmt.Errorf("%s: no bin/", file)
	case r.ports == nil:
		return nil, fmt.Errorf("%s: no deploy/setup-host.sh with the port table", file)
	}
	for id := range r.bins {
		if r.ports[id] == 0 {
			return nil, fmt.Errorf("%s: bin/%s has no port in the release's SERVER_TABLE", file, id)
		}
	}
	return r, nil
}

// portTable reads SERVER_TABLE="id:port ..." from the release's setup script, the table every
// deploy script carries (and deploy/test checks they agree).
func portTable(r io.Reader) (map[string]int, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "SERVER_TABLE=")
		if !ok {
			continue
		}
		ports := map[string]int{}
		for _, f := range strings.Fields(strings.Trim(v, `"`)) {
			id, p, ok := strings.Cut(f, ":")
			n, err := strconv.Atoi(p)
			if !ok || err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("bad SERVER_TABLE entry %q", f)
			}
			ports[id] = n
		}
		return ports, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("no SERVER_TABLE line")
}

func writeFile(name string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkBinary refuses a binary of another architecture, or one that needs a dynamic loader,
// which an image FROM scratch does not have.
func checkBinary(file, arch string) error {
	f, err := elf.Open(file)
	if err != nil {
		return fmt.Errorf("not an ELF executable: %w", err)
	}
	defer f.Close()
	if f.Machine != elfMachine[arch] {
		return fmt.Errorf("built for %s, not %s", f.Machine, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked (build with CGO_ENABLED=0)")
		}
	}
	return nil
}
