package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDocNames: a document naming a tool that no server has fails the check, with the
// file, line and name; tools, tools without their server's prefix, arguments, their values,
// paths and flags pass.
func TestCheckDocNames(t *testing.T) {
	servers := []Server{
		{Server: "gmail", Tools: []Tool{{Name: "search_messages", InputSchema: Schema{Properties: map[string]Schema{
			"send_updates": {},
			"mode":         {Enum: []json.RawMessage{json.RawMessage(`"find_replace"`)}},
		}}}, {Name: "send_message"}}},
		{Server: "browser", Tools: []Tool{{Name: "browser_get_text"}}},
	}
	tests := []struct {
		name, doc, want string
	}{
		{"tools, arguments and values", "`search_messages`, then send_message with send_updates; mode find_replace; get_text.\n", ""},
		{"paths and flags", "see servers/send_email/x.go and --send_email.\n", ""},
		{"a removed tool", "ok\nsearch_email was abandoned after 30s\n", "doc.md:2: search_email"},
		{"a word that starts as no tool does", "next_page_token and exit_code\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "doc.md")
			if err := os.WriteFile(f, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			err := CheckDocNames(servers, []string{f})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%v, want no error", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("%v, want an error naming %q", err, tt.want)
			}
		})
	}
}
