package main

import (
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the browser server's part of the agent task suite (docs/agent-tasks.md)
// on the test site's local pages: one server and Chromium, a new connection per task (each task
// starts by navigating, so none depends on the page the one before left).
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	h, _ := startServer(t)
	agenttask.Run(t, "browser", func(t *testing.T) *mcp.ClientSession { return h.Connect(t, "") }, browserTasks(s.URL))
}

func browserTasks(site string) []agenttask.Task {
	return []agenttask.Task{
		{Name: "sign-in", Ask: "Sign in to Acme as alice (password s3cret!) as an editor.",
			Run: func(a *agenttask.Agent) {
				snap := a.Call("browser_navigate", map[string]any{"url": site + "/login.html"})
				user := a.Find(snap, "the username field's ref", fmtRef(`textbox "Username"`))
				pass := a.Find(snap, "the password field's ref", fmtRef(`textbox "Password"`))
				role := a.Find(snap, "the role list's ref", fmtRef(`combobox "Role"`))
				submit := a.Find(snap, "the sign-in button's ref", fmtRef(`button "Sign in"`))
				done := a.Call("browser_fill_form", map[string]any{"fields": []map[string]any{
					{"ref": user, "value": "alice"}, {"ref": pass, "value": "s3cret!"}, {"ref": role, "value": "Editor"}}, "submit": submit})
				a.Has(done, "Welcome back, alice", "Role: editor")
			}},
		{Name: "book-a-table", Ask: "Book a table on 2 April 2026 at 19:30 on the terrace.",
			Run: func(a *agenttask.Agent) {
				snap := a.Call("browser_navigate", map[string]any{"url": site + "/inputs.html"})
				day := a.Find(snap, "the day field's ref", fmtRef(`\w+ "Day"`))
				arrival := a.Find(snap, "the arrival field's ref", fmtRef(`\w+ "Arrival"`))
				seating := a.Find(snap, "the seating list's ref", fmtRef(`combobox "Seating"`))
				book := a.Find(snap, "the book button's ref", fmtRef(`button "Book"`))
				done := a.Call("browser_fill_form", map[string]any{"fields": []map[string]any{
					{"ref": day, "value": "2026-04-02"}, {"ref": arrival, "value": "19:30"}, {"ref": seating, "value": "Terrace"}}, "submit": book})
				a.Has(done, "day = 2026-04-02", "arrival = 19:30", "seating = out")
			}},
		{Name: "read-article", Ask: "According to the kitchen garden article, how long do hand tools last?",
			Run: func(a *agenttask.Agent) {
				a.Call("browser_navigate", map[string]any{"url": site + "/article.html", "no_snapshot": true})
				hits := a.Call("browser_snapshot", map[string]any{"find": "hand tools"})
				a.Has(hits, "last for decades")
			}},
		{Name: "click-and-back", Ask: "Open the next page from the history page, then go back to where we were.",
			Run: func(a *agenttask.Agent) {
				snap := a.Call("browser_navigate", map[string]any{"url": site + "/history.html"})
				next := a.Find(snap, "the link's ref", fmtRef(`link "Next page"`))
				clicked := a.Call("browser_click", map[string]any{"ref": next})
				a.Has(clicked, "Related article 1")
				back := a.Call("browser_navigate", map[string]any{"url": "back"})
				a.Has(back, site+"/history.html", `"History"`)
			}},
	}
}

// fmtRef is the pattern of the ref on the snapshot line starting with line (a regexp).
func fmtRef(line string) string { return `(?m)^\s*-? ?` + line + `[^\n]*\[(e\d+)\]` }
