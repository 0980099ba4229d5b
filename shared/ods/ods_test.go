package ods

import (
	"archive/zip"
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
)

// build zips an ods file: the mimetype stored first, then content.xml with the given tables.
func build(t *testing.T, tables string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(MIME))
	if w, err = z.Create("content.xml"); err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:body><office:spreadsheet>` +
		tables + `</office:spreadsheet></office:body></office:document-content>`))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func table(name, rows string) string {
	return `<table:table table:name="` + name + `"><table:table-column table:number-columns-repeated="1024"/>` + rows + `</table:table>`
}

func cell(text string) string {
	return `<table:table-cell office:value-type="string"><text:p>` + text + `</text:p></table:table-cell>`
}

func TestCSV(t *testing.T) {
	trailing := `<table:table-cell table:number-columns-repeated="1021"/>`
	tests := []struct {
		name   string
		tables string
		sheet  string
		want   string
		sheets []string
	}{
		{"plain", table("Budget", `<table:table-row>`+cell("Rent")+`<table:table-cell office:value-type="float" office:value="1200"><text:p>1,200.00</text:p></table:table-cell>`+trailing+`</table:table-row><table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`),
			"", "Rent,\"1,200.00\"\n", []string{"Budget"}},
		{"repeats followed by content", table("S", `<table:table-row>`+cell("a")+`<table:table-cell table:number-columns-repeated="2"/>`+`<table:table-cell table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row><table:table-row table:number-rows-repeated="2">`+cell("r")+`</table:table-row>`),
			"", "a,,,x,x\n,,,,\n,,,,\nr,,,,\nr,,,,\n", []string{"S"}},
		{"covered cells", table("Merged", `<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>wide</text:p></table:table-cell><table:covered-table-cell/>`+cell("c")+`</table:table-row>`),
			"", "wide,,c\n", []string{"Merged"}},
		{"text of a cell", table("T", `<table:table-row><table:table-cell><text:p>one<text:s text:c="3"/>two<text:tab/>three</text:p><text:p>line<text:line-break/><text:span>break</text:span></text:p><office:annotation><dc:creator>me</dc:creator><text:p>a comment</text:p></office:annotation></table:table-cell></table:table-row>`),
			"", "\"one   two\tthree\nline\nbreak\"\n", []string{"T"}},
		{"second sheet by name", table("First", `<table:table-row>`+cell("1")+`</table:table-row>`) + table("Q2 Plan", `<table:table-row>`+cell("Hire")+cell("2")+`</table:table-row>`),
			"q2 plan", "Hire,2\n", []string{"First", "Q2 Plan"}},
		{"header rows and groups", table("G", `<table:table-header-rows><table:table-row>`+cell("h")+`</table:table-row></table:table-header-rows><table:table-row-group><table:table-row>`+cell("v")+`</table:table-row></table:table-row-group>`),
			"", "h\nv\n", []string{"G"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := build(t, tc.tables)
			b, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.Sheets(), tc.sheets) {
				t.Errorf("sheets %q, want %q", b.Sheets(), tc.sheets)
			}
			sheet, got, err := b.CSV(tc.sheet)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("CSV %q, want %q", got, tc.want)
			}
			if tc.sheet != "" && !strings.EqualFold(sheet, tc.sheet) || tc.sheet == "" && sheet != tc.sheets[0] {
				t.Errorf("sheet %q", sheet)
			}
		})
	}
}

func TestCSVRefuses(t *testing.T) {
	tests := []struct {
		name   string
		tables string
		sheet  string
		code   string
		want   string
	}{
		{"unknown sheet", table("Budget", "") + table("Q2 Plan", ""), "Q3", kit.CodeNotFound, `no sheet "Q3"; the sheets are "Budget", "Q2 Plan"`},
		{"hostile row repeat", table("H", `<table:table-row table:number-rows-repeated="2000000000">`+cell("x")+`</table:table-row>`), "", kit.CodeInvalidInput, "beyond a spreadsheet's 1048576"},
		{"hostile column repeat", table("H", `<table:table-row><table:table-cell table:number-columns-repeated="999999999"><text:p>x</text:p></table:table-cell></table:table-row>`), "", kit.CodeInvalidInput, "beyond a spreadsheet's 16384 columns"},
		{"too many cells", table("H", `<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="10000"><text:p>x</text:p></table:table-cell></table:table-row>`), "", kit.CodeLimit, "more than the 2000000 cells"},
		{"empty rows before content", table("H", `<table:table-row table:number-rows-repeated="1048576"><table:table-cell/></table:table-row><table:table-row>`+cell("x")+`</table:table-row>`), "", kit.CodeInvalidInput, "beyond a spreadsheet's 1048576"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := build(t, tc.tables)
			b, err := Open(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = b.CSV(tc.sheet)
			var ke *kit.Error
			if !errors.As(err, &ke) || ke.Code != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %s %q", err, tc.code, tc.want)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	noSheets := build(t, "")
	for name, data := range map[string][]byte{"not a zip": []byte("plain text"), "no sheets": noSheets} {
		if _, err := Open(bytes.NewReader(data), int64(len(data))); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
}
