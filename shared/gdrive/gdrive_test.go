package gdrive_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"google.golang.org/api/drive/v3"
)

func client(t *testing.T, f *googlefake.Drive) *gdrive.Client {
	t.Helper()
	c, err := gdrive.New(&googleserver.Account{HTTP: googlefake.Client(), Endpoint: f.URL + "/drive/v3/"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Content below ChunkSize goes up in one multipart request, larger content through a
// resumable session in chunks, for new files and for new content alike; what Drive stores is the same.
func TestUploadSizes(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), (gdrive.ChunkSize*3+100)/16)
	tests := []struct {
		name     string
		data     []byte
		wantType string
		wantReqs int // requests to the upload path: one, or the session's opening and a chunk each
	}{
		{"small", []byte("# small\n"), "multipart", 1},
		{"big", big, "resumable", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := googlefake.NewDrive(t)
			c := client(t, f)
			ctx := t.Context()
			got, err := c.Upload(ctx, &gdrive.File{Name: "n.md", AppProperties: map[string]string{"k": "v"}}, bytes.NewReader(tt.data), "text/markdown", url.Values{"fields": {"id,name,size,md5Checksum"}})
			if err != nil {
				t.Fatal(err)
			}
			stored, data, ok := f.File(got.Id)
			if !ok || !bytes.Equal(data, tt.data) || stored.MimeType != "text/markdown" || stored.AppProperties["k"] != "v" || got.Size != int64(len(tt.data)) || got.Md5Checksum == "" {
				t.Fatalf("uploaded %+v (%d bytes stored, %+v)", got, len(data), stored)
			}
			ups := f.Calls("POST", "/upload/drive/v3/files")
			if len(ups) != tt.wantReqs || ups[0].Query.Get("uploadType") != tt.wantType {
				t.Errorf("upload requests %+v, want uploadType %s", ups, tt.wantType)
			}
			edited := append([]byte("v2 "), tt.data...)
			if _, err := c.UpdateContent(ctx, got.Id, &gdrive.File{Name: "m.md"}, bytes.NewReader(edited), "text/markdown", nil); err != nil {
				t.Fatal(err)
			}
			stored, data, _ = f.File(got.Id)
			if !bytes.Equal(data, edited) || stored.Name != "m.md" {
				t.Errorf("updated to %q, %d bytes", stored.Name, len(data))
			}
			if p := f.Calls("PATCH", "/upload/drive/v3/files/"+got.Id); len(p) == 0 || p[0].Query.Get("uploadType") != tt.wantType {
				t.Errorf("update requests %+v", p)
			}
		})
	}
}

// ListAll and Permissions follow page tokens; Get, Media and Export reach the file; a missing
// file is an *APIError with 404, as googleserver.Account.Fail reads it.
func TestListGetAndErrors(t *testing.T) {
	t.Parallel()
	f := googlefake.NewDrive(t)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		f.Add(&drive.File{Id: name, Name: name + ".txt", MimeType: "text/plain"}, []byte(name))
	}
	f.SetExport("a", "text/plain", []byte("exported"))
	f.SetPermissions("a", &drive.Permission{Id: "p1", Type: "user", Role: "owner", EmailAddress: "ada@example.com"})
	c := client(t, f)
	ctx := t.Context()
	var names []string
	err := c.ListAll(ctx, url.Values{"q": {"trashed = false"}, "pageSize": {"2"}, "fields": {"nextPageToken,files(id,name)"}}, func(files []*gdrive.File) error {
		for _, file := range files {
			names = append(names, file.Name)
		}
		return nil
	})
	if err != nil || len(names) != 5 || f.Hits("GET /drive/v3/files") != 3 {
		t.Errorf("ListAll = %v, %v after %d pages", names, err, f.Hits("GET /drive/v3/files"))
	}
	got, err := c.Get(ctx, "b", nil)
	if err != nil || got.Name != "b.txt" || got.Size != 1 {
		t.Errorf("Get = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		name string
		open func() (*http.Response, error)
		want string
	}{
		{"media", func() (*http.Response, error) { return c.Media(ctx, "c", nil) }, "c"},
		{"export", func() (*http.Response, error) { return c.Export(ctx, "a", "text/plain") }, "exported"},
	} {
		resp, err := tt.open()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if string(b) != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, b, tt.want)
		}
	}
	perms, err := c.Permissions(ctx, "a", nil)
	if err != nil || len(perms) != 1 || perms[0].EmailAddress != "ada@example.com" || perms[0].Role != "owner" {
		t.Errorf("Permissions = %+v, %v", perms, err)
	}
	tok, err := c.StartPageToken(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, "d", &gdrive.File{Trashed: true}, nil); err != nil {
		t.Fatal(err)
	}
	ch, err := c.Changes(ctx, tok, nil)
	if err != nil || len(ch.Changes) != 1 || ch.Changes[0].FileId != "d" || ch.Changes[0].File == nil || !ch.Changes[0].File.Trashed || ch.NewStartPageToken == "" {
		t.Errorf("Changes = %+v, %v", ch, err)
	}
	_, err = c.Get(ctx, "gone", nil)
	if !googleserver.IsStatus(err, http.StatusNotFound) {
		t.Errorf("missing file: %v", err)
	}
	if err := c.Delete(ctx, "e", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := f.File("e"); ok {
		t.Error("Delete left the file")
	}
}

// Comments and replies need a fields selector, as on Drive, and drives.list takes 1 to 100 a
// page: the fake answers the mistakes with Drive's 400s.
func TestCollabMistakes(t *testing.T) {
	t.Parallel()
	f := googlefake.NewDrive(t)
	f.Add(&drive.File{Id: "doc", Name: "Doc", MimeType: "application/vnd.google-apps.document"}, nil)
	f.SetComments("doc", &drive.Comment{Id: "c1", Content: "hm"})
	f.AddSharedDrive("0Ad", "Team")
	c := client(t, f)
	ctx := t.Context()
	_, err := c.Comments(ctx, "doc", nil)
	_, err2 := c.Reply(ctx, "doc", "c1", &gdrive.Reply{Content: "ok"}, nil)
	for _, e := range []error{err, err2} {
		ae, ok := googleserver.AsAPIError(e)
		if !ok || ae.Code != 400 || !ae.HasReason("required") || !strings.Contains(ae.Message, "'fields' parameter is required") {
			t.Errorf("without fields: %v", e)
		}
	}
	if _, err := c.SharedDrives(ctx, url.Values{"pageSize": {"200"}}); !googleserver.IsStatus(err, 400) {
		t.Errorf("pageSize 200: %v", err)
	}
	got, err := c.Comments(ctx, "doc", url.Values{"fields": {"comments(id,content)"}})
	if err != nil || len(got.Comments) != 1 || got.Comments[0].Content != "hm" {
		t.Errorf("Comments = %+v, %v", got, err)
	}
	drives, err := c.SharedDrives(ctx, nil)
	if err != nil || len(drives.Drives) != 1 || drives.Drives[0].Name != "Team" {
		t.Errorf("SharedDrives = %+v, %v", drives, err)
	}
}
