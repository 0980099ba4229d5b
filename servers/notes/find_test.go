package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestFindWordFormsTyposAndDates drives list_notes, searching and listing, over HTTP: other word
// forms and near spellings ranked after exact matches, date filters, and changed_since.
func TestFindWordFormsTyposAndDates(t *testing.T) {
	t.Parallel()
	e := start(t)
	write := func(rel, created, updated, body string) {
		t.Helper()
		p := filepath.Join(e.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		data := "---\ncreated: " + created + "\nupdated: " + updated + "\n---\n\n" + body
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // file times older than any since below
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	write("wild/pack.md", "2026-01-05", "2026-03-01", "# Pack\n\nThe wolves hunted at night.\n")
	write("wild/lone.md", "2026-02-10", "2026-02-11", "# Lone\n\nA lone wolf crossed the ridge.\n")
	write("sport/track.md", "2026-03-15", "2026-03-15", "# Track\n\nShe was running late to the track.\n")
	write("sport/race.md", "2026-03-16", "2026-03-16", "# Race\n\nWe run at dawn. #training\n")

	type hit struct{ path, match string }
	search := func(args map[string]any) []hit {
		t.Helper()
		out := call[listOutput](e, "list_notes", args)
		var hs []hit
		for _, n := range out.Notes {
			hs = append(hs, hit{n.Path, n.Match})
		}
		return hs
	}
	for _, c := range []struct {
		args map[string]any
		want []hit
	}{
		{map[string]any{"query": "wolf"}, []hit{{"wild/lone.md", ""}, {"wild/pack.md", "stem"}}},
		{map[string]any{"query": "run"}, []hit{{"sport/race.md", ""}, {"sport/track.md", "stem"}}},
		{map[string]any{"query": "ran", "folder": "sport"}, []hit{{"sport/race.md", "stem"}, {"sport/track.md", "stem"}}},
		{map[string]any{"query": "crosed ridge"}, []hit{{"wild/lone.md", "near"}}},
		{map[string]any{"query": "wolf", "created_after": "2026-02-01"}, []hit{{"wild/lone.md", ""}}},
		{map[string]any{"query": "wolf", "updated_after": "2026-02-20", "updated_before": "2026-03-02"}, []hit{{"wild/pack.md", "stem"}}},
		{map[string]any{"query": "run", "created_before": "2026-03-16T00:00:00Z", "folder": "sport"}, []hit{{"sport/track.md", "stem"}}},
		{map[string]any{"query": "run", "tag": "training", "created_after": "2026-03-16"}, []hit{{"sport/race.md", ""}}},
	} {
		if got := search(c.args); !slices.Equal(got, c.want) {
			t.Errorf("search %v = %v, want %v", c.args, got, c.want)
		}
	}
	out := call[listOutput](e, "list_notes", map[string]any{"query": "wolf"})
	if len(out.Notes) != 2 || !strings.Contains(out.Notes[1].Snippet, "**wolves**") {
		t.Errorf("stem snippet = %+v", out.Notes)
	}
	listed := call[listOutput](e, "list_notes", map[string]any{"created_after": "2026-03-01", "sort": "path"})
	if len(listed.Notes) != 2 || listed.Notes[0].Path != "sport/race.md" {
		t.Errorf("list by date = %+v", listed.Notes)
	}
	if msg := e.fail("list_notes", map[string]any{"query": "wolf", "created_after": "last week"}); !strings.Contains(msg, "created_after") || !strings.Contains(msg, "YYYY-MM-DD") {
		t.Errorf("bad date = %s", msg)
	}

	// changed_since: notes created, updated and deleted since a time, newest first.
	since := time.Now().Add(-time.Second).Format(time.RFC3339)
	time.Sleep(10 * time.Millisecond)
	call[writeOutput](e, "create_note", map[string]any{"path": "wild/den", "content": "A den."})
	time.Sleep(1100 * time.Millisecond) // front matter times have second resolution
	call[writeOutput](e, "update_note", map[string]any{"path": "wild/lone", "mode": "append", "content": "Again."})
	call[deleteOutput](e, "delete_note", map[string]any{"path": "sport/track"})
	changes := call[listOutput](e, "list_notes", map[string]any{"changed_since": since})
	var got []string
	for _, n := range changes.Notes {
		got = append(got, n.Change+" "+n.Path)
	}
	if want := []string{"deleted sport/track.md", "updated wild/lone.md", "created wild/den.md"}; !slices.Equal(got, want) {
		t.Errorf("changed_since = %v, want %v", got, want)
	}
	text := mcptest.Text(mcptest.Call(t, e.cs, "list_notes", map[string]any{"changed_since": since}))
	if !strings.HasPrefix(text, "deleted: sport/track.md (") || !strings.Contains(text, "\ncreated: wild/den.md — den (") {
		t.Errorf("changed_since text:\n%s", text)
	}
	wild := call[listOutput](e, "list_notes", map[string]any{"changed_since": since, "folder": "wild", "limit": 1})
	if len(wild.Notes) != 1 || wild.Notes[0].Path != "wild/lone.md" || !wild.More {
		t.Errorf("changed_since in a folder = %+v", wild)
	}
	// A note made again at a deleted path is no longer deleted; an outside deletion counts.
	call[writeOutput](e, "create_note", map[string]any{"path": "sport/track", "content": "Back."})
	if err := os.Remove(filepath.Join(e.dir, "sport/race.md")); err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, n := range call[listOutput](e, "list_notes", map[string]any{"changed_since": since, "folder": "sport"}).Notes {
		got = append(got, n.Change+" "+n.Path)
	}
	if want := []string{"deleted sport/race.md", "created sport/track.md"}; !slices.Equal(got, want) {
		t.Errorf("changed_since after re-create and outside delete = %v, want %v", got, want)
	}
}
