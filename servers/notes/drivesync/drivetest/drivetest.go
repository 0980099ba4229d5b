// Package drivetest is a fake of the part of the Google Drive API the notes sync uses, served
// over HTTP to the production client: files (list with the sync's queries, get, download,
// create, multipart upload, update, trash, move) and changes (start token, list), with Drive's
// md5Checksum and a change log. Helpers act as another device editing the same folder.
package drivetest

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
)

// Token is the access token the fake accepts (the one googletest.SignIn writes).
const Token = "live-token"

const (
	mimeFolder = "application/vnd.google-apps.folder"
	propKey    = "mcpNotes"
)

// File is a Drive file as the fake keeps it.
type File struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	MimeType      string            `json:"mimeType"`
	Parents       []string          `json:"parents,omitempty"`
	AppProperties map[string]string `json:"appProperties,omitempty"`
	Trashed       bool              `json:"trashed,omitempty"`
	MD5           string            `json:"md5Checksum,omitempty"`
	Size          string            `json:"size,omitempty"`
	Version       string            `json:"version,omitempty"`
	content       []byte
}

type change struct {
	fileID  string
	removed bool
}

// Fake is the fake Drive. Its URL plus "/drive/v3/" is the endpoint to give the client.
type Fake struct {
	URL string

	t       testing.TB
	mu      sync.Mutex
	files   map[string]*File
	changes []change
	next    int
	hidden  map[string]bool // files listings leave out, as Drive's search does for a while after a change
	calls   map[string]int  // "METHOD /path-pattern" → count
	fail    map[string]int  // call key → answer 500 this many more times
}

// New starts a fake Drive, closed when the test ends.
func New(t testing.TB) *Fake {
	f := &Fake{t: t, files: map[string]*File{}, hidden: map[string]bool{}, calls: map[string]int{}, fail: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /drive/v3/files", f.list)
	mux.HandleFunc("POST /drive/v3/files", f.create)
	mux.HandleFunc("POST /upload/drive/v3/files", f.create)
	mux.HandleFunc("GET /drive/v3/files/{id}", f.get)
	mux.HandleFunc("PATCH /drive/v3/files/{id}", f.update)
	mux.HandleFunc("PATCH /upload/drive/v3/files/{id}", f.update)
	mux.HandleFunc("GET /drive/v3/changes/startPageToken", func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, map[string]string{"startPageToken": strconv.Itoa(len(f.changes))})
	})
	mux.HandleFunc("GET /drive/v3/changes", f.changeList)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("fake Drive: unexpected %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+Token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		key := r.Method + " " + idPart.ReplaceAllString(r.URL.Path, "/{id}")
		f.mu.Lock()
		f.calls[key]++
		failing := f.fail[key] > 0
		if failing {
			f.fail[key]--
		}
		f.mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"error":{"code":500,"message":"Backend Error"}}`)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Client is an HTTP client that authenticates to the fake as the signed-in account.
func (f *Fake) Client() *http.Client { return &http.Client{Transport: bearer{}} }

type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+Token)
	return http.DefaultTransport.RoundTrip(r)
}

// Endpoint is the API base URL to give the client.
func (f *Fake) Endpoint() string { return f.URL + "/drive/v3/" }

// Calls counts the requests whose "METHOD path" key (ids as {id}) is key, e.g.
// "GET /drive/v3/files" or "PATCH /upload/drive/v3/files/{id}".
func (f *Fake) Calls(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// FailNext makes the next n requests with that key answer 500, as Google does at times.
func (f *Fake) FailNext(key string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[key] = n
}

var (
	propQuery = regexp.MustCompile(`appProperties has \{ key='([^']*)' and value='((?:[^'\\]|\\.)*)' \}`)
	nameQuery = regexp.MustCompile(`name = '((?:[^'\\]|\\.)*)'`)
	mimeQuery = regexp.MustCompile(`mimeType = '([^']*)'`)
	idPart    = regexp.MustCompile(`/f\d{4,}$`)
)

func unquote(s string) string { return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(s) }

// list answers the queries the sync sends: by app property, name, mime type and trashed.
func (f *Fake) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	f.mu.Lock()
	var hits []*File
	for _, file := range f.sorted() {
		if f.hidden[file.ID] {
			continue
		}
		if m := propQuery.FindStringSubmatch(q); m != nil && file.AppProperties[m[1]] != unquote(m[2]) {
			continue
		}
		if m := nameQuery.FindStringSubmatch(q); m != nil && file.Name != unquote(m[1]) {
			continue
		}
		if m := mimeQuery.FindStringSubmatch(q); m != nil && file.MimeType != m[1] {
			continue
		}
		if strings.Contains(q, "trashed = false") && file.Trashed {
			continue
		}
		hits = append(hits, file)
	}
	f.mu.Unlock()
	size, start := 100, 0
	if n, err := strconv.Atoi(r.URL.Query().Get("pageSize")); err == nil {
		size = n
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("pageToken")); err == nil {
		start = n
	}
	out := map[string]any{"files": []*File{}}
	if start < len(hits) {
		out["files"] = hits[start:min(start+size, len(hits))]
	}
	if start+size < len(hits) {
		out["nextPageToken"] = strconv.Itoa(start + size)
	}
	writeJSON(w, out)
}

func (f *Fake) get(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	file, ok := f.files[r.PathValue("id")]
	var data []byte
	if ok {
		data = slices.Clone(file.content)
	}
	f.mu.Unlock()
	switch {
	case !ok:
		notFound(w)
	case r.URL.Query().Get("alt") == "media":
		w.Header().Set("Content-Type", file.MimeType)
		_, _ = w.Write(data)
	default:
		writeJSON(w, file)
	}
}

func (f *Fake) create(w http.ResponseWriter, r *http.Request) {
	meta, media, ok := f.body(w, r)
	if !ok {
		return
	}
	var file File
	_ = json.Unmarshal(meta, &file)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(file.Parents) == 0 {
		file.Parents = []string{"root"}
	}
	for _, p := range file.Parents {
		if p != "root" && f.files[p] == nil {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":404,"message":"File not found: `+p+`."}}`)
			return
		}
	}
	file.ID = f.newID()
	if media != nil || file.MimeType != mimeFolder {
		file.setContent(media)
	}
	file.Version = "1"
	f.files[file.ID] = &file
	f.changed(file.ID, false)
	writeJSON(w, &file)
}

func (f *Fake) update(w http.ResponseWriter, r *http.Request) {
	meta, media, ok := f.body(w, r)
	if !ok {
		return
	}
	var patch struct {
		Name    *string `json:"name"`
		Trashed *bool   `json:"trashed"`
	}
	_ = json.Unmarshal(meta, &patch)
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[r.PathValue("id")]
	if !ok {
		notFound(w)
		return
	}
	if patch.Name != nil {
		file.Name = *patch.Name
	}
	if patch.Trashed != nil {
		file.Trashed = *patch.Trashed
	}
	if rm := r.URL.Query().Get("removeParents"); rm != "" {
		file.Parents = slices.DeleteFunc(file.Parents, func(p string) bool { return slices.Contains(strings.Split(rm, ","), p) })
	}
	if add := r.URL.Query().Get("addParents"); add != "" {
		file.Parents = append(file.Parents, strings.Split(add, ",")...)
	}
	if media != nil {
		file.setContent(media)
	}
	file.bump()
	f.changed(file.ID, false)
	writeJSON(w, file)
}

func (f *Fake) changeList(w http.ResponseWriter, r *http.Request) {
	from, err := strconv.Atoi(r.URL.Query().Get("pageToken"))
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || from < 0 || from > len(f.changes) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":400,"message":"Invalid Value","errors":[{"reason":"invalid","location":"pageToken"}]}}`)
		return
	}
	type item struct {
		FileID  string `json:"fileId"`
		Removed bool   `json:"removed,omitempty"`
		File    *File  `json:"file,omitempty"`
	}
	items := []item{}
	for _, c := range f.changes[from:] {
		it := item{FileID: c.fileID, Removed: c.removed}
		if !c.removed {
			it.File = f.files[c.fileID]
		}
		items = append(items, it)
	}
	writeJSON(w, map[string]any{"changes": items, "newStartPageToken": strconv.Itoa(len(f.changes))})
}

// body reads a JSON body or a multipart upload (metadata part, then media part).
func (f *Fake) body(w http.ResponseWriter, r *http.Request) (meta, media []byte, ok bool) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return nil, nil, false
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") && r.URL.Query().Get("uploadType") != "multipart" {
		f.t.Errorf("fake Drive: multipart body without uploadType=multipart: %s", r.URL)
	}
	meta, media, _ = googletest.SplitUpload(r, raw)
	return meta, media, true
}

func (file *File) setContent(data []byte) {
	sum := md5.Sum(data)
	file.content = slices.Clone(data)
	file.MD5 = hex.EncodeToString(sum[:])
	file.Size = strconv.Itoa(len(data))
}

func (file *File) bump() {
	n, _ := strconv.Atoi(file.Version)
	file.Version = strconv.Itoa(n + 1)
}

func (f *Fake) newID() string {
	f.next++
	return fmt.Sprintf("f%04d", f.next)
}

func (f *Fake) changed(id string, removed bool) {
	f.changes = append(f.changes, change{fileID: id, removed: removed})
}

// sorted is every file in creation order; the caller holds mu.
func (f *Fake) sorted() []*File {
	out := make([]*File, 0, len(f.files))
	for _, file := range f.files {
		out = append(out, file)
	}
	slices.SortFunc(out, func(a, b *File) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"error":{"code":404,"message":"File not found.","errors":[{"reason":"notFound"}]}}`)
}

// The helpers below act as another device using the same app on the same folder.

// Root is the id of the notes folder named name, or "".
func (f *Fake) Root(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, file := range f.sorted() {
		if file.Name == name && file.MimeType == mimeFolder && file.AppProperties[propKey] == "root" && !file.Trashed {
			return file.ID
		}
	}
	return ""
}

// Notes maps the note path of every live file under the folder root to its content.
func (f *Fake) Notes(root string) map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, file := range f.files {
		if file.MimeType == mimeFolder || file.Trashed {
			continue
		}
		if p, ok := f.pathOf(file, root); ok {
			out[p] = string(file.content)
		}
	}
	return out
}

// ID is the id of the live file at the note path rel under root, or "".
func (f *Fake) ID(root, rel string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, file := range f.sorted() {
		if p, ok := f.pathOf(file, root); ok && p == rel && !file.Trashed && file.MimeType != mimeFolder {
			return file.ID
		}
	}
	return ""
}

// Get returns a copy of a file and its content.
func (f *Fake) Get(id string) (File, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[id]
	if !ok {
		return File{}, "", false
	}
	return *file, string(file.content), true
}

// pathOf is a file's note path below root; the caller holds mu.
func (f *Fake) pathOf(file *File, root string) (string, bool) {
	var parts []string
	for cur := file; ; {
		if len(cur.Parents) == 0 || len(parts) > 64 {
			return "", false
		}
		parts = append(parts, cur.Name)
		if cur.Parents[0] == root {
			break
		}
		next, ok := f.files[cur.Parents[0]]
		if !ok || next.Trashed {
			return "", false
		}
		cur = next
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/"), true
}

// Put writes a note at rel under root as another device would, creating folders; it returns
// the file's id.
func (f *Fake) Put(root, rel, content string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	parent := root
	dirs := strings.Split(rel, "/")
	for _, dir := range dirs[:len(dirs)-1] {
		var found string
		for _, file := range f.sorted() {
			if file.Name == dir && file.MimeType == mimeFolder && slices.Contains(file.Parents, parent) && !file.Trashed {
				found = file.ID
				break
			}
		}
		if found == "" {
			found = f.newID()
			f.files[found] = &File{ID: found, Name: dir, MimeType: mimeFolder, Parents: []string{parent}, AppProperties: map[string]string{propKey: root}, Version: "1"}
			f.changed(found, false)
		}
		parent = found
	}
	id := f.newID()
	file := &File{ID: id, Name: dirs[len(dirs)-1], MimeType: "text/markdown", Parents: []string{parent}, AppProperties: map[string]string{propKey: root}, Version: "1"}
	file.setContent([]byte(content))
	f.files[id] = file
	f.changed(id, false)
	return id
}

// Lag leaves a file (or folder) out of listings, or puts it back, as Drive's search does for
// a while after a change; a direct lookup still finds it.
func (f *Fake) Lag(id string, hidden bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hidden[id] = hidden
}

// Edit replaces a file's content.
func (f *Fake) Edit(id, content string) {
	f.mutate(id, func(file *File) { file.setContent([]byte(content)) })
}

// Rename renames a file (or folder) in place.
func (f *Fake) Rename(id, name string) { f.mutate(id, func(file *File) { file.Name = name }) }

// Trash moves a file to Drive's trash.
func (f *Fake) Trash(id string) { f.mutate(id, func(file *File) { file.Trashed = true }) }

// Delete removes a file for good.
func (f *Fake) Delete(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.files, id)
	f.changed(id, true)
}

func (f *Fake) mutate(id string, fn func(*File)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	file, ok := f.files[id]
	if !ok {
		f.t.Fatalf("fake Drive: no file %s", id)
	}
	fn(file)
	file.bump()
	f.changed(id, false)
}
