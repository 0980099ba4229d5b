// Package drivetest is the shared Google Drive fake (googlefake.Drive) seen the way the notes
// sync lays out a folder: helpers that find the notes folder and its notes by path, and write
// notes as another device using the same app would.
package drivetest

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"google.golang.org/api/drive/v3"
)

const (
	mimeFolder = "application/vnd.google-apps.folder"
	propKey    = "mcpNotes"
)

// Fake is the fake Drive. Endpoint is the API base URL to give the client.
type Fake struct{ *googlefake.Drive }

// New starts a fake Drive, closed when the test ends.
func New(t testing.TB) *Fake { return &Fake{googlefake.NewDrive(t)} }

// Client is an HTTP client that authenticates to the fake as the signed-in account.
func (f *Fake) Client() *http.Client { return googlefake.Client() }

// Endpoint is the API base URL to give the client.
func (f *Fake) Endpoint() string { return f.URL + "/drive/v3/" }

// API is a Drive client signed in to the fake.
func (f *Fake) API(t testing.TB) *gdrive.Client {
	t.Helper()
	c, err := gdrive.New(&googleserver.Account{HTTP: f.Client(), Endpoint: f.Endpoint()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Root is the id of the live notes folder named name, or "".
func (f *Fake) Root(name string) string {
	for _, file := range f.Files() {
		if file.Name == name && file.MimeType == mimeFolder && file.AppProperties[propKey] == "root" && !file.Trashed {
			return file.Id
		}
	}
	return ""
}

// Notes maps the note path of every live file under the folder root to its content.
func (f *Fake) Notes(root string) map[string]string {
	files := f.byID()
	out := map[string]string{}
	for _, file := range files {
		if file.MimeType == mimeFolder || file.Trashed {
			continue
		}
		if p, ok := pathOf(files, file, root); ok {
			_, data, _ := f.File(file.Id)
			out[p] = string(data)
		}
	}
	return out
}

// ID is the id of the live file at the note path rel under root, or "".
func (f *Fake) ID(root, rel string) string {
	files := f.byID()
	for _, file := range f.Files() {
		if p, ok := pathOf(files, &file, root); ok && p == rel && !file.Trashed && file.MimeType != mimeFolder {
			return file.Id
		}
	}
	return ""
}

func (f *Fake) byID() map[string]*drive.File {
	out := map[string]*drive.File{}
	for _, file := range f.Files() {
		out[file.Id] = &file
	}
	return out
}

// pathOf is a file's note path below root.
func pathOf(files map[string]*drive.File, file *drive.File, root string) (string, bool) {
	var parts []string
	for cur := file; ; {
		if len(cur.Parents) == 0 || len(parts) > 64 {
			return "", false
		}
		parts = append(parts, cur.Name)
		if cur.Parents[0] == root {
			break
		}
		next, ok := files[cur.Parents[0]]
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
	parent := root
	dirs := strings.Split(rel, "/")
	for _, dir := range dirs[:len(dirs)-1] {
		var found string
		for _, file := range f.Files() {
			if file.Name == dir && file.MimeType == mimeFolder && slices.Contains(file.Parents, parent) && !file.Trashed {
				found = file.Id
				break
			}
		}
		if found == "" {
			found = f.Add(&drive.File{Name: dir, MimeType: mimeFolder, Parents: []string{parent}, AppProperties: map[string]string{propKey: root}}, nil)
		}
		parent = found
	}
	return f.Add(&drive.File{Name: dirs[len(dirs)-1], MimeType: "text/markdown", Parents: []string{parent}, AppProperties: map[string]string{propKey: root}}, []byte(content))
}

// Edit replaces a note's content.
func (f *Fake) Edit(id, content string) { f.Drive.Edit(id, []byte(content)) }
