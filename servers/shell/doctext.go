package main

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText extracts the text of every page of a PDF (github.com/ledongthuc/pdf, pure Go: no
// program parses the file outside the server), each page headed "[page N]". Text a PDF holds
// only as images (a scan) is not there to extract.
func pdfText(ctx context.Context, f io.ReaderAt, size int64) (text string, pages int, err error) {
	defer func() { // the library reports some malformed files by panicking
		if r := recover(); r != nil {
			text, pages, err = "", 0, fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(f, size)
	if err != nil {
		return "", 0, err
	}
	pages = r.NumPage()
	var b strings.Builder
	for i := 1; i <= pages && ctx.Err() == nil && b.Len() <= maxDocumentText; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", 0, fmt.Errorf("page %d: %w", i, err)
		}
		fmt.Fprintf(&b, "[page %d]\n%s\n", i, strings.Trim(t, "\n"))
	}
	return b.String(), pages, ctx.Err()
}

// wordNS is the WordprocessingML namespace of a DOCX body's elements.
const wordNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// docxText is the text of a DOCX body (word/document.xml): runs' text, tabs and breaks,
// paragraphs ending in a newline, table cells separated by tabs and rows by newlines. Deleted
// text of tracked changes, fields' codes and properties are left out. Read with encoding/xml,
// as shared/xlsx reads workbooks.
func docxText(ctx context.Context, z *zip.Reader) (string, error) {
	part, err := z.Open("word/document.xml")
	if err != nil {
		return "", err
	}
	defer func() { _ = part.Close() }()
	dec := xml.NewDecoder(io.LimitReader(part, 256<<20))
	var b strings.Builder
	inText, inRun := false, 0
	for b.Len() <= maxDocumentText {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("document body: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "r":
				inRun++
			case "t":
				inText = inRun > 0
			case "tab":
				if inRun > 0 {
					b.WriteByte('\t')
				}
			case "br", "cr":
				if inRun > 0 {
					b.WriteByte('\n')
				}
			}
		case xml.EndElement:
			if t.Name.Space != wordNS {
				continue
			}
			switch t.Name.Local {
			case "r":
				inRun--
			case "t":
				inText = false
			case "p":
				b.WriteByte('\n')
			case "tc":
				b.WriteByte('\t')
			case "tr":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
	return b.String(), nil
}
