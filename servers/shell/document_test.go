package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildPDF writes a PDF with one page per text, in Helvetica, with a correct cross-reference
// table, as a PDF writer would.
func buildPDF(pages ...string) []byte {
	var objs []string
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// buildZip zips parts into an Office file.
func buildZip(t *testing.T, parts map[string]string) []byte {
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

const docxBody = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Shopping</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve"> list</w:t></w:r></w:p>
<w:p><w:r><w:t>Milk</w:t><w:br/><w:t>Eggs</w:t></w:r><w:del><w:r><w:delText>Gone</w:delText></w:r></w:del></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Item</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Price</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>`

func docx(t *testing.T) []byte {
	return buildZip(t, map[string]string{
		"[Content_Types].xml": `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"word/document.xml":   docxBody,
	})
}

func workbook(t *testing.T) []byte {
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	return buildZip(t, map[string]string{
		"xl/workbook.xml":            `<workbook ` + ns + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/><sheet name="Q2 Plan" sheetId="2" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Target="worksheets/sheet2.xml"/></Relationships>`,
		"xl/sharedStrings.xml":       `<sst ` + ns + `><si><t>Rent</t></si><si><t>Food</t></si></sst>`,
		"xl/worksheets/sheet1.xml":   `<worksheet ` + ns + `><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1200</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2"><v>450.5</v></c></row></sheetData></worksheet>`,
		"xl/worksheets/sheet2.xml":   `<worksheet ` + ns + `><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Hire</t></is></c><c r="B1"><v>2</v></c></row></sheetData></worksheet>`,
	})
}

// odsBook is an OpenDocument spreadsheet of two sheets, with the empty repeated cells and rows
// LibreOffice writes to a sheet's edge.
func odsBook(t *testing.T) []byte {
	return buildZip(t, map[string]string{
		"mimetype": "application/vnd.oasis.opendocument.spreadsheet",
		"content.xml": `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
			`<table:table table:name="Budget"><table:table-row><table:table-cell><text:p>Rent</text:p></table:table-cell><table:table-cell office:value-type="currency" office:value="1200"><text:p>$1,200.00</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1022"/></table:table-row><table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>` +
			`<table:table table:name="Q2 Plan"><table:table-row><table:table-cell><text:p>Hire</text:p></table:table-cell><table:table-cell><text:p>2</text:p></table:table-cell></table:table-row></table:table>` +
			`</office:spreadsheet></office:body></office:document-content>`,
	})
}

// picture is a w×h gradient.
func picture(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	return img
}

func encoded(t *testing.T, img image.Image, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadDocument(t *testing.T) {
	_, cs, work := start(t)
	pngEnc := func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }
	jpegEnc := func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }
	small := encoded(t, picture(40, 30), pngEnc)
	files := map[string][]byte{
		"letter.pdf":  buildPDF("Dear neighbour", "Second page (with parentheses)"),
		"list.docx":   docx(t),
		"budget.xlsx": workbook(t),
		"budget.ods":  odsBook(t),
		"small.png":   small,
		"wide.png":    encoded(t, picture(3000, 1000), pngEnc),
		"tall.jpg":    encoded(t, picture(500, 2000), jpegEnc),
		"notes.txt":   []byte("plain text\n"),
		"archive.zip": buildZip(t, map[string]string{"a.txt": "a"}),
		"named.docx":  buildPDF("a PDF whatever its name"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(work, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	texts := []struct {
		args map[string]any
		kind string
		want []string
		not  []string
	}{
		{map[string]any{"path": "letter.pdf"}, "pdf", []string{"[page 1]\nDear neighbour", "[page 2]\nSecond page (with parentheses)"}, nil},
		{map[string]any{"path": "named.docx"}, "pdf", []string{"a PDF whatever its name"}, nil},
		{map[string]any{"path": "list.docx"}, "docx", []string{"Shopping\t list\n", "Milk\nEggs\n", "Item\n\tPrice\n\t\n"}, []string{"Gone"}},
		{map[string]any{"path": "budget.xlsx"}, "xlsx", []string{"Rent,1200\nFood,450.5\n"}, []string{"Hire"}},
		{map[string]any{"path": filepath.Join(work, "budget.xlsx"), "sheet": "q2 plan"}, "xlsx", []string{"Hire,2\n"}, []string{"Rent"}},
		{map[string]any{"path": "budget.ods"}, "ods", []string{"Rent,\"$1,200.00\"\n"}, []string{"Hire", ",,"}},
		{map[string]any{"path": "budget.ods", "sheet": "Q2 PLAN"}, "ods", []string{"Hire,2\n"}, []string{"Rent"}},
	}
	for _, tc := range texts {
		res := mcptest.Call(t, cs, "read_document", tc.args)
		var out readDocumentOutput
		mcptest.Decode(t, res, &out)
		if out.Kind != tc.kind {
			t.Errorf("%v: kind %q, want %q", tc.args, out.Kind, tc.kind)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.Content, w) {
				t.Errorf("%v: content %q lacks %q", tc.args, out.Content, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out.Content, n) {
				t.Errorf("%v: content %q holds %q", tc.args, out.Content, n)
			}
		}
	}

	var pdfOut readDocumentOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "read_document", map[string]any{"path": "letter.pdf", "max_chars": 10}), &pdfOut)
	if pdfOut.Pages != 2 || pdfOut.Content != "[page 1]\nD" || pdfOut.NextOffset != 10 || pdfOut.Total < 50 {
		t.Errorf("first window: %+v", pdfOut)
	}
	mcptest.Decode(t, mcptest.Call(t, cs, "read_document", map[string]any{"path": "letter.pdf", "offset": 10, "max_chars": 4}), &pdfOut)
	if pdfOut.Content != "ear " || pdfOut.Offset != 10 || pdfOut.NextOffset != 14 {
		t.Errorf("second window: %+v", pdfOut)
	}
	var book readDocumentOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "read_document", map[string]any{"path": "budget.xlsx"}), &book)
	if strings.Join(book.Sheets, "|") != "Budget|Q2 Plan" || book.Sheet != "Budget" {
		t.Errorf("sheets: %+v", book)
	}
	var odsOut readDocumentOutput
	mcptest.Decode(t, mcptest.Call(t, cs, "read_document", map[string]any{"path": "budget.ods", "sheet": "q2 plan"}), &odsOut)
	if strings.Join(odsOut.Sheets, "|") != "Budget|Q2 Plan" || odsOut.Sheet != "Q2 Plan" || odsOut.Content != "Hire,2\n" {
		t.Errorf("ods sheets: %+v", odsOut)
	}

	images := []struct {
		path          string
		mime          string
		width, height int
		same          []byte // the file's own bytes, sent unchanged
	}{
		{"small.png", "image/png", 40, 30, small},
		{"wide.png", "image/png", 1568, 522, nil},
		{"tall.jpg", "image/jpeg", 392, 1568, nil},
	}
	for _, tc := range images {
		res := mcptest.Call(t, cs, "read_document", map[string]any{"path": tc.path})
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("%s: %s", tc.path, mcptest.Text(res))
		}
		img, ok := res.Content[0].(*mcp.ImageContent)
		if !ok || img.MIMEType != tc.mime {
			t.Fatalf("%s: first content %T %+v", tc.path, res.Content[0], res.Content[0])
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
		if err != nil || "image/"+format != tc.mime || cfg.Width != tc.width || cfg.Height != tc.height {
			t.Errorf("%s: sent %s %d×%d (%v), want %s %d×%d", tc.path, format, cfg.Width, cfg.Height, err, tc.mime, tc.width, tc.height)
		}
		if tc.same != nil && !bytes.Equal(img.Data, tc.same) {
			t.Errorf("%s: a small PNG was re-encoded", tc.path)
		}
		if len(img.Data) > maxImageBytes {
			t.Errorf("%s: %d bytes sent", tc.path, len(img.Data))
		}
		var out readDocumentOutput
		mcptest.Decode(t, res, &out)
		if out.Kind != "image" || out.Image == nil || out.Image.Width != tc.width || out.Image.Bytes != len(img.Data) {
			t.Errorf("%s: %+v", tc.path, out)
		}
	}
}

func TestReadDocumentRefuses(t *testing.T) {
	_, cs, work := start(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.pdf")
	if err := os.WriteFile(secret, buildPDF("outside secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(work, "link.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "dir")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"notes.txt":   []byte("plain text\n"),
		"archive.zip": buildZip(t, map[string]string{"a.txt": "a"}),
		"broken.pdf":  []byte("%PDF-1.4\nnothing else"),
		"budget.xlsx": workbook(t),
		"budget.ods":  odsBook(t),
		"huge.png":    encoded(t, image.NewGray(image.Rect(0, 0, 10000, 6000)), func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }),
	} {
		if err := os.WriteFile(filepath.Join(work, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": secret}, "outside the allowed roots"},
		{map[string]any{"path": "link.pdf"}, "outside the allowed roots"},
		{map[string]any{"path": "dir/secret.pdf"}, "outside the allowed roots"},
		{map[string]any{"path": "../" + filepath.Base(work) + "/../../secret.pdf"}, "outside the allowed roots"},
		{map[string]any{"path": "notes.txt"}, "read text with read_text_file"},
		{map[string]any{"path": "archive.zip"}, "not a Word (.docx), Excel (.xlsx) or OpenDocument (.ods) document"},
		{map[string]any{"path": "broken.pdf"}, "the pdf could not be read"},
		{map[string]any{"path": "budget.xlsx", "sheet": "Q3"}, `no sheet "Q3"; the sheets are "Budget", "Q2 Plan"`},
		{map[string]any{"path": "budget.ods", "sheet": "Q3"}, `no sheet "Q3"; the sheets are "Budget", "Q2 Plan"`},
		{map[string]any{"path": "huge.png"}, "10000×6000 pixels; read_document decodes at most"},
		{map[string]any{"path": "."}, "not a regular file"},
	}
	for _, tc := range tests {
		res := mcptest.Call(t, cs, "read_document", tc.args)
		text := mcptest.Text(res)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%v: %s; want an error with %q", tc.args, text, tc.want)
		}
		if strings.Contains(text, "outside secret") {
			t.Errorf("%v: read the file outside the roots", tc.args)
		}
	}
}
