// Command images builds one OCI image per server of the fleet, for every architecture of the
// given release tarballs, from the release's own static binaries — without a daemon and without
// pulling a base image: the static servers on an empty base holding only a user, the
// certificate authorities and the state folder; the browser and the shell on a Debian root
// filesystem of extracted packages (deploy/containers/rootfs.sh): Chromium and fonts, bash and
// the everyday tools. It writes one OCI
// image layout holding a multi-architecture index per server, and the same inputs give the
// same digests. docs/containers.md says why and how to load the images.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// googleTokenDir is where the Google servers share their sign-in (docs/google.md); in a
// container it is the mount point of one volume the four share.
const googleTokenDir = "/var/lib/mcp-servers/google"

// googleServers hold the shared Google sign-in.
var googleServers = []string{"calendar", "drive", "gmail", "notes"}

// debianBased are the servers whose images need a Debian root filesystem: Chromium for the
// browser, bash and the everyday tools for the shell's commands. The others are FROM scratch.
var debianBased = []string{"browser", "shell"}

// extraEnv is what a server needs in its image's environment besides the common settings.
var extraEnv = map[string][]string{
	"shell": {"SHELL=/bin/bash", "LANG=C.UTF-8"},
}

// options are the command line.
type options struct {
	releases []string
	rootfs   map[string]string // "ID/ARCH" → Debian root filesystem tarball
	caRootfs string
	out      string
	cache    string
	servers  []string
	meta     meta
}

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "images:", err)
		}
		os.Exit(2)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parse(args, getenv, stderr)
	if err != nil {
		return err
	}
	built, err := build(o)
	if err != nil {
		return err
	}
	return report(stdout, filepath.Join(o.out, "digests.txt"), built)
}

func parse(args []string, getenv func(string) string, stderr io.Writer) (*options, error) {
	o := &options{rootfs: map[string]string{}}
	fs := flag.NewFlagSet("images", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Func("release", "a release tarball, dist/mcp-servers-VERSION-linux-ARCH.tar.gz (repeat for each architecture)", func(v string) error {
		o.releases = append(o.releases, v)
		return nil
	})
	fs.Func("rootfs", "ID/ARCH=TAR: the Debian root filesystem server ID's image is built on for ARCH (deploy/containers/rootfs.sh; browser and shell need one)", func(v string) error {
		key, p, ok := strings.Cut(v, "=")
		id, a, ok2 := strings.Cut(key, "/")
		if !ok || !ok2 || !slices.Contains(debianBased, id) || elfMachine[a] == 0 {
			return fmt.Errorf("want ID/ARCH=TAR with ID one of %v and ARCH amd64 or arm64, got %q", debianBased, v)
		}
		o.rootfs[key] = p
		return nil
	})
	fs.StringVar(&o.caRootfs, "ca-rootfs", "", "a root filesystem tarball holding etc/ssl/certs/ca-certificates.crt (default: the first --rootfs)")
	fs.StringVar(&o.out, "out", "dist/images/oci", "the OCI image layout to write (replaced)")
	fs.StringVar(&o.cache, "cache", filepath.Join(os.TempDir(), "mcp-images-cache"), "where compressed root filesystem layers are kept between builds")
	servers := fs.String("servers", "", "comma-separated servers to build (default: every server in the release)")
	fs.StringVar(&o.meta.source, "source", "https://github.com/jck411/mcp-servers", "the repository, for the images' labels")
	fs.StringVar(&o.meta.revision, "revision", "", "the commit the release was built from (required)")
	fs.StringVar(&o.meta.licenses, "licenses", "NOASSERTION", "the licence, an SPDX expression")
	created := fs.String("created", getenv("SOURCE_DATE_EPOCH"), "the images' creation time, Unix seconds (default $SOURCE_DATE_EPOCH; use the commit's time)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(*created, 10, 64)
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case len(o.releases) == 0:
		return nil, errors.New("give at least one --release")
	case o.meta.revision == "":
		return nil, errors.New("give --revision, the commit the release was built from")
	case err != nil:
		return nil, fmt.Errorf("--created (or SOURCE_DATE_EPOCH) %q: want Unix seconds, e.g. git log -1 --format=%%ct", *created)
	}
	o.meta.created = time.Unix(secs, 0).UTC()
	if *servers != "" {
		o.servers = strings.Split(*servers, ",")
	}
	if o.caRootfs == "" && len(o.rootfs) > 0 {
		o.caRootfs = o.rootfs[slices.Sorted(maps.Keys(o.rootfs))[0]]
	}
	if o.caRootfs == "" {
		return nil, errors.New("give --ca-rootfs or --rootfs: the images' certificate authorities come from Debian's ca-certificates")
	}
	return o, nil
}

// built is one server's index and what it holds per architecture.
type built struct {
	id    string
	index v1.Hash
	arch  map[string]v1.Hash // image digest
	size  map[string]int64   // compressed layers and config
}

// build reads the releases and writes every server's index into the layout.
func build(o *options) ([]built, error) {
	work, err := os.MkdirTemp("", "mcp-images-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	rels := map[string]*release{}
	var arches []string
	for _, f := range o.releases {
		r, err := readRelease(f, work)
		if err != nil {
			return nil, err
		}
		if rels[r.arch] != nil {
			return nil, fmt.Errorf("two releases for %s", r.arch)
		}
		rels[r.arch], arches = r, append(arches, r.arch)
	}
	slices.Sort(arches)
	first := rels[arches[0]]
	for _, r := range rels {
		if r.version != first.version || !slices.Equal(slices.Sorted(maps.Keys(r.bins)), slices.Sorted(maps.Keys(first.bins))) {
			return nil, fmt.Errorf("the releases differ: %s %s has %v, %s %s has %v", r.arch, r.version, slices.Sorted(maps.Keys(r.bins)), first.arch, first.version, slices.Sorted(maps.Keys(first.bins)))
		}
	}
	o.meta.version = first.version
	ids := o.servers
	if ids == nil {
		ids = slices.Sorted(maps.Keys(first.bins))
	}
	ca, err := caBundle(o.caRootfs)
	if err != nil {
		return nil, err
	}
	if err := resetLayout(o.out); err != nil {
		return nil, err
	}
	lp, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return nil, err
	}
	var out []built
	for _, id := range ids {
		b, err := buildServer(o, lp, id, arches, rels, ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		out = append(out, b)
	}
	return out, nil
}

func buildServer(o *options, lp layout.Path, id string, arches []string, rels map[string]*release, ca []byte) (built, error) {
	b := built{id: id, arch: map[string]v1.Hash{}, size: map[string]int64{}}
	var extra []string
	if slices.Contains(googleServers, id) {
		extra = append(extra, googleTokenDir)
	}
	base, err := tarLayer(baseEntries(ca, extra), o.meta.created)
	if err != nil {
		return b, err
	}
	images := map[string]v1.Image{}
	for _, a := range arches {
		r := rels[a]
		bin, ok := r.bins[id]
		if !ok {
			return b, fmt.Errorf("not in the %s release", a)
		}
		binary, err := tarLayer(binaryEntries(id, bin), o.meta.created)
		if err != nil {
			return b, err
		}
		var layers []layerSpec
		if slices.Contains(debianBased, id) {
			tarball := o.rootfs[id+"/"+a]
			if tarball == "" {
				return b, fmt.Errorf("give --rootfs %s/%s=TAR (deploy/containers/rootfs.sh %s %s): the image is built on Debian packages", id, a, id, a)
			}
			rootfs, err := rootfsLayer(tarball, o.cache, o.meta.created)
			if err != nil {
				return b, err
			}
			layers = append(layers, layerSpec{rootfs, "Debian 13 packages for " + id + " (deploy/containers/rootfs.sh " + id + " " + a + ")"})
		}
		layers = append(layers,
			layerSpec{base, "user " + user + " (65532), CA certificates, /tmp, state folder " + stateDir},
			layerSpec{binary, id + " " + r.version + " from the release tarball"})
		img, err := serverImage(id, r.ports[id], a, layers, o.meta, extraEnv[id])
		if err != nil {
			return b, err
		}
		if b.arch[a], err = img.Digest(); err != nil {
			return b, err
		}
		if b.size[a], err = imageSize(img); err != nil {
			return b, err
		}
		images[a] = img
	}
	idx, err := serverIndex(id, images, arches, o.meta)
	if err != nil {
		return b, err
	}
	if b.index, err = idx.Digest(); err != nil {
		return b, err
	}
	// The reference name is the server id, so `podman pull oci:DIR:ID` finds it.
	return b, lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": id}))
}

// imageSize is what pulling the image moves: its compressed layers, config and manifest.
func imageSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	n := m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	raw, err := img.RawManifest()
	return n + int64(len(raw)), err
}

// resetLayout removes an OCI layout this command wrote before; anything else at dir is refused.
func resetLayout(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		return fmt.Errorf("%s exists and is not an OCI image layout: choose another --out", dir)
	}
	return os.RemoveAll(dir)
}

// report prints a table of the images and writes "ID INDEX-DIGEST" lines to digests, which two
// builds of the same inputs must share.
func report(w io.Writer, digests string, bs []built) error {
	var lines strings.Builder
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tINDEX DIGEST\tARCH\tSIZE (MB, compressed)")
	for _, b := range bs {
		fmt.Fprintf(&lines, "%s %s\n", b.id, b.index)
		for _, a := range slices.Sorted(maps.Keys(b.arch)) {
			fmt.Fprintf(tw, "mcp-%s\t%s\t%s\t%.1f\n", b.id, b.index, a, float64(b.size[a])/1e6)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return os.WriteFile(digests, []byte(lines.String()), 0o644)
}
