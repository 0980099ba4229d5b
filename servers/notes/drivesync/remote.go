package drivesync

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/jck411/mcp-servers/servers/notes/vault"
	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googleserver"
)

// Drive names and markers.
const (
	propKey      = "mcpNotes" // the app property every synced file and folder carries
	propRoot     = "root"     // its value on the notes folder itself; below it, the folder's id
	mimeFolder   = gdrive.Folder
	mimeMarkdown = "text/markdown"
	// MaxNoteBytes is the largest Drive file the sync downloads as a note.
	MaxNoteBytes = 10 << 20
)

// ErrRootGone says the Drive folder was deleted or trashed; the sync stops rather than
// mirror that as the deletion of every note.
var ErrRootGone = errors.New("the Drive notes folder was deleted or moved to Drive's trash")

// Sum is the content hash Drive reports as md5Checksum.
func Sum(data []byte) string {
	s := md5.Sum(data) //nolint:gosec // Drive's checksum, compared, not trusted for security
	return hex.EncodeToString(s[:])
}

// Remote is the notes folder on Drive through the drive.file scope, which shows the app only
// the files it created: every file and folder the sync creates carries an app property naming
// the notes folder, so one query lists them all.
type Remote struct {
	svc *gdrive.Client
}

// NewRemote wraps a Drive client.
func NewRemote(svc *gdrive.Client) *Remote { return &Remote{svc: svc} }

// Tree is one listing of the Drive folder.
type Tree struct {
	Root    string
	Files   map[string]RemoteFile // by id
	Folders map[string]string     // by note folder path ("" is the root)
	parents map[string]string     // file id → its folder's id
	Skipped int                   // files whose names are no note paths (not .md, hidden, …)
}

// Root finds the notes folder named name that the app created (the oldest, if several), or
// creates it in My Drive.
func (r *Remote) Root(ctx context.Context, name string) (string, error) {
	q := fmt.Sprintf("name = '%s' and mimeType = '%s' and appProperties has { key='%s' and value='%s' } and trashed = false", quote(name), mimeFolder, propKey, propRoot)
	list, err := r.svc.List(ctx, url.Values{"q": {q}, "spaces": {"drive"}, "orderBy": {"createdTime"}, "pageSize": {"10"}, "fields": {"files(id)"}})
	if err != nil {
		return "", fmt.Errorf("find the Drive folder %q: %w", name, plain(err))
	}
	if len(list.Files) > 0 {
		return list.Files[0].Id, nil
	}
	f, err := r.svc.Create(ctx, &gdrive.File{Name: name, MimeType: mimeFolder, AppProperties: map[string]string{propKey: propRoot}}, fields("id"))
	if err != nil {
		return "", fmt.Errorf("create the Drive folder %q: %w", name, plain(err))
	}
	return f.Id, nil
}

// fields is the fields selector alone.
func fields(f string) url.Values { return url.Values{"fields": {f}} }

// CheckRoot returns ErrRootGone when the notes folder is gone or in the trash.
func (r *Remote) CheckRoot(ctx context.Context, id string) error {
	f, err := r.svc.Get(ctx, id, fields("id, trashed"))
	switch {
	case googleserver.IsStatus(err, http.StatusNotFound):
		return ErrRootGone
	case err != nil:
		return fmt.Errorf("check the Drive folder: %w", plain(err))
	case f.Trashed:
		return ErrRootGone
	}
	return nil
}

// StartToken is the changes page token for changes from now on.
func (r *Remote) StartToken(ctx context.Context) (string, error) {
	t, err := r.svc.StartPageToken(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("get the Drive changes token: %w", plain(err))
	}
	return t, nil
}

// Changed counts the changes since token that may concern the notes folder under root (a file
// carrying its marker, or one removed from view, which carries nothing) and returns the token
// for the next call. An expired token is reported as one change, so the caller lists again.
func (r *Remote) Changed(ctx context.Context, token, root string) (int, string, error) {
	n := 0
	for {
		cl, err := r.svc.Changes(ctx, token, url.Values{"spaces": {"drive"}, "pageSize": {"1000"}, "includeRemoved": {"true"},
			"fields": {"nextPageToken, newStartPageToken, changes(fileId, removed, file(appProperties))"}})
		if googleserver.IsStatus(err, http.StatusNotFound, http.StatusBadRequest) {
			return 1, "", nil
		}
		if err != nil {
			return 0, "", fmt.Errorf("list Drive changes: %w", plain(err))
		}
		for _, c := range cl.Changes {
			if c.Removed || c.File == nil || c.File.AppProperties[propKey] == root || c.FileId == root {
				n++
			}
		}
		if cl.NewStartPageToken != "" {
			return n, cl.NewStartPageToken, nil
		}
		if cl.NextPageToken == "" {
			return n + 1, "", nil // no token to go on with: list again
		}
		token = cl.NextPageToken
	}
}

// List lists every file and folder the sync made under root. Files that were moved out of
// the folder tree are left out, as if deleted; files whose names are no note paths are kept
// with an empty Path (so a rename there is not taken for a deletion) and counted as skipped.
func (r *Remote) List(ctx context.Context, root string) (*Tree, error) {
	q := fmt.Sprintf("appProperties has { key='%s' and value='%s' } and trashed = false", propKey, quote(root))
	items := map[string]*gdrive.File{}
	err := r.svc.ListAll(ctx, url.Values{"q": {q}, "spaces": {"drive"}, "pageSize": {"1000"}, "fields": {"nextPageToken, files(id, name, mimeType, parents, md5Checksum, size)"}},
		func(files []*gdrive.File) error {
			for _, f := range files {
				items[f.Id] = f
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("list the Drive folder: %w", plain(err))
	}
	t := &Tree{Root: root, Files: map[string]RemoteFile{}, Folders: map[string]string{"": root}, parents: map[string]string{}}
	paths := map[string]string{root: ""}
	var folderPath func(id string, depth int) (string, bool)
	folderPath = func(id string, depth int) (string, bool) {
		if p, ok := paths[id]; ok {
			return p, true
		}
		f, ok := items[id]
		if !ok || f.MimeType != mimeFolder || len(f.Parents) == 0 || depth > 64 || !plainName(f.Name) {
			return "", false
		}
		parent, ok := folderPath(f.Parents[0], depth+1)
		if !ok {
			return "", false
		}
		p := path.Join(parent, f.Name)
		paths[id] = p
		return p, true
	}
	for _, id := range sortedKeys(items) {
		f := items[id]
		if f.MimeType == mimeFolder {
			if p, ok := folderPath(id, 0); ok {
				if _, dup := t.Folders[p]; !dup {
					t.Folders[p] = id
				}
			}
			continue
		}
		if len(f.Parents) == 0 {
			continue
		}
		dir, ok := folderPath(f.Parents[0], 0)
		if !ok {
			continue // moved out of the notes folder
		}
		t.add(f, dir)
	}
	return t, nil
}

// add puts a file found in the folder dir into the tree.
func (t *Tree) add(f *gdrive.File, dir string) {
	rf := RemoteFile{ID: f.Id, MD5: f.Md5Checksum, Size: f.Size}
	rel := path.Join(dir, f.Name)
	if clean, err := vault.CleanPath(rel); err == nil && clean == rel && plainName(f.Name) && strings.HasSuffix(f.Name, vault.Ext) && f.Md5Checksum != "" {
		rf.Path = rel
	} else {
		t.Skipped++
	}
	t.Files[f.Id] = rf
	t.parents[f.Id] = f.Parents[0]
}

// Confirm looks up, one at a time, synced files a listing did not return: Drive's search can
// lag behind recent changes, and a file merely missing from a listing must not be taken for a
// deleted one. Those still alive under the notes folder (through folders the listing may also
// have missed) are added to the tree.
func (r *Remote) Confirm(ctx context.Context, t *Tree, ids []string) error {
	dirs := make(map[string]string, len(t.Folders))
	for p, id := range t.Folders {
		dirs[id] = p
	}
	get := func(id string) (*gdrive.File, error) {
		f, err := r.svc.Get(ctx, id, fields("id, name, mimeType, parents, md5Checksum, size, trashed, appProperties"))
		if googleserver.IsStatus(err, http.StatusNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("look up a file missing from the listing: %w", plain(err))
		}
		if f.Trashed || f.AppProperties[propKey] != t.Root || len(f.Parents) == 0 || !plainName(f.Name) {
			return nil, nil
		}
		return f, nil
	}
	var dirOf func(id string, depth int) (string, bool, error)
	dirOf = func(id string, depth int) (string, bool, error) {
		if p, ok := dirs[id]; ok {
			return p, true, nil
		}
		if depth > 64 {
			return "", false, nil
		}
		f, err := get(id)
		if err != nil || f == nil || f.MimeType != mimeFolder {
			return "", false, err
		}
		parent, ok, err := dirOf(f.Parents[0], depth+1)
		if !ok || err != nil {
			return "", false, err
		}
		p := path.Join(parent, f.Name)
		dirs[id] = p
		if _, taken := t.Folders[p]; !taken {
			t.Folders[p] = id
		}
		return p, true, nil
	}
	for _, id := range ids {
		f, err := get(id)
		if err != nil {
			return err
		}
		if f == nil || f.MimeType == mimeFolder {
			continue
		}
		dir, ok, err := dirOf(f.Parents[0], 0)
		if err != nil {
			return err
		}
		if ok {
			t.add(f, dir)
		}
	}
	return nil
}

// plainName is a Drive name that can be one path element.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\")
}

// Download reads a file's content, refusing more than MaxNoteBytes.
func (r *Remote) Download(ctx context.Context, id string) ([]byte, error) {
	resp, err := r.svc.Media(ctx, id, nil)
	if err != nil {
		return nil, fmt.Errorf("download: %w", plain(err))
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxNoteBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download: %w", plain(err))
	}
	if len(data) > MaxNoteBytes {
		return nil, fmt.Errorf("the Drive file is over %d MiB, too large for a note", MaxNoteBytes>>20)
	}
	return data, nil
}

// Create uploads data as a new note file at rel, creating its folders.
func (r *Remote) Create(ctx context.Context, t *Tree, rel string, data []byte) (string, error) {
	parent, err := r.folder(ctx, t, noteDir(rel))
	if err != nil {
		return "", err
	}
	meta := &gdrive.File{Name: path.Base(rel), Parents: []string{parent}, MimeType: mimeMarkdown, AppProperties: map[string]string{propKey: t.Root}}
	f, err := r.svc.Upload(ctx, meta, bytes.NewReader(data), mimeMarkdown, fields("id"))
	if err != nil {
		return "", fmt.Errorf("upload: %w", plain(err))
	}
	t.parents[f.Id] = parent
	return f.Id, nil
}

// Update replaces a file's content.
func (r *Remote) Update(ctx context.Context, id string, data []byte) error {
	_, err := r.svc.UpdateContent(ctx, id, nil, bytes.NewReader(data), mimeMarkdown, fields("id"))
	if err != nil {
		return fmt.Errorf("upload: %w", plain(err))
	}
	return nil
}

// Move renames a file and moves it to the folder rel names, creating folders as needed.
func (r *Remote) Move(ctx context.Context, t *Tree, id, rel string) error {
	parent, err := r.folder(ctx, t, noteDir(rel))
	if err != nil {
		return err
	}
	params := fields("id")
	if old := t.parents[id]; old != parent {
		params.Set("addParents", parent)
		if old != "" {
			params.Set("removeParents", old)
		}
	}
	if _, err := r.svc.Update(ctx, id, &gdrive.File{Name: path.Base(rel)}, params); err != nil {
		return fmt.Errorf("rename on Drive: %w", plain(err))
	}
	t.parents[id] = parent
	return nil
}

// Trash moves a file to Drive's trash, where it can be restored for 30 days.
func (r *Remote) Trash(ctx context.Context, id string) error {
	if _, err := r.svc.Update(ctx, id, &gdrive.File{Trashed: true}, fields("id")); err != nil {
		return fmt.Errorf("move to Drive's trash: %w", plain(err))
	}
	return nil
}

// folder returns the id of the Drive folder for the note folder dir, creating what is missing.
func (r *Remote) folder(ctx context.Context, t *Tree, dir string) (string, error) {
	if id, ok := t.Folders[dir]; ok {
		return id, nil
	}
	parent, err := r.folder(ctx, t, noteDir(dir))
	if err != nil {
		return "", err
	}
	meta := &gdrive.File{Name: path.Base(dir), MimeType: mimeFolder, Parents: []string{parent}, AppProperties: map[string]string{propKey: t.Root}}
	f, err := r.svc.Create(ctx, meta, fields("id"))
	if err != nil {
		return "", fmt.Errorf("create the Drive folder %s: %w", dir, plain(err))
	}
	t.Folders[dir] = f.Id
	return f.Id, nil
}

// noteDir is the folder part of a note path, "" at the top.
func noteDir(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// quote escapes a value for a single-quoted Drive query string.
func quote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

// plain drops the request URL a transport error carries: long, and it adds nothing to the
// message it wraps (a sign-in error, a refused connection).
func plain(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
