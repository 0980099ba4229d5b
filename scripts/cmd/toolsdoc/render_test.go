package main

import (
	"strings"
	"testing"
)

func TestCheckUnique(t *testing.T) {
	tool := func(n string) Tool { return Tool{Name: n} }
	tests := []struct {
		name    string
		servers []Server
		wantErr string
	}{
		{"distinct", []Server{{Server: "gmail", Tools: []Tool{tool("search_messages")}}, {Server: "drive", Tools: []Tool{tool("search_files")}}}, ""},
		{"clash", []Server{{Server: "gmail", Tools: []Tool{tool("search")}}, {Server: "drive", Tools: []Tool{tool("search")}}}, `"search" in gmail and drive`},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckUnique(tt.servers)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRender(t *testing.T) {
	yes, no := true, false
	doc := string(Render([]Server{{
		Server: "calculator", Port: 9003,
		Tools: []Tool{{
			Name: "evaluate", Description: "Evaluate a | b.",
			Annotations: &Annotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
			InputSchema: Schema{Type: "object", Required: []string{"expression"}, Properties: map[string]Schema{
				"expression": {Type: "string", Description: "what to evaluate"},
				"degrees":    {Type: "boolean"},
				"tags":       {Type: "array", Items: &Schema{Type: "string"}},
			}},
		}, {
			Name: "wipe", Description: "Wipe.", Annotations: &Annotations{DestructiveHint: &yes, OpenWorldHint: &yes},
		}},
	}}))
	for _, want := range []string{
		"| [calculator](#calculator) | 9003 | 2 |",
		"| [`evaluate`](#evaluate) | Evaluate a \\| b. | RO I |",
		"| [`wipe`](#wipe) | Wipe. | D OW |",
		"| `expression` | string | yes | what to evaluate |\n| `degrees` | boolean |  |  |\n| `tags` | array of string |  |  |",
		"### wipe\n\nWipe.\n\nNo arguments.",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("rendered doc lacks %q:\n%s", want, doc)
		}
	}
}

func TestMarkOptional(t *testing.T) {
	base := Server{Server: "notes", Port: 9008, Tools: []Tool{{Name: "read_note", Description: "Read."}}}
	full := Server{Server: "notes", Port: 9008, Tools: []Tool{{Name: "read_note", Description: "Read."}, {Name: "sync_notes", Description: "Sync."}}}
	got := MarkOptional(base, full, "--sync drive")
	if len(got.Tools) != 2 || got.Tools[0].OnlyWith != "" || got.Tools[1].OnlyWith != "--sync drive" {
		t.Fatalf("marks = %+v, want only sync_notes marked", got.Tools)
	}
	if full.Tools[1].OnlyWith != "" {
		t.Fatal("MarkOptional changed its input")
	}
	doc := string(Render([]Server{got}))
	for _, want := range []string{
		"| [`sync_notes`](#sync_notes) | **Only with `--sync drive`.** Sync. |  |",
		"### sync_notes\n\n**Only with `--sync drive`.**\n\nSync.\n",
		"| [`read_note`](#read_note) | Read. |  |",
		"### read_note\n\nRead.\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("rendered doc lacks %q:\n%s", want, doc)
		}
	}
}
