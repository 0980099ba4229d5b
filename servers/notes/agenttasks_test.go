package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the notes server's part of the agent task suite (docs/agent-tasks.md),
// each task on its own vault holding a few everyday notes.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "notes", func(t *testing.T) *mcp.ClientSession {
		state := t.TempDir()
		for rel, body := range notesVault {
			path := filepath.Join(state, "notes", rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		h := mcptest.Start(t, spec(), "--state-dir", state, "--scan-interval", "0")
		waitIndexed(t, h)
		return h.Connect(t, "")
	}, notesTasks)
}

// notesVault is the vault every task starts from.
var notesVault = map[string]string{
	"shopping.md":                  "# Shopping list\n\n- eggs\n- bread\n",
	"work/kubernetes migration.md": "---\ntags: [work]\n---\n# Kubernetes migration\n\nMeeting on 2026-03-02 with [[Priya]].\n\n## Decision\n\nWe move the billing service first, in April; see [[rollback plan]].\n",
	"work/rollback plan.md":        "# Rollback plan\n\nKeep the old cluster for two weeks; switch DNS back if error rate > 1%.\n",
	"people/Priya.md":              "# Priya\n\nSRE lead. Works on the [[kubernetes migration]].\n",
	"garden.md":                    "# Garden\n\nPlant tomatoes after the last frost.\n",
	"projects/house.md":            "# House\n\nSee [[garden]] for the plot.\n",
}

var notesTasks = []agenttask.Task{
	{Name: "append-to-list-safely", Ask: "Add oat milk to my shopping list.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("list_notes", map[string]any{"query": "shopping list"})
			path := a.Find(hits, "the shopping note's path", `(shopping\.md)`)
			note := a.Call("get_note", map[string]any{"path": path})
			hash := a.Find(note, "the note's hash", `(?i)hash:? ([0-9a-f]{8,})`)
			done := a.Call("update_note", map[string]any{"path": path, "mode": "append", "content": "- oat milk", "expected_hash": hash})
			a.Find(done, "the new hash", `(?i)hash:? ([0-9a-f]{8,})`)
		}},
	{Name: "follow-a-decision", Ask: "What did we decide about the kubernetes migration, and what's the fallback?",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("list_notes", map[string]any{"query": "what did we decide about the kubernetes migration"})
			path := a.Find(hits, "the meeting note's path", `(work/kubernetes migration\.md)`)
			sec := a.Call("get_note", map[string]any{"path": path, "heading": "Decision"})
			a.Has(sec, "billing service first")
			link := a.Find(sec, "the linked plan", `\[\[([^\]]+)\]\]`)
			plan := a.Call("get_note", map[string]any{"path": link})
			a.Has(plan, "switch DNS back")
		}},
	{Name: "daily-log", Ask: "Note in today's journal that I ran 5 km.",
		Run: func(a *agenttask.Agent) {
			daily := a.Call("daily_note", map[string]any{})
			path := a.Find(daily, "the daily note's path", `([\w/-]*\d{4}-\d{2}-\d{2}\.md)`)
			a.Call("update_note", map[string]any{"path": path, "mode": "append", "content": "- Ran 5 km"})
		}},
	{Name: "archive-and-check-links", Ask: "Move my garden note into the archive folder; do the links to it still work?",
		Run: func(a *agenttask.Agent) {
			moved := a.Call("move_note", map[string]any{"path": "garden", "new_path": "archive/garden.md"})
			a.Has(moved, "archive/garden.md")
			links := a.Call("get_note_links", map[string]any{"path": "archive/garden.md"})
			a.Has(links, "projects/house.md")
		}},
	{Name: "tag-and-find", Ask: "Tag the rollback plan as urgent, then show me everything urgent.",
		Run: func(a *agenttask.Agent) {
			tagged := a.Call("tag_note", map[string]any{"path": "rollback plan", "add": []string{"urgent"}})
			a.Has(tagged, "urgent")
			list := a.Call("list_notes", map[string]any{"tag": "urgent"})
			a.Has(list, "work/rollback plan.md")
		}},
}
