package vault

import (
	"reflect"
	"strings"
	"testing"
)

const fieldsNote = `---
title: Plan
status: draft   # still open
priority: 2
ratio: 0.75
done: false
due: 2026-03-04
owner: "Ann: lead"
aliases:
  - Plan A
  - "2026"
links: [one, "two, three", 4]
nested:
  key: value
empty:
tags: [work]
---

Body text.
`

func TestFieldsTyped(t *testing.T) {
	t.Parallel()
	n := Parse(fieldsNote)
	want := map[string]any{
		"title": "Plan", "tags": []any{"work"}, "status": "draft", "priority": 2.0, "ratio": 0.75, "done": false,
		"due": "2026-03-04", "owner": "Ann: lead", "aliases": []any{"Plan A", "2026"},
		"links": []any{"one", "two, three", 4.0}, "nested": "  key: value", "empty": nil,
	}
	if got := n.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields =\n%#v\nwant\n%#v", got, want)
	}
}

func TestSetField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key   string
		value any
		typ   string
		line  string // the line written ("" when removed)
		read  any    // what Fields reads back
	}{
		{"status", "done", TypeAuto, "status: done", "done"},
		{"priority", 3.0, TypeAuto, "priority: 3", 3.0},
		{"ratio", "1.5", TypeNumber, "ratio: 1.5", 1.5},
		{"done", true, TypeAuto, "done: true", true},
		{"flag", "yes", TypeBool, "flag: true", true},
		{"due", "2026-04-01", TypeDate, "due: 2026-04-01", "2026-04-01"},
		{"at", "2026-04-01T09:30:00+02:00", TypeDate, "at: 2026-04-01T09:30:00+02:00", "2026-04-01T09:30:00+02:00"},
		{"code", "42", TypeString, `code: "42"`, "42"},
		{"when", "2026-04-01", TypeAuto, `when: "2026-04-01"`, "2026-04-01"},
		{"aliases", []any{"B", "c: d", 7.0, false}, TypeAuto, `aliases: [B, "c: d", 7, false]`, []any{"B", "c: d", 7.0, false}},
		{"single", "x", TypeList, "single: [x]", []any{"x"}},
		{"nested", nil, TypeAuto, "", nil},
	}
	for _, c := range cases {
		n := Parse(fieldsNote)
		if err := n.SetField(c.key, c.value, c.typ); err != nil {
			t.Errorf("SetField(%s, %v, %s): %v", c.key, c.value, c.typ, err)
			continue
		}
		out := n.Render()
		if c.line != "" && !strings.Contains(out, "\n"+c.line+"\n") {
			t.Errorf("SetField(%s): no line %q in\n%s", c.key, c.line, out)
		}
		back := Parse(out).Fields()
		if got, ok := back[c.key]; !reflect.DeepEqual(got, c.read) || (c.line == "") == ok {
			t.Errorf("SetField(%s) reads back %#v (present %v), want %#v", c.key, got, ok, c.read)
		}
		// Every other field line is kept as written.
		for _, keep := range []string{"status: draft   # still open", "owner: \"Ann: lead\"", "aliases:\n  - Plan A\n  - \"2026\"", "nested:\n  key: value", "due: 2026-03-04"} {
			k, _, _ := strings.Cut(keep, ":")
			if k != c.key && !strings.Contains(out, keep) {
				t.Errorf("SetField(%s) lost %q:\n%s", c.key, keep, out)
			}
		}
		if !strings.HasSuffix(out, "---\n\nBody text.\n") {
			t.Errorf("SetField(%s) changed the body:\n%s", c.key, out)
		}
	}
	// A replaced key keeps its place.
	n := Parse(fieldsNote)
	_ = n.SetField("aliases", []any{"Z"}, TypeAuto)
	out := n.Render()
	if strings.Index(out, "aliases: [Z]") > strings.Index(out, "links:") {
		t.Errorf("aliases moved:\n%s", out)
	}
	// Owned keys.
	n = Parse(fieldsNote)
	if err := n.SetField("title", "New", TypeAuto); err != nil || n.Title != "New" {
		t.Errorf("title: %v %q", err, n.Title)
	}
	if err := n.SetField("tags", []any{"A", "#b"}, TypeAuto); err != nil || !reflect.DeepEqual(n.Tags, []string{"a", "b"}) {
		t.Errorf("tags: %v %v", err, n.Tags)
	}
	if err := n.SetField("created", "2025-01-02", TypeDate); err != nil || n.Created.Format("2006-01-02") != "2025-01-02" {
		t.Errorf("created: %v %v", err, n.Created)
	}
	for _, bad := range []struct {
		key   string
		value any
		typ   string
	}{
		{"updated", "2025-01-01", TypeDate}, {"due", "tomorrow", TypeDate}, {"due", "2026-13-01", TypeDate},
		{"n", "many", TypeNumber}, {"b", "maybe", TypeBool}, {"bad key", "x", TypeAuto}, {"m", map[string]any{"a": 1.0}, TypeAuto},
		{"l", []any{[]any{"x"}}, TypeAuto}, {"title", 5.0, TypeAuto}, {"created", nil, TypeAuto},
	} {
		n := Parse(fieldsNote)
		if err := n.SetField(bad.key, bad.value, bad.typ); err == nil {
			t.Errorf("SetField(%q, %v, %s): no error", bad.key, bad.value, bad.typ)
		}
	}
}

func TestRelations(t *testing.T) {
	t.Parallel()
	body := "- works_at [[Acme]] since 2020\n* part of [[Project X|the project]]\n+ knows [[Bo#Intro]]\n- works_at [[acme]]\n" +
		"  - mentor_of [[Cy]]\n- [[Plain]] link\n- see also the [[Long Type Name]]\nText with - likes [[Nothing]]\n- ![[embed.png]]\n" +
		"```\n- works_at [[Code]]\n```\n- empty [[]]\n"
	want := []Relation{{"works_at", "Acme"}, {"part of", "Project X"}, {"knows", "Bo"}, {"mentor_of", "Cy"}, {"see also the", "Long Type Name"}}
	if got := Relations(body); !reflect.DeepEqual(got, want) {
		t.Errorf("Relations =\n%+v\nwant\n%+v", got, want)
	}
}

// FuzzSetField: a string written with SetField reads back as the same string, whatever it
// looks like (a number, a date, a list, quotes, a comment), and the other fields stay.
func FuzzSetField(f *testing.F) {
	for _, s := range []string{"42", "2026-01-05", "[a, b]", "true", "null", "a # b", `"q"`, "'s'", "- x", "", " pad ", "a: b", "~", "1e5", ".5", "#x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if strings.ContainsAny(value, "\r\n") || strings.ToValidUTF8(value, "\uFFFD") != value {
			return
		}
		n := Parse(fieldsNote)
		if err := n.SetField("note_text", value, TypeString); err != nil {
			t.Fatalf("SetField(%q): %v", value, err)
		}
		back := Parse(n.Render()).Fields()
		if got := back["note_text"]; got != value {
			t.Fatalf("%q read back as %#v\n%s", value, got, n.Render())
		}
		if back["priority"] != 2.0 || back["status"] != "draft" {
			t.Fatalf("other fields changed: %#v", back)
		}
	})
}
