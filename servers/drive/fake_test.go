package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"google.golang.org/api/drive/v3"
)

// request is one call the fake saw.
type request struct {
	Method, Path string
	Query        url.Values
	Body         map[string]any // JSON body, or the metadata part of an upload
	Media        []byte         // the media part of an upload
	MediaType    string
	ContentType  string
}

// fakeDrive is the Drive API over HTTP, answering the production client. Like Google, it
// answers 404 for a shared-drive file unless the call says supportsAllDrives=true.
type fakeDrive struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	files  map[string]*drive.File
	order  []string
	media  map[string][]byte // stored bytes, and export results keyed id|mime
	perms  map[string][]*drive.Permission
	reqs   []request
	nextID int
	// intercept, when set, serves every signed-in request in place of the API; next is the API.
	intercept func(w http.ResponseWriter, r *http.Request, next http.Handler)
}

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

func newFakeDrive(t *testing.T) *fakeDrive {
	f := &fakeDrive{t: t, files: map[string]*drive.File{}, media: map[string][]byte{}, perms: map[string][]*drive.Permission{}}
	mod := "2026-03-02T10:00:00.000Z"
	add := func(file *drive.File, data []byte) {
		file.ModifiedTime, file.Capabilities = mod, &drive.FileCapabilities{CanEdit: true, CanShare: true}
		if len(file.Parents) == 0 {
			file.Parents = []string{"root"}
		}
		if data != nil {
			file.Size = int64(len(data))
			f.media[file.Id] = data
		}
		f.files[file.Id] = file
		f.order = append(f.order, file.Id)
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
	f.media["doc1|text/markdown"] = []byte(markdownDoc)
	f.media["doc1|application/pdf"] = []byte("%PDF-1.7 exported")
	f.media["sheet1|"+xlsxMime] = sheetXLSX(t)
	f.media["slides1|text/plain"] = []byte("Kick-off\n\nAgenda\n- Scope\n- Dates\n")
	f.perms["doc1"] = []*drive.Permission{{Id: "p-owner", Type: "user", Role: "owner", EmailAddress: "ada@example.com"}, {Id: "p-bob", Type: "user", Role: "writer", EmailAddress: "bob@example.com"}}

	mux := http.NewServeMux()
	const base = "/drive/v3"
	mux.HandleFunc("GET "+base+"/files", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("includeItemsFromAllDrives") != "true" || q.Get("corpora") != "allDrives" {
			t.Errorf("files.list without shared drives: %s", r.URL.RawQuery)
		}
		var hits []*drive.File
		f.mu.Lock()
		for _, id := range f.order {
			if matches(f.files[id], q.Get("q")) {
				hits = append(hits, f.files[id])
			}
		}
		f.mu.Unlock()
		n, start := 100, 0
		_, _ = fmt.Sscan(q.Get("pageSize"), &n)
		_, _ = fmt.Sscanf(q.Get("pageToken"), "p%d", &start)
		res := &drive.FileList{Files: []*drive.File{}}
		for i := start; i < len(hits) && i < start+n; i++ {
			res.Files = append(res.Files, hits[i])
		}
		if start+n < len(hits) {
			res.NextPageToken = fmt.Sprintf("p%d", start+n)
		}
		f.json(w, res)
	})
	mux.HandleFunc("GET "+base+"/files/{id}", func(w http.ResponseWriter, r *http.Request) {
		file := f.file(r.PathValue("id"))
		if file == nil {
			f.notFound(w)
			return
		}
		if r.URL.Query().Get("alt") == "media" {
			f.mu.Lock()
			data := f.media[file.Id]
			f.mu.Unlock()
			w.Header().Set("Content-Type", file.MimeType)
			_, _ = w.Write(data)
			return
		}
		f.json(w, file)
	})
	mux.HandleFunc("GET "+base+"/files/{id}/export", func(w http.ResponseWriter, r *http.Request) {
		mt := r.URL.Query().Get("mimeType")
		f.mu.Lock()
		data, ok := f.media[r.PathValue("id")+"|"+mt]
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"code":400,"message":"The requested conversion is not supported."}}`)
			return
		}
		w.Header().Set("Content-Type", mt)
		_, _ = w.Write(data)
	})
	mux.HandleFunc("POST "+base+"/files/{id}/copy", func(w http.ResponseWriter, r *http.Request) {
		src := f.file(r.PathValue("id"))
		if src == nil {
			f.notFound(w)
			return
		}
		body := reqOf(r).Body
		cp := *src
		cp.Id = f.newID("copy")
		cp.Name, _ = body["name"].(string)
		raw, _ := json.Marshal(body)
		var meta drive.File
		_ = json.Unmarshal(raw, &meta)
		cp.AppProperties = meta.AppProperties
		if len(meta.Parents) > 0 {
			cp.Parents = meta.Parents
		}
		if cp.Name == "" {
			cp.Name = "Copy of " + src.Name
		}
		if mt, _ := body["mimeType"].(string); mt != "" {
			cp.MimeType = mt
			if mt == mimeDoc && src.MimeType == mimePDF {
				f.mu.Lock()
				f.media[cp.Id+"|text/plain"] = []byte("\uFEFFQuarterly report\r\nRevenue grew 12%.\r\n")
				f.mu.Unlock()
			}
		}
		f.put(&cp)
		f.json(w, &cp)
	})
	mux.HandleFunc("DELETE "+base+"/files/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		delete(f.files, r.PathValue("id"))
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	create := func(w http.ResponseWriter, r *http.Request) {
		rq := reqOf(r)
		raw, _ := json.Marshal(rq.Body)
		var file drive.File
		_ = json.Unmarshal(raw, &file)
		file.Id = f.newID("new")
		if file.MimeType == "" {
			file.MimeType = rq.MediaType
		}
		file.Size = int64(len(rq.Media))
		f.put(&file)
		f.json(w, &file)
	}
	mux.HandleFunc("POST "+base+"/files", create)
	mux.HandleFunc("POST /upload/drive/v3/files", create)
	update := func(w http.ResponseWriter, r *http.Request) {
		file := f.file(r.PathValue("id"))
		if file == nil {
			f.notFound(w)
			return
		}
		rq := reqOf(r)
		f.mu.Lock()
		defer f.mu.Unlock()
		if name, ok := rq.Body["name"].(string); ok {
			file.Name = name
		}
		if tr, ok := rq.Body["trashed"].(bool); ok {
			file.Trashed = tr
		}
		if add := rq.Query.Get("addParents"); add != "" {
			file.Parents = []string{add}
		}
		if rq.Media != nil {
			f.media[file.Id] = rq.Media
			file.Size = int64(len(rq.Media))
		}
		f.json(w, file)
	}
	mux.HandleFunc("PATCH "+base+"/files/{id}", update)
	mux.HandleFunc("PATCH /upload/drive/v3/files/{id}", update)
	mux.HandleFunc("GET "+base+"/files/{id}/permissions", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.json(w, &drive.PermissionList{Permissions: f.perms[r.PathValue("id")]})
	})
	mux.HandleFunc("POST "+base+"/files/{id}/permissions", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := json.Marshal(reqOf(r).Body)
		var p drive.Permission
		_ = json.Unmarshal(raw, &p)
		p.Id = f.newID("perm")
		f.mu.Lock()
		f.perms[r.PathValue("id")] = append(f.perms[r.PathValue("id")], &p)
		f.mu.Unlock()
		f.json(w, &p)
	})
	mux.HandleFunc("DELETE "+base+"/files/{id}/permissions/{pid}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake Drive: unexpected %s %s", r.Method, r.URL)
		f.notFound(w)
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer live-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), reqKey{}, f.record(r)))
		if !strings.HasSuffix(r.URL.Path, "/export") && r.URL.Query().Get("supportsAllDrives") != "true" {
			t.Errorf("%s %s without supportsAllDrives=true", r.Method, r.URL.Path)
			// What Google does for a shared-drive item then.
			f.notFound(w)
			return
		}
		if f.intercept != nil {
			f.intercept(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// matches evaluates the few query forms the tests send.
func matches(file *drive.File, q string) bool {
	if strings.Contains(q, "trashed = false") && file.Trashed {
		return false
	}
	if i := strings.Index(q, "appProperties has { key='"); i >= 0 {
		kv := strings.Split(q[i+len("appProperties has { key='"):], "'")
		return len(kv) > 2 && kv[1] == " and value=" && file.AppProperties[kv[0]] == kv[2]
	}
	if i := strings.Index(q, "fullText contains '"); i >= 0 {
		word := strings.SplitN(q[i+len("fullText contains '"):], "'", 2)[0]
		return strings.Contains(strings.ToLower(file.Name), strings.ToLower(word))
	}
	if i := strings.Index(q, "' in parents"); i >= 0 {
		parent := q[strings.LastIndex(q[:i], "'")+1 : i]
		for _, p := range file.Parents {
			if p == parent {
				return true
			}
		}
		return false
	}
	if i := strings.Index(q, "mimeType = '"); i >= 0 {
		return file.MimeType == strings.SplitN(q[i+len("mimeType = '"):], "'", 2)[0]
	}
	return true
}

func (f *fakeDrive) newID(prefix string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	return fmt.Sprintf("%s%d", prefix, f.nextID)
}

func (f *fakeDrive) put(file *drive.File) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[file.Id] = file
	f.order = append(f.order, file.Id)
}

func (f *fakeDrive) file(id string) *drive.File {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.files[id]
}

type reqKey struct{}

// reqOf is the recorded form of the request being served.
func reqOf(r *http.Request) request { return r.Context().Value(reqKey{}).(request) }

// record keeps a request, parsing a JSON body or a multipart upload.
func (f *fakeDrive) record(r *http.Request) request {
	rq := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: map[string]any{}, ContentType: r.Header.Get("Content-Type")}
	raw, _ := io.ReadAll(r.Body)
	meta, media, mediaType := googletest.SplitUpload(r, raw)
	rq.Media, rq.MediaType = media, mediaType
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &rq.Body); err != nil {
			f.t.Errorf("fake Drive: bad body %q: %v", meta, err)
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, rq)
	f.mu.Unlock()
	return rq
}

// calls returns the recorded requests with the method and a path suffix.
func (f *fakeDrive) calls(method, suffix string) []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []request
	for _, r := range f.reqs {
		if r.Method == method && strings.HasSuffix(r.Path, suffix) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeDrive) json(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeDrive) notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"code":404,"message":"File not found.","errors":[{"reason":"notFound"}]}}`)
}

// signIn writes a client JSON and a token file with the drive scope; it returns the flags that
// point the server at them and at the fake.
func signIn(t *testing.T, f *fakeDrive, scopes ...string) []string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"https://www.googleapis.com/auth/drive"}
	}
	args := googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...)
	return append(args, "--drive-endpoint", f.srv.URL+"/drive/v3/")
}
