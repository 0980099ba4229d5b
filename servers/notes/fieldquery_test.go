package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFieldQueries: list_notes narrows by front matter fields over MCP (equals, contains,
// before, after, exists; lists, numbers, case; several at once; with a query and other
// filters), follows a field set by set_note_field, and refuses conditions it cannot run with
// an error saying what to give.
func TestFieldQueries(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	notes := map[string]string{
		"a.md":      "---\nstatus: active\ndue: 2026-03-01\nrating: 4\npeople: [Ann, Bo]\n---\n\ngarden plan\n",
		"b.md":      "---\nstatus: done\ndue: 2026-05-10T09:00:00Z\nrating: 4.0\npeople:\n  - Cy\nreviewed:\n---\n\ngarden shed\n",
		"c.md":      "---\nStatus: Active\nproject: \"Garden Makeover\"\ntags: [home]\n---\n\nkitchen\n",
		"w/d.md":    "garden, no front matter\n",
		"w/e.md":    "---\ntitle: Owned keys only\ntags: [work]\n---\n\ngarden\n",
		"w/f.md":    "---\ndue: someday\n---\n\nnot a date\n",
		"w/g.md":    "---\nstatus: inactive\n---\n\nnear miss\n",
		"w/list.md": "---\npeople: []\n---\n\nempty list\n",
	}
	for p, body := range notes {
		file := filepath.Join(state, "notes", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := startIn(t, state)
	cond := func(field, op, value string) map[string]any {
		c := map[string]any{"field": field, "op": op}
		if value != "" {
			c["value"] = value
		}
		return c
	}
	list := func(args map[string]any) []string {
		t.Helper()
		out := call[listOutput](e, "list_notes", args)
		var paths []string
		for _, n := range out.Notes {
			paths = append(paths, n.Path)
		}
		slices.Sort(paths)
		return paths
	}
	for _, c := range []struct {
		name   string
		fields []any
		extra  map[string]any
		want   []string
	}{
		{"equals ignores case of value and key", []any{cond("status", "equals", "ACTIVE")}, nil, []string{"a.md", "c.md"}},
		{"equals is whole", []any{cond("status", "equals", "act")}, nil, nil},
		{"equals a list's item", []any{cond("people", "equals", "bo")}, nil, []string{"a.md"}},
		{"equals a block list's item", []any{cond("people", "equals", "Cy")}, nil, []string{"b.md"}},
		{"equals a number as written or not", []any{cond("rating", "equals", "4.0")}, nil, []string{"a.md", "b.md"}},
		{"contains", []any{cond("project", "contains", "makeover")}, nil, []string{"c.md"}},
		{"contains a list's item", []any{cond("people", "contains", "n")}, nil, []string{"a.md"}},
		{"before a date", []any{cond("due", "before", "2026-04-01")}, nil, []string{"a.md"}},
		{"after a date, a time counts", []any{cond("due", "after", "2026-04-01")}, nil, []string{"b.md"}},
		{"after the very time", []any{cond("due", "after", "2026-05-10T09:00:00Z")}, nil, []string{"b.md"}},
		{"exists, empty value and list included", []any{cond("reviewed", "exists", "")}, nil, []string{"b.md"}},
		{"exists, an empty list", []any{cond("people", "exists", "")}, nil, []string{"a.md", "b.md", "w/list.md"}},
		{"exists, text that is not a date", []any{cond("due", "exists", "")}, nil, []string{"a.md", "b.md", "w/f.md"}},
		{"owned keys are not fields", []any{cond("title", "exists", "")}, nil, nil},
		{"all must hold", []any{cond("status", "equals", "active"), cond("due", "exists", "")}, nil, []string{"a.md"}},
		{"with a tag", []any{cond("status", "equals", "active")}, map[string]any{"tag": "home"}, []string{"c.md"}},
		{"with a folder", []any{cond("status", "contains", "active")}, map[string]any{"folder": "w"}, []string{"w/g.md"}},
		{"with a query", []any{cond("status", "equals", "active")}, map[string]any{"query": "garden"}, []string{"a.md"}},
		{"with a query, none", []any{cond("status", "equals", "done")}, map[string]any{"query": "kitchen"}, nil},
	} {
		args := map[string]any{"fields": c.fields}
		for k, v := range c.extra {
			args[k] = v
		}
		if got := list(args); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}

	// A field set through the server is found at once.
	call[writeOutput](e, "set_note_field", map[string]any{"path": "w/d", "field": "status", "value": "active"})
	if got := list(map[string]any{"fields": []any{cond("status", "equals", "active")}}); !slices.Equal(got, []string{"a.md", "c.md", "w/d.md"}) {
		t.Errorf("after set_note_field: %v", got)
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"fields": []any{cond("due", "before", "soon")}}, "YYYY-MM-DD"},
		{map[string]any{"fields": []any{cond("status", "equals", "")}}, "give a value, or use op exists"},
		{map[string]any{"fields": []any{cond("status", "exists", "x")}}, "exists takes no value"},
		{map[string]any{"fields": []any{cond(" ", "exists", "")}}, "give the front matter key"},
		{map[string]any{"fields": []any{cond("status", "between", "a")}}, "op"},
		{map[string]any{"fields": []any{cond("status", "exists", "")}, "trashed": true}, "not the trash"},
	} {
		if msg := e.fail("list_notes", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%v: error %q, want it to say %q", c.args, msg, c.want)
		}
	}
}
