package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/swaptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// swapRun is how long each swapper case calls its tool.
const swapRun = time.Second

// sentinelNames are the files outside the roots the swapped symlinks lead to; each case
// works on the same names inside the roots, so following a swapped symlink would reach them.
var sentinelNames = []string{"secret", "f", "victim", "sub/secret", "sub/only-outside"}

// swapCase is one file tool raced against one swap.
type swapCase struct {
	name string
	// swap is what the swapper exchanges, below the case's directory: "d" (a directory),
	// "d/sub" (one level down), "file" (a file), each against a symlink to the sentinel (or,
	// for "file", to its secret); with rename the directory is renamed away and back instead.
	swap   string
	rename bool
	tool   string
	args   func(i int) map[string]any
	// before runs before each call (for delete_path, which needs something to delete).
	before func(i int) (string, map[string]any)
}

func swapCases() []swapCase {
	fixed := func(args map[string]any) func(int) map[string]any {
		return func(int) map[string]any { return args }
	}
	edit := func(i int) map[string]any {
		from, to := "sentinel-secret-", "sentinel-secret-edited-"
		if i%2 == 1 {
			from, to = to, from
		}
		return map[string]any{"path": "d/f", "edits": []map[string]any{{"old_text": from, "new_text": to}}}
	}
	return []swapCase{
		{name: "read through a swapped directory", swap: "d", tool: "read_text_file", args: fixed(map[string]any{"path": "d/secret"})},
		{name: "read a swapped file", swap: "file", tool: "read_text_file", args: fixed(map[string]any{"path": "file"})},
		{name: "read through a renamed directory", swap: "d", rename: true, tool: "read_text_file", args: fixed(map[string]any{"path": "d/secret"})},
		{name: "create through a swapped directory", swap: "d", tool: "write_text_file", args: func(i int) map[string]any {
			return map[string]any{"path": fmt.Sprintf("d/new-%d", i), "content": "x"}
		}},
		{name: "overwrite through a swapped directory", swap: "d", tool: "write_text_file", args: fixed(map[string]any{"path": "d/f", "content": "overwritten", "overwrite": true})},
		{name: "overwrite a swapped file", swap: "file", tool: "write_text_file", args: fixed(map[string]any{"path": "file", "content": "overwritten", "overwrite": true})},
		{name: "edit through a swapped directory", swap: "d", tool: "edit_file", args: edit},
		{name: "edit through a renamed directory", swap: "d", rename: true, tool: "edit_file", args: edit},
		{name: "copy a file through a swapped directory", swap: "d", tool: "copy_path", args: func(i int) map[string]any {
			return map[string]any{"source": "d/secret", "destination": fmt.Sprintf("copy-%d", i)}
		}},
		{name: "copy a swapped file", swap: "file", tool: "copy_path", args: func(i int) map[string]any {
			return map[string]any{"source": "file", "destination": fmt.Sprintf("copy-%d", i)}
		}},
		{name: "copy a tree with a directory swapped mid-walk", swap: "d/sub", tool: "copy_path", args: func(i int) map[string]any {
			return map[string]any{"source": "d", "destination": fmt.Sprintf("tree-%d", i)}
		}},
		{name: "copy into a swapped directory", swap: "d", tool: "copy_path", args: func(i int) map[string]any {
			return map[string]any{"source": "plain", "destination": fmt.Sprintf("d/copy-%d", i)}
		}},
		{name: "move out of and back into a swapped directory", swap: "d", tool: "move_path", args: func(i int) map[string]any {
			if i%2 == 0 {
				return map[string]any{"source": "d/f", "destination": "moved"}
			}
			return map[string]any{"source": "moved", "destination": "d/f"}
		}},
		{name: "move over a file through a swapped directory", swap: "d", tool: "move_path", args: func(i int) map[string]any {
			return map[string]any{"source": "plain", "destination": "d/secret", "overwrite": true}
		}, before: func(int) (string, map[string]any) {
			return "write_text_file", map[string]any{"path": "plain", "content": "plain", "overwrite": true}
		}},
		{name: "delete through a swapped directory", swap: "d", tool: "delete_path", args: fixed(map[string]any{"path": "d/victim"}),
			before: func(int) (string, map[string]any) {
				return "write_text_file", map[string]any{"path": "d/victim", "content": "v", "overwrite": true}
			}},
		{name: "delete a tree through a swapped directory", swap: "d", tool: "delete_path", args: fixed(map[string]any{"path": "d/sub", "recursive": true}),
			before: func(int) (string, map[string]any) {
				return "copy_path", map[string]any{"source": "template", "destination": "d/sub"}
			}},
		{name: "list a swapped directory", swap: "d", tool: "list_directory", args: fixed(map[string]any{"path": "d", "depth": 3})},
		{name: "list with a directory swapped mid-walk", swap: "d/sub", tool: "list_directory", args: fixed(map[string]any{"path": "d", "depth": 3})},
		{name: "find in a swapped directory", swap: "d/sub", tool: "find_files", args: fixed(map[string]any{"root": "d", "pattern": "only"})},
		{name: "search a swapped directory", swap: "d", tool: "search_text", args: fixed(map[string]any{"root": "d", "pattern": "sentinel-secret-"})},
		{name: "search with a directory swapped mid-walk", swap: "d/sub", tool: "search_text", args: fixed(map[string]any{"root": "d", "pattern": "sentinel-secret-"})},
		{name: "path info through a swapped directory", swap: "d", tool: "get_path_info", args: fixed(map[string]any{"path": "d/secret"})},
		{name: "command in a swapped working directory", swap: "d", tool: "run_command", args: fixed(map[string]any{"command": "cat secret sub/only-outside", "cwd": "d"})},
	}
}

// TestFileToolsAgainstSwaps runs every file tool in a loop while another goroutine swaps a
// directory or file below the roots for a symlink to a sentinel tree outside them (or
// renames a directory away and puts such a symlink in its place), and fails if anything
// outside was created, changed or removed, or if outside content appears in a result or
// inside the roots.
func TestFileToolsAgainstSwaps(t *testing.T) {
	_, cs, work := start(t)
	for _, tc := range swapCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := swaptest.NewSentinel(t, sentinelNames...)
			dir := filepath.Join(work, strings.NewReplacer(" ", "-").Replace(tc.name))
			tree(t, dir, map[string]string{
				"d/secret": "inside", "d/f": "sentinel-secret- inside", "d/sub/secret": "inside",
				"file": "inside", "plain": "plain", "template/secret": "inside",
			})
			target := map[string]string{"d": s.Dir, "d/sub": filepath.Join(s.Dir, "sub"), "file": filepath.Join(s.Dir, "secret")}[tc.swap]
			var swap func() error
			if tc.rename {
				swap = swaptest.RenameAway(filepath.Join(dir, tc.swap), target)
			} else {
				swap = swaptest.SymlinkSwap(t, filepath.Join(dir, tc.swap), target)
			}
			sw := swaptest.Start(t, swap)
			calls, failed := 0, 0
			swaptest.Loop(swapRun, func(i int) {
				if tc.before != nil {
					tool, args := tc.before(i)
					checkResult(t, s, tool, mcptest.Call(t, cs, tool, below(dir, args)))
				}
				res := mcptest.Call(t, cs, tc.tool, below(dir, tc.args(i)))
				checkResult(t, s, tc.tool, res)
				calls++
				if res.IsError {
					failed++
				}
			})
			swaps := sw.Stop(t)
			s.Check(t)
			s.CheckTree(t, dir)
			t.Logf("%d calls (%d refused), %d swaps", calls, failed, swaps)
		})
	}
}

// below makes the paths of args absolute below dir.
func below(dir string, args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		if s, ok := v.(string); ok && (k == "path" || k == "source" || k == "destination" || k == "root" || k == "cwd") {
			v = filepath.Join(dir, s)
		}
		out[k] = v
	}
	return out
}

// checkResult fails t when a result shows outside content or names what is only outside.
func checkResult(t *testing.T, s *swaptest.Sentinel, tool string, res *mcp.CallToolResult) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	text := mcptest.Text(res) + string(b)
	s.CheckText(t, tool, text)
	if strings.Contains(text, "only-outside") && !strings.Contains(text, "No such file") {
		t.Errorf("%s listed a file outside the roots: %s", tool, text)
	}
	if !res.IsError && strings.Contains(text, s.Dir) { // a refusal may name where a symlink leads
		t.Errorf("%s answered with a path outside the roots: %s", tool, text)
	}
	if tool == "get_path_info" && !res.IsError {
		var info fileInfoOutput
		mcptest.Decode(t, res, &info)
		if info.Size == int64(len(s.Secret)) {
			t.Errorf("get_path_info described the file outside the roots: %+v", info)
		}
	}
}
