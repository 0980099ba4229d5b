// Package xlsx reads the cells of an Office Open XML workbook (.xlsx) as CSV, one sheet at a
// time: the drive server reads Google Sheets exports with it and the shell server local files.
package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

// MIME is the Office Open XML spreadsheet type (Google Sheets export to it).
const MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// This reader is hand-written on purpose, not github.com/xuri/excelize/v2: it reads only what a
// workbook's cells hold (sheets, shared and inline strings, cached formula values, date styles)
// in a few hundred lines on the standard library. What excelize adds (writing, styles,
// number-format rendering, encrypted workbooks) reading for a model does not need: numbers come
// back as stored, dates as ISO text. README "Dependencies" states the choice.

// Workbook is an opened workbook: its sheets in order, their parts, shared strings, which cell
// styles are dates and whether serial dates count from 1904.
type Workbook struct {
	zip       *zip.Reader
	sheets    []sheetRef
	strings   []string
	dateStyle map[int]bool
	date1904  bool
}

// richText is a string item (<si> or <is>): plain text or runs of text; phonetic runs (<rPh>)
// are left out.
type richText struct {
	T string `xml:"t"`
	R []struct {
		T string `xml:"t"`
	} `xml:"r"`
}

func (r richText) String() string {
	s := r.T
	for _, run := range r.R {
		s += run.T
	}
	return s
}

type sheetRef struct {
	Name string
	Part string
}

func readPart(z *zip.Reader, name string, v any) error {
	f, err := z.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	return xml.NewDecoder(io.LimitReader(f, 256<<20)).Decode(v)
}

// Open reads the workbook parts of the xlsx file r of size bytes; its sheets are read by CSV.
func Open(r io.ReaderAt, size int64) (*Workbook, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	var wb struct {
		Pr struct {
			Date1904 string `xml:"date1904,attr"`
		} `xml:"workbookPr"`
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	if err := readPart(z, "xl/workbook.xml", &wb); err != nil {
		return nil, fmt.Errorf("workbook: %w", err)
	}
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := readPart(z, "xl/_rels/workbook.xml.rels", &rels); err != nil {
		return nil, fmt.Errorf("workbook relationships: %w", err)
	}
	b := &Workbook{zip: z, dateStyle: map[int]bool{}, date1904: wb.Pr.Date1904 == "1" || wb.Pr.Date1904 == "true"}
	for _, s := range wb.Sheets {
		for _, r := range rels.Rel {
			if r.ID == s.RID {
				target := strings.TrimPrefix(r.Target, "/")
				if !strings.HasPrefix(target, "xl/") {
					target = path.Join("xl", target)
				}
				b.sheets = append(b.sheets, sheetRef{Name: s.Name, Part: target})
			}
		}
	}
	var sst struct {
		SI []richText `xml:"si"`
	}
	if err := readPart(z, "xl/sharedStrings.xml", &sst); err == nil {
		for _, si := range sst.SI {
			b.strings = append(b.strings, si.String())
		}
	}
	var styles struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		Xfs []struct {
			NumFmt int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
	if err := readPart(z, "xl/styles.xml", &styles); err == nil {
		custom := map[int]bool{}
		for _, f := range styles.NumFmts {
			custom[f.ID] = isDateFormat(f.Code)
		}
		for i, x := range styles.Xfs {
			if x.NumFmt >= 14 && x.NumFmt <= 22 || x.NumFmt >= 45 && x.NumFmt <= 47 || custom[x.NumFmt] {
				b.dateStyle[i] = true
			}
		}
	}
	if len(b.sheets) == 0 {
		return nil, fmt.Errorf("no sheets")
	}
	return b, nil
}

// isDateFormat reports a number format that shows a date or time (letters outside quotes and
// brackets).
func isDateFormat(code string) bool {
	inQuote, inBracket := false, false
	for _, r := range strings.ToLower(code) {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == '[':
			inBracket = true
		case r == ']':
			inBracket = false
		case !inQuote && !inBracket && strings.ContainsRune("ymdhs", r):
			return true
		}
	}
	return false
}

// Sheets are the names of the workbook's sheets, in order.
func (b *Workbook) Sheets() []string {
	out := make([]string, len(b.sheets))
	for i, s := range b.sheets {
		out[i] = s.Name
	}
	return out
}

// CSV renders one sheet (by name, case-insensitive; empty means the first) as CSV and says
// which sheet it was. Errors are kit errors: an unknown sheet (naming those there are), a sheet
// that cannot be read, and one too large to render (kit.CodeLimit, kit.CodeInvalidInput).
func (b *Workbook) CSV(name string) (string, string, error) {
	ref := b.sheets[0]
	if name != "" {
		found := false
		for _, s := range b.sheets {
			if strings.EqualFold(s.Name, name) {
				ref, found = s, true
				break
			}
		}
		if !found {
			return "", "", kit.Errorf(kit.CodeNotFound, "no sheet %q; the sheets are %s", name, strings.Join(quoted(b.Sheets()), ", "))
		}
	}
	var ws struct {
		Rows []struct {
			R     int `xml:"r,attr"`
			Cells []struct {
				Ref    string   `xml:"r,attr"`
				Type   string   `xml:"t,attr"`
				Style  int      `xml:"s,attr"`
				V      string   `xml:"v"`
				Inline richText `xml:"is"`
			} `xml:"c"`
		} `xml:"sheetData>row"`
	}
	if err := readPart(b.zip, ref.Part, &ws); err != nil {
		return "", "", kit.Errorf(kit.CodeInternal, "sheet %q could not be read: %v", ref.Name, err)
	}
	var rows [][]string
	width := 0
	for _, row := range ws.Rows {
		// A row or cell without its reference follows the one before it.
		r := row.R
		if r <= 0 {
			r = len(rows) + 1
		}
		if r > maxRows {
			return "", "", kit.Errorf(kit.CodeInvalidInput, "sheet %q has a row %d, beyond a spreadsheet's %d", ref.Name, r, maxRows)
		}
		var cells []string
		for _, c := range row.Cells {
			col := len(cells)
			if c.Ref != "" {
				col = column(c.Ref)
			}
			if col >= maxColumns {
				return "", "", kit.Errorf(kit.CodeInvalidInput, "sheet %q has a cell %q beyond a spreadsheet's %d columns", ref.Name, c.Ref, maxColumns)
			}
			if span := max(r, len(rows)) * max(width, col+1); span > maxCells {
				return "", "", kit.Errorf(kit.CodeLimit, "sheet %q spans %d rows by %d columns, more than the %d cells rendered as text", ref.Name, max(r, len(rows)), max(width, col+1), maxCells)
			}
			for len(cells) <= col {
				cells = append(cells, "")
			}
			cells[col] = b.value(c.Type, c.V, c.Inline.String(), c.Style)
		}
		for len(rows) < r {
			rows = append(rows, nil)
		}
		rows[r-1] = cells
		width = max(width, len(cells))
	}
	// Formatted but empty rows and columns at the end are left out.
	width = 0
	for i, r := range rows {
		if n := used(r); n > 0 {
			width = max(width, n)
			continue
		}
		rows[i] = nil
	}
	for len(rows) > 0 && rows[len(rows)-1] == nil {
		rows = rows[:len(rows)-1]
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, r := range rows {
		r = r[:min(len(r), width)]
		for len(r) < width {
			r = append(r, "")
		}
		_ = w.Write(r)
	}
	w.Flush()
	return ref.Name, buf.String(), nil
}

// quoted puts each name in double quotes.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// The grid's bounds: a spreadsheet's rows and columns (Excel's, which Google's export keeps
// within), and the cells one sheet may span here, so that a lone far cell cannot make the CSV
// of empty cells before it gigabytes long.
const (
	maxRows    = 1 << 20
	maxColumns = 1 << 14
	maxCells   = 2_000_000
)

// column is the zero-based column of a cell reference such as "AB12"; past maxColumns it
// answers maxColumns.
func column(ref string) int {
	n := 0
	for _, r := range strings.ToUpper(ref) {
		if r < 'A' || r > 'Z' {
			break
		}
		n = n*26 + int(r-'A'+1)
		if n > maxColumns {
			return maxColumns
		}
	}
	return max(n-1, 0)
}

// used is the number of cells of a row up to its last one with text.
func used(cells []string) int {
	for i := len(cells) - 1; i >= 0; i-- {
		if cells[i] != "" {
			return i + 1
		}
	}
	return 0
}

func (b *Workbook) value(typ, v, inline string, style int) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(v)
		if err == nil && i >= 0 && i < len(b.strings) {
			return b.strings[i]
		}
		return ""
	case "inlineStr":
		return inline
	case "b":
		if v == "1" {
			return "TRUE"
		}
		return "FALSE"
	case "str", "e":
		return v
	}
	if b.dateStyle[style] {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			if b.date1904 {
				f += 1462 // days from 1899-12-30 to 1904-01-01
			}
			return serialDate(f)
		}
	}
	return v
}

// serialDate renders a spreadsheet serial day number (days since 1899-12-30) as an ISO date,
// with the time when it has one.
func serialDate(f float64) string {
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	days := math.Floor(f)
	secs := math.Round((f - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	if secs == 0 {
		return t.Format("2006-01-02")
	}
	if days == 0 {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}
