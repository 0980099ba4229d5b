package xlsx

import (
	"archive/zip"
	"bytes"
	"slices"
	"strings"
	"testing"
)

const (
	nsMain = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	nsRel  = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	wsType = `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"`
)

// buildXLSX zips parts into a workbook file.
func buildXLSX(t *testing.T, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// book is a workbook with the given sheets (name → sheetData rows), shared strings, styles and
// workbookPr; sheet parts are named by the relationship targets given in targets (default
// worksheets/sheetN.xml).
type book struct {
	sheets  [][2]string // name, rows XML
	targets []string
	shared  string
	styles  string
	pr      string
}

func (b book) build(t *testing.T) []byte {
	t.Helper()
	var sheets, rels strings.Builder
	parts := map[string]string{}
	for i, s := range b.sheets {
		id := "rId" + string(rune('1'+i))
		target := "worksheets/sheet" + string(rune('1'+i)) + ".xml"
		if i < len(b.targets) {
			target = b.targets[i]
		}
		sheets.WriteString(`<sheet name="` + s[0] + `" sheetId="` + string(rune('1'+i)) + `" r:id="` + id + `"/>`)
		rels.WriteString(`<Relationship Id="` + id + `" ` + wsType + ` Target="` + target + `"/>`)
		part := strings.TrimPrefix(target, "/")
		if !strings.HasPrefix(part, "xl/") {
			part = "xl/" + part
		}
		parts[part] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet ` + nsMain + `><sheetData>` + s[1] + `</sheetData></worksheet>`
	}
	parts["xl/workbook.xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook ` + nsMain + ` ` + nsRel + `>` + b.pr + `<sheets>` + sheets.String() + `</sheets></workbook>`
	parts["xl/_rels/workbook.xml.rels"] = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`
	if b.shared != "" {
		parts["xl/sharedStrings.xml"] = `<?xml version="1.0" encoding="UTF-8"?><sst ` + nsMain + `>` + b.shared + `</sst>`
	}
	if b.styles != "" {
		parts["xl/styles.xml"] = `<?xml version="1.0" encoding="UTF-8"?><styleSheet ` + nsMain + `>` + b.styles + `</styleSheet>`
	}
	return buildXLSX(t, parts)
}

// dateStyles: style 0 general, 1 built-in date (14), 2 custom date-time, 3 custom time, 4 a
// number format with a quoted "d" (not a date), 5 currency (built-in 7).
const dateStyles = `<numFmts count="3"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm"/><numFmt numFmtId="165" formatCode="h:mm AM/PM"/><numFmt numFmtId="166" formatCode="0.00&quot; days&quot;"/></numFmts>` +
	`<cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="7"/></cellXfs>`

func TestWorkbookCells(t *testing.T) {
	tests := []struct {
		name  string
		book  book
		sheet string
		want  string
	}{
		{
			name: "shared strings, plain and rich, phonetic runs left out",
			book: book{
				sheets: [][2]string{{"S", `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>`}},
				shared: `<si><t xml:space="preserve"> padded </t></si><si><r><rPr><b/></rPr><t>Bold</t></r><r><t xml:space="preserve"> and plain</t></r></si><si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></si>`,
			},
			want: "\" padded \",Bold and plain,東京\n",
		},
		{
			name: "inline strings, plain and rich",
			book: book{sheets: [][2]string{{"S", `<row r="1"><c r="A1" t="inlineStr"><is><t>Total</t></is></c><c r="B1" t="inlineStr"><is><r><t>Net </t></r><r><t>sum</t></r></is></c></row>`}}},
			want: "Total,Net sum\n",
		},
		{
			name: "dates and times by style; other number formats keep the stored number",
			book: book{
				sheets: [][2]string{{"S", `<row r="1"><c r="A1" s="1"><v>46086</v></c><c r="B1" s="2"><v>46086.75</v></c><c r="C1" s="3"><v>0.5</v></c><c r="D1" s="4"><v>3.25</v></c><c r="E1" s="5"><v>1234.5</v></c><c r="F1"><v>46086</v></c></row>`}},
				styles: dateStyles,
			},
			want: "2026-03-05,2026-03-05 18:00:00,12:00:00,3.25,1234.5,46086\n",
		},
		{
			name: "1904 date system",
			book: book{
				sheets: [][2]string{{"S", `<row r="1"><c r="A1" s="1"><v>44624</v></c></row>`}},
				styles: dateStyles,
				pr:     `<workbookPr date1904="1"/>`,
			},
			want: "2026-03-05\n",
		},
		{
			name: "formulas give their cached values",
			book: book{sheets: [][2]string{{"S", `<row r="1"><c r="A1"><f>1/3</f><v>0.33333333333333331</v></c><c r="B1" t="str"><f>CONCAT("a","b")</f><v>ab</v></c><c r="C1" t="b"><f>1&gt;0</f><v>1</v></c><c r="D1" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="E1" t="b"><v>0</v></c></row>`}}},
			want: "0.33333333333333331,ab,TRUE,#DIV/0!,FALSE\n",
		},
		{
			name: "empty cells, missing rows and rows and cells without references",
			book: book{sheets: [][2]string{{"S", `<row r="1"><c r="B1"><v>1</v></c><c r="D1"><v>2</v></c></row><row r="3"><c r="AA3"><v>3</v></c></row><row><c><v>4</v></c><c><v>5</v></c></row>`}}},
			want: ",1,,2" + strings.Repeat(",", 23) + "\n" +
				strings.Repeat(",", 26) + "\n" +
				strings.Repeat(",", 26) + "3\n" +
				"4,5" + strings.Repeat(",", 25) + "\n",
		},
		{
			name: "a formula whose text needs CSV quoting",
			book: book{sheets: [][2]string{{"S", `<row r="1"><c r="A1" t="str"><v>say "hi", then
go</v></c></row>`}}},
			want: "\"say \"\"hi\"\", then\ngo\"\n",
		},
		{
			name: "second sheet by name, case-insensitive, absolute part target",
			book: book{
				sheets:  [][2]string{{"First", `<row r="1"><c r="A1"><v>1</v></c></row>`}, {"Q2 Plan", `<row r="1"><c r="A1" t="inlineStr"><is><t>Hire</t></is></c><c r="B1"><v>2</v></c></row>`}},
				targets: []string{"worksheets/sheet1.xml", "/xl/worksheets/plan.xml"},
			},
			sheet: "q2 PLAN",
			want:  "Hire,2\n",
		},
		{
			name: "formatted empty rows at the end are left out; lower-case references read",
			book: book{sheets: [][2]string{{"S", `<row r="1"><c r="a1"><v>1</v></c><c r="b1"><v>2</v></c></row><row r="2"/><row r="3"><c r="C3" s="0"/></row><row r="500"/>`}}},
			want: "1,2\n",
		},
		{
			name: "an empty sheet",
			book: book{sheets: [][2]string{{"Blank", ``}}},
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wb, err := open(t, tc.book.build(t))
			if err != nil {
				t.Fatal(err)
			}
			_, got, err := wb.CSV(tc.sheet)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("csv:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestWorkbookSheets(t *testing.T) {
	t.Parallel()
	wb, err := open(t, book{sheets: [][2]string{{"One", `<row r="1"><c r="A1"><v>1</v></c></row>`}, {"Two &amp; Three", `<row r="1"><c r="A1"><v>2</v></c></row>`}, {"Four", ``}}}.build(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := wb.Sheets(); !slices.Equal(got, []string{"One", "Two & Three", "Four"}) {
		t.Errorf("names %q", got)
	}
	for sheet, want := range map[string][2]string{"": {"One", "1\n"}, "two & three": {"Two & Three", "2\n"}, "FOUR": {"Four", ""}} {
		name, got, err := wb.CSV(sheet)
		if err != nil || name != want[0] || got != want[1] {
			t.Errorf("csv(%q) = %q, %q, %v; want %q, %q", sheet, name, got, err, want[0], want[1])
		}
	}
	if _, _, err := wb.CSV("Five"); err == nil || !strings.Contains(err.Error(), `"One", "Two & Three", "Four"`) {
		t.Errorf("unknown sheet: %v", err)
	}
}

func TestWorkbookRefusesBrokenFiles(t *testing.T) {
	t.Parallel()
	noSheets := book{}.build(t)
	noWorkbook := buildXLSX(t, map[string]string{"xl/styles.xml": "<styleSheet/>"})
	badSheet := buildXLSX(t, map[string]string{
		"xl/workbook.xml":            `<workbook ` + nsMain + ` ` + nsRel + `><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" ` + wsType + ` Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   `<worksheet><sheetData><row><c>`,
	})
	for name, data := range map[string][]byte{"not a zip": []byte("PK but not really"), "no sheets": noSheets, "no workbook part": noWorkbook} {
		if _, err := open(t, data); err == nil {
			t.Errorf("%s: read without error", name)
		}
	}
	wb, err := open(t, badSheet)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := wb.CSV(""); err == nil || !strings.Contains(err.Error(), `sheet "S" could not be read`) {
		t.Errorf("truncated sheet: %v", err)
	}
}

func TestSerialDate(t *testing.T) {
	t.Parallel()
	tests := map[float64]string{
		1:          "1899-12-31",
		61:         "1900-03-01",
		46086:      "2026-03-05",
		46086.5:    "2026-03-05 12:00:00",
		0.25:       "06:00:00",
		45657.9999: "2024-12-31 23:59:51",
	}
	for in, want := range tests {
		if got := serialDate(in); got != want {
			t.Errorf("serialDate(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestIsDateFormat(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"yyyy-mm-dd":            true,
		"h:mm AM/PM":            true,
		"[$-409]d-mmm-yy":       true,
		`0.00" days"`:           false,
		"#,##0.00":              false,
		"[Red]0.00":             false,
		`"Date: "@`:             false,
		`[$€-2] #,##0.00;[RED]`: false,
	}
	for code, want := range tests {
		if got := isDateFormat(code); got != want {
			t.Errorf("isDateFormat(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestWorkbookGridBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rows, want string
	}{
		{"a lone far cell spans too many cells", `<row r="1"><c r="A1"><v>1</v></c></row><row r="1000000"><c r="ZZ1000000"><v>2</v></c></row>`, "more than the 2000000 cells"},
		{"many rows each with a far cell", `<row r="1"><c r="XFD1"><v>1</v></c></row><row r="200"><c r="XFD200"><v>2</v></c></row>`, "200 rows by 16384 columns"},
		{"a column past XFD", `<row r="1"><c r="XFE1"><v>1</v></c></row>`, `cell "XFE1" beyond`},
		{"a column reference that would overflow", `<row r="1"><c r="AAAAAAAAAAAAAAAAAAAAAAAA1"><v>1</v></c></row>`, "beyond a spreadsheet's 16384 columns"},
		{"a row past the grid", `<row r="1048577"><c><v>1</v></c></row>`, "row 1048577"},
	}
	for _, tc := range tests {
		wb, err := open(t, book{sheets: [][2]string{{"Big", tc.rows}}}.build(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, got, err := wb.CSV(""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %d bytes, error %v; want %q", tc.name, len(got), err, tc.want)
		}
	}
	// The widest grid within the limit still renders.
	wb, err := open(t, book{sheets: [][2]string{{"Wide", `<row r="100"><c r="XFD100"><v>1</v></c></row>`}}}.build(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := wb.CSV(""); err != nil || !strings.HasSuffix(got, strings.Repeat(",", 16383)+"1\n") || strings.Count(got, "\n") != 100 {
		t.Errorf("wide sheet: %d bytes, %v", len(got), err)
	}
}

// open opens the workbook file data.
func open(t *testing.T, data []byte) (*Workbook, error) {
	t.Helper()
	return Open(bytes.NewReader(data), int64(len(data)))
}
