package main

import (
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the Gmail server's part of the agent task suite (docs/agent-tasks.md)
// against the Gmail fake holding the fixtures' mailbox, a fresh one per task.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "gmail", func(t *testing.T) *mcp.ClientSession {
		f := newFakeGmail(t)
		h := mcptest.Start(t, spec(), signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour))...)
		return h.Connect(t, "")
	}, gmailTasks)
}

var gmailTasks = []agenttask.Task{
	{Name: "reply-via-draft", Ask: "Reply to Bob's lunch email saying Friday works; let me see it before it goes, then send it.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_messages", map[string]any{"query": "from:bob@example.com subject:lunch"})
			id := a.Find(hits, "the lunch message's id", `(?m)^\W*(alt)\b`)
			draft := a.Call("save_draft", map[string]any{"message_id": id, "text": "Friday works, see you at noon.\nAda"})
			draftID := a.Find(draft, "the draft's id", `\b(d\d+)\b`)
			a.Has(draft, "bob@example.com")
			sent := a.Call("send_draft", map[string]any{"id": draftID})
			a.Find(sent, "the sent message's id", `(sent-d\d+)`)
		}},
	{Name: "save-attachment", Ask: "Get me the PDF Carol sent with her report.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_messages", map[string]any{"query": "from:carol has:attachment"})
			id := a.Find(hits, "the report's id", `(?m)^\W*(nested)\b`)
			msg := a.Call("get_message", map[string]any{"id": id})
			att := a.Find(msg, "the PDF's attachment id", `(att-pdf)`)
			a.Has(msg, "report.pdf")
			got := a.Call("get_attachment", map[string]any{"message_id": id, "attachment_id": att})
			a.Has(got, "report.pdf")
		}},
	{Name: "read-thread", Ask: "What day did we settle on in the Meeting thread?",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_messages", map[string]any{"query": "subject:Meeting"})
			thread := a.Find(hits, "the thread id", `(t3)\b`)
			conv := a.Call("get_thread", map[string]any{"id": thread})
			a.Has(conv, "Tuesday it is.")
		}},
	{Name: "archive-newsletters", Ask: "Archive the shop newsletter and mark Bob's lunch mail as read.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_messages", map[string]any{"query": "in:inbox"})
			a.Find(hits, "the newsletter's id", `(?m)^\W*(news)\b`)
			a.Find(hits, "the lunch message's id", `(?m)^\W*(alt)\b`)
			done := a.Call("modify_messages", map[string]any{"ids": []string{"news"}, "remove_labels": []string{"INBOX"}})
			a.Find(done, "how many changed", `(1)`)
			done = a.Call("modify_messages", map[string]any{"ids": []string{"alt"}, "remove_labels": []string{"UNREAD"}})
			a.Find(done, "how many changed", `(1)`)
		}},
}
