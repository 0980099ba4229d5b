package agenttask

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTable: one row a task with its cost, a totals row, and pipes in a request escaped.
func TestTable(t *testing.T) {
	got := Table([]Budget{
		{Server: "calculator", Task: "sum", Ask: "Add 1 | 2", Tools: []string{"evaluate"}, Calls: 1, Bytes: 10},
		{Server: "notes", Task: "edit", Ask: "Edit it", Tools: []string{"get_note", "update_note"}, Calls: 2, Bytes: 90},
	})
	for _, want := range []string{
		"| calculator | `sum` | Add 1 \\| 2 | 1 | 10 | evaluate |\n",
		"| notes | `edit` | Edit it | 2 | 90 | get_note → update_note |\n",
		"| **all** | 2 tasks | | 3 | 100 | |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

// TestOver: more calls fail, more bytes fail only past the slack, fewer of either pass.
func TestOver(t *testing.T) {
	want := Budget{Calls: 3, Bytes: 1000, Tools: []string{"a", "b", "c"}}
	for _, tt := range []struct {
		calls, bytes int
		fails        string
	}{
		{3, 1000, ""},
		{2, 400, ""},
		{3, 1250, ""},
		{3, 1251, "1251 bytes of text, budget 1000"},
		{4, 1000, "4 calls, budget 3"},
	} {
		got := Over(want, Budget{Calls: tt.calls, Bytes: tt.bytes, Tools: make([]string, tt.calls)})
		if (tt.fails == "") != (got == "") || !strings.Contains(got, tt.fails) {
			t.Errorf("%d calls, %d bytes: %q, want %q", tt.calls, tt.bytes, got, tt.fails)
		}
	}
}

// TestSplice: the table replaces what is between the markers, and a document without them is
// an error.
func TestSplice(t *testing.T) {
	doc := "# Title\n\n" + TableStart + "\nold\n" + TableEnd + "\nafter\n"
	got, err := Splice(doc, "new\n")
	if err != nil || got != "# Title\n\n"+TableStart+"\nnew\n"+TableEnd+"\nafter\n" {
		t.Errorf("Splice = %q, %v", got, err)
	}
	if _, err := Splice("# no markers\n", "x"); err == nil {
		t.Error("a document without markers was accepted")
	}
}

// TestAgentTasksDoc fails when docs/agent-tasks.md does not show the checked-in budgets (with
// AGENT_TASKS_UPDATE=1 it rewrites the table instead).
func TestAgentTasksDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	budgets, err := Collect(filepath.Join(root, "servers"))
	if err != nil {
		t.Fatal(err)
	}
	// Every MCP server (one with tool snapshots) has tasks.
	snaps, err := filepath.Glob(filepath.Join(root, "servers", "*", "testdata", "toolsnaps"))
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) == 0 {
		t.Fatal("no server has tool snapshots: is the test in the repository?")
	}
	for _, dir := range snaps {
		server := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		if !slices.ContainsFunc(budgets, func(b Budget) bool { return b.Server == server }) {
			t.Errorf("the %s server has no agent tasks: add TestAgentTasks in servers/%s/agenttasks_test.go", server, server)
		}
	}
	path := filepath.Join(root, "docs", "agent-tasks.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(string(doc), Table(budgets))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if want == string(doc) {
		return
	}
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s does not show the task budgets: run make agent-tasks UPDATE=1 (or make agent-tasks-doc) and commit it", path)
}
