package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The snapshot layout shared/toolsnaps writes: one TOOL.json per tool, each the tool's
// definition as a client lists it, and serverFile beside them.
const (
	snapDir    = "testdata/toolsnaps"
	serverFile = "_server.json"
)

// serverSnap is serverFile.
type serverSnap struct {
	Name     string            `json:"name"`
	Title    string            `json:"title"`
	Port     int               `json:"port"`
	OnlyWith map[string]string `json:"onlyWith"`
	Toolsets []Toolset         `json:"toolsets"`
}

// Toolset is one toolset as the server snapshot records it.
type Toolset struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
	Optional    bool     `json:"optional"` // off by default
}

// Load reads the snapshots of every server under root (ROOT/NAME/testdata/toolsnaps), sorted
// by port. A server built on the kit (its main.go calls kit.Main) without snapshots is an
// error, so that no server drops out of the reference and the name check unnoticed.
func Load(root string) ([]Server, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read the servers: %w", err)
	}
	var servers []Server
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		snaps := filepath.Join(dir, snapDir)
		if _, err := os.Stat(filepath.Join(snaps, serverFile)); errors.Is(err, fs.ErrNotExist) {
			main, err := os.ReadFile(filepath.Join(dir, "main.go"))
			if err == nil && bytes.Contains(main, []byte("kit.Main(")) {
				return nil, fmt.Errorf("%s serves MCP but has no tool snapshots in %s: give it a TestToolSnaps (docs/writing-a-server.md) and run make toolsnaps", dir, snapDir)
			}
			continue
		}
		s, err := loadServer(snaps)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("no tool snapshots under %s/*/%s: run make toolsnaps", root, snapDir)
	}
	slices.SortStableFunc(servers, func(a, b Server) int { return a.Port - b.Port })
	return servers, nil
}

// loadServer reads one server's snapshot folder, refusing what the snapshot test would not
// have written: a tool whose file and name disagree, a flag mark for a tool it lacks.
func loadServer(dir string) (Server, error) {
	var meta serverSnap
	if err := readJSON(filepath.Join(dir, serverFile), &meta); err != nil {
		return Server{}, err
	}
	if meta.Name == "" || meta.Port == 0 {
		return Server{}, fmt.Errorf("%s: name and port are required: run make toolsnaps", filepath.Join(dir, serverFile))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Server{}, fmt.Errorf("read the snapshots: %w", err)
	}
	s := Server{Server: meta.Name, Port: meta.Port, Toolsets: meta.Toolsets}
	for _, e := range entries {
		if e.Name() == serverFile {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			return Server{}, fmt.Errorf("%s: not a tool snapshot", p)
		}
		var t Tool
		if err := readJSON(p, &t); err != nil {
			return Server{}, err
		}
		if t.Bytes, t.ModelBytes, err = sizes(p); err != nil {
			return Server{}, err
		}
		if t.Name+".json" != e.Name() {
			return Server{}, fmt.Errorf("%s holds tool %q: run make toolsnaps", p, t.Name)
		}
		t.OnlyWith = meta.OnlyWith[t.Name]
		s.Tools = append(s.Tools, t)
	}
	for name := range meta.OnlyWith {
		if !slices.ContainsFunc(s.Tools, func(t Tool) bool { return t.Name == name }) {
			return Server{}, fmt.Errorf("%s marks tool %q, which has no snapshot: run make toolsnaps", filepath.Join(dir, serverFile), name)
		}
	}
	for _, ts := range meta.Toolsets {
		for _, name := range ts.Tools {
			if !slices.ContainsFunc(s.Tools, func(t Tool) bool { return t.Name == name }) {
				return Server{}, fmt.Errorf("%s puts tool %q in toolset %s, but it has no snapshot: run make toolsnaps", filepath.Join(dir, serverFile), name, ts.Name)
			}
		}
	}
	slices.SortFunc(s.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// sizes are the length of a tool snapshot as compact JSON (the bytes the definition takes in a
// tools/list answer) and of the part a model reads: name, description and input schema.
func sizes(path string) (whole, model int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, fmt.Errorf("read the snapshot: %w", err)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	model = len("{}")
	n := 0
	for _, key := range []string{"name", "description", "inputSchema"} {
		if fields[key] == nil {
			continue
		}
		var v bytes.Buffer
		if err := json.Compact(&v, fields[key]); err != nil {
			return 0, 0, fmt.Errorf("%s: %s: %w", path, key, err)
		}
		if n > 0 {
			model++ // the comma
		}
		n++
		model += len(`"`+key+`":`) + v.Len()
	}
	return c.Len(), model, nil
}

// readJSON decodes one JSON file into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the snapshot: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
