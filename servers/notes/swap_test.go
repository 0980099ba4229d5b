package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/swaptest"
)

// TestToolsAgainstSwaps runs the note tools in a loop while another goroutine swaps a
// folder of the notes folder for a symlink to a sentinel outside (or renames it away and
// back), and fails if anything outside was created, changed or removed, or if its content
// appears in a result or inside the notes folder.
func TestToolsAgainstSwaps(t *testing.T) {
	t.Parallel()
	e := start(t)
	tests := []struct {
		name   string
		rename bool
		tool   string
		args   func(i int) map[string]any
	}{
		{"read", false, "get_note", func(int) map[string]any { return map[string]any{"path": "work/secret.md"} }},
		{"read through a renamed folder", true, "get_note", func(int) map[string]any { return map[string]any{"path": "work/secret.md"} }},
		{"create", false, "create_note", func(i int) map[string]any {
			return map[string]any{"path": fmt.Sprintf("work/new-%d.md", i), "content": "x"}
		}},
		{"overwrite", false, "create_note", func(int) map[string]any {
			return map[string]any{"path": "work/secret.md", "content": "over", "overwrite": true}
		}},
		{"append", false, "update_note", func(int) map[string]any {
			return map[string]any{"path": "work/secret.md", "mode": "append", "content": "more"}
		}},
		{"move", false, "move_note", func(i int) map[string]any {
			if i%2 == 0 {
				return map[string]any{"path": "work/secret.md", "new_path": "moved.md"}
			}
			return map[string]any{"path": "moved.md", "new_path": "work/secret.md"}
		}},
		{"delete", false, "delete_note", func(int) map[string]any { return map[string]any{"path": "work/secret.md"} }},
		{"list", false, "list_notes", func(int) map[string]any { return map[string]any{"folder": "work"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := swaptest.NewSentinel(t, "secret.md", "moved.md")
			work := filepath.Join(e.dir, "work")
			_ = os.RemoveAll(work)
			_ = os.RemoveAll(work + ".swap")
			call[writeOutput](e, "create_note", map[string]any{"path": "work/secret.md", "content": "inside", "overwrite": true})
			// The vault removes a folder a delete or move leaves empty; this keeps it.
			call[writeOutput](e, "create_note", map[string]any{"path": "work/keep.md", "content": "keep", "overwrite": true})
			swap := swaptest.SymlinkSwap(t, work, s.Dir)
			if tt.rename {
				swap = swaptest.RenameAway(work, s.Dir)
			}
			sw := swaptest.Start(t, swap)
			swaptest.Loop(time.Second, func(i int) {
				if tt.tool == "delete_note" {
					mcptest.Call(t, e.cs, "create_note", map[string]any{"path": "work/secret.md", "content": "inside", "overwrite": true})
				}
				res := mcptest.Call(t, e.cs, tt.tool, tt.args(i))
				b, _ := json.Marshal(res.StructuredContent)
				s.CheckText(t, tt.tool, mcptest.Text(res)+string(b))
			})
			sw.Stop(t)
			s.Check(t)
			s.CheckTree(t, e.dir)
		})
	}
}
