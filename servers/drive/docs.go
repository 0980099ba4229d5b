package main

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf16"

	"google.golang.org/api/docs/v1"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Google Docs edited in place through the Docs API v1's batchUpdate, on the same sign-in as
// Drive (the drive scope covers it); update_file_content still replaces a whole Doc.

// docsProduct is the Docs API as this server calls it.
var docsProduct = googleserver.Product{Server: "drive", Name: "Google Docs", EndpointFlag: "docs-endpoint", Endpoint: "https://docs.googleapis.com/"}

type replaceTextInput struct {
	DocumentID string `json:"document_id" jsonschema:"the Google Doc's file id (search_files kind doc)" schema:"minLength=1"`
	Find       string `json:"find" jsonschema:"text to find, every occurrence" schema:"minLength=1"`
	Replace    string `json:"replace" jsonschema:"what replaces it; empty deletes it"`
	IgnoreCase bool   `json:"ignore_case,omitempty" schema:"bare=true"`
}

type replaceTextOutput struct {
	DocumentID  string `json:"document_id"`
	Find        string `json:"find"`
	Replace     string `json:"replace"`
	Occurrences int    `json:"occurrences"`
}

func (o replaceTextOutput) Text() string {
	if o.Occurrences == 0 {
		return fmt.Sprintf("No occurrence of %q in %s; nothing changed.", o.Find, o.DocumentID)
	}
	return fmt.Sprintf("Replaced %d occurrences of %q with %q in %s.", o.Occurrences, o.Find, o.Replace, o.DocumentID)
}

type insertTextInput struct {
	DocumentID string `json:"document_id" jsonschema:"the Google Doc's file id (search_files kind doc)" schema:"minLength=1"`
	Text       string `json:"text" jsonschema:"text; each line a paragraph" schema:"minLength=1"`
	Heading    string `json:"heading,omitempty" jsonschema:"under this heading (default: the end)"`
	At         string `json:"at,omitempty" jsonschema:"with heading: its section's end or right below" schema:"enum=section_end|below_heading,default=section_end"`
}

type insertTextOutput struct {
	DocumentID string `json:"document_id"`
	Index      int    `json:"index" jsonschema:"where the new paragraphs start (Docs index, UTF-16 units)"`
	Heading    string `json:"heading,omitempty"`
	After      string `json:"after,omitempty" jsonschema:"the paragraph the text now follows"`
	Inserted   string `json:"inserted"`
}

func (o insertTextOutput) Text() string {
	where := "at the end of the document"
	if o.Heading != "" {
		where = fmt.Sprintf("in the section %q", o.Heading)
	}
	s := fmt.Sprintf("Inserted %d characters %s of %s (index %d)", len([]rune(o.Inserted)), where, o.DocumentID, o.Index)
	if o.After != "" {
		s += fmt.Sprintf(", after the paragraph %q", o.After)
	}
	return s + "."
}

func addDocTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "replace_doc_text", Toolset: toolsetDocs, Title: "Replace text in a Doc", Destructive: true, OpenWorld: true,
		Description: "Replace every occurrence of a text in a Google Doc, keeping formatting."}, d.replaceDocText)
	kit.AddTool(s, kit.Tool{Name: "insert_doc_text", Toolset: toolsetDocs, Title: "Insert text in a Doc", OpenWorld: true,
		Description: "Insert paragraphs into a Google Doc, at the end or under a heading."}, d.insertDocText)
}

func (d *drv) docsFail(err error, id string) error {
	return editorFail(d.docsAcct, err, id, "document", "a Google Doc", "doc")
}

func (d *drv) replaceDocText(ctx context.Context, _ *mcp.CallToolRequest, in replaceTextInput) (*mcp.CallToolResult, replaceTextOutput, error) {
	req := &docs.Request{ReplaceAllText: &docs.ReplaceAllTextRequest{
		ContainsText: &docs.SubstringMatchCriteria{Text: in.Find, MatchCase: !in.IgnoreCase, ForceSendFields: []string{"MatchCase"}},
		ReplaceText:  in.Replace,
		// An empty replacement deletes the text: it must be sent.
		ForceSendFields: []string{"ReplaceText"},
	}}
	res, err := d.docs.Documents.BatchUpdate(in.DocumentID, &docs.BatchUpdateDocumentRequest{Requests: []*docs.Request{req}}).Context(ctx).Do()
	if err != nil {
		return nil, replaceTextOutput{}, d.docsFail(err, in.DocumentID)
	}
	out := replaceTextOutput{DocumentID: in.DocumentID, Find: in.Find, Replace: in.Replace}
	if len(res.Replies) > 0 && res.Replies[0].ReplaceAllText != nil {
		out.Occurrences = int(res.Replies[0].ReplaceAllText.OccurrencesChanged)
	}
	return nil, out, nil
}

// paragraph is one paragraph of a Doc's body: its index range, named style and text without
// the closing newline.
type paragraph struct {
	start, end int
	style      string
	text       string
}

// level is a paragraph's heading level: 0 for the title, n for HEADING_n, -1 for body text.
func (p paragraph) level() int {
	switch {
	case p.style == "TITLE":
		return 0
	case strings.HasPrefix(p.style, "HEADING_"):
		var n int
		if _, err := fmt.Sscanf(p.style, "HEADING_%d", &n); err == nil {
			return n
		}
	}
	return -1
}

// readDoc reads a Doc's revision and body paragraphs.
func (d *drv) readDoc(ctx context.Context, id string) (string, []paragraph, error) {
	doc, err := d.docs.Documents.Get(id).Fields("revisionId,body(content(startIndex,endIndex,paragraph(elements(textRun(content)),paragraphStyle(namedStyleType))))").Context(ctx).Do()
	if err != nil {
		return "", nil, d.docsFail(err, id)
	}
	if doc.Body == nil {
		return "", nil, kit.Errorf(kit.CodeUnavailable, "Google Docs returned no body for %s", id)
	}
	var paras []paragraph
	for _, c := range doc.Body.Content {
		if c.Paragraph == nil {
			continue // section breaks, tables, tables of contents
		}
		var b strings.Builder
		for _, e := range c.Paragraph.Elements {
			if e.TextRun != nil {
				b.WriteString(e.TextRun.Content)
			}
		}
		style := ""
		if c.Paragraph.ParagraphStyle != nil {
			style = c.Paragraph.ParagraphStyle.NamedStyleType
		}
		paras = append(paras, paragraph{start: int(c.StartIndex), end: int(c.EndIndex), style: style, text: strings.TrimSuffix(b.String(), "\n")})
	}
	if len(paras) == 0 {
		return "", nil, kit.Errorf(kit.CodeUnavailable, "Google Docs returned no paragraphs for %s", id)
	}
	return doc.RevisionId, paras, nil
}

// anchor picks the paragraph the text goes after: the document's last, or in the section of
// heading its last (section_end) or the heading itself (below_heading).
func anchor(paras []paragraph, heading, at string) (int, error) {
	if heading == "" {
		return len(paras) - 1, nil
	}
	want := strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "# ")))
	h := -1
	var headings []string
	for i, p := range paras {
		if p.level() < 0 {
			continue
		}
		headings = append(headings, fmt.Sprintf("%q", p.text))
		if h < 0 && strings.ToLower(strings.TrimSpace(p.text)) == want {
			h = i
		}
	}
	if h < 0 {
		if len(headings) == 0 {
			return 0, kit.Errorf(kit.CodeInvalidInput, "the document has no headings: leave heading out to insert at the end")
		}
		if len(headings) > 30 {
			headings = append(headings[:30], "…")
		}
		return 0, kit.Errorf(kit.CodeInvalidInput, "no heading %q; the headings are %s", heading, strings.Join(headings, ", "))
	}
	if at == "below_heading" {
		return h, nil
	}
	end := len(paras) - 1
	for i := h + 1; i < len(paras); i++ {
		if l := paras[i].level(); l >= 0 && l <= paras[h].level() {
			end = i - 1
			break
		}
	}
	return end, nil
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

func (d *drv) insertDocText(ctx context.Context, _ *mcp.CallToolRequest, in insertTextInput) (*mcp.CallToolResult, insertTextOutput, error) {
	text := strings.TrimRight(strings.ReplaceAll(in.Text, "\r\n", "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return nil, insertTextOutput{}, kit.Errorf(kit.CodeInvalidInput, "text is empty")
	}
	rev, paras, err := d.readDoc(ctx, in.DocumentID)
	if err != nil {
		return nil, insertTextOutput{}, err
	}
	i, err := anchor(paras, in.Heading, in.At)
	if err != nil {
		return nil, insertTextOutput{}, err
	}
	p := paras[i]
	// The text becomes paragraphs of its own after p: inserted before p's newline with a
	// newline first, or into p when p is an empty body paragraph. They are set to normal text,
	// so that text placed below a heading does not take the heading's style.
	index, insert, start := p.end-1, "\n"+text, p.end
	if p.text == "" && p.level() < 0 {
		index, insert, start = p.start, text, p.start
	}
	body := &docs.BatchUpdateDocumentRequest{
		Requests: []*docs.Request{
			{InsertText: &docs.InsertTextRequest{Location: &docs.Location{Index: int64(index)}, Text: insert}},
			{UpdateParagraphStyle: &docs.UpdateParagraphStyleRequest{
				Range:          &docs.Range{StartIndex: int64(start), EndIndex: int64(start + utf16Len(text))},
				ParagraphStyle: &docs.ParagraphStyle{NamedStyleType: "NORMAL_TEXT"},
				Fields:         "namedStyleType",
			}},
		},
		WriteControl: &docs.WriteControl{RequiredRevisionId: rev},
	}
	if _, err := d.docs.Documents.BatchUpdate(in.DocumentID, body).Context(ctx).Do(); err != nil {
		return nil, insertTextOutput{}, d.docsFail(err, in.DocumentID)
	}
	out := insertTextOutput{DocumentID: in.DocumentID, Index: start, Inserted: text}
	if in.Heading != "" {
		out.Heading = paras[headingOf(paras, i)].text
	}
	if start == p.end {
		out.After = clip(p.text, 80)
	}
	return nil, out, nil
}

// headingOf is the heading paragraph whose section holds paragraph i.
func headingOf(paras []paragraph, i int) int {
	for j := i; j >= 0; j-- {
		if paras[j].level() >= 0 {
			return j
		}
	}
	return 0
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
