package mcptest

import (
	"context"
	_ "embed" // the validator's driver
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OpenAPIValidatorDirEnv names the folder where scripts/ts-client-test.sh installed the
// OpenAPI validator (the npm package of shared/mcptest/testdata/openapi).
const OpenAPIValidatorDirEnv = "MCP_OPENAPI_VALIDATOR_DIR"

//go:embed openapivalidate.mjs
var openAPIValidate []byte

// openAPIView is one view of a server: a narrowing of its URL, or an X-MCP-Toolsets header.
type openAPIView struct {
	what   string
	h      *Harness
	prefix string // "", /readonly, /x/{toolset}, /x/{toolset}/readonly
	header http.Header
	within func(*mcp.Tool) bool // what a tool of this view must be, beyond being listed by MCP
}

// CheckOpenAPI holds a server's openapi.json to what the server offers: started with args
// (and with --read-only, --toolsets, --disable-tools and run-time switches added in turn), the
// document of every route (/, /readonly, each /x/{toolset} and its /readonly, an X-MCP-Toolsets
// header) lists exactly the tools tools/list lists at the matching MCP URL, one POST
// /tools/{name} operation each, and no tool the view leaves out (a write under read-only, a
// tool of another toolset, a disabled or switched-off one). With MCP_OPENAPI_VALIDATOR_DIR
// (scripts/ts-client-test.sh sets it) every document is also validated as OpenAPI 3.1 by
// @seriousme/openapi-schema-validator, its $refs resolved and its schemas checked against JSON
// Schema 2020-12; without it that part is logged as not run.
func CheckOpenAPI(t *testing.T, spec func() kit.Spec, args ...string) {
	t.Helper()
	start := func(extra ...string) *Harness { return Start(t, spec(), append(slices.Clone(args), extra...)...) }
	every := func(*mcp.Tool) bool { return true }
	readOnly := func(tool *mcp.Tool) bool { return tool.Annotations != nil && tool.Annotations.ReadOnlyHint }
	not := func(name string) func(*mcp.Tool) bool { return func(tool *mcp.Tool) bool { return tool.Name != name } }

	base := start()
	all := Tools(t, base.Connect(t, ""))
	if len(all) == 0 {
		t.Fatal("the server offers no tool: its openapi.json would prove nothing")
	}
	views := []openAPIView{{"all", base, "", nil, every}, {"/readonly", base, "/readonly", nil, readOnly}, {"/x/all", base, "/x/all", nil, every}}
	sets := base.Server.Toolsets()
	for _, ts := range sets {
		in := func(tool *mcp.Tool) bool { return slices.Contains(ts.Tools, tool.Name) }
		views = append(views,
			openAPIView{"/x/" + ts.Name, base, "/x/" + ts.Name, nil, in},
			openAPIView{"/x/" + ts.Name + "/readonly", base, "/x/" + ts.Name + "/readonly", nil, func(tool *mcp.Tool) bool { return in(tool) && readOnly(tool) }},
			openAPIView{"X-MCP-Toolsets: " + ts.Name, base, "", http.Header{"X-Mcp-Toolsets": {ts.Name}}, in})
	}
	views = append(views, openAPIView{"--read-only", start("--read-only"), "", nil, readOnly})
	first := all[0].Name
	views = append(views, openAPIView{"--disable-tools " + first, start("--disable-tools", first), "", nil, not(first)})
	if len(sets) > 0 {
		in := func(tool *mcp.Tool) bool { return slices.Contains(sets[0].Tools, tool.Name) }
		views = append(views, openAPIView{"--toolsets " + sets[0].Name, start("--toolsets", sets[0].Name), "", nil, in})
	}
	docs := map[string][]byte{}
	for _, v := range views {
		docs[v.what] = v.check(t)
	}

	// Run-time switches, on a server of its own with a state folder of its own (the switches
	// are written there, never in a server's default folder): a tool, a toolset, the fleet's
	// read-only.
	sw := start("--state-dir", t.TempDir())
	states := []struct {
		what   string
		state  switches.State
		within func(*mcp.Tool) bool
	}{
		{"switched off: tool " + first, switches.State{Tools: []string{first}}, not(first)},
		{"switched off: the fleet's writes", switches.State{ReadOnly: true}, readOnly},
	}
	if len(sets) > 0 {
		off := sets[len(sets)-1]
		states = append(states, struct {
			what   string
			state  switches.State
			within func(*mcp.Tool) bool
		}{"switched off: toolset " + off.Name, switches.State{Toolsets: []string{off.Name}}, func(tool *mcp.Tool) bool { return !slices.Contains(off.Tools, tool.Name) }})
	}
	for i, s := range states {
		s.state.Format, s.state.Version = switches.Format, int64(i+1)
		if _, err := sw.Server.SetSwitches(s.state); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		docs[s.what] = openAPIView{s.what, sw, "", nil, s.within}.check(t)
	}
	validateOpenAPI(t, docs)
}

// check compares the view's openapi.json with its tools/list and returns the document.
func (v openAPIView) check(t *testing.T) []byte {
	t.Helper()
	cs, err := v.h.TryConnectTo(t.Context(), "/mcp"+v.prefix, "", v.header)
	if err != nil {
		t.Fatalf("%s: connect to /mcp%s: %v", v.what, v.prefix, err)
	}
	defer cs.Close()
	var want []string
	for _, tool := range Tools(t, cs) {
		want = append(want, tool.Name)
		if !v.within(tool) {
			t.Errorf("%s: tools/list offers %s, which this view leaves out", v.what, tool.Name)
		}
	}
	slices.Sort(want)
	doc := getOpenAPI(t, v.h.URL+v.prefix+"/openapi.json", v.header)
	got, err := openAPIOperations(doc)
	if err != nil {
		t.Errorf("%s: %s/openapi.json: %v", v.what, v.prefix, err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: %s/openapi.json lists %v\ntools/list at /mcp%s lists %v", v.what, v.prefix, got, v.prefix, want)
	}
	return doc
}

func getOpenAPI(t *testing.T, url string, header http.Header) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, clip(string(b), 300))
	}
	return b
}

// openAPIOperations returns the tools a document offers, sorted: each path must be
// /tools/{operationId} with one POST operation.
func openAPIOperations(doc []byte) ([]string, error) {
	var d struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			ID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	var errs []error
	if !strings.HasPrefix(d.OpenAPI, "3.1.") {
		errs = append(errs, fmt.Errorf("openapi %q, want 3.1.x", d.OpenAPI))
	}
	var names []string
	for path, ops := range d.Paths {
		post, ok := ops["post"]
		if len(ops) != 1 || !ok || path != "/tools/"+post.ID {
			errs = append(errs, fmt.Errorf("path %s: want only a POST whose operationId is the tool's name", path))
		}
		names = append(names, strings.TrimPrefix(path, "/tools/"))
	}
	slices.Sort(names)
	return names, errors.Join(errs...)
}

// validateOpenAPI runs openapivalidate.mjs on the documents with the validator that
// scripts/ts-client-test.sh installed.
func validateOpenAPI(t *testing.T, docs map[string][]byte) {
	t.Helper()
	dir := os.Getenv(OpenAPIValidatorDirEnv)
	if dir == "" {
		t.Logf("%s is not set, so the %d documents were not validated as OpenAPI 3.1 (scripts/ts-client-test.sh does that)", OpenAPIValidatorDirEnv, len(docs))
		return
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed with %s: %v", OpenAPIValidatorDirEnv, err)
	}
	// The script runs from the validator's folder, where its imports resolve; the documents
	// go in a folder of the test's own.
	script, err := os.CreateTemp(dir, "openapivalidate-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(script.Name()) })
	if _, err := script.Write(openAPIValidate); err != nil {
		t.Fatal(err)
	}
	if err := script.Close(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	files := map[string]string{}
	cmdArgs := []string{script.Name()}
	i := 0
	for what, doc := range docs {
		i++
		f := filepath.Join(tmp, fmt.Sprintf("doc%d.json", i))
		if err := os.WriteFile(f, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		files[f] = what
		cmdArgs = append(cmdArgs, f)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cmdArgs...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the OpenAPI validator: %v\n%s", err, stderr)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		var r struct {
			File    string   `json:"file"`
			Valid   bool     `json:"valid"`
			Version string   `json:"version"`
			Errors  []string `json:"errors"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("the OpenAPI validator wrote %q: %v", line, err)
		}
		seen++
		if !r.Valid || r.Version != "3.1" {
			t.Errorf("%s: openapi.json is not valid OpenAPI 3.1 (version %q):\n%s\n%s", files[r.File], r.Version, strings.Join(r.Errors, "\n"), clip(string(docs[files[r.File]]), 2000))
		}
	}
	if seen != len(docs) {
		t.Errorf("the OpenAPI validator answered for %d of %d documents:\n%s", seen, len(docs), out)
	}
}
