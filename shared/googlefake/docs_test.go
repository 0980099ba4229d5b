package googlefake

import (
	"slices"
	"testing"

	"google.golang.org/api/docs/v1"
	"google.golang.org/api/drive/v3"
	"google.golang.org/api/option"
)

// The generated Docs client drives the fake: indices in UTF-16 units, replaceAllText counts,
// insertText splitting paragraphs with the style they were in, updateParagraphStyle, and the
// API's errors for a stale revision, an index past the end, a non-Doc and a missing Doc.
func TestDocsWithGeneratedClient(t *testing.T) {
	t.Parallel()
	d := NewDrive(t)
	d.Add(&drive.File{Id: "doc", Name: "Plan", MimeType: docType}, nil)
	d.Add(&drive.File{Id: "txt", Name: "a.txt", MimeType: "text/plain"}, []byte("a"))
	d.SetDoc("doc", DocParagraph{"HEADING_1", "Goals 🎯"}, DocParagraph{"NORMAL_TEXT", "Ship drive"})
	svc, err := docs.NewService(t.Context(), option.WithEndpoint(d.URL+"/"), option.WithHTTPClient(Client()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.Documents.Get("doc").Do()
	if err != nil || got.Title != "Plan" || len(got.Body.Content) != 3 {
		t.Fatalf("get = %+v, %v", got, err)
	}
	// "Goals 🎯\n" is 9 UTF-16 units: the heading spans 1..10, the next paragraph starts at 10.
	if h, p := got.Body.Content[1], got.Body.Content[2]; h.EndIndex != 10 || h.Paragraph.ParagraphStyle.NamedStyleType != "HEADING_1" || p.StartIndex != 10 || p.Paragraph.Elements[0].TextRun.Content != "Ship drive\n" {
		t.Errorf("content %+v %+v", h, p)
	}
	res, err := svc.Documents.BatchUpdate("doc", &docs.BatchUpdateDocumentRequest{
		Requests: []*docs.Request{
			{ReplaceAllText: &docs.ReplaceAllTextRequest{ContainsText: &docs.SubstringMatchCriteria{Text: "ship", MatchCase: false}, ReplaceText: "Launch"}},
			{InsertText: &docs.InsertTextRequest{Location: &docs.Location{Index: 9}, Text: "\nNew"}},
			{UpdateParagraphStyle: &docs.UpdateParagraphStyleRequest{Range: &docs.Range{StartIndex: 10, EndIndex: 13}, ParagraphStyle: &docs.ParagraphStyle{NamedStyleType: "NORMAL_TEXT"}, Fields: "namedStyleType"}},
			{InsertText: &docs.InsertTextRequest{EndOfSegmentLocation: &docs.EndOfSegmentLocation{}, Text: "!"}},
		},
		WriteControl: &docs.WriteControl{RequiredRevisionId: got.RevisionId},
	}).Do()
	if err != nil || res.Replies[0].ReplaceAllText.OccurrencesChanged != 1 {
		t.Fatalf("batchUpdate = %+v, %v", res, err)
	}
	want := []DocParagraph{{"HEADING_1", "Goals 🎯"}, {"NORMAL_TEXT", "New"}, {"NORMAL_TEXT", "Launch drive!"}}
	if paras := d.Doc("doc"); !slices.Equal(paras, want) {
		t.Errorf("paragraphs %q, want %q", paras, want)
	}
	insert := func(index int64) *docs.BatchUpdateDocumentRequest {
		return &docs.BatchUpdateDocumentRequest{Requests: []*docs.Request{{InsertText: &docs.InsertTextRequest{Location: &docs.Location{Index: index}, Text: "x"}}}}
	}
	stale := insert(1)
	stale.WriteControl = &docs.WriteControl{RequiredRevisionId: got.RevisionId}
	_, errStale := svc.Documents.BatchUpdate("doc", stale).Do()
	_, errIndex := svc.Documents.BatchUpdate("doc", insert(500)).Do()
	_, errType := svc.Documents.Get("txt").Do()
	_, errGone := svc.Documents.Get("none").Do()
	for _, tt := range []struct {
		err  error
		code int
		msg  string
	}{
		{errStale, 400, "The document was modified after revision rev1; requiredRevisionId no longer matches the latest revision."},
		{errIndex, 400, "Invalid requests[0].insertText: Index 500 must be less than the end index of the referenced segment, 28."},
		{errType, 400, "This operation is not supported for this document"},
		{errGone, 404, "Requested entity was not found."},
	} {
		if ge := apiError(t, tt.err); ge.Code != tt.code || ge.Message != tt.msg {
			t.Errorf("error %d %q, want %d %q", ge.Code, ge.Message, tt.code, tt.msg)
		}
	}
}
