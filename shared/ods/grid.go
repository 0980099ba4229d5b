package ods

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
)

// grid collects one sheet's rows. Empty rows and cells are held back as counts and expanded
// only when content follows them, so the empty repeats LibreOffice writes to the sheet's edge
// (1024 columns, 1048576 rows) cost nothing; what is expanded is bounded by maxCells.
type grid struct {
	sheet     string
	rows      [][]string
	width     int // the widest row
	emptyRows int // empty rows not yet added
}

// read consumes a table:table's content through its end element.
func (g *grid) read(dec *xml.Decoder) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Space == nsTable && t.Name.Local == "table" {
				return nil
			}
		case xml.StartElement:
			switch {
			case t.Name.Space == nsTable && t.Name.Local == "table-row":
				cells, err := g.row(dec)
				if err != nil {
					return err
				}
				if err := g.addRows(cells, repeat(t, "number-rows-repeated", maxRows)); err != nil {
					return err
				}
			case t.Name.Space == nsOffice && t.Name.Local == "annotation",
				t.Name.Space == nsTable && t.Name.Local == "table":
				if err := dec.Skip(); err != nil {
					return err
				}
			}
		}
	}
}

// addRows adds a row n times, after the empty rows before it; an empty row is only counted.
func (g *grid) addRows(cells []string, n int) error {
	if len(cells) == 0 {
		g.emptyRows = min(g.emptyRows+n, maxRows+1)
		return nil
	}
	total := len(g.rows) + g.emptyRows + n
	if total > maxRows {
		return kit.Errorf(kit.CodeInvalidInput, "sheet %q has a row %d, beyond a spreadsheet's %d", g.sheet, total, maxRows)
	}
	if w := max(g.width, len(cells)); total*w > maxCells {
		return kit.Errorf(kit.CodeLimit, "sheet %q spans %d rows by %d columns, more than the %d cells rendered as text", g.sheet, total, w, maxCells)
	}
	for range g.emptyRows {
		g.rows = append(g.rows, nil)
	}
	g.emptyRows = 0
	for range n {
		g.rows = append(g.rows, cells)
	}
	g.width = max(g.width, len(cells))
	return nil
}

// row consumes a table:table-row through its end and answers its cells up to the last one
// with text.
func (g *grid) row(dec *xml.Decoder) ([]string, error) {
	var cells []string
	empty := 0 // empty cells not yet added
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Space == nsTable && t.Name.Local == "table-row" {
				return cells, nil
			}
		case xml.StartElement:
			if t.Name.Space != nsTable || t.Name.Local != "table-cell" && t.Name.Local != "covered-table-cell" {
				continue
			}
			n := repeat(t, "number-columns-repeated", maxColumns)
			text, err := cellText(dec, t.Name)
			if err != nil {
				return nil, err
			}
			if text == "" {
				empty = min(empty+n, maxColumns+1)
				continue
			}
			width := len(cells) + empty + n
			if width > maxColumns {
				return nil, kit.Errorf(kit.CodeInvalidInput, "sheet %q has a row of %d cells, beyond a spreadsheet's %d columns", g.sheet, width, maxColumns)
			}
			if rows := len(g.rows) + g.emptyRows + 1; rows*max(width, g.width) > maxCells {
				return nil, kit.Errorf(kit.CodeLimit, "sheet %q spans %d rows by %d columns, more than the %d cells rendered as text", g.sheet, rows, max(width, g.width), maxCells)
			}
			for range empty {
				cells = append(cells, "")
			}
			empty = 0
			for range n {
				cells = append(cells, text)
			}
		}
	}
}

// cellText consumes a cell through its end and answers its displayed text: its text:p
// paragraphs joined by newlines, with text:s spaces, text:tab tabs and text:line-break
// newlines; annotations (comments) are left out. It stops growing at maxCellText bytes.
func cellText(dec *xml.Decoder, name xml.Name) (string, error) {
	var b strings.Builder
	paras, inPara := 0, 0
	add := func(s string) {
		if room := maxCellText - b.Len(); room > 0 {
			b.WriteString(s[:min(len(s), room)])
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name == name {
				return strings.ToValidUTF8(b.String(), ""), nil
			}
			if t.Name.Space == nsText && (t.Name.Local == "p" || t.Name.Local == "h") {
				inPara--
			}
		case xml.CharData:
			if inPara > 0 {
				add(string(t))
			}
		case xml.StartElement:
			switch {
			case t.Name.Space == nsOffice && t.Name.Local == "annotation",
				t.Name.Space == nsTable && t.Name.Local == "table": // a comment, a sub-table
				if err := dec.Skip(); err != nil {
					return "", err
				}
			case t.Name.Space != nsText:
			case t.Name.Local == "p" || t.Name.Local == "h":
				if paras > 0 && inPara == 0 {
					add("\n")
				}
				paras++
				inPara++
			case t.Name.Local == "s":
				n, err := strconv.Atoi(attr(t, nsText, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				add(strings.Repeat(" ", min(n, maxCellText)))
			case t.Name.Local == "tab":
				add("\t")
			case t.Name.Local == "line-break":
				add("\n")
			}
		}
	}
}
