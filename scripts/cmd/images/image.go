package main

import (
	"fmt"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// meta is what every image of one build says about itself (OCI annotation keys, as labels).
type meta struct {
	version  string
	revision string // the commit
	source   string // the repository's URL
	licenses string // an SPDX expression
	created  time.Time
}

// layerSpec is one layer and the history line that says what it holds.
type layerSpec struct {
	layer v1.Layer
	what  string
}

// serverImage is one server's image for one architecture: layers in order, then the
// configuration that runs the server as the unprivileged user with its state in /data.
func serverImage(id string, port int, arch string, layers []layerSpec, m meta, extraEnv []string) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	var history []v1.History
	for _, l := range layers {
		var err error
		if img, err = mutate.Append(img, mutate.Addendum{Layer: l.layer, MediaType: types.OCILayer}); err != nil {
			return nil, err
		}
		history = append(history, v1.History{Created: v1.Time{Time: m.created}, CreatedBy: "scripts/cmd/images", Comment: l.what})
	}
	bin := "/usr/local/bin/" + id
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS, cf.Created, cf.History = arch, "linux", v1.Time{Time: m.created}, history
	if arch == "arm64" {
		cf.Variant = "v8"
	}
	cf.Config = v1.Config{
		User:       strconv.Itoa(uid) + ":" + strconv.Itoa(uid),
		Entrypoint: []string{bin},
		WorkingDir: stateDir,
		Env: append([]string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"HOME=" + stateDir,
			"MCP_HOST=0.0.0.0",
			"MCP_PORT=" + strconv.Itoa(port),
			"MCP_STATE_DIR=" + stateDir,
		}, extraEnv...),
		ExposedPorts: map[string]struct{}{strconv.Itoa(port) + "/tcp": {}},
		Volumes:      map[string]struct{}{stateDir: {}},
		StopSignal:   "SIGTERM",
		// Docker runs this; Podman reads health checks only from Docker-format images, so
		// compose.yaml and the Kubernetes manifests say it themselves.
		Healthcheck: &v1.HealthConfig{
			Test:        []string{"CMD", bin, "healthcheck"},
			Interval:    30 * time.Second,
			Timeout:     10 * time.Second,
			StartPeriod: 20 * time.Second,
			Retries:     3,
		},
		Labels: labels(id, m),
	}
	return mutate.ConfigFile(img, cf)
}

// labels are the OCI annotations every image carries, as configuration labels.
func labels(id string, m meta) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":         "mcp-" + id,
		"org.opencontainers.image.description":   descriptions[id],
		"org.opencontainers.image.version":       m.version,
		"org.opencontainers.image.revision":      m.revision,
		"org.opencontainers.image.source":        m.source,
		"org.opencontainers.image.url":           m.source,
		"org.opencontainers.image.documentation": m.source + "/blob/" + m.revision + "/docs/containers.md",
		"org.opencontainers.image.licenses":      m.licenses,
		"org.opencontainers.image.created":       m.created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.vendor":        "mcp-servers",
	}
}

// descriptions say in one line what each image serves.
var descriptions = map[string]string{
	"auth":       "The MCP fleet's OAuth 2.1 authorization server (port 9002)",
	"browser":    "MCP server: headless Chromium (port 9011)",
	"calculator": "MCP server: exact arithmetic, units, statistics (port 9003)",
	"calendar":   "MCP server: Google Calendar (port 9004)",
	"drive":      "MCP server: Google Drive (port 9006)",
	"gmail":      "MCP server: Gmail (port 9005)",
	"notes":      "MCP server: Markdown notes with full-text search (port 9009)",
	"shell":      "MCP server: commands and files inside its container (port 9001)",
	"spotify":    "MCP server: Spotify (port 9010)",
}

// serverIndex puts a server's per-architecture images into one index, each with its platform.
func serverIndex(id string, images map[string]v1.Image, arches []string, m meta) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, a := range arches {
		img, ok := images[a]
		if !ok {
			return nil, fmt.Errorf("%s: no %s image", id, a)
		}
		p := v1.Platform{OS: "linux", Architecture: a}
		if a == "arm64" {
			p.Variant = "v8"
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx = mutate.Annotations(idx, map[string]string{
		"org.opencontainers.image.title":    "mcp-" + id,
		"org.opencontainers.image.version":  m.version,
		"org.opencontainers.image.revision": m.revision,
		"org.opencontainers.image.source":   m.source,
		"org.opencontainers.image.licenses": m.licenses,
		"org.opencontainers.image.created":  m.created.UTC().Format(time.RFC3339),
	}).(v1.ImageIndex)
	return idx, nil
}
