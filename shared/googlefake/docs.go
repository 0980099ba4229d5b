package googlefake

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The Docs API v1, served by the Drive fake on the same host (give URL+"/" as the Docs
// endpoint): documents.get with the body's paragraphs (indices in UTF-16 code units, as the
// API counts them, the body starting with a section break at 0) and documents.batchUpdate
// with replaceAllText, insertText (at an index or the end of the body) and
// updateParagraphStyle's namedStyleType, honouring writeControl.requiredRevisionId. A Google
// Doc added through Drive starts as one empty paragraph; SetDoc gives it paragraphs. Errors
// are the API's: 404 for a missing document, 400 for a Drive file that is no Doc, an index
// outside the body, a stale revision.

const docType = "application/vnd.google-apps.document"

// DocParagraph is one paragraph of a fake Google Doc: its named style (NORMAL_TEXT,
// HEADING_1, …, TITLE) and its text, without the closing newline.
type DocParagraph struct {
	Style, Text string
}

// doc is a document's paragraphs and revision.
type doc struct {
	paras    []DocParagraph
	revision int
}

func (d *Drive) docRoutes() {
	d.handle("GET /v1/documents/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if doc := d.document(w, r.PathValue("id")); doc != nil {
			WriteJSON(w, doc.json(r.PathValue("id"), d.files[r.PathValue("id")].Name))
		}
	})
	d.handle("POST /v1/documents/{op}", d.docBatchUpdate)
}

// SetDoc sets a Google Doc's paragraphs, as the Docs API reads them.
func (d *Drive) SetDoc(id string, paras ...DocParagraph) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.docs[id] = &doc{paras: paras, revision: 1}
}

// Doc returns a Google Doc's paragraphs as the Docs API last left them.
func (d *Drive) Doc(id string) []DocParagraph {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.docs[id] == nil {
		return nil
	}
	return append([]DocParagraph(nil), d.docs[id].paras...)
}

// document is the Doc id, or nil after answering the API's error; the caller holds mu.
func (d *Drive) document(w http.ResponseWriter, id string) *doc {
	if !d.editable(w, id, docType) {
		return nil
	}
	if d.docs[id] == nil {
		d.docs[id] = &doc{paras: []DocParagraph{{Style: "NORMAL_TEXT"}}, revision: 1}
	}
	return d.docs[id]
}

func u16(s string) int { return len(utf16.Encode([]rune(s))) }

// starts is each paragraph's start index and, last, the body's end index.
func (dc *doc) starts() []int {
	idx := []int{1}
	for _, p := range dc.paras {
		idx = append(idx, idx[len(idx)-1]+u16(p.Text)+1)
	}
	return idx
}

func (dc *doc) json(id, title string) map[string]any {
	starts := dc.starts()
	content := []any{map[string]any{"endIndex": 1, "sectionBreak": map[string]any{}}}
	for i, p := range dc.paras {
		content = append(content, map[string]any{"startIndex": starts[i], "endIndex": starts[i+1], "paragraph": map[string]any{
			"elements":       []any{map[string]any{"startIndex": starts[i], "endIndex": starts[i+1], "textRun": map[string]any{"content": p.Text + "\n"}}},
			"paragraphStyle": map[string]any{"namedStyleType": p.Style},
		}})
	}
	return map[string]any{"documentId": id, "title": title, "revisionId": "rev" + strconv.Itoa(dc.revision), "body": map[string]any{"content": content}}
}

type docRequest struct {
	ReplaceAllText *struct {
		ContainsText struct {
			Text      string `json:"text"`
			MatchCase bool   `json:"matchCase"`
		} `json:"containsText"`
		ReplaceText string `json:"replaceText"`
	} `json:"replaceAllText"`
	InsertText *struct {
		Text     string `json:"text"`
		Location *struct {
			Index int `json:"index"`
		} `json:"location"`
		EndOfSegmentLocation *struct{} `json:"endOfSegmentLocation"`
	} `json:"insertText"`
	UpdateParagraphStyle *struct {
		Range struct {
			StartIndex int `json:"startIndex"`
			EndIndex   int `json:"endIndex"`
		} `json:"range"`
		ParagraphStyle struct {
			NamedStyleType string `json:"namedStyleType"`
		} `json:"paragraphStyle"`
		Fields string `json:"fields"`
	} `json:"updateParagraphStyle"`
}

func (d *Drive) docBatchUpdate(w http.ResponseWriter, r *http.Request, rq Request) {
	id, ok := strings.CutSuffix(r.PathValue("op"), ":batchUpdate")
	if !ok {
		notFound(w, "Not found: "+r.PathValue("op"))
		return
	}
	var in struct {
		Requests     []docRequest `json:"requests"`
		WriteControl *struct {
			RequiredRevisionID string `json:"requiredRevisionId"`
		} `json:"writeControl"`
	}
	_ = rq.Decode(&in)
	d.mu.Lock()
	defer d.mu.Unlock()
	dc := d.document(w, id)
	if dc == nil {
		return
	}
	if in.WriteControl != nil && in.WriteControl.RequiredRevisionID != "" && in.WriteControl.RequiredRevisionID != "rev"+strconv.Itoa(dc.revision) {
		WriteError(w, http.StatusBadRequest, "The document was modified after revision "+in.WriteControl.RequiredRevisionID+"; requiredRevisionId no longer matches the latest revision.", "badRequest")
		return
	}
	work := &doc{paras: append([]DocParagraph(nil), dc.paras...), revision: dc.revision}
	var replies []any
	for i, req := range in.Requests {
		reply, msg := work.apply(req)
		if msg != "" {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("Invalid requests[%d].%s", i, msg), "badRequest")
			return
		}
		replies = append(replies, reply)
	}
	work.revision++
	d.docs[id] = work
	d.changed(d.files[id])
	WriteJSON(w, map[string]any{"documentId": id, "replies": replies, "writeControl": map[string]any{"requiredRevisionId": "rev" + strconv.Itoa(work.revision)}})
}

// apply runs one request on the document, returning its reply or what is wrong with it.
func (dc *doc) apply(req docRequest) (map[string]any, string) {
	switch {
	case req.ReplaceAllText != nil:
		find := req.ReplaceAllText.ContainsText.Text
		if find == "" {
			return nil, "replaceAllText: The containsText text must not be empty."
		}
		n := 0
		for i, p := range dc.paras {
			text, lower, needle := p.Text, p.Text, find
			if !req.ReplaceAllText.ContainsText.MatchCase {
				lower, needle = strings.ToLower(text), strings.ToLower(find)
			}
			var b strings.Builder
			for {
				j := strings.Index(lower, needle)
				if j < 0 {
					break
				}
				b.WriteString(text[:j] + req.ReplaceAllText.ReplaceText)
				text, lower = text[j+len(find):], lower[j+len(needle):]
				n++
			}
			b.WriteString(text)
			dc.paras[i].Text = b.String()
		}
		reply := map[string]any{}
		if n > 0 {
			reply["occurrencesChanged"] = n
		}
		return map[string]any{"replaceAllText": reply}, ""
	case req.InsertText != nil:
		starts := dc.starts()
		end := starts[len(starts)-1]
		idx := end - 1
		if req.InsertText.Location != nil {
			idx = req.InsertText.Location.Index
		}
		if idx < 1 || idx >= end {
			return nil, fmt.Sprintf("insertText: Index %d must be less than the end index of the referenced segment, %d.", idx, end)
		}
		p := 0
		for p+1 < len(starts)-1 && starts[p+1] <= idx {
			p++
		}
		at := []rune(dc.paras[p].Text)
		off := len(utf16.Decode(utf16.Encode(at)[:idx-starts[p]])) // runes before idx
		joined := string(at[:off]) + req.InsertText.Text + string(at[off:])
		var parts []DocParagraph
		for _, line := range strings.Split(joined, "\n") {
			parts = append(parts, DocParagraph{Style: dc.paras[p].Style, Text: line})
		}
		dc.paras = append(dc.paras[:p], append(parts, dc.paras[p+1:]...)...)
		return map[string]any{}, ""
	case req.UpdateParagraphStyle != nil:
		u := req.UpdateParagraphStyle
		starts := dc.starts()
		for i := range dc.paras {
			if starts[i] < u.Range.EndIndex && starts[i+1] > u.Range.StartIndex && strings.Contains(u.Fields, "namedStyleType") {
				dc.paras[i].Style = u.ParagraphStyle.NamedStyleType
			}
		}
		return map[string]any{}, ""
	}
	return nil, "the fake serves replaceAllText, insertText and updateParagraphStyle only"
}
