package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestBareNoteNames: the tools that take a note accept its name as a [[wikilink]] does — the
// file name or the title, any case — and an ambiguous name lists the notes it may mean.
func TestBareNoteNames(t *testing.T) {
	t.Parallel()
	e := start(t)
	call[writeOutput](e, "create_note", map[string]any{"path": "projects/Kubernetes Migration", "content": "Move the cluster. See [[ideas]].\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "work/ideas", "content": "Work ideas.\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "home/ideas", "content": "Home ideas.\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "misc/q3", "title": "Quarterly plan", "content": "Plan.\n"})

	res := mcptest.Call(t, e.cs, "get_note", map[string]any{"path": "kubernetes migration"})
	var n noteOutput
	mcptest.Decode(t, res, &n)
	if n.Path != "projects/Kubernetes Migration.md" || !strings.HasPrefix(mcptest.Text(res), "projects/Kubernetes Migration.md") {
		t.Errorf("get_note by name: %s", mcptest.Text(res))
	}
	if n := call[noteOutput](e, "get_note", map[string]any{"path": "quarterly plan"}); n.Path != "misc/q3.md" {
		t.Errorf("get_note by title: %s", n.Path)
	}
	links := call[linksOutput](e, "get_note_links", map[string]any{"path": "Kubernetes Migration"})
	if links.Path != "projects/Kubernetes Migration.md" || len(links.Outgoing) != 1 {
		t.Errorf("get_note_links by name: %+v", links)
	}
	w := call[writeOutput](e, "update_note", map[string]any{"path": "KUBERNETES MIGRATION", "mode": "append", "content": "Done."})
	if w.Path != "projects/Kubernetes Migration.md" || !strings.Contains(e.file("projects/Kubernetes Migration.md"), "Done.") {
		t.Errorf("update_note by name: %+v", w)
	}
	if w := call[writeOutput](e, "tag_note", map[string]any{"path": "kubernetes migration", "add": []string{"ops"}}); !slices.Contains(w.Tags, "ops") {
		t.Errorf("tag_note by name: %+v", w)
	}

	for _, tool := range []string{"get_note", "get_note_links", "delete_note", "update_note"} {
		args := map[string]any{"path": "ideas", "mode": "append", "content": "x"}
		if tool != "update_note" {
			args = map[string]any{"path": "ideas"}
		}
		if msg := e.fail(tool, args); !strings.Contains(msg, `"ideas" names 2 notes: home/ideas.md, work/ideas.md; give the path`) {
			t.Errorf("%s with an ambiguous name: %s", tool, msg)
		}
	}
	if msg := e.fail("get_note", map[string]any{"path": "no such thing"}); !strings.Contains(msg, "no such note") {
		t.Errorf("an unknown name: %s", msg)
	}
	// A path still wins over a name, and create_note takes the path as given.
	if n := call[noteOutput](e, "get_note", map[string]any{"path": "work/ideas"}); n.Path != "work/ideas.md" {
		t.Errorf("by path: %s", n.Path)
	}
	if w := call[writeOutput](e, "create_note", map[string]any{"path": "ideas", "content": "Top ideas.\n"}); w.Path != "ideas.md" {
		t.Errorf("create_note with a name that exists elsewhere: %+v", w)
	}
	if n := call[noteOutput](e, "get_note", map[string]any{"path": "ideas"}); n.Path != "ideas.md" {
		t.Errorf("the note at the path itself: %s", n.Path)
	}
	if d := call[deleteOutput](e, "delete_note", map[string]any{"path": "quarterly plan"}); d.Path != "misc/q3.md" {
		t.Errorf("delete_note by title: %+v", d)
	}
}

// TestListNotesAnyWord: a query in plain words that no note has all of is retried with any of
// the words, and the answer says so; a query with search syntax is taken as written.
func TestListNotesAnyWord(t *testing.T) {
	t.Parallel()
	e := start(t)
	call[writeOutput](e, "create_note", map[string]any{"path": "k8s", "content": "Kubernetes cluster upgrade steps.\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "db", "content": "Postgres migration runbook.\n"})
	call[writeOutput](e, "create_note", map[string]any{"path": "garden", "content": "Tomatoes in May.\n"})

	res := mcptest.Call(t, e.cs, "list_notes", map[string]any{"query": "how did we plan the kubernetes migration"})
	var out listOutput
	mcptest.Decode(t, res, &out)
	var paths []string
	for _, n := range out.Notes {
		paths = append(paths, n.Path)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"db.md", "k8s.md"}) || out.AnyWord == "" {
		t.Errorf("any-word retry found %v (any_word %q)", paths, out.AnyWord)
	}
	if text := mcptest.Text(res); !strings.HasPrefix(text, "No note has every word of the query; notes with any of them") {
		t.Errorf("the text does not say the match was loosened:\n%s", text)
	}
	for _, q := range []string{`"kubernetes migration"`, "kubernetes -cluster", "zebra"} {
		if out := call[listOutput](e, "list_notes", map[string]any{"query": q}); len(out.Notes) != 0 || out.AnyWord != "" {
			t.Errorf("%s: %+v, want no notes and no retry", q, out)
		}
	}
	if out := call[listOutput](e, "list_notes", map[string]any{"query": "kubernetes upgrade"}); len(out.Notes) != 1 || out.AnyWord != "" {
		t.Errorf("every word found: %+v, want one note, no retry", out)
	}
}
