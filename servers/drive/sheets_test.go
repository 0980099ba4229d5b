package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// A spreadsheet's life over HTTP against the fake: create it in a folder, write typed values
// and a formula, append rows, read them as shown, typed and as formulas, add a sheet.
func TestSheets(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	created, res := mcptest.CallFor[spreadsheetOutput](t, cs, "create_spreadsheet", map[string]any{"title": "Expenses", "sheets": []string{"2026", "Notes"}, "folder_id": "folder1"})
	if created.SpreadsheetID == "" || created.Title != "Expenses" || len(created.Sheets) != 2 || created.Sheets[0].Title != "2026" || !strings.Contains(mcptest.Text(res), `"2026", "Notes"`) {
		t.Fatalf("created %+v", created)
	}
	if file, _, _ := f.File(created.SpreadsheetID); !slices.Equal(file.Parents, []string{"folder1"}) || file.MimeType != mimeSheet {
		t.Errorf("Drive file %+v", file)
	}
	id := created.SpreadsheetID

	w, res := mcptest.CallFor[updateOutput](t, cs, "write_sheet_range", map[string]any{"spreadsheet_id": id, "range": "2026!A1",
		"values": []any{[]any{"Item", "Amount", "Paid"}, []any{"Coffee", "12.5", true}, []any{"Rent", 900, "FALSE"}}})
	if w.UpdatedRange != "2026!A1:C3" || w.UpdatedCells != 9 || mcptest.Text(res) != "Wrote 9 cells (3 rows × 3 columns) to 2026!A1:C3." {
		t.Errorf("write %+v %q", w, mcptest.Text(res))
	}
	if q := f.Calls("PUT", "/values/2026!A1")[0].Query; q.Get("valueInputOption") != "USER_ENTERED" {
		t.Errorf("write query %v", q)
	}
	a, res := mcptest.CallFor[updateOutput](t, cs, "append_sheet_rows", map[string]any{"spreadsheet_id": id, "range": "2026!A:C",
		"values": []any{[]any{"Total", "=SUM(B2:B3)"}}})
	if a.UpdatedRange != "2026!A4:B4" || a.TableRange != "2026!A1:C3" || !strings.Contains(mcptest.Text(res), "after the table 2026!A1:C3") {
		t.Errorf("append %+v", a)
	}
	if q := f.Calls("POST", "/values/2026!A:C:append")[0].Query; q.Get("insertDataOption") != "INSERT_ROWS" {
		t.Errorf("append query %v", q)
	}
	// "raw" keeps a would-be formula as text.
	mcptest.CallFor[updateOutput](t, cs, "write_sheet_range", map[string]any{"spreadsheet_id": id, "range": "Notes!A1", "values": []any{[]any{"=not a formula", "007"}}, "raw": true})

	tests := []struct {
		args map[string]any
		want [][]any
		text string
	}{
		{map[string]any{"range": "2026"}, [][]any{{"Item", "Amount", "Paid"}, {"Coffee", "12.5", "TRUE"}, {"Rent", "900", "FALSE"}, {"Total", "912.5"}},
			"2026!A1:Z1000 (CSV):\nItem,Amount,Paid\nCoffee,12.5,TRUE\nRent,900,FALSE\nTotal,912.5"},
		{map[string]any{"range": "2026!B2:C4", "render": "values"}, [][]any{{12.5, true}, {900.0, false}, {912.5}}, "2026!B2:C4 (CSV):\n12.5,true\n900,false\n912.5"},
		{map[string]any{"range": "2026!A4:B4", "render": "formulas"}, [][]any{{"Total", "=SUM(B2:B3)"}}, "Total,=SUM(B2:B3)"},
		{map[string]any{"range": "Notes!A1:B1", "render": "values"}, [][]any{{"=not a formula", "007"}}, "=not a formula,007"},
		{map[string]any{"range": "Notes!D5:E6"}, [][]any{}, "Notes!D5:E6: empty"},
	}
	for _, tt := range tests {
		tt.args["spreadsheet_id"] = id
		got, res := mcptest.CallFor[rangeOutput](t, cs, "read_sheet_range", tt.args)
		if !slices.EqualFunc(got.Rows, tt.want, func(a, b []any) bool { return slices.Equal(a, b) }) || !strings.Contains(mcptest.Text(res), tt.text) {
			t.Errorf("read %v = %+v\n%s", tt.args, got.Rows, mcptest.Text(res))
		}
	}

	added, _ := mcptest.CallFor[addSheetOutput](t, cs, "add_sheet", map[string]any{"spreadsheet_id": id, "title": "Q3", "rows": 50, "columns": 5})
	if added.Sheet.Title != "Q3" || added.Sheet.Index != 2 || added.Sheet.Rows != 50 || added.Sheet.Columns != 5 {
		t.Errorf("added %+v", added)
	}
}

// The mistakes a model makes get the Sheets API's own errors, worded for it.
func TestSheetsErrors(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	created, _ := mcptest.CallFor[spreadsheetOutput](t, cs, "create_spreadsheet", map[string]any{"title": "S"})
	id := created.SpreadsheetID
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_sheet_range", map[string]any{"spreadsheet_id": id, "range": "Nope!A1"}, "Google Sheets refused the request: Unable to parse range: Nope!A1"},
		{"read_sheet_range", map[string]any{"spreadsheet_id": "doc1", "range": "A1"}, "doc1 is not a Google Sheet"},
		{"read_sheet_range", map[string]any{"spreadsheet_id": "gone", "range": "A1"}, "spreadsheet gone not found"},
		{"write_sheet_range", map[string]any{"spreadsheet_id": id, "range": "Sheet1!A1:B1", "values": []any{[]any{1, 2, 3}}}, "Requested writing within range"},
		{"write_sheet_range", map[string]any{"spreadsheet_id": id, "range": "Sheet1!A1", "values": []any{}}, "values"},
		{"add_sheet", map[string]any{"spreadsheet_id": id, "title": "sheet1"}, `A sheet with the name "sheet1" already exists`},
		{"read_sheet_range", map[string]any{"spreadsheet_id": id, "range": "A1", "render": "raw"}, "render"},
	}
	for _, tt := range tests {
		if msg := mcptest.CallError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, msg, tt.want)
		}
	}
}
