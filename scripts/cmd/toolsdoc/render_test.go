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
