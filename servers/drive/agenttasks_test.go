package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the Drive server's part of the agent task suite (docs/agent-tasks.md)
// against the Drive fake holding the fixtures' files, a fresh one per task.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "drive", func(t *testing.T) *mcp.ClientSession {
		f := newFakeDrive(t)
		return mcptest.Start(t, spec(), signIn(t, f)...).Connect(t, "")
	}, driveTasks)
}

var driveTasks = []agenttask.Task{
	{Name: "read-project-goals", Ask: "What are the goals in my project plan doc?",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_files", map[string]any{"query": "project plan", "kind": "doc"})
			id := a.Find(hits, "the plan's file id", `\b(doc1)\b`)
			doc := a.Call("read_file", map[string]any{"file_id": id})
			a.Has(doc, "## Goals", "Ship the **calendar** server")
		}},
	{Name: "share-plan", Ask: "Let carol@example.com comment on the project plan and give me its link.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_files", map[string]any{"query": "project plan"})
			id := a.Find(hits, "the plan's file id", `\b(doc1)\b`)
			shared := a.Call("share_file", map[string]any{"file_id": id, "type": "user", "role": "commenter", "email": "carol@example.com"})
			a.Has(shared, "carol@example.com", "commenter")
			link := a.Call("get_share_link", map[string]any{"file_id": id})
			a.Find(link, "the file's link", `(https://docs\.google\.com/\S+)`)
		}},
	{Name: "budget-numbers", Ask: "What's in the first rows of my Budget spreadsheet?",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_files", map[string]any{"query": "Budget", "kind": "sheet"})
			id := a.Find(hits, "the sheet's file id", `\b(sheet1)\b`)
			sheet := a.Call("read_file", map[string]any{"file_id": id})
			a.Has(sheet, "Item,Amount,Date", "Total,12.5")
		}},
	{Name: "ocr-report", Ask: "How much did revenue grow according to report.pdf?",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_files", map[string]any{"query": "report", "kind": "pdf"})
			id := a.Find(hits, "the report's file id", `\b(pdf1)\b`)
			text := a.Call("extract_file_text", map[string]any{"file_id": id})
			a.Has(text, "Revenue grew 12%")
		}},
}
