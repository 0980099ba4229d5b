package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// TestNoteFields reads and sets typed front matter fields over HTTP, keeping the rest of the
// file as written.
func TestNoteFields(t *testing.T) {
	t.Parallel()
	e := start(t)
	raw := "---\ntitle: Plan\nstatus: draft   # open\naliases:\n  - Plan A\npriority: 2\n---\n\n# Plan\n\nBody.\n"
	if err := os.WriteFile(filepath.Join(e.dir, "plan.md"), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	got := call[noteOutput](e, "get_note", map[string]any{"path": "plan"})
	if want := map[string]any{"status": "draft", "aliases": []any{"Plan A"}, "priority": 2.0}; !reflect.DeepEqual(got.Fields, want) {
		t.Errorf("fields = %#v, want %#v", got.Fields, want)
	}
	steps := []struct {
		args map[string]any
		line string
	}{
		{map[string]any{"field": "priority", "value": 5}, "priority: 5\n"},
		{map[string]any{"field": "due", "value": "2026-04-01", "type": "date"}, "due: 2026-04-01\n"},
		{map[string]any{"field": "done", "value": false}, "done: false\n"},
		{map[string]any{"field": "people", "value": []any{"Ann", "Bo: lead"}}, "people: [Ann, \"Bo: lead\"]\n"},
		{map[string]any{"field": "code", "value": "0042"}, "code: \"0042\"\n"},
	}
	for _, s := range steps {
		s.args["path"] = "plan"
		w := call[writeOutput](e, "set_note_field", s.args)
		if !w.Changed || !strings.Contains(e.file("plan.md"), s.line) {
			t.Errorf("set %v = %+v; file:\n%s", s.args, w, e.file("plan.md"))
		}
	}
	file := e.file("plan.md")
	for _, keep := range []string{"status: draft   # open\n", "aliases:\n  - Plan A\n", "---\n\n# Plan\n\nBody.\n"} {
		if !strings.Contains(file, keep) {
			t.Errorf("file lost %q:\n%s", keep, file)
		}
	}
	got = call[noteOutput](e, "get_note", map[string]any{"path": "plan"})
	want := map[string]any{"status": "draft", "aliases": []any{"Plan A"}, "priority": 5.0, "due": "2026-04-01", "done": false, "people": []any{"Ann", "Bo: lead"}, "code": "0042"}
	if !reflect.DeepEqual(got.Fields, want) {
		t.Errorf("fields after = %#v, want %#v", got.Fields, want)
	}
	// Removing, the owned keys, the hash check, and bad values.
	w := call[writeOutput](e, "set_note_field", map[string]any{"path": "plan", "field": "status", "value": nil})
	if strings.Contains(e.file("plan.md"), "status:") || w.Detail != "status removed" {
		t.Errorf("remove = %+v:\n%s", w, e.file("plan.md"))
	}
	call[writeOutput](e, "set_note_field", map[string]any{"path": "plan", "field": "tags", "value": []any{"Work", "q2"}})
	if n := call[noteOutput](e, "get_note", map[string]any{"path": "plan"}); !reflect.DeepEqual(n.Tags, []string{"q2", "work"}) {
		t.Errorf("tags = %v", n.Tags)
	}
	if l := call[listOutput](e, "list_notes", map[string]any{"tag": "q2"}); len(l.Notes) != 1 {
		t.Errorf("tag set through a field is not indexed: %+v", l)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"field": "due", "value": "soon", "type": "date"}, "not a date"},
		{map[string]any{"field": "updated", "value": "2026-01-01"}, "set by the server"},
		{map[string]any{"field": "n", "value": "x", "type": "number"}, "not a number"},
		{map[string]any{"field": "bad key", "value": "x"}, "field name"},
		{map[string]any{"field": "x", "value": 1, "expected_hash": "abc"}, "changed since you read it"},
		{map[string]any{"field": "x", "value": 1, "type": "text"}, `type must be one of`},
	} {
		c.args["path"] = "plan"
		if msg := e.fail("set_note_field", c.args); !strings.Contains(msg, c.want) {
			t.Errorf("%v: %q, want %q", c.args, msg, c.want)
		}
	}
	if msg := e.fail("set_note_field", map[string]any{"path": "nope", "field": "x", "value": 1}); !strings.Contains(msg, "no such note") {
		t.Errorf("missing note: %s", msg)
	}
}

// TestRelationsAndContext lists typed relations both ways and a note's context up to N hops
// over HTTP.
func TestRelationsAndContext(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	notes := map[string]string{
		"people/ann.md":         "2026-01-01|# Ann\n\n- works_at [[Acme]]\n- knows [[Bo]]\n- part of [[Project X]]\n\nSee [[Acme]] too.\n\n```\n- works_at [[Globex]]\n```\n",
		"orgs/acme.md":          "2026-02-01|# Acme\n\nCustomer of [[Globex]].\n",
		"people/bo.md":          "2026-03-01|# Bo\n\n* works_at [[orgs/acme]]\n",
		"projects/project-x.md": "2026-01-15|# Project X\n\nNo links.\n",
		"orgs/globex.md":        "2026-04-01|# Globex\n\n- rival_of [[Initech]]\n",
		"orgs/initech.md":       "2026-05-01|# Initech\n",
		"island.md":             "2026-06-01|# Island\n",
	}
	for rel, spec := range notes {
		updated, body, _ := strings.Cut(spec, "|")
		p := filepath.Join(state, "notes", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nupdated: "+updated+"\n---\n\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := startIn(t, state)
	ann := call[linksOutput](e, "get_note_links", map[string]any{"path": "people/ann"})
	wantOut := []outLink{{Target: "Acme", Type: "works_at", Path: "orgs/acme.md"}, {Target: "Bo", Type: "knows", Path: "people/bo.md"}, {Target: "Project X", Type: "part of", Path: "projects/project-x.md"}}
	if !reflect.DeepEqual(ann.Outgoing, wantOut) || ann.Context != nil {
		t.Errorf("ann's links = %+v", ann)
	}
	acme := call[linksOutput](e, "get_note_links", map[string]any{"path": "orgs/acme"})
	if want := []backlink{{"people/ann.md", "works_at"}, {"people/bo.md", "works_at"}}; !reflect.DeepEqual(acme.Backlinks, want) {
		t.Errorf("acme's backlinks = %+v, want %+v", acme.Backlinks, want)
	}
	if want := []outLink{{Target: "Globex", Path: "orgs/globex.md"}}; !reflect.DeepEqual(acme.Outgoing, want) {
		t.Errorf("acme's plain link = %+v", acme.Outgoing)
	}
	type ctxRow struct {
		path string
		hops int
		via  string
		rel  string
		from bool
	}
	rows := func(out linksOutput) []ctxRow {
		var r []ctxRow
		for _, c := range out.Context {
			r = append(r, ctxRow{c.Path, c.Hops, c.Via, c.Relation, c.FromVia})
		}
		return r
	}
	for _, c := range []struct {
		hops, limit int
		want        []ctxRow
		more        bool
	}{
		{1, 0, []ctxRow{{"people/bo.md", 1, "people/ann.md", "knows", true}, {"orgs/acme.md", 1, "people/ann.md", "works_at", true}, {"projects/project-x.md", 1, "people/ann.md", "part of", true}}, false},
		{2, 0, []ctxRow{{"orgs/globex.md", 2, "orgs/acme.md", "link", true}, {"people/bo.md", 1, "people/ann.md", "knows", true}, {"orgs/acme.md", 1, "people/ann.md", "works_at", true}, {"projects/project-x.md", 1, "people/ann.md", "part of", true}}, false},
		{3, 2, []ctxRow{{"orgs/initech.md", 3, "orgs/globex.md", "rival_of", true}, {"orgs/globex.md", 2, "orgs/acme.md", "link", true}}, true},
	} {
		args := map[string]any{"path": "people/ann", "hops": c.hops}
		if c.limit > 0 {
			args["limit"] = c.limit
		}
		out := call[linksOutput](e, "get_note_links", args)
		if got := rows(out); !reflect.DeepEqual(got, c.want) || out.MoreContext != c.more {
			t.Errorf("hops %d limit %d = %+v (more %v), want %+v", c.hops, c.limit, got, out.MoreContext, c.want)
		}
	}
	// Backwards: from Initech, Globex links to it (a typed relation written in Globex).
	back := call[linksOutput](e, "get_note_links", map[string]any{"path": "orgs/initech", "hops": 1})
	if got := rows(back); !reflect.DeepEqual(got, []ctxRow{{"orgs/globex.md", 1, "orgs/initech.md", "rival_of", false}}) {
		t.Errorf("initech's context = %+v", got)
	}
	if island := call[linksOutput](e, "get_note_links", map[string]any{"path": "island", "hops": 3}); len(island.Context) != 0 {
		t.Errorf("island's context = %+v", island)
	}
	if msg := e.fail("get_note_links", map[string]any{"path": "island", "hops": 4}); !strings.Contains(msg, "hops must be at most 3") {
		t.Errorf("hops 4: %s", msg)
	}
	text := mcptest.Text(mcptest.Call(t, e.cs, "get_note_links", map[string]any{"path": "orgs/initech", "hops": 1}))
	if !strings.Contains(text, "orgs/globex.md -rival_of-> orgs/initech.md") {
		t.Errorf("text = %s", text)
	}
}
