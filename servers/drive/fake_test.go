package main

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/xlsx"
	"google.golang.org/api/drive/v3"
)

const (
	sharedDrive = "0AsharedDriveEng"
	markdownDoc = "# Project plan\n\n## Goals\n\n- Ship the **calendar** server\n- Ship drive\n"
)

// sheetXLSX is a two-sheet workbook as Google exports it: shared strings, an inline string, a
// date-styled serial, a boolean, a formula result and a gap.
func sheetXLSX(t *testing.T) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	parts := map[string]string{
		"xl/workbook.xml":            `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Q1" sheetId="1" r:id="rId3"/><sheet name="Q2 Plan" sheetId="2" r:id="rId4"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`,
		"xl/sharedStrings.xml":       `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="4" uniqueCount="4"><si><t>Item</t></si><si><t>Amount</t></si><si><t>Date</t></si><si><r><t>Coffee, </t></r><r><t>"good"</t></r></si></sst>`,
		"xl/styles.xml":              `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy&quot;-&quot;mm&quot;-&quot;dd"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="4"/></cellXfs></styleSheet>`,
		"xl/worksheets/sheet1.xml": `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2" s="2"><v>12.5</v></c><c r="C2" s="1"><v>46086</v></c></row>` +
			`<row r="4"><c r="A4" t="inlineStr"><is><t>Total</t></is></c><c r="B4" t="str"><f>SUM(B2:B3)</f><v>12.5</v></c><c r="D4" t="b"><v>1</v></c></row>` +
			`</sheetData></worksheet>`,
		"xl/worksheets/sheet2.xml": `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Hire</t></is></c><c r="B1"><v>2</v></c></row></sheetData></worksheet>`,
	}
	for name, body := range parts {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, body)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// newFakeDrive is the Drive fake holding the fixtures: Google Docs, Sheets and Slides with
// their exports, plain files, a folder, a shared-drive file and a trashed one.
func newFakeDrive(t *testing.T) *googlefake.Drive {
	f := googlefake.NewDrive(t)
	f.RequireAllDrives = true
	add := func(file *drive.File, data []byte) {
		file.ModifiedTime, file.Capabilities = "2026-03-02T10:00:00.000Z", &drive.FileCapabilities{CanEdit: true, CanShare: true}
		f.Add(file, data)
	}
	add(&drive.File{Id: "doc1", Name: "Project plan", MimeType: mimeDoc, WebViewLink: "https://docs.google.com/document/d/doc1/edit", Owners: []*drive.User{{EmailAddress: "ada@example.com"}}}, nil)
	add(&drive.File{Id: "sheet1", Name: "Budget", MimeType: mimeSheet}, nil)
	add(&drive.File{Id: "slides1", Name: "Kick-off", MimeType: mimeSlides}, nil)
	add(&drive.File{Id: "notes1", Name: "notes.txt", MimeType: "text/plain"}, []byte("line one\nline two — ünïcode\n"))
	add(&drive.File{Id: "pdf1", Name: "report.pdf", MimeType: mimePDF}, []byte("%PDF-1.7\n...binary..."))
	add(&drive.File{Id: "img1", Name: "photo.png", MimeType: "image/png"}, []byte("\x89PNG\r\n"))
	add(&drive.File{Id: "folder1", Name: "Archive", MimeType: mimeFolder}, nil)
	add(&drive.File{Id: "shared1", Name: "Roadmap (shared drive)", MimeType: "text/markdown", DriveId: sharedDrive, Parents: []string{sharedDrive}}, []byte("# Roadmap\n"))
	add(&drive.File{Id: "old1", Name: "Old draft", MimeType: "text/plain", Trashed: true}, []byte("old"))
	f.SetExport("doc1", "text/markdown", []byte(markdownDoc))
	f.SetExport("doc1", "application/pdf", []byte("%PDF-1.7 exported"))
	f.SetExport("sheet1", xlsx.MIME, sheetXLSX(t))
	f.SetExport("slides1", "text/plain", []byte("Kick-off\n\nAgenda\n- Scope\n- Dates\n"))
	f.SetOCR("pdf1", []byte("\uFEFFQuarterly report\r\nRevenue grew 12%.\r\n"))
	f.SetPermissions("doc1", &drive.Permission{Id: "p-owner", Type: "user", Role: "owner", EmailAddress: "ada@example.com"}, &drive.Permission{Id: "p-bob", Type: "user", Role: "writer", EmailAddress: "bob@example.com"})
	return f
}

// signIn writes a client JSON and a token file with the drive scope; it returns the flags that
// point the server at them and at the fake (Drive, and Sheets and Docs on the same host).
func signIn(t *testing.T, f *googlefake.Drive, scopes ...string) []string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"https://www.googleapis.com/auth/drive"}
	}
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...)
	return append(args, "--drive-endpoint", f.URL+"/drive/v3/", "--sheets-endpoint", f.URL+"/", "--docs-endpoint", f.URL+"/")
}
