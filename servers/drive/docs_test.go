package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
)

type para = googlefake.DocParagraph

func pa(style, text string) para { return para{Style: style, Text: text} }

func planDoc(f *googlefake.Drive) {
	f.SetDoc("doc1", pa("TITLE", "Project plan"), pa("HEADING_1", "Goals"), pa("NORMAL_TEXT", "Ship the calendar server"), pa("NORMAL_TEXT", "Ship drive"),
		pa("HEADING_2", "Stretch"), pa("NORMAL_TEXT", "Ship gmail"), pa("HEADING_1", "Risks"), pa("NORMAL_TEXT", "Time"))
}

// Text goes in as normal paragraphs at the end, at the end of a heading's section (its
// subsections included) or right below the heading, and the result says where.
func TestInsertDocText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  map[string]any
		after string
		want  []para // the paragraphs from the one the text follows
		text  string
	}{
		{"end", map[string]any{"text": "Next steps\n"}, "Time", []para{pa("NORMAL_TEXT", "Time"), pa("NORMAL_TEXT", "Next steps")},
			`Inserted 10 characters at the end of the document of doc1`},
		{"section end", map[string]any{"text": "Ship notes\nShip spotify", "heading": "Goals"}, "Ship gmail",
			[]para{pa("NORMAL_TEXT", "Ship gmail"), pa("NORMAL_TEXT", "Ship notes"), pa("NORMAL_TEXT", "Ship spotify"), pa("HEADING_1", "Risks")}, `in the section "Stretch"`},
		{"below heading", map[string]any{"text": "Only if time allows.", "heading": "## stretch", "at": "below_heading"}, "Stretch",
			[]para{pa("HEADING_2", "Stretch"), pa("NORMAL_TEXT", "Only if time allows."), pa("NORMAL_TEXT", "Ship gmail")}, `after the paragraph "Stretch"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, cs := start(t)
			planDoc(f)
			tt.args["document_id"] = "doc1"
			out, res := mcptest.CallFor[insertTextOutput](t, cs, "insert_doc_text", tt.args)
			if out.After != tt.after || !strings.Contains(mcptest.Text(res), tt.text) {
				t.Errorf("output %+v\n%s", out, mcptest.Text(res))
			}
			paras := f.Doc("doc1")
			i := slices.IndexFunc(paras, func(p para) bool { return p.Text == tt.after })
			if i < 0 || len(paras) < i+len(tt.want) || !slices.Equal(paras[i:i+len(tt.want)], tt.want) {
				t.Errorf("paragraphs %q", paras)
			}
			if b := f.Calls("POST", "/v1/documents/doc1:batchUpdate")[0].Body; b["writeControl"].(map[string]any)["requiredRevisionId"] != "rev1" {
				t.Errorf("batchUpdate without the revision read: %v", b)
			}
		})
	}
}

func TestReplaceDocText(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	planDoc(f)
	out, res := mcptest.CallFor[replaceTextOutput](t, cs, "replace_doc_text", map[string]any{"document_id": "doc1", "find": "ship", "replace": "Launch", "ignore_case": true})
	if out.Occurrences != 3 || mcptest.Text(res) != `Replaced 3 occurrences of "ship" with "Launch" in doc1.` || f.Doc("doc1")[3].Text != "Launch drive" {
		t.Errorf("replace %+v %q; doc %q", out, mcptest.Text(res), f.Doc("doc1"))
	}
	none, res := mcptest.CallFor[replaceTextOutput](t, cs, "replace_doc_text", map[string]any{"document_id": "doc1", "find": "launch", "replace": "x"})
	if none.Occurrences != 0 || !strings.Contains(mcptest.Text(res), "nothing changed") {
		t.Errorf("case-sensitive miss %+v", none)
	}
}

func TestDocErrors(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	planDoc(f)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"insert_doc_text", map[string]any{"document_id": "doc1", "text": "x", "heading": "Budget"}, `no heading "Budget"; the headings are "Project plan", "Goals", "Stretch", "Risks"`},
		{"insert_doc_text", map[string]any{"document_id": "sheet1", "text": "x"}, "sheet1 is not a Google Doc"},
		{"replace_doc_text", map[string]any{"document_id": "gone", "find": "a", "replace": "b"}, "document gone not found"},
		{"replace_doc_text", map[string]any{"document_id": "doc1", "find": "", "replace": "b"}, "find"},
		{"insert_doc_text", map[string]any{"document_id": "doc1", "text": "\n\n"}, "text is empty"},
	}
	for _, tt := range tests {
		if msg := mcptest.CallError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, msg, tt.want)
		}
	}
	// Only the missing document's call reached batchUpdate (and got Docs' 404).
	if calls := f.Calls("POST", ":batchUpdate"); len(calls) != 1 || calls[0].Path != "/v1/documents/gone:batchUpdate" {
		t.Errorf("batchUpdates sent %+v", calls)
	}
}
