// Package toolsnaps keeps a snapshot of every tool a server offers — name, title, description,
// input and output schemas, annotations, exactly as a client lists them — in JSON files under
// the server's testdata, and fails the server's test when its tools and the files disagree, so
// that every change to what a model sees shows up in review. docs/tools.md is generated from
// the same files (scripts/cmd/toolsdoc).
//
// The folder holds one TOOL.json per tool and ServerFile, which names the server, its port and
// the tools it offers only with some flags. Setting UpdateEnv rewrites the folder instead
// (make toolsnaps).
package toolsnaps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// Dir is where a server's snapshots live, relative to its module (the test's directory).
	Dir = "testdata/toolsnaps"
	// ServerFile is the snapshot of the server itself; no tool name can collide with it.
	ServerFile = "_server.json"
	// UpdateEnv, set to 1, makes Test rewrite the snapshots instead of checking them.
	UpdateEnv = "UPDATE_TOOLSNAPS"
	// updateHint is how to accept a change, said with every failure.
	updateHint = "if the change is intended, run `make toolsnaps` (or `" + UpdateEnv + "=1 go test -run TestToolSnaps .` in the server's folder), review the diff and commit it"
)

// Server is what ServerFile records.
type Server struct {
	Name     string            `json:"name"`               // the server id (its MCP Implementation.Name)
	Title    string            `json:"title,omitempty"`    // its human title
	Port     int               `json:"port"`               // its fixed default port
	OnlyWith map[string]string `json:"onlyWith,omitempty"` // tool name → the flags that make the server offer it
	Toolsets []kit.ToolsetInfo `json:"toolsets,omitempty"` // the server's inventory, over every start
}

// Options say how to start the server for its snapshot.
type Options struct {
	Args     []string   // flags every start gets, such as a temporary --state-dir
	Optional [][]string // flag sets that each make the server offer more tools, e.g. {"--sync", "drive"}
	Dir      string     // where the snapshots are; Dir when empty
}

// Test lists the tools spec offers over real HTTP, with opts.Args and then once more with each
// set of opts.Optional flags added and with --toolsets default,NAME for each toolset off by
// default, and compares them with the snapshots in opts.Dir: it fails
// with a diff for every tool whose definition changed, every tool without a snapshot and every
// snapshot of a tool the server no longer has. With UpdateEnv=1 it rewrites the snapshots.
// spec is called once per start, so that no flag value is shared between servers.
func Test(t *testing.T, spec func() kit.Spec, opts Options) {
	t.Helper()
	dir := opts.Dir
	if dir == "" {
		dir = Dir
	}
	files, err := Snapshot(collect(t, spec, opts))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(UpdateEnv) == "1" {
		if err := Write(dir, files); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d tool snapshots to %s", len(files)-1, dir)
		return
	}
	if err := Check(dir, files); err != nil {
		t.Error(err)
	}
}

// collect lists the tools of every start Test makes and notes the tools only a flag set adds.
// The toolsets are each start's inventory merged: a tool only a flag set adds comes after
// those every start has.
func collect(t *testing.T, spec func() kit.Spec, opts Options) (Server, []*mcp.Tool) {
	t.Helper()
	sp := spec()
	h := mcptest.Start(t, sp, opts.Args...)
	cs := h.Connect(t, "")
	info := cs.InitializeResult().ServerInfo
	srv := Server{Name: info.Name, Title: info.Title, Port: sp.Port, Toolsets: h.Server.Toolsets()}
	tools := map[string]*mcp.Tool{}
	for _, tool := range mcptest.Tools(t, cs) {
		tools[tool.Name] = tool
	}
	starts := slices.Clone(opts.Optional)
	for _, ts := range sp.Toolsets {
		if ts.Optional { // a toolset off by default: its tools are offered with --toolsets default,NAME
			starts = append(starts, []string{"--toolsets", string(kit.ToolsetDefault) + "," + string(ts.ID)})
		}
	}
	for _, flags := range starts {
		args := append(slices.Clone(opts.Args), flags...)
		h := mcptest.Start(t, spec(), args...)
		for _, tool := range mcptest.Tools(t, h.Connect(t, "")) {
			if _, ok := tools[tool.Name]; ok {
				continue
			}
			if srv.OnlyWith == nil {
				srv.OnlyWith = map[string]string{}
			}
			tools[tool.Name], srv.OnlyWith[tool.Name] = tool, strings.Join(flags, " ")
		}
		srv.Toolsets = merge(srv.Toolsets, h.Server.Toolsets())
	}
	for i, ts := range srv.Toolsets {
		// A tool the server has but offers with none of the starts is not in the snapshots.
		srv.Toolsets[i].Tools = slices.DeleteFunc(ts.Tools, func(name string) bool { return tools[name] == nil })
	}
	return srv, slices.SortedFunc(maps.Values(tools), func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
}

// merge adds to each toolset of into the tools more has in it and into lacks, in more's order.
func merge(into, more []kit.ToolsetInfo) []kit.ToolsetInfo {
	for i := range into {
		for _, m := range more {
			if m.Name != into[i].Name {
				continue
			}
			for _, name := range m.Tools {
				if !slices.Contains(into[i].Tools, name) {
					into[i].Tools = append(into[i].Tools, name)
				}
			}
		}
	}
	return into
}

// toolName is what a tool name must look like to name its snapshot file safely.
var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Snapshot is the content of every snapshot file for srv and its tools, by file name.
func Snapshot(srv Server, tools []*mcp.Tool) (map[string][]byte, error) {
	files := map[string][]byte{}
	b, err := canonical(srv)
	if err != nil {
		return nil, fmt.Errorf("snapshot of server %s: %w", srv.Name, err)
	}
	files[ServerFile] = b
	for _, tool := range tools {
		if !toolName.MatchString(tool.Name) {
			return nil, fmt.Errorf("tool name %q cannot name a snapshot file: tool names are snake_case (a-z, 0-9, _), starting with a letter", tool.Name)
		}
		name := tool.Name + ".json"
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("tool %q listed twice", tool.Name)
		}
		if files[name], err = canonical(tool); err != nil {
			return nil, fmt.Errorf("snapshot of tool %s: %w", tool.Name, err)
		}
	}
	return files, nil
}

// canonical is v as indented JSON with object keys sorted and numbers kept exactly as
// marshalled, so that the same definition always gives the same bytes.
func canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	tree, err := decode(raw)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // descriptions stay readable: <, > and & as they are
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// Check compares the snapshot folder dir with files and returns an error that lists every
// difference: a changed file with a diff by JSON path, a missing one, and a file that is not
// among files (the snapshot of a tool the server no longer has, or anything else).
func Check(dir string, files map[string][]byte) error {
	onDisk, err := read(dir)
	if err != nil {
		return err
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		old, ok := onDisk[name]
		switch {
		case !ok && name == ServerFile:
			problems = append(problems, fmt.Sprintf("%s: no snapshot of the server", filepath.Join(dir, name)))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: no snapshot of tool %s, which the server offers", filepath.Join(dir, name), strings.TrimSuffix(name, ".json")))
		case !bytes.Equal(old, files[name]):
			problems = append(problems, fmt.Sprintf("%s differs from the server (- snapshot, + server):\n%s", filepath.Join(dir, name), Diff(old, files[name])))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(onDisk)) {
		if _, ok := files[name]; ok {
			continue
		}
		if strings.HasSuffix(name, ".json") {
			problems = append(problems, fmt.Sprintf("%s: the server has no tool %s", filepath.Join(dir, name), strings.TrimSuffix(name, ".json")))
		} else {
			problems = append(problems, fmt.Sprintf("%s: not a tool snapshot (only TOOL.json and %s belong here)", filepath.Join(dir, name), ServerFile))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("tool snapshots are stale:\n%s\n%s", strings.Join(problems, "\n"), updateHint)
	}
	return nil
}

// Write makes dir hold exactly files: it writes each and removes the snapshots not among them.
// It refuses, changing nothing, when dir holds something other than JSON files.
func Write(dir string, files map[string][]byte) error {
	onDisk, err := read(dir)
	if err != nil {
		return err
	}
	for name := range onDisk {
		if !strings.HasSuffix(name, ".json") {
			return fmt.Errorf("%s: not a tool snapshot; remove it, then update again", filepath.Join(dir, name))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tool snapshots: %w", err)
	}
	for name, b := range files {
		if old, ok := onDisk[name]; ok && bytes.Equal(old, b) {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("tool snapshots: %w", err)
		}
	}
	for name := range onDisk {
		if _, ok := files[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("tool snapshots: %w", err)
			}
		}
	}
	return nil
}

// read returns the files in dir by name; a missing dir holds none. A subfolder is an error.
func read(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tool snapshots: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s: not a tool snapshot (only TOOL.json and %s files belong here)", p, ServerFile)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("tool snapshots: %w", err)
		}
		files[e.Name()] = b
	}
	return files, nil
}
