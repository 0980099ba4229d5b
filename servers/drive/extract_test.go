package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/drive/v3"
)

const pdfText = "Quarterly report\r\nRevenue grew 12%.\r\n"

// tempCopies are the IDs of the temporary copies still in the fake Drive.
func tempCopies(f *googlefake.Drive) []string {
	var ids []string
	for _, file := range f.Files() {
		if file.AppProperties[tempCopyKey] != "" {
			ids = append(ids, file.Id)
		}
	}
	slices.Sort(ids)
	return ids
}

// refuse answers a Drive error that the client does not retry.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, `{"error":{"code":%d,"message":%q}}`, code, msg)
}

// isCopyExport reports the export of a temporary copy (IDs the fake gives copies start "copy").
func isCopyExport(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/drive/v3/files/copy") && strings.HasSuffix(r.URL.Path, "/export")
}

func TestExtractFileText(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		intercept func(w http.ResponseWriter, r *http.Request, next http.Handler)
		wantText  string // the content on success
		wantErr   string // part of the tool error, when it fails
		wantNote  string // part of the note
		leftovers int    // temporary copies the fake still holds (only when Drive refuses the delete)
	}{
		{name: "converted and deleted", file: "pdf1", wantText: pdfText},
		{name: "export fails", file: "pdf1", wantErr: "export refused",
			intercept: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if isCopyExport(r) {
					refuse(w, http.StatusBadRequest, "export refused")
					return
				}
				next.ServeHTTP(w, r)
			}},
		{name: "copy made but the call fails", file: "pdf1", wantErr: "copy refused",
			intercept: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/copy") {
					next.ServeHTTP(httptest.NewRecorder(), r) // Drive made it, then the answer failed
					refuse(w, http.StatusBadRequest, "copy refused")
					return
				}
				next.ServeHTTP(w, r)
			}},
		{name: "delete refused: said, not hidden", file: "pdf1", wantText: pdfText, wantNote: "could not be deleted", leftovers: 1,
			intercept: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if r.Method == http.MethodDelete {
					refuse(w, http.StatusForbidden, "delete refused")
					return
				}
				next.ServeHTTP(w, r)
			}},
		{name: "export and delete fail", file: "pdf1", wantErr: "could not be deleted", leftovers: 1,
			intercept: func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				if isCopyExport(r) || r.Method == http.MethodDelete {
					refuse(w, http.StatusBadRequest, "refused")
					return
				}
				next.ServeHTTP(w, r)
			}},
		{name: "not a convertible file", file: "doc1", wantErr: "read it with read_file"},
		{name: "over Drive's conversion limit", file: "big1", wantErr: "up to 10 MB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeDrive(t)
			if tt.file == "big1" { // the fake sizes a file by its content
				f.Add(&drive.File{Id: "big1", Name: "scan.pdf", MimeType: mimePDF}, make([]byte, 11<<20))
			}
			f.Intercept = tt.intercept
			cs := mcptest.Start(t, spec(), signIn(t, f)...).Connect(t, "")
			args := map[string]any{"file_id": tt.file}
			if tt.wantErr != "" {
				if msg := mcptest.CallError(t, cs, "extract_file_text", args); !strings.Contains(msg, tt.wantErr) {
					t.Errorf("error %q, want %q", msg, tt.wantErr)
				}
			} else {
				out, _ := mcptest.CallFor[readOutput](t, cs, "extract_file_text", args)
				if out.Content != tt.wantText || out.Format != "text" || !strings.Contains(out.Note, tt.wantNote) {
					t.Errorf("output %+v", out)
				}
			}
			if got := tempCopies(f); len(got) != tt.leftovers {
				t.Errorf("temporary copies left %v, want %d", got, tt.leftovers)
			}
			for _, cp := range f.Calls("POST", "/copy") {
				props, _ := cp.Body["appProperties"].(map[string]any)
				if cp.Body["mimeType"] != mimeDoc || props[tempCopyKey] == "" || !slices.Equal(cp.Body["parents"].([]any), []any{"root"}) {
					t.Errorf("copy request %+v", cp.Body)
				}
			}
		})
	}
}

// testDrive is the server's state pointed at the fake, for what a tool call cannot reach: a call
// cancelled half-way (the go-sdk's streamable client does not cancel the server's handler).
func testDrive(t *testing.T, f *googlefake.Drive) *drv {
	api := &googleserver.Account{HTTP: googlefake.Client(), Endpoint: f.URL + "/drive/v3/"}
	svc, err := gdrive.New(api)
	if err != nil {
		t.Fatal(err)
	}
	return &drv{svc: svc, google: &googleserver.Account{}, log: slog.New(slog.DiscardHandler), maxReadChars: 20000, maxBytes: 50 << 20}
}

// A call cancelled while Drive exports the copy still deletes it before it returns.
func TestConvertCancelledDeletesCopy(t *testing.T) {
	for _, step := range []string{"copy", "export"} {
		t.Run(step, func(t *testing.T) {
			f := newFakeDrive(t)
			ctx, cancel := context.WithCancel(t.Context())
			f.Intercept = func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				switch {
				case step == "copy" && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/copy"):
					next.ServeHTTP(httptest.NewRecorder(), r) // made, but the caller is gone first
					cancel()
					<-r.Context().Done()
				case step == "export" && isCopyExport(r):
					cancel()
					<-r.Context().Done()
				default:
					next.ServeHTTP(w, r)
				}
			}
			d := testDrive(t, f)
			pdf, _, _ := f.File("pdf1")
			text, _, err := d.convertText(ctx, &gdrive.File{Id: pdf.Id, Name: pdf.Name, MimeType: pdf.MimeType, Size: pdf.Size})
			if err == nil || text != "" {
				t.Errorf("cancelled conversion: %q, %v", text, err)
			}
			if got := tempCopies(f); len(got) != 0 || len(f.Calls("DELETE", "")) != 1 {
				t.Errorf("temporary copies left %v; deletes %+v", got, f.Calls("DELETE", ""))
			}
		})
	}
}

// A long text is paged, each page through a fresh copy, and the marker names this tool.
func TestExtractPaging(t *testing.T) {
	f, cs := start(t)
	p1, res := mcptest.CallFor[readOutput](t, cs, "extract_file_text", map[string]any{"file_id": "pdf1", "max_chars": 10})
	if p1.Content != pdfText[:10] || !p1.Truncated || p1.Total != len([]rune(pdfText)) ||
		!strings.Contains(mcptest.Text(res), "call extract_file_text with file_id=pdf1 offset=10]") {
		t.Errorf("page 1 %+v\n%s", p1, mcptest.Text(res))
	}
	p2, _ := mcptest.CallFor[readOutput](t, cs, "extract_file_text", map[string]any{"file_id": "pdf1", "offset": 10})
	if p1.Content+p2.Content != pdfText || p2.Truncated {
		t.Errorf("page 2 %+v", p2)
	}
	if got := tempCopies(f); len(got) != 0 || len(f.Calls("POST", "/copy")) != 2 || len(f.Calls("DELETE", "")) != 2 {
		t.Errorf("copies left %v", got)
	}
}
