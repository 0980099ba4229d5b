package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
