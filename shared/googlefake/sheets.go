package googlefake

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/api/drive/v3"
)

// The Sheets API v4, served by the Drive fake on the same host (give the server URL+"/" as
// its Sheets endpoint): values get, update and append by A1 range, spreadsheets create and
// get, and batchUpdate's addSheet. A spreadsheet is a Drive file of the spreadsheet type; one
// added through Drive starts with an empty sheet "Sheet1". Cells keep what was entered:
// USER_ENTERED parses numbers, TRUE/FALSE and =formulas as typing would, RAW keeps strings.
// Of formulas the fake evaluates only =SUM(range); others show #NAME?. Errors are the API's:
// 404 for a missing spreadsheet, 400 "This operation is not supported for this document" for
// a Drive file that is no spreadsheet, "Unable to parse range" for an unknown sheet or bad A1,
// a missing valueInputOption, writes past a range or the grid, a duplicate sheet name.

const sheetType = "application/vnd.google-apps.spreadsheet"

// book is a spreadsheet's sheets.
type book struct {
	sheets []*grid
	nextID int64
}

// grid is one sheet: its size and its non-empty cells by [row, column], 0-based.
type grid struct {
	id         int64
	title      string
	rows, cols int
	cells      map[[2]int]cell
}

// cell is an entered value (float64, bool or string) or a formula.
type cell struct {
	value   any
	formula string
}

func (d *Drive) sheetRoutes() {
	const base = "/v4/spreadsheets"
	d.handle("POST "+base, d.createSpreadsheet)
	d.handle("GET "+base+"/{id}", func(w http.ResponseWriter, r *http.Request, _ Request) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if b := d.book(w, r.PathValue("id")); b != nil {
			WriteJSON(w, d.spreadsheetJSON(r.PathValue("id"), b))
		}
	})
	d.handle("POST "+base+"/{op}", d.batchUpdate) // {id}:batchUpdate
	d.handle("GET "+base+"/{id}/values/{range}", d.getValues)
	d.handle("PUT "+base+"/{id}/values/{range}", d.putValues)
	d.handle("POST "+base+"/{id}/values/{range}", d.putValues) // {range}:append
}

// editable reports whether the Drive file id is a live file of mimeType, as the Sheets and
// Docs APIs check it, after answering their error when not; the caller holds mu.
func (d *Drive) editable(w http.ResponseWriter, id, mimeType string) bool {
	file := d.files[id]
	switch {
	case file == nil || file.Trashed:
		WriteError(w, http.StatusNotFound, "Requested entity was not found.", "")
		return false
	case file.MimeType != mimeType:
		WriteError(w, http.StatusBadRequest, "This operation is not supported for this document", "failedPrecondition")
		return false
	}
	return true
}

// book is the spreadsheet id, made on first use for a Drive spreadsheet, or nil after
// answering the API's error; the caller holds mu.
func (d *Drive) book(w http.ResponseWriter, id string) *book {
	if !d.editable(w, id, sheetType) {
		return nil
	}
	if d.books[id] == nil {
		d.books[id] = &book{sheets: []*grid{newGrid(0, "Sheet1")}, nextID: 1}
	}
	return d.books[id]
}

func newGrid(id int64, title string) *grid {
	return &grid{id: id, title: title, rows: 1000, cols: 26, cells: map[[2]int]cell{}}
}

func (d *Drive) spreadsheetJSON(id string, b *book) map[string]any {
	var sheets []any
	for i, g := range b.sheets {
		sheets = append(sheets, map[string]any{"properties": g.properties(i)})
	}
	return map[string]any{"spreadsheetId": id, "properties": map[string]any{"title": d.files[id].Name}, "sheets": sheets,
		"spreadsheetUrl": "https://docs.google.com/spreadsheets/d/" + id + "/edit"}
}

func (g *grid) properties(index int) map[string]any {
	return map[string]any{"sheetId": g.id, "title": g.title, "index": index, "sheetType": "GRID",
		"gridProperties": map[string]any{"rowCount": g.rows, "columnCount": g.cols}}
}

type sheetProps struct {
	Title          string `json:"title"`
	GridProperties *struct {
		RowCount    int `json:"rowCount"`
		ColumnCount int `json:"columnCount"`
	} `json:"gridProperties"`
}

func (d *Drive) createSpreadsheet(w http.ResponseWriter, _ *http.Request, rq Request) {
	var in struct {
		Properties struct {
			Title string `json:"title"`
		} `json:"properties"`
		Sheets []struct {
			Properties sheetProps `json:"properties"`
		} `json:"sheets"`
	}
	_ = rq.Decode(&in)
	d.mu.Lock()
	defer d.mu.Unlock()
	title := in.Properties.Title
	if title == "" {
		title = "Untitled spreadsheet"
	}
	file := &drive.File{Id: d.newID("sheet"), Name: title, MimeType: sheetType, Parents: []string{"root"}}
	d.put(file, nil)
	b := &book{}
	for _, s := range in.Sheets {
		b.sheets = append(b.sheets, newGrid(b.nextID, s.Properties.Title))
		b.nextID++
	}
	if len(b.sheets) == 0 {
		b.sheets, b.nextID = []*grid{newGrid(0, "Sheet1")}, 1
	}
	d.books[file.Id] = b
	WriteJSON(w, d.spreadsheetJSON(file.Id, b))
}

func (d *Drive) batchUpdate(w http.ResponseWriter, r *http.Request, rq Request) {
	id, ok := strings.CutSuffix(r.PathValue("op"), ":batchUpdate")
	if !ok {
		notFound(w, "Not found: "+r.PathValue("op"))
		return
	}
	var in struct {
		Requests []struct {
			AddSheet *struct {
				Properties sheetProps `json:"properties"`
			} `json:"addSheet"`
		} `json:"requests"`
	}
	_ = rq.Decode(&in)
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.book(w, id)
	if b == nil {
		return
	}
	var replies []any
	for i, req := range in.Requests {
		if req.AddSheet == nil {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("Invalid requests[%d]: the fake serves addSheet only", i), "badRequest")
			return
		}
		p := req.AddSheet.Properties
		if p.Title == "" {
			p.Title = fmt.Sprintf("Sheet%d", len(b.sheets)+1)
		}
		if slices.ContainsFunc(b.sheets, func(g *grid) bool { return strings.EqualFold(g.title, p.Title) }) {
			WriteError(w, http.StatusBadRequest, fmt.Sprintf("Invalid requests[%d].addSheet: A sheet with the name \"%s\" already exists. Please enter another name.", i, p.Title), "badRequest")
			return
		}
		g := newGrid(b.nextID, p.Title)
		b.nextID++
		if p.GridProperties != nil && p.GridProperties.RowCount > 0 {
			g.rows, g.cols = p.GridProperties.RowCount, max(p.GridProperties.ColumnCount, 1)
		}
		b.sheets = append(b.sheets, g)
		replies = append(replies, map[string]any{"addSheet": map[string]any{"properties": g.properties(len(b.sheets) - 1)}})
	}
	d.changed(d.files[id])
	WriteJSON(w, map[string]any{"spreadsheetId": id, "replies": replies})
}

// area is a parsed A1 range: the sheet and the rows and columns, inclusive; single says the
// range named one cell, which a write may grow from.
type area struct {
	g              *grid
	r0, c0, r1, c1 int
	single         bool
}

var a1 = regexp.MustCompile(`^([A-Za-z]*)([0-9]*)(?::([A-Za-z]*)([0-9]*))?$`)

// parseRange reads "Sheet!A1:B2", "'My sheet'!A:B", "Sheet" or "A1" (on the first sheet).
func parseRange(b *book, s string) (area, bool) {
	name, cells := "", s
	if i := strings.LastIndex(s, "!"); i >= 0 {
		name, cells = s[:i], s[i+1:]
	} else if slices.ContainsFunc(b.sheets, func(g *grid) bool { return g.title == strings.Trim(s, "'") }) {
		name, cells = s, ""
	}
	if strings.HasPrefix(name, "'") && strings.HasSuffix(name, "'") && len(name) > 1 {
		name = strings.ReplaceAll(name[1:len(name)-1], "''", "'")
	}
	g := b.sheets[0]
	if name != "" {
		i := slices.IndexFunc(b.sheets, func(g *grid) bool { return g.title == name })
		if i < 0 {
			return area{}, false
		}
		g = b.sheets[i]
	}
	a := area{g: g, r1: g.rows - 1, c1: g.cols - 1}
	if cells == "" {
		return a, true
	}
	m := a1.FindStringSubmatch(cells)
	if m == nil || m[1] == "" && m[2] == "" {
		return area{}, false
	}
	if m[1] != "" {
		a.c0 = column(m[1])
	}
	if m[2] != "" {
		a.r0, _ = strconv.Atoi(m[2])
		a.r0--
	}
	if !strings.Contains(cells, ":") {
		a.single = m[1] != "" && m[2] != ""
		if m[1] != "" {
			a.c1 = a.c0
		}
		if m[2] != "" {
			a.r1 = a.r0
		}
		return a, a.r0 >= 0
	}
	if m[3] != "" {
		a.c1 = column(m[3])
	}
	if m[4] != "" {
		a.r1, _ = strconv.Atoi(m[4])
		a.r1--
	}
	return a, a.r0 >= 0 && a.r0 <= a.r1 && a.c0 <= a.c1
}

func column(letters string) int {
	n := 0
	for _, r := range strings.ToUpper(letters) {
		n = n*26 + int(r-'A'+1)
	}
	return n - 1
}

func columnName(c int) string {
	s := ""
	for c++; c > 0; c = (c - 1) / 26 {
		s = string(rune('A'+(c-1)%26)) + s
	}
	return s
}

// String is the range as the API writes it back: Sheet1!A1:C3, quoted when needed.
func (a area) String() string {
	name := a.g.title
	if strings.ContainsAny(name, " '!:") {
		name = "'" + strings.ReplaceAll(name, "'", "''") + "'"
	}
	from, to := columnName(a.c0)+strconv.Itoa(a.r0+1), columnName(a.c1)+strconv.Itoa(a.r1+1)
	if from == to {
		return name + "!" + from
	}
	return name + "!" + from + ":" + to
}

// render is a cell's value as valueRenderOption asks.
func (g *grid) render(c cell, option string) any {
	if c.formula != "" && option == "FORMULA" {
		return c.formula
	}
	v := c.value
	if c.formula != "" {
		v = g.eval(c.formula)
	}
	if option == "UNFORMATTED_VALUE" || option == "FORMULA" {
		return v
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strings.ToUpper(strconv.FormatBool(x))
	}
	return v
}

var sumFormula = regexp.MustCompile(`(?i)^=SUM\(([A-Z]+[0-9]+:[A-Z]+[0-9]+)\)$`)

func (g *grid) eval(formula string) any {
	m := sumFormula.FindStringSubmatch(formula)
	if m == nil {
		return "#NAME?"
	}
	a, _ := parseRange(&book{sheets: []*grid{g}}, m[1])
	sum := 0.0
	for k, c := range g.cells {
		if n, ok := c.value.(float64); ok && c.formula == "" && k[0] >= a.r0 && k[0] <= a.r1 && k[1] >= a.c0 && k[1] <= a.c1 {
			sum += n
		}
	}
	return sum
}

// values is the area's rendered rows, trailing empty cells and rows left out, as the API does.
func (a area) values(option string) [][]any {
	var rows [][]any
	for r := a.r0; r <= a.r1 && r < a.g.rows; r++ {
		var row []any
		for c := a.c0; c <= a.c1 && c < a.g.cols; c++ {
			if v, ok := a.g.cells[[2]int{r, c}]; ok {
				for len(row) < c-a.c0 {
					row = append(row, "")
				}
				row = append(row, a.g.render(v, option))
			}
		}
		rows = append(rows, row)
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1]
	}
	for i := range rows {
		if rows[i] == nil {
			rows[i] = []any{}
		}
	}
	return rows
}

func (d *Drive) getValues(w http.ResponseWriter, r *http.Request, rq Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.book(w, r.PathValue("id"))
	if b == nil {
		return
	}
	a, ok := parseRange(b, r.PathValue("range"))
	if !ok {
		WriteError(w, http.StatusBadRequest, "Unable to parse range: "+r.PathValue("range"), "badRequest")
		return
	}
	out := map[string]any{"range": a.String(), "majorDimension": "ROWS"}
	if v := a.values(rq.Query.Get("valueRenderOption")); len(v) > 0 {
		out["values"] = v
	}
	WriteJSON(w, out)
}

// entered is what typing v into a cell stores (USER_ENTERED) or v as it is (RAW).
func entered(v any, userEntered bool) cell {
	s, ok := v.(string)
	if !ok || !userEntered {
		return cell{value: v}
	}
	switch {
	case strings.HasPrefix(s, "="):
		return cell{formula: s}
	case strings.EqualFold(s, "true") || strings.EqualFold(s, "false"):
		return cell{value: strings.EqualFold(s, "true")}
	}
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(n, 0) && !math.IsNaN(n) {
		return cell{value: n}
	}
	return cell{value: s}
}

// putValues is values.update (PUT) and values.append (POST …:append).
func (d *Drive) putValues(w http.ResponseWriter, r *http.Request, rq Request) {
	rng, appending := r.PathValue("range"), false
	if r.Method == http.MethodPost {
		if rng, appending = strings.CutSuffix(rng, ":append"); !appending {
			notFound(w, "Not found")
			return
		}
	}
	input := rq.Query.Get("valueInputOption")
	if input != "RAW" && input != "USER_ENTERED" {
		WriteError(w, http.StatusBadRequest, "'valueInputOption' is required but not specified", "badRequest")
		return
	}
	var in struct {
		Values [][]any `json:"values"`
	}
	_ = rq.Decode(&in)
	d.mu.Lock()
	defer d.mu.Unlock()
	id := r.PathValue("id")
	b := d.book(w, id)
	if b == nil {
		return
	}
	a, ok := parseRange(b, rng)
	if !ok {
		WriteError(w, http.StatusBadRequest, "Unable to parse range: "+rng, "badRequest")
		return
	}
	table := a
	if appending {
		last := -1 // the last row with a value in the range's columns
		for k := range a.g.cells {
			if k[1] >= a.c0 && k[1] <= a.c1 && k[0] >= a.r0 {
				last = max(last, k[0])
			}
		}
		table.r1 = max(last, a.r0)
		a.r0, a.single = max(last+1, a.r0), true
	}
	width := 0
	for _, row := range in.Values {
		width = max(width, len(row))
	}
	end := area{g: a.g, r0: a.r0, c0: a.c0, r1: a.r0 + max(len(in.Values), 1) - 1, c1: a.c0 + max(width, 1) - 1}
	switch {
	case end.r1 >= a.g.rows || end.c1 >= a.g.cols:
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Range (%s) exceeds grid limits. Max rows: %d, max columns: %d", end, a.g.rows, a.g.cols), "badRequest")
		return
	case !a.single && (end.r1 > a.r1 || end.c1 > a.c1):
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Requested writing within range [%s], but tried writing to row [%d]", a, end.r1+1), "badRequest")
		return
	}
	cells := 0
	for i, row := range in.Values {
		for j, v := range row {
			k := [2]int{a.r0 + i, a.c0 + j}
			switch v {
			case nil: // null leaves the cell as it is
				continue
			case "":
				delete(a.g.cells, k)
			default:
				a.g.cells[k] = entered(v, input == "USER_ENTERED")
			}
			cells++
		}
	}
	d.changed(d.files[id])
	update := map[string]any{"spreadsheetId": id, "updatedRange": end.String(), "updatedRows": len(in.Values), "updatedColumns": width, "updatedCells": cells}
	if !appending {
		WriteJSON(w, update)
		return
	}
	WriteJSON(w, map[string]any{"spreadsheetId": id, "tableRange": table.String(), "updates": update})
}
