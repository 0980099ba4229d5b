package googlefake

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/api/drive/v3"
)

const folderType = "application/vnd.google-apps.folder"

// Drive is the Drive API v3 over HTTP: files (list with the query forms the servers send, get,
// download, export, create, multipart, resumable and simple upload, update, move, copy,
// delete), permissions, changes, shared drives and comments with replies, with md5Checksum, size and version kept as Drive keeps them and a
// change log. Like Google it answers 404 for a shared-drive item unless the call says
// supportsAllDrives=true. Its methods also act as another device editing the same Drive.
type Drive struct {
	*Server
	// RequireAllDrives makes a call without supportsAllDrives=true, or a files.list without
	// corpora=allDrives and includeItemsFromAllDrives=true, a test error.
	RequireAllDrives bool

	files   map[string]*drive.File
	order   []string          // file ids in creation order
	content map[string][]byte // by file id
	exports map[string][]byte // by "id|mime type"
	ocr     map[string][]byte // source id → the text of its Google Docs copy
	perms   map[string][]*drive.Permission
	drives  map[string]bool // shared drive ids
	hidden  map[string]bool // left out of listings, as Drive's search does for a while
	changes []change
	uploads map[string]upload // open resumable upload sessions by upload_id
	names   map[string]string // shared drive id → name, for drives.list
	notes   map[string][]*drive.Comment
	books   map[string]*book // Sheets API state by spreadsheet (file) id
	docs    map[string]*doc  // Docs API state by document (file) id
}

// upload is an open resumable upload session: the file it updates ("" to create one) and the
// request that opened it, with the metadata.
type upload struct {
	fileID string
	open   Request
	data   []byte // the chunks received so far
}

type change struct {
	fileID  string
	removed bool
}

// NewDrive starts an empty Drive fake, closed when the test ends. Its endpoint is
// URL+"/drive/v3/".
func NewDrive(t testing.TB) *Drive {
	d := &Drive{Server: newServer(t, "Drive"), files: map[string]*drive.File{}, content: map[string][]byte{}, exports: map[string][]byte{},
		ocr: map[string][]byte{}, perms: map[string][]*drive.Permission{}, drives: map[string]bool{}, hidden: map[string]bool{},
		uploads: map[string]upload{}, names: map[string]string{}, notes: map[string][]*drive.Comment{},
		books: map[string]*book{}, docs: map[string]*doc{}}
	const base = "/drive/v3"
	d.handle("GET "+base+"/files", d.list)
	d.handle("GET "+base+"/files/{id}", d.get)
	d.handle("GET "+base+"/files/{id}/export", d.export)
	d.handle("POST "+base+"/files", d.create)
	d.handle("POST /upload"+base+"/files", d.create)
	d.handle("PATCH "+base+"/files/{id}", d.update)
	d.handle("PATCH /upload"+base+"/files/{id}", d.update)
	d.handle("POST /upload"+base+"/files/{id}", d.resume) // a chunk of a resumable update
	d.handle("PUT /upload"+base+"/files", d.resume)
	d.handle("PUT /upload"+base+"/files/{id}", d.resume)
	d.handle("POST "+base+"/files/{id}/copy", d.copy)
	d.handle("DELETE "+base+"/files/{id}", func(w http.ResponseWriter, r *http.Request, rq Request) {
		if d.reachable(w, rq, r.PathValue("id")) == nil {
			return
		}
		d.Delete(r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	d.handle("GET "+base+"/files/{id}/permissions", func(w http.ResponseWriter, r *http.Request, rq Request) {
		d.allDrives(rq)
		d.mu.Lock()
		defer d.mu.Unlock()
		WriteJSON(w, &drive.PermissionList{Permissions: d.perms[r.PathValue("id")]})
	})
	d.handle("POST "+base+"/files/{id}/permissions", func(w http.ResponseWriter, r *http.Request, rq Request) {
		var p drive.Permission
		_ = rq.Decode(&p)
		d.allDrives(rq)
		d.mu.Lock()
		defer d.mu.Unlock()
		p.Id = d.newID("perm")
		d.perms[r.PathValue("id")] = append(d.perms[r.PathValue("id")], &p)
		WriteJSON(w, &p)
	})
	d.handle("DELETE "+base+"/files/{id}/permissions/{pid}", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		d.allDrives(rq)
		w.WriteHeader(http.StatusNoContent)
	})
	d.handle("GET "+base+"/changes/startPageToken", func(w http.ResponseWriter, _ *http.Request, rq Request) {
		d.allDrives(rq)
		d.mu.Lock()
		defer d.mu.Unlock()
		WriteJSON(w, &drive.StartPageToken{StartPageToken: strconv.Itoa(len(d.changes))})
	})
	d.handle("GET "+base+"/changes", d.changeList)
	d.handle("GET "+base+"/drives", d.driveList)
	d.handle("GET "+base+"/files/{id}/comments", d.commentList)
	d.handle("POST "+base+"/files/{id}/comments/{cid}/replies", d.reply)
	d.sheetRoutes()
	d.docRoutes()
	return d
}

// driveList is drives.list: the shared drives AddSharedDrive made, pageSize 1 to 100.
func (d *Drive) driveList(w http.ResponseWriter, r *http.Request, _ Request) {
	q := r.URL.Query()
	if n, err := strconv.Atoi(q.Get("pageSize")); q.Has("pageSize") && (err != nil || n < 1 || n > 100) {
		WriteError(w, http.StatusBadRequest, "Invalid value '"+q.Get("pageSize")+"'. Values must be within the range: [1, 100]", "invalid")
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := slices.Sorted(maps.Keys(d.names))
	start, end, next := page(q, "pageSize", 10, len(ids))
	out := &drive.DriveList{Drives: []*drive.Drive{}, NextPageToken: next}
	for _, id := range ids[start:end] {
		out.Drives = append(out.Drives, &drive.Drive{Id: id, Name: d.names[id], Kind: "drive#drive"})
	}
	WriteJSON(w, out)
}

// commented is the file id for the comments API, which takes no supportsAllDrives (it
// reaches shared-drive files without it), or nil after answering 404.
func (d *Drive) commented(w http.ResponseWriter, id string) *drive.File {
	d.mu.Lock()
	file := d.files[id]
	d.mu.Unlock()
	if file == nil {
		notFound(w, "File not found: "+id+".")
	}
	return file
}

// requireFields answers 400 as Drive does for comment and reply calls without fields.
func requireFields(w http.ResponseWriter, rq Request) bool {
	if rq.Query.Get("fields") != "" {
		return true
	}
	WriteError(w, http.StatusBadRequest, "The 'fields' parameter is required for this operation.", "required")
	return false
}

// commentList is comments.list: deleted comments only with includeDeleted=true.
func (d *Drive) commentList(w http.ResponseWriter, r *http.Request, rq Request) {
	if d.commented(w, r.PathValue("id")) == nil || !requireFields(w, rq) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var live []*drive.Comment
	for _, c := range d.notes[r.PathValue("id")] {
		if !c.Deleted || rq.Query.Get("includeDeleted") == "true" {
			live = append(live, c)
		}
	}
	start, end, next := page(rq.Query, "pageSize", 20, len(live))
	WriteJSON(w, &drive.CommentList{Comments: append([]*drive.Comment{}, live[start:end]...), NextPageToken: next})
}

// reply is replies.create: content, or an action (resolve, reopen) that sets the comment's
// resolved state.
func (d *Drive) reply(w http.ResponseWriter, r *http.Request, rq Request) {
	if d.commented(w, r.PathValue("id")) == nil || !requireFields(w, rq) {
		return
	}
	var in drive.Reply
	_ = rq.Decode(&in)
	d.mu.Lock()
	defer d.mu.Unlock()
	var c *drive.Comment
	for _, cand := range d.notes[r.PathValue("id")] {
		if cand.Id == r.PathValue("cid") && !cand.Deleted {
			c = cand
		}
	}
	switch {
	case c == nil:
		notFound(w, "Comment not found: "+r.PathValue("cid")+".")
		return
	case in.Content == "" && in.Action == "":
		WriteError(w, http.StatusBadRequest, "Required: content.", "required")
		return
	case in.Action != "" && in.Action != "resolve" && in.Action != "reopen":
		WriteError(w, http.StatusBadRequest, "Invalid value for: action", "invalid")
		return
	}
	reply := &drive.Reply{Id: d.newID("reply"), Content: in.Content, Action: in.Action, CreatedTime: "2026-03-02T12:00:00.000Z",
		Author: &drive.User{DisplayName: "Ada", EmailAddress: "ada@example.com", Me: true}}
	c.Replies = append(c.Replies, reply)
	if in.Action != "" {
		c.Resolved = in.Action == "resolve"
	}
	WriteJSON(w, reply)
}

var (
	propQuery     = regexp.MustCompile(`appProperties has \{ key='([^']*)' and value='((?:[^'\\]|\\.)*)' \}`)
	nameQuery     = regexp.MustCompile(`name = '((?:[^'\\]|\\.)*)'`)
	namePrefix    = regexp.MustCompile(`name contains '((?:[^'\\]|\\.)*)'`)
	mimeQuery     = regexp.MustCompile(`mimeType = '([^']*)'`)
	fullTextQuery = regexp.MustCompile(`fullText contains '((?:[^'\\]|\\.)*)'`)
	parentQuery   = regexp.MustCompile(`'([^']*)' in parents`)
)

func unquote(s string) string { return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(s) }

// matches evaluates the query clauses the servers send, all of which must hold: app property,
// name, name contains (as Drive does, a prefix of the name or of a word in it), mime type,
// full text (over the name), parent and trashed = false. Other clauses are not evaluated.
func matches(file *drive.File, q string) bool {
	if m := propQuery.FindStringSubmatch(q); m != nil && file.AppProperties[m[1]] != unquote(m[2]) {
		return false
	}
	if m := nameQuery.FindStringSubmatch(q); m != nil && file.Name != unquote(m[1]) {
		return false
	}
	if m := namePrefix.FindStringSubmatch(q); m != nil {
		name, prefix := strings.ToLower(file.Name), strings.ToLower(unquote(m[1]))
		if !strings.HasPrefix(name, prefix) && !strings.Contains(name, " "+prefix) {
			return false
		}
	}
	if m := mimeQuery.FindStringSubmatch(q); m != nil && file.MimeType != m[1] {
		return false
	}
	if m := fullTextQuery.FindStringSubmatch(q); m != nil && !strings.Contains(strings.ToLower(file.Name), strings.ToLower(unquote(m[1]))) {
		return false
	}
	if m := parentQuery.FindStringSubmatch(q); m != nil && !slices.Contains(file.Parents, m[1]) {
		return false
	}
	return !strings.Contains(q, "trashed = false") || !file.Trashed
}

func (d *Drive) list(w http.ResponseWriter, r *http.Request, rq Request) {
	q, all := r.URL.Query(), d.allDrives(rq)
	if d.RequireAllDrives && (q.Get("includeItemsFromAllDrives") != "true" || q.Get("corpora") != "allDrives") {
		d.t.Errorf("files.list without shared drives: %s", r.URL.RawQuery)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var hits []*drive.File
	for _, id := range d.order {
		file, ok := d.files[id]
		if !ok || d.hidden[id] || file.DriveId != "" && !all {
			continue
		}
		if matches(file, q.Get("q")) {
			hits = append(hits, file)
		}
	}
	start, end, next := page(q, "pageSize", 100, len(hits))
	WriteJSON(w, &drive.FileList{Files: append([]*drive.File{}, hits[start:end]...), NextPageToken: next})
}

// reachable is the file id as the call may see it, or nil after answering 404 (for a missing
// file, or a shared-drive one without supportsAllDrives=true). A missing supportsAllDrives is
// a test error under RequireAllDrives.
func (d *Drive) reachable(w http.ResponseWriter, rq Request, id string) *drive.File {
	all := d.allDrives(rq)
	d.mu.Lock()
	file := d.files[id]
	d.mu.Unlock()
	if file == nil || file.DriveId != "" && !all {
		notFound(w, "File not found: "+id+".")
		return nil
	}
	return file
}

// allDrives says whether the call says supportsAllDrives=true; under RequireAllDrives a call
// that does not is a test error.
func (d *Drive) allDrives(rq Request) bool {
	all := rq.Query.Get("supportsAllDrives") == "true"
	if d.RequireAllDrives && !all {
		d.t.Errorf("%s %s without supportsAllDrives=true", rq.Method, rq.Path)
	}
	return all
}

func (d *Drive) get(w http.ResponseWriter, r *http.Request, rq Request) {
	file := d.reachable(w, rq, r.PathValue("id"))
	if file == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.URL.Query().Get("alt") == "media" {
		w.Header().Set("Content-Type", file.MimeType)
		_, _ = w.Write(d.content[file.Id])
		return
	}
	WriteJSON(w, file)
}

func (d *Drive) export(w http.ResponseWriter, r *http.Request, _ Request) {
	mt := r.URL.Query().Get("mimeType")
	d.mu.Lock()
	data, ok := d.exports[r.PathValue("id")+"|"+mt]
	d.mu.Unlock()
	if !ok {
		WriteError(w, http.StatusBadRequest, "The requested conversion is not supported.", "badRequest")
		return
	}
	w.Header().Set("Content-Type", mt)
	_, _ = w.Write(data)
}

// openUpload answers a request with uploadType=resumable with the session's URL in Location,
// as Drive does; the content follows in a PUT there (resume).
func (d *Drive) openUpload(w http.ResponseWriter, fileID string, rq Request) {
	d.mu.Lock()
	sid := d.newID("upload")
	d.uploads[sid] = upload{fileID: fileID, open: rq}
	d.mu.Unlock()
	w.Header().Set("Location", d.URL+rq.Path+"?uploadType=resumable&upload_id="+sid)
	w.WriteHeader(http.StatusOK)
}

// resume takes the content of a resumable upload, whole or in chunks ("Content-Range: bytes
// 0-N/*" until the last says the total), and creates or updates the file with the metadata
// that opened the session once it has all of it. A chunk is acknowledged as Google does for
// clients that send X-GUploader-No-308: 200 with X-Http-Status-Code-Override: 308 and the
// Range received.
func (d *Drive) resume(w http.ResponseWriter, r *http.Request, rq Request) {
	sid := r.URL.Query().Get("upload_id")
	d.mu.Lock()
	up, ok := d.uploads[sid]
	if ok {
		up.data = append(up.data, rq.Media...)
		d.uploads[sid] = up
	}
	d.mu.Unlock()
	if !ok {
		notFound(w, "No upload session "+sid+".")
		return
	}
	if cr := r.Header.Get("Content-Range"); strings.HasSuffix(cr, "/*") {
		w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", len(up.data)-1))
		w.Header().Set("X-Http-Status-Code-Override", "308")
		w.WriteHeader(http.StatusOK)
		return
	} else if total, err := strconv.Atoi(cr[strings.LastIndex(cr, "/")+1:]); cr != "" && (err != nil || total != len(up.data)) {
		WriteError(w, http.StatusBadRequest, fmt.Sprintf("Content-Range %q does not match the %d bytes received.", cr, len(up.data)), "badRequest")
		return
	}
	d.mu.Lock()
	delete(d.uploads, sid)
	d.mu.Unlock()
	full := up.open
	full.Media, full.MediaType = up.data, up.open.UploadType
	if full.Media == nil {
		full.Media = []byte{}
	}
	if up.fileID == "" {
		d.create(w, r, full)
		return
	}
	d.updateFile(w, up.fileID, full)
}

func (d *Drive) create(w http.ResponseWriter, r *http.Request, rq Request) {
	if rq.Query.Get("upload_id") != "" && rq.Media != nil {
		d.resume(w, r, rq)
		return
	}
	if rq.Query.Get("uploadType") == "resumable" && rq.Media == nil {
		d.allDrives(rq)
		d.openUpload(w, "", rq)
		return
	}
	d.allDrives(rq)
	var file drive.File
	_ = rq.Decode(&file)
	if file.MimeType == "" {
		file.MimeType = rq.MediaType
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(file.Parents) == 0 {
		file.Parents = []string{"root"}
	}
	for _, p := range file.Parents {
		if p != "root" && d.files[p] == nil && !d.drives[p] {
			notFound(w, "File not found: "+p+".")
			return
		}
	}
	file.Id = d.newID("new")
	if d.drives[file.Parents[0]] {
		file.DriveId = file.Parents[0]
	} else if parent := d.files[file.Parents[0]]; parent != nil {
		file.DriveId = parent.DriveId
	}
	d.put(&file, rq.Media)
	WriteJSON(w, &file)
}

func (d *Drive) update(w http.ResponseWriter, r *http.Request, rq Request) {
	if rq.Query.Get("upload_id") != "" && rq.Media != nil {
		d.resume(w, r, rq)
		return
	}
	if rq.Query.Get("uploadType") == "resumable" && rq.Media == nil {
		if d.reachable(w, rq, r.PathValue("id")) != nil {
			d.openUpload(w, r.PathValue("id"), rq)
		}
		return
	}
	d.updateFile(w, r.PathValue("id"), rq)
}

// updateFile patches the file id's metadata, parents and content as rq says.
func (d *Drive) updateFile(w http.ResponseWriter, id string, rq Request) {
	file := d.reachable(w, rq, id)
	if file == nil {
		return
	}
	var patch struct {
		Name    *string `json:"name"`
		Trashed *bool   `json:"trashed"`
	}
	_ = rq.Decode(&patch)
	d.mu.Lock()
	defer d.mu.Unlock()
	if patch.Name != nil {
		file.Name = *patch.Name
	}
	if patch.Trashed != nil {
		file.Trashed = *patch.Trashed
	}
	if rm := rq.Query.Get("removeParents"); rm != "" {
		file.Parents = slices.DeleteFunc(file.Parents, func(p string) bool { return slices.Contains(strings.Split(rm, ","), p) })
	}
	if add := rq.Query.Get("addParents"); add != "" {
		file.Parents = append(file.Parents, strings.Split(add, ",")...)
	}
	if rq.Media != nil {
		d.setContent(file, rq.Media)
	}
	d.changed(file)
	WriteJSON(w, file)
}

// copy copies a file; a copy of a PDF or image into a Google Doc holds the text SetOCR gave.
func (d *Drive) copy(w http.ResponseWriter, r *http.Request, rq Request) {
	src := d.reachable(w, rq, r.PathValue("id"))
	if src == nil {
		return
	}
	var meta drive.File
	_ = rq.Decode(&meta)
	d.mu.Lock()
	defer d.mu.Unlock()
	cp := *src
	cp.Id, cp.Name, cp.Version = d.newID("copy"), meta.Name, 0
	if cp.Name == "" {
		cp.Name = "Copy of " + src.Name
	}
	if meta.MimeType != "" {
		cp.MimeType = meta.MimeType
	}
	cp.AppProperties = meta.AppProperties
	if len(meta.Parents) > 0 {
		cp.Parents = meta.Parents
	}
	if text, ok := d.ocr[src.Id]; ok && cp.MimeType == "application/vnd.google-apps.document" {
		d.exports[cp.Id+"|text/plain"] = text
	}
	d.put(&cp, d.content[src.Id])
	WriteJSON(w, &cp)
}

func (d *Drive) changeList(w http.ResponseWriter, r *http.Request, rq Request) {
	d.allDrives(rq)
	from, err := strconv.Atoi(r.URL.Query().Get("pageToken"))
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil || from < 0 || from > len(d.changes) {
		WriteError(w, http.StatusBadRequest, "Invalid Value", "invalid")
		return
	}
	res := &drive.ChangeList{Changes: []*drive.Change{}, NewStartPageToken: strconv.Itoa(len(d.changes))}
	for _, c := range d.changes[from:] {
		ch := &drive.Change{FileId: c.fileID, Removed: c.removed, ChangeType: "file"}
		if !c.removed {
			ch.File = d.files[c.fileID]
		}
		res.Changes = append(res.Changes, ch)
	}
	WriteJSON(w, res)
}

// put stores a new file with its content (nil: none, as for a folder or a Google Doc) and
// logs the change; the caller holds mu.
func (d *Drive) put(file *drive.File, data []byte) {
	if data != nil || file.MimeType != folderType && !strings.HasPrefix(file.MimeType, "application/vnd.google-apps.") {
		d.setContent(file, data)
	}
	file.Version = 1
	d.files[file.Id] = file
	d.order = append(d.order, file.Id)
	d.changes = append(d.changes, change{fileID: file.Id})
}

func (d *Drive) setContent(file *drive.File, data []byte) {
	sum := md5.Sum(data)
	d.content[file.Id] = slices.Clone(data)
	file.Md5Checksum, file.Size = hex.EncodeToString(sum[:]), int64(len(data))
}

// changed bumps a file's version and logs the change; the caller holds mu.
func (d *Drive) changed(file *drive.File) {
	file.Version++
	d.changes = append(d.changes, change{fileID: file.Id})
}

// The methods below set the fake up and act as another device using the same Drive.

// Add stores file as it is (an empty id gets a fresh one, no parents mean "root", a DriveId
// makes its shared drive known) with content data (nil: none, as for a Google Doc), and
// returns its id.
func (d *Drive) Add(file *drive.File, data []byte) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if file.Id == "" {
		file.Id = d.newID("file")
	}
	if len(file.Parents) == 0 {
		file.Parents = []string{"root"}
	}
	if file.DriveId != "" {
		d.drives[file.DriveId] = true
	}
	d.put(file, data)
	return file.Id
}

// SetExport sets what exporting the file id as mimeType answers; other exports answer 400.
func (d *Drive) SetExport(id, mimeType string, data []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.exports[id+"|"+mimeType] = data
}

// AddSharedDrive makes a shared drive known by id and name, as drives.list lists it.
func (d *Drive) AddSharedDrive(id, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drives[id], d.names[id] = true, name
}

// SetComments sets the file id's comments.
func (d *Drive) SetComments(id string, comments ...*drive.Comment) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notes[id] = comments
}

// Comment returns a copy of the file id's comment cid.
func (d *Drive) Comment(id, cid string) (drive.Comment, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.notes[id] {
		if c.Id == cid {
			return *c, true
		}
	}
	return drive.Comment{}, false
}

// SetOCR sets the text a Google Docs copy of the file id holds, as Drive's OCR makes it.
func (d *Drive) SetOCR(id string, text []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ocr[id] = text
}

// SetPermissions sets the file id's permissions.
func (d *Drive) SetPermissions(id string, perms ...*drive.Permission) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.perms[id] = perms
}

// File returns a copy of the stored file id and its content.
func (d *Drive) File(id string) (drive.File, []byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	file, ok := d.files[id]
	if !ok {
		return drive.File{}, nil, false
	}
	return *file, slices.Clone(d.content[id]), true
}

// Files returns a copy of every stored file, trashed ones too, in creation order.
func (d *Drive) Files() []drive.File {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []drive.File
	for _, id := range d.order {
		if file, ok := d.files[id]; ok {
			out = append(out, *file)
		}
	}
	return out
}

// Lag leaves a file (or folder) out of listings, or puts it back, as Drive's search does for
// a while after a change; a direct lookup still finds it.
func (d *Drive) Lag(id string, hidden bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hidden[id] = hidden
}

// Edit replaces a file's content.
func (d *Drive) Edit(id string, data []byte) {
	d.mutate(id, func(file *drive.File) { d.setContent(file, data) })
}

// Rename renames a file (or folder) in place.
func (d *Drive) Rename(id, name string) { d.mutate(id, func(file *drive.File) { file.Name = name }) }

// Trash moves a file to the trash.
func (d *Drive) Trash(id string) { d.mutate(id, func(file *drive.File) { file.Trashed = true }) }

// Delete removes a file for good.
func (d *Drive) Delete(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.files, id)
	delete(d.content, id)
	d.changes = append(d.changes, change{fileID: id, removed: true})
}

func (d *Drive) mutate(id string, fn func(*drive.File)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	file, ok := d.files[id]
	if !ok {
		d.t.Fatalf("fake Drive: no file %s", id)
	}
	fn(file)
	d.changed(file)
}
