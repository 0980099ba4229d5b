package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/api/sheets/v4"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Spreadsheets through the Sheets API v4 (values by A1 range, create, add a sheet), on the
// same sign-in as Drive: the drive scope covers it.

// sheetsProduct is the Sheets API as this server calls it.
var sheetsProduct = googleserver.Product{Server: "drive", Name: "Google Sheets", EndpointFlag: "sheets-endpoint", Endpoint: "https://sheets.googleapis.com/"}

// maxRangeCells caps the cells read_sheet_range returns; read_file reads whole sheets.
const maxRangeCells = 10000

type readRangeInput struct {
	SpreadsheetID string `json:"spreadsheet_id" jsonschema:"the Google Sheet's file id (search_files kind sheet)" schema:"minLength=1"`
	Range         string `json:"range" jsonschema:"A1 range, e.g. Sheet1!A1:D20, or a sheet name" schema:"minLength=1"`
	Render        string `json:"render,omitempty" jsonschema:"as shown, typed values, or formulas" schema:"enum=formatted|values|formulas,default=formatted"`
}

type rangeOutput struct {
	SpreadsheetID string  `json:"spreadsheet_id"`
	Range         string  `json:"range"`
	Rows          [][]any `json:"rows"`
}

func (o rangeOutput) Text() string {
	if len(o.Rows) == 0 {
		return o.Range + ": empty"
	}
	var b strings.Builder
	b.WriteString(o.Range + " (CSV):\n")
	w := csv.NewWriter(&b)
	for _, row := range o.Rows {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = cellText(v)
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return strings.TrimSpace(b.String())
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

type writeRangeInput struct {
	SpreadsheetID string  `json:"spreadsheet_id" jsonschema:"the Google Sheet's file id (search_files kind sheet)" schema:"minLength=1"`
	Range         string  `json:"range" jsonschema:"A1 cell (Sheet1!B2) or area (Sheet1!B2:D4)" schema:"minLength=1"`
	Values        [][]any `json:"values" jsonschema:"rows of cells; null leaves a cell, \"\" clears it" schema:"minItems=1"`
	Raw           bool    `json:"raw,omitempty" jsonschema:"strings as text, not parsed"`
}

type appendInput struct {
	SpreadsheetID string  `json:"spreadsheet_id" jsonschema:"the Google Sheet's file id (search_files kind sheet)" schema:"minLength=1"`
	Range         string  `json:"range" jsonschema:"a sheet name or columns, e.g. Sheet1!A:D" schema:"minLength=1"`
	Values        [][]any `json:"values" jsonschema:"rows to add" schema:"minItems=1"`
	Raw           bool    `json:"raw,omitempty" jsonschema:"strings as text, not parsed"`
}

type updateOutput struct {
	SpreadsheetID  string `json:"spreadsheet_id"`
	UpdatedRange   string `json:"updated_range"`
	UpdatedRows    int    `json:"updated_rows"`
	UpdatedColumns int    `json:"updated_columns"`
	UpdatedCells   int    `json:"updated_cells"`
	TableRange     string `json:"table_range,omitempty"`
}

func (o updateOutput) Text() string {
	s := fmt.Sprintf("Wrote %d cells (%d rows × %d columns) to %s", o.UpdatedCells, o.UpdatedRows, o.UpdatedColumns, o.UpdatedRange)
	if o.TableRange != "" {
		s += ", after the table " + o.TableRange
	}
	return s + "."
}

type createSheetInput struct {
	Title    string   `json:"title" jsonschema:"spreadsheet name" schema:"minLength=1"`
	Sheets   []string `json:"sheets,omitempty" jsonschema:"sheet names (default Sheet1)"`
	FolderID string   `json:"folder_id,omitempty" jsonschema:"folder to put it in; default My Drive root"`
}

type sheetInfo struct {
	SheetID int64  `json:"sheet_id"`
	Title   string `json:"title"`
	Index   int    `json:"index"`
	Rows    int    `json:"rows,omitempty"`
	Columns int    `json:"columns,omitempty"`
}

type spreadsheetOutput struct {
	SpreadsheetID string      `json:"spreadsheet_id"`
	Title         string      `json:"title"`
	Link          string      `json:"link,omitempty"`
	Sheets        []sheetInfo `json:"sheets"`
}

func (o spreadsheetOutput) Text() string {
	var names []string
	for _, s := range o.Sheets {
		names = append(names, fmt.Sprintf("%q", s.Title))
	}
	return fmt.Sprintf("Created spreadsheet %q (id %s) with sheets %s\n%s", o.Title, o.SpreadsheetID, strings.Join(names, ", "), o.Link)
}

// Unshown: the text names each sheet by its title.
func (spreadsheetOutput) Unshown() map[string]string {
	return map[string]string{"sheets[].sheet_id": "no tool takes a sheet's numeric id; ranges name sheets by title"}
}

type addSheetInput struct {
	SpreadsheetID string `json:"spreadsheet_id" jsonschema:"the Google Sheet's file id (search_files kind sheet)" schema:"minLength=1"`
	Title         string `json:"title" jsonschema:"the new sheet's name" schema:"minLength=1"`
	Rows          int    `json:"rows,omitempty" jsonschema:"grid height" schema:"minimum=1,maximum=100000,default=1000"`
	Columns       int    `json:"columns,omitempty" jsonschema:"grid width" schema:"minimum=1,maximum=18278,default=26"`
}

type addSheetOutput struct {
	SpreadsheetID string    `json:"spreadsheet_id"`
	Sheet         sheetInfo `json:"sheet"`
}

func (o addSheetOutput) Text() string {
	return fmt.Sprintf("Added sheet %q (sheet id %d, position %d, %d × %d) to %s", o.Sheet.Title, o.Sheet.SheetID, o.Sheet.Index+1, o.Sheet.Rows, o.Sheet.Columns, o.SpreadsheetID)
}

func addSheetTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "read_sheet_range", Toolset: toolsetSheets, Title: "Read a sheet range", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Cells of a Google Sheet by A1 range, as shown, typed, or with formulas."}, d.readRange)
	kit.AddTool(s, kit.Tool{Name: "write_sheet_range", Toolset: toolsetSheets, Title: "Write a sheet range", Destructive: true, Idempotent: true, OpenWorld: true,
		Description: "Overwrite cells of a Google Sheet from an A1 range with values or =formulas."}, d.writeRange)
	kit.AddTool(s, kit.Tool{Name: "append_sheet_rows", Toolset: toolsetSheets, Title: "Append rows to a sheet", OpenWorld: true,
		Description: "Add rows below the last row of a table in a Google Sheet."}, d.appendRows)
	kit.AddTool(s, kit.Tool{Name: "create_spreadsheet", Toolset: toolsetSheets, Title: "Create a spreadsheet", OpenWorld: true,
		Description: "Create a Google Sheet with named sheets."}, d.createSpreadsheet)
	kit.AddTool(s, kit.Tool{Name: "add_sheet", Toolset: toolsetSheets, Title: "Add a sheet", OpenWorld: true,
		Description: "Add a sheet (tab) to a Google Sheet."}, d.addSheet)
}

// sheetsFail turns a Sheets API error into the tool error; id names the spreadsheet.
func (d *drv) sheetsFail(err error, id string) error {
	return editorFail(d.sheetsAcct, err, id, "spreadsheet", "a Google Sheet", "sheet")
}

// editorFail turns a Sheets or Docs API error into the tool error: a Drive id of another type
// is named as such (the APIs answer 400 "This operation is not supported for this document").
func editorFail(acct *googleserver.Account, err error, id, noun, kind, searchKind string) error {
	if ae, ok := googleserver.AsAPIError(err); ok && ae.Code == http.StatusBadRequest && strings.Contains(ae.Message, "not supported for this document") {
		return kit.Errorf(kit.CodeInvalidInput, "%s is not %s (%s); search_files with kind %s finds them", id, kind, ae.Message, searchKind)
	}
	return acct.Fail(err, noun+" "+id)
}

var renderOptions = map[string]string{"": "FORMATTED_VALUE", "formatted": "FORMATTED_VALUE", "values": "UNFORMATTED_VALUE", "formulas": "FORMULA"}

func (d *drv) readRange(ctx context.Context, _ *mcp.CallToolRequest, in readRangeInput) (*mcp.CallToolResult, rangeOutput, error) {
	res, err := d.sheets.Spreadsheets.Values.Get(in.SpreadsheetID, in.Range).ValueRenderOption(renderOptions[in.Render]).
		MajorDimension("ROWS").DateTimeRenderOption("FORMATTED_STRING").Context(ctx).Do()
	if err != nil {
		return nil, rangeOutput{}, d.sheetsFail(err, in.SpreadsheetID)
	}
	cells := 0
	for _, row := range res.Values {
		cells += len(row)
	}
	if cells > maxRangeCells {
		return nil, rangeOutput{}, kit.Errorf(kit.CodeLimit, "%s holds %d cells, over the %d a call returns: read a smaller range, or the whole sheet with read_file", res.Range, cells, maxRangeCells)
	}
	if res.Values == nil {
		res.Values = [][]any{}
	}
	return nil, rangeOutput{SpreadsheetID: in.SpreadsheetID, Range: res.Range, Rows: res.Values}, nil
}

func inputOption(raw bool) string {
	if raw {
		return "RAW"
	}
	return "USER_ENTERED"
}

// updated is what a values update changed, as the tools report it.
func updated(u *sheets.UpdateValuesResponse, id string) updateOutput {
	if u == nil {
		return updateOutput{SpreadsheetID: id}
	}
	return updateOutput{SpreadsheetID: id, UpdatedRange: u.UpdatedRange, UpdatedRows: int(u.UpdatedRows), UpdatedColumns: int(u.UpdatedColumns), UpdatedCells: int(u.UpdatedCells)}
}

func (d *drv) writeRange(ctx context.Context, _ *mcp.CallToolRequest, in writeRangeInput) (*mcp.CallToolResult, updateOutput, error) {
	body := &sheets.ValueRange{Range: in.Range, MajorDimension: "ROWS", Values: in.Values}
	res, err := d.sheets.Spreadsheets.Values.Update(in.SpreadsheetID, in.Range, body).ValueInputOption(inputOption(in.Raw)).Context(ctx).Do()
	if err != nil {
		return nil, updateOutput{}, d.sheetsFail(err, in.SpreadsheetID)
	}
	return nil, updated(res, in.SpreadsheetID), nil
}

func (d *drv) appendRows(ctx context.Context, _ *mcp.CallToolRequest, in appendInput) (*mcp.CallToolResult, updateOutput, error) {
	body := &sheets.ValueRange{MajorDimension: "ROWS", Values: in.Values}
	res, err := d.sheets.Spreadsheets.Values.Append(in.SpreadsheetID, in.Range, body).ValueInputOption(inputOption(in.Raw)).
		InsertDataOption("INSERT_ROWS").Context(ctx).Do()
	if err != nil {
		return nil, updateOutput{}, d.sheetsFail(err, in.SpreadsheetID)
	}
	out := updated(res.Updates, in.SpreadsheetID)
	out.TableRange = res.TableRange
	return nil, out, nil
}

// info is a sheet as the tools report it.
func info(p *sheets.SheetProperties) sheetInfo {
	if p == nil {
		return sheetInfo{}
	}
	out := sheetInfo{SheetID: p.SheetId, Title: p.Title, Index: int(p.Index)}
	if g := p.GridProperties; g != nil {
		out.Rows, out.Columns = int(g.RowCount), int(g.ColumnCount)
	}
	return out
}

func (d *drv) createSpreadsheet(ctx context.Context, _ *mcp.CallToolRequest, in createSheetInput) (*mcp.CallToolResult, spreadsheetOutput, error) {
	if strings.TrimSpace(in.Title) == "" {
		return nil, spreadsheetOutput{}, kit.Errorf(kit.CodeInvalidInput, "title is empty")
	}
	body := &sheets.Spreadsheet{Properties: &sheets.SpreadsheetProperties{Title: in.Title}}
	for _, name := range in.Sheets {
		body.Sheets = append(body.Sheets, &sheets.Sheet{Properties: &sheets.SheetProperties{Title: name}})
	}
	if err := d.folderReach(ctx, in.FolderID); err != nil {
		return nil, spreadsheetOutput{}, err
	}
	res, err := d.sheets.Spreadsheets.Create(body).Context(ctx).Do()
	if err != nil {
		return nil, spreadsheetOutput{}, d.sheetsAcct.Fail(err, "spreadsheet")
	}
	out := spreadsheetOutput{SpreadsheetID: res.SpreadsheetId, Link: res.SpreadsheetUrl, Sheets: []sheetInfo{}}
	if res.Properties != nil {
		out.Title = res.Properties.Title
	}
	for _, s := range res.Sheets {
		out.Sheets = append(out.Sheets, info(s.Properties))
	}
	if in.FolderID != "" && in.FolderID != "root" {
		// Sheets creates in My Drive's root; Drive moves it.
		params := withFields("id")
		params.Set("addParents", in.FolderID)
		params.Set("removeParents", "root")
		if _, err := d.svc.Update(ctx, res.SpreadsheetId, &gdrive.File{}, params); err != nil {
			return nil, out, fmt.Errorf("created spreadsheet %s in My Drive but could not move it: %w", res.SpreadsheetId, d.fail(err, "folder "+in.FolderID))
		}
	}
	return nil, out, nil
}

func (d *drv) addSheet(ctx context.Context, _ *mcp.CallToolRequest, in addSheetInput) (*mcp.CallToolResult, addSheetOutput, error) {
	props := &sheets.SheetProperties{Title: in.Title, GridProperties: &sheets.GridProperties{RowCount: int64(in.Rows), ColumnCount: int64(in.Columns)}}
	body := &sheets.BatchUpdateSpreadsheetRequest{Requests: []*sheets.Request{{AddSheet: &sheets.AddSheetRequest{Properties: props}}}}
	res, err := d.sheets.Spreadsheets.BatchUpdate(in.SpreadsheetID, body).Context(ctx).Do()
	if err != nil {
		return nil, addSheetOutput{}, d.sheetsFail(err, in.SpreadsheetID)
	}
	if len(res.Replies) == 0 || res.Replies[0].AddSheet == nil {
		return nil, addSheetOutput{}, kit.Errorf(kit.CodeUnavailable, "Google Sheets answered no reply to addSheet")
	}
	return nil, addSheetOutput{SpreadsheetID: in.SpreadsheetID, Sheet: info(res.Replies[0].AddSheet.Properties)}, nil
}
