// Package ods reads the cells of an OpenDocument spreadsheet (.ods) as CSV, one sheet at a
// time, in the shape of shared/xlsx: the shell server reads local LibreOffice files with it.
package ods

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
)

// MIME is the OpenDocument spreadsheet type, the content of an .ods file's mimetype entry.
const MIME = "application/vnd.oasis.opendocument.spreadsheet"

// The OpenDocument namespaces of the elements and attributes read.
const (
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
)

// The grid's bounds, as shared/xlsx's: a spreadsheet's rows and columns, the cells one sheet
// may span (so that repeats cannot make the CSV gigabytes long), and the characters of one
// cell (LibreOffice's and Excel's limit), which a text:s count cannot pass.
const (
	maxRows     = 1 << 20
	maxColumns  = 1 << 14
	maxCells    = 2_000_000
	maxCellText = 32767
)

// Workbook is an opened spreadsheet: its content part and its sheets' names, in order.
type Workbook struct {
	content *zip.File
	sheets  []string
}

// Open reads the sheet names of the ods file r of size bytes; its sheets are read by CSV.
func Open(r io.ReaderAt, size int64) (*Workbook, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	b := &Workbook{}
	for _, f := range z.File {
		if f.Name == "content.xml" {
			b.content = f
		}
	}
	if b.content == nil {
		return nil, errors.New("no content.xml: not an OpenDocument spreadsheet")
	}
	err = b.walk(func(dec *xml.Decoder, t xml.StartElement) error {
		b.sheets = append(b.sheets, attr(t, nsTable, "name"))
		return dec.Skip()
	})
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	if len(b.sheets) == 0 {
		return nil, errors.New("no sheets")
	}
	return b, nil
}

// walk streams content.xml and calls fn at the start of each sheet (a table:table not inside
// another); fn consumes the sheet through its end.
func (b *Workbook) walk(fn func(*xml.Decoder, xml.StartElement) error) error {
	f, err := b.content.Open()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	dec := xml.NewDecoder(io.LimitReader(f, 256<<20))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Space == nsTable && t.Name.Local == "table" {
			if err := fn(dec, t); err != nil {
				return err
			}
		}
	}
}

// errFound stops the walk once the sheet asked for is read.
var errFound = errors.New("found")

// Sheets are the names of the workbook's sheets, in order.
func (b *Workbook) Sheets() []string {
	return append([]string(nil), b.sheets...)
}

// CSV renders one sheet (by name, case-insensitive; empty means the first) as CSV and says
// which sheet it was. Cells are their displayed text (text:p paragraphs joined by newlines).
// Errors are kit errors: an unknown sheet (naming those there are), a sheet that cannot be
// read, and one too large to render (kit.CodeLimit, kit.CodeInvalidInput).
func (b *Workbook) CSV(name string) (string, string, error) {
	index := 0
	if name != "" {
		index = -1
		for i, s := range b.sheets {
			if strings.EqualFold(s, name) {
				index = i
				break
			}
		}
		if index < 0 {
			return "", "", kit.Errorf(kit.CodeNotFound, "no sheet %q; the sheets are %s", name, strings.Join(quoted(b.sheets), ", "))
		}
	}
	sheet := b.sheets[index]
	g := grid{sheet: sheet}
	n := 0
	err := b.walk(func(dec *xml.Decoder, _ xml.StartElement) error {
		if n++; n-1 != index {
			return dec.Skip()
		}
		if err := g.read(dec); err != nil {
			return err
		}
		return errFound
	})
	var ke *kit.Error
	switch {
	case errors.As(err, &ke):
		return "", "", err
	case err != nil && !errors.Is(err, errFound):
		return "", "", kit.Errorf(kit.CodeInternal, "sheet %q could not be read: %v", sheet, err)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, r := range g.rows {
		for len(r) < g.width {
			r = append(r, "")
		}
		_ = w.Write(r)
	}
	w.Flush()
	return sheet, buf.String(), nil
}

// quoted puts each name in double quotes.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// attr is the value of the attribute space:local of t, or "".
func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// repeat is a number-*-repeated count: at least 1, and at most limit+1 so that a count past a
// bound is still seen to pass it.
func repeat(t xml.StartElement, local string, limit int) int {
	n, err := strconv.Atoi(attr(t, nsTable, local))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, limit+1)
}
