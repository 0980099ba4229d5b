package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// fixture is two release tarballs (amd64, arm64) of two static servers built here as
// release.sh builds them, and a root filesystem tarball with a CA bundle.
type fixture struct {
	releases []string
	rootfs   string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTest(t, filepath.Join(src, "go.mod"), "module example.com/fake\n\ngo 1.26\n")
	writeTest(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() { println(\"fake server\") }\n")
	var f fixture
	for _, arch := range []string{"amd64", "arm64"} {
		bin := filepath.Join(dir, arch)
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		tarball := filepath.Join(dir, "mcp-servers-v1.2.3-linux-"+arch+".tar.gz")
		writeTarGz(t, tarball, map[string][]byte{
			"VERSION":              []byte("v1.2.3\n"),
			"bin/calculator":       data,
			"bin/notes":            data,
			"deploy/setup-host.sh": []byte("#!/bin/sh\nSERVER_TABLE=\"shell:9001 calculator:9003 notes:9009\"\n"),
		})
		f.releases = append(f.releases, tarball)
	}
	f.rootfs = filepath.Join(dir, "rootfs.tar")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []struct {
		name string
		typ  byte
		data string
	}{{"./", tar.TypeDir, ""}, {"./etc/", tar.TypeDir, ""}, {"./etc/ssl/", tar.TypeDir, ""}, {"./etc/ssl/certs/", tar.TypeDir, ""},
		{"./etc/ssl/certs/ca-certificates.crt", tar.TypeReg, testCA}} {
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o755, Size: int64(len(e.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	writeTest(t, f.rootfs, buf.String())
	return f
}

func (f fixture) args(out string, extra ...string) []string {
	args := []string{"--out", out, "--ca-rootfs", f.rootfs, "--revision", "abc123", "--created", "1700000000"}
	for _, r := range f.releases {
		args = append(args, "--release", r)
	}
	return append(args, extra...)
}

// TestBuildIsReproducible builds the same inputs twice into two layouts: every index digest is
// the same; a different creation time changes them all.
func TestBuildIsReproducible(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	digests := func(name string, extra ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		if err := run(f.args(out, extra...), func(string) string { return "" }, &stdout, &stderr); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "digests.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), "mcp-notes") || !strings.Contains(stdout.String(), "arm64") {
			t.Errorf("report:\n%s", stdout.String())
		}
		return string(b)
	}
	first, second := digests("one"), digests("two")
	if first != second {
		t.Fatalf("two builds of the same inputs differ:\n%s\n%s", first, second)
	}
	if lines := strings.Split(strings.TrimSpace(first), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "calculator sha256:") {
		t.Fatalf("digests.txt:\n%s", first)
	}
	if later := digests("later", "--created", "1700000001"); later == first {
		t.Error("a different creation time gave the same digests")
	}
	// The layout is replaced on the next build, never a folder that is not a layout.
	if err := run(f.args(t.TempDir()), func(string) string { return "" }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "not an OCI image layout") {
		t.Errorf("building over a plain folder: %v", err)
	}
}

// TestImageContents reads the layout back as a runtime would: a multi-architecture index per
// server; images that run as 65532 with their port, state folder and labels; layers that hold
// the user, the CA bundle, the state folder owned by the user and the binary.
func TestImageContents(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "oci")
	if err := run(f.args(out), func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	lp, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 {
		t.Fatalf("%d servers in the layout, want 2", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		id := d.Annotations["org.opencontainers.image.ref.name"]
		port := map[string]string{"calculator": "9003", "notes": "9009"}[id]
		if port == "" {
			t.Fatalf("unexpected ref name %q", id)
		}
		idx, err := top.ImageIndex(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		var arches []string
		for _, m := range sim.Manifests {
			arches = append(arches, m.Platform.Architecture)
			img, err := idx.Image(m.Digest)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			c := cf.Config
			if cf.Architecture != m.Platform.Architecture || c.User != "65532:65532" || c.Entrypoint[0] != "/usr/local/bin/"+id ||
				!slices.Contains(c.Env, "MCP_PORT="+port) || !slices.Contains(c.Env, "MCP_HOST=0.0.0.0") || !slices.Contains(c.Env, "MCP_STATE_DIR=/data") {
				t.Errorf("%s %s config: %+v", id, cf.Architecture, c)
			}
			if _, ok := c.ExposedPorts[port+"/tcp"]; !ok || c.Healthcheck == nil || c.Healthcheck.Test[2] != "healthcheck" {
				t.Errorf("%s: ports %v, health check %+v", id, c.ExposedPorts, c.Healthcheck)
			}
			if c.Labels["org.opencontainers.image.version"] != "v1.2.3" || c.Labels["org.opencontainers.image.revision"] != "abc123" ||
				c.Labels["org.opencontainers.image.licenses"] == "" || !strings.HasPrefix(c.Labels["org.opencontainers.image.source"], "https://") {
				t.Errorf("%s labels: %v", id, c.Labels)
			}
			files := imageFiles(t, img)
			want := map[string]string{
				"etc/passwd":                        "644 0",
				"etc/ssl/certs/ca-certificates.crt": "644 0",
				"data/":                             "700 65532",
				"tmp/":                              "1777 0",
				"usr/local/bin/" + id:               "755 0",
			}
			if id == "notes" {
				want["var/lib/mcp-servers/google/"] = "700 65532"
			} else if _, ok := files["var/lib/mcp-servers/google/"]; ok {
				t.Errorf("%s has the Google token folder", id)
			}
			for name, mode := range want {
				if files[name] != mode {
					t.Errorf("%s %s: %s is %q, want %q", id, cf.Architecture, name, files[name], mode)
				}
			}
		}
		if !slices.Equal(arches, []string{"amd64", "arm64"}) {
			t.Errorf("%s: architectures %v", id, arches)
		}
	}
}

// imageFiles lists an image's paths with "MODE UID", as a runtime would unpack them.
func imageFiles(t *testing.T, img v1.Image) map[string]string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = strconv.FormatInt(h.Mode, 8) + " " + strconv.Itoa(h.Uid)
			if h.Name == "etc/passwd" {
				b, _ := io.ReadAll(tr)
				if !strings.Contains(string(b), "mcp:x:65532:65532:") {
					t.Errorf("passwd: %q", b)
				}
			}
		}
		rc.Close()
	}
	return files
}

// TestNormalizeRootfs: device nodes (not /dev itself, a mount point) and documentation leave, copyright files stay, the
// merged-/usr links are added for the folders that exist, and every entry gets one time.
func TestNormalizeRootfs(t *testing.T) {
	var in bytes.Buffer
	tw := tar.NewWriter(&in)
	for _, h := range []*tar.Header{
		{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./dev/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./dev/null", Typeflag: tar.TypeChar, Mode: 0o666, Devmajor: 1, Devminor: 3},
		{Name: "./usr/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./usr/lib64/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./usr/lib64/ld-linux-x86-64.so.2", Typeflag: tar.TypeSymlink, Linkname: "../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		{Name: "./usr/share/doc/chromium/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "./usr/share/doc/chromium/copyright", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3, Uname: "root"},
		{Name: "./usr/share/doc/chromium/changelog.gz", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3},
		{Name: "./usr/share/man/man1/x.1.gz", Typeflag: tar.TypeReg, Mode: 0o644, Size: 3},
		{Name: "./usr/lib/chromium/chromium-headless-shell", Typeflag: tar.TypeReg, Mode: 0o755, Size: 3},
		{Name: "./usr/lib/chromium/hard", Typeflag: tar.TypeLink, Linkname: "./usr/lib/chromium/chromium-headless-shell"},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			_, _ = tw.Write([]byte("abc"))
		}
	}
	_ = tw.Close()
	var out bytes.Buffer
	mtime := time.Unix(1700000000, 0).UTC()
	if err := normalizeRootfs(tar.NewReader(&in), tar.NewWriter(&out), mtime); err != nil {
		t.Fatal(err)
	}
	var got []string
	tr := tar.NewReader(&out)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(mtime) || h.Uname != "" {
			t.Errorf("%s: time %v, owner name %q", h.Name, h.ModTime, h.Uname)
		}
		got = append(got, h.Name+" "+h.Linkname)
	}
	want := []string{"dev/ ", "usr/ ", "usr/lib64/ ", "usr/lib64/ld-linux-x86-64.so.2 ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"usr/share/doc/chromium/ ", "usr/share/doc/chromium/copyright ", "usr/lib/chromium/chromium-headless-shell ",
		"usr/lib/chromium/hard usr/lib/chromium/chromium-headless-shell", "lib64 usr/lib64"}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadReleaseRefuses a tarball whose binaries are of another architecture than its name.
func TestReadReleaseRefuses(t *testing.T) {
	f := newFixture(t)
	amd := f.releases[0]
	wrong := filepath.Join(t.TempDir(), "mcp-servers-v1.2.3-linux-arm64.tar.gz")
	data, err := os.ReadFile(amd)
	if err != nil {
		t.Fatal(err)
	}
	writeTest(t, wrong, string(data))
	if _, err := readRelease(wrong, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not arm64") {
		t.Errorf("an amd64 binary in an arm64 release: %v", err)
	}
	if _, err := readRelease(filepath.Join(t.TempDir(), "calculator.tar.gz"), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a release tarball") {
		t.Errorf("a file not named as a release: %v", err)
	}
}

func writeTest(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeTarGz(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := slices.Sorted(maps.Keys(files))
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(files[n]))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeTest(t, name, buf.String())
}
