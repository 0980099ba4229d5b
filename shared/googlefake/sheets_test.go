package googlefake

import (
	"net/http"
	"slices"
	"testing"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/option"
	"google.golang.org/api/sheets/v4"
)

// The generated Sheets client, which builds requests as Google documents them, drives the
// fake: values round-trip with their types, formulas and ranges as the API renders them, and
// the common mistakes get the API's errors.
func TestSheetsWithGeneratedClient(t *testing.T) {
	t.Parallel()
	d := NewDrive(t)
	d.Add(&drive.File{Id: "doc", Name: "Doc", MimeType: "application/vnd.google-apps.document"}, nil)
	svc, err := sheets.NewService(t.Context(), option.WithEndpoint(d.URL+"/"), option.WithHTTPClient(Client()))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := svc.Spreadsheets.Create(&sheets.Spreadsheet{Properties: &sheets.SpreadsheetProperties{Title: "Budget"},
		Sheets: []*sheets.Sheet{{Properties: &sheets.SheetProperties{Title: "Q1 Plan"}}}}).Do()
	if err != nil || ss.SpreadsheetId == "" || ss.Sheets[0].Properties.Title != "Q1 Plan" {
		t.Fatalf("create = %+v, %v", ss, err)
	}
	if f, _, ok := d.File(ss.SpreadsheetId); !ok || f.Name != "Budget" || f.MimeType != sheetType {
		t.Errorf("Drive file %+v", f)
	}
	id := ss.SpreadsheetId
	up, err := svc.Spreadsheets.Values.Update(id, "'Q1 Plan'!A1", &sheets.ValueRange{Values: [][]any{{"Item", "Amount"}, {"Coffee", "12.5"}, {"Tea", 3}}}).
		ValueInputOption("USER_ENTERED").Do()
	if err != nil || up.UpdatedRange != "'Q1 Plan'!A1:B3" || up.UpdatedCells != 6 {
		t.Fatalf("update = %+v, %v", up, err)
	}
	ap, err := svc.Spreadsheets.Values.Append(id, "'Q1 Plan'!A:B", &sheets.ValueRange{Values: [][]any{{"Total", "=SUM(B2:B3)"}}}).
		ValueInputOption("USER_ENTERED").Do()
	if err != nil || ap.Updates.UpdatedRange != "'Q1 Plan'!A4:B4" || ap.TableRange != "'Q1 Plan'!A1:B3" {
		t.Fatalf("append = %+v, %v", ap, err)
	}
	for _, tt := range []struct {
		render string
		want   [][]any
	}{
		{"", [][]any{{"Item", "Amount"}, {"Coffee", "12.5"}, {"Tea", "3"}, {"Total", "15.5"}}},
		{"UNFORMATTED_VALUE", [][]any{{"Item", "Amount"}, {"Coffee", 12.5}, {"Tea", 3.0}, {"Total", 15.5}}},
		{"FORMULA", [][]any{{"Item", "Amount"}, {"Coffee", 12.5}, {"Tea", 3.0}, {"Total", "=SUM(B2:B3)"}}},
	} {
		call := svc.Spreadsheets.Values.Get(id, "'Q1 Plan'")
		if tt.render != "" {
			call = call.ValueRenderOption(tt.render)
		}
		got, err := call.Do()
		if err != nil || got.Range != "'Q1 Plan'!A1:Z1000" || !slices.EqualFunc(got.Values, tt.want, func(a, b []any) bool { return slices.Equal(a, b) }) {
			t.Errorf("get %s = %+v, %v", tt.render, got, err)
		}
	}
	bu, err := svc.Spreadsheets.BatchUpdate(id, &sheets.BatchUpdateSpreadsheetRequest{Requests: []*sheets.Request{{AddSheet: &sheets.AddSheetRequest{Properties: &sheets.SheetProperties{Title: "Q2"}}}}}).Do()
	if err != nil || bu.Replies[0].AddSheet.Properties.Title != "Q2" || bu.Replies[0].AddSheet.Properties.Index != 1 {
		t.Fatalf("addSheet = %+v, %v", bu, err)
	}

	_, errDup := svc.Spreadsheets.BatchUpdate(id, &sheets.BatchUpdateSpreadsheetRequest{Requests: []*sheets.Request{{AddSheet: &sheets.AddSheetRequest{Properties: &sheets.SheetProperties{Title: "q2"}}}}}).Do()
	_, errRange := svc.Spreadsheets.Values.Get(id, "Nope!A1").Do()
	_, errInput := svc.Spreadsheets.Values.Update(id, "Q2!A1", &sheets.ValueRange{Values: [][]any{{1}}}).Do()
	_, errSpill := svc.Spreadsheets.Values.Update(id, "Q2!A1:A1", &sheets.ValueRange{Values: [][]any{{1}, {2}}}).ValueInputOption("RAW").Do()
	_, errDoc := svc.Spreadsheets.Values.Get("doc", "A1").Do()
	_, errGone := svc.Spreadsheets.Values.Get("none", "A1").Do()
	for _, tt := range []struct {
		err  error
		code int
		msg  string
	}{
		{errDup, 400, `Invalid requests[0].addSheet: A sheet with the name "q2" already exists. Please enter another name.`},
		{errRange, 400, "Unable to parse range: Nope!A1"},
		{errInput, 400, "'valueInputOption' is required but not specified"},
		{errSpill, 400, "Requested writing within range [Q2!A1], but tried writing to row [2]"},
		{errDoc, 400, "This operation is not supported for this document"},
		{errGone, http.StatusNotFound, "Requested entity was not found."},
	} {
		if ge := apiError(t, tt.err); ge.Code != tt.code || ge.Message != tt.msg {
			t.Errorf("error %d %q, want %d %q", ge.Code, ge.Message, tt.code, tt.msg)
		}
	}
}
