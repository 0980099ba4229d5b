package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFileResources: the files inside the roots read as resources through the roots'
// containment (a symlink out and a path outside are not found, a binary file is refused),
// absolute paths complete, and find_files and search_text link what they found.
func TestFileResources(t *testing.T) {
	h, cs, work := start(t)
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("alpha.txt", "the first line\nneedle here\n")
	write("blob.bin", "a\x00b")
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(work, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		c := h.ConnectAs(t, "", version, nil)
		res, err := c.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file://" + work + "/alpha.txt"})
		if err != nil || res.Contents[0].Text != "the first line\nneedle here\n" || res.Contents[0].MIMEType != "text/plain" {
			t.Errorf("%s: read alpha.txt: %+v %v", version, res, err)
		}
		for uri, want := range map[string]string{
			"file://" + work + "/blob.bin":   "looks binary",
			"file://" + work + "/escape.txt": "outside the allowed roots",
			"file:///etc/hostname":           "outside",
			"file://" + work + "/none.txt":   "does not exist",
			"file://" + work + "/sub":        "not a regular file",
		} {
			if _, err := c.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: read %s: %v, want %q", version, uri, err, want)
			}
		}
		for value, want := range map[string][]string{
			work + "/a":  {work + "/alpha.txt"},
			work + "/su": {work + "/sub/"},
			"":           {work},
		} {
			comp, err := c.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: fileTemplate}, Argument: mcp.CompleteParamsArgument{Name: "path", Value: value}})
			if err != nil || !slices.Equal(comp.Completion.Values, want) {
				t.Errorf("%s: complete %q: %+v %v, want %v", version, value, comp, err, want)
			}
		}
	}
	links := func(tool string, args map[string]any) []string {
		var uris []string
		for _, c := range mcptest.Call(t, cs, tool, args).Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				uris = append(uris, l.URI)
			}
		}
		return uris
	}
	if got := links("find_files", map[string]any{"pattern": "alpha*"}); !slices.Equal(got, []string{"file://" + work + "/alpha.txt"}) {
		t.Errorf("find_files links %v", got)
	}
	if got := links("search_text", map[string]any{"pattern": "needle"}); !slices.Equal(got, []string{"file://" + work + "/alpha.txt"}) {
		t.Errorf("search_text links %v", got)
	}
}

// TestShellPromptsAndNarrowing: diagnose_unit goes where run_command goes and the file
// template where read_text_file goes; the prompt names the unit quoted and refuses a name that
// is not one.
func TestShellPromptsAndNarrowing(t *testing.T) {
	h, cs, _ := start(t)
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "diagnose_unit", Arguments: map[string]string{"unit": "nginx.service"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "journalctl -u 'nginx.service' -n 200") {
		t.Errorf("diagnose_unit: %+v %v", res, err)
	}
	for _, unit := range []string{"x; rm -rf /", ""} {
		if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "diagnose_unit", Arguments: map[string]string{"unit": unit}}); err == nil {
			t.Errorf("diagnose_unit %q: no error", unit)
		}
	}
	for path, want := range map[string][2]bool{ // template, prompt
		"/mcp":            {true, true},
		"/mcp/readonly":   {true, false},
		"/mcp/x/files":    {true, false},
		"/mcp/x/commands": {false, true},
	} {
		c, err := h.TryConnectTo(t.Context(), path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var templates, prompts int
		for _, err := range c.ResourceTemplates(t.Context(), nil) {
			if err == nil {
				templates++
			}
		}
		for _, err := range c.Prompts(t.Context(), nil) {
			if err == nil {
				prompts++
			}
		}
		if (templates == 1) != want[0] || (prompts == 1) != want[1] {
			t.Errorf("%s: %d templates, %d prompts; want %v", path, templates, prompts, want)
		}
	}
}
