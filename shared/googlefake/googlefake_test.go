package googlefake

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

func driveClient(t *testing.T, d *Drive, client *http.Client) *drive.Service {
	t.Helper()
	svc, err := drive.NewService(t.Context(), option.WithHTTPClient(client), option.WithEndpoint(d.URL+"/drive/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// apiError is the googleapi.Error a client call failed with.
func apiError(t *testing.T, err error) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v is not a Google API error", err)
	}
	return ge
}

func TestErrorsInGoogleShape(t *testing.T) {
	t.Parallel()
	d := NewDrive(t)
	d.Add(&drive.File{Id: "a", Name: "a.txt", MimeType: "text/plain"}, []byte("A"))
	tests := []struct {
		name       string
		client     *http.Client
		id         string
		fail       int
		wantCode   int
		wantReason string
	}{
		{"no token", http.DefaultClient, "a", 0, http.StatusUnauthorized, "authError"},
		{"missing file", Client(), "nope", 0, http.StatusNotFound, "notFound"},
		{"injected 429", Client(), "a", http.StatusTooManyRequests, http.StatusTooManyRequests, "rateLimitExceeded"},
		{"injected 503", Client(), "a", http.StatusServiceUnavailable, http.StatusServiceUnavailable, "backendError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fail != 0 {
				d.FailNext("GET /drive/v3/files/{id}", 1, tt.fail)
			}
			_, err := driveClient(t, d, tt.client).Files.Get(tt.id).Do()
			ge := apiError(t, err)
			if ge.Code != tt.wantCode || len(ge.Errors) != 1 || ge.Errors[0].Reason != tt.wantReason || ge.Message == "" {
				t.Errorf("error %+v; want %d %s", ge, tt.wantCode, tt.wantReason)
			}
			if d.FailsLeft("GET /drive/v3/files/{id}") != 0 {
				t.Errorf("an injected failure is left")
			}
		})
	}
	if n := d.Hits("GET /drive/v3/files/{id}"); n != 3 { // the unauthenticated call is refused before it is recorded
		t.Errorf("%d recorded gets, want 3", n)
	}
}

func TestDriveQueriesPagingAndSharedDrives(t *testing.T) {
	t.Parallel()
	d := NewDrive(t)
	d.Add(&drive.File{Id: "dir", Name: "Notes", MimeType: folderType, AppProperties: map[string]string{"app": "root"}}, nil)
	for _, name := range []string{"one.md", "two.md", "three.md"} {
		d.Add(&drive.File{Name: name, MimeType: "text/markdown", Parents: []string{"dir"}}, []byte(name))
	}
	d.Add(&drive.File{Name: "gone.md", MimeType: "text/markdown", Parents: []string{"dir"}, Trashed: true}, []byte("x"))
	d.Add(&drive.File{Id: "s1", Name: "shared.md", MimeType: "text/markdown", DriveId: "0Ashared", Parents: []string{"0Ashared"}}, []byte("S"))
	svc := driveClient(t, d, Client())

	var names []string
	err := svc.Files.List().Q("'dir' in parents and trashed = false").PageSize(2).Pages(t.Context(), func(l *drive.FileList) error {
		for _, f := range l.Files {
			names = append(names, f.Name)
		}
		return nil
	})
	if err != nil || !slices.Equal(names, []string{"one.md", "two.md", "three.md"}) {
		t.Errorf("paged listing %v, %v", names, err)
	}
	if got, err := svc.Files.List().Q("name = 'Notes' and mimeType = '" + folderType + "' and appProperties has { key='app' and value='root' }").Do(); err != nil || len(got.Files) != 1 || got.Files[0].Id != "dir" {
		t.Errorf("folder query %+v, %v", got, err)
	}
	if _, err := svc.Files.Get("s1").Do(); apiError(t, err).Code != http.StatusNotFound {
		t.Errorf("a shared-drive file without supportsAllDrives: %v", err)
	}
	if f, err := svc.Files.Get("s1").SupportsAllDrives(true).Fields("md5Checksum, size, version").Do(); err != nil || f.Size != 1 || f.Version != 1 || f.Md5Checksum == "" {
		t.Errorf("a shared-drive file with supportsAllDrives: %+v, %v", f, err)
	}
}

func TestDriveChangesAndUpdates(t *testing.T) {
	t.Parallel()
	d := NewDrive(t)
	svc := driveClient(t, d, Client())
	start, err := svc.Changes.GetStartPageToken().Do()
	if err != nil {
		t.Fatal(err)
	}
	id := d.Add(&drive.File{Name: "a.md", MimeType: "text/markdown"}, []byte("A"))
	if _, err := svc.Files.Update(id, &drive.File{Name: "b.md"}).AddParents("x").RemoveParents("root").Do(); err != nil {
		t.Fatal(err)
	}
	changes, err := svc.Changes.List(start.StartPageToken).Do()
	if err != nil || len(changes.Changes) != 2 || changes.Changes[1].File == nil || changes.Changes[1].File.Name != "b.md" || !slices.Equal(changes.Changes[1].File.Parents, []string{"x"}) {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	d.Delete(id)
	changes, err = svc.Changes.List(changes.NewStartPageToken).Do()
	if err != nil || len(changes.Changes) != 1 || !changes.Changes[0].Removed || changes.Changes[0].FileId != id {
		t.Errorf("after a delete: %+v, %v", changes, err)
	}
	if _, err := svc.Changes.List("bogus").Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Errorf("an expired page token: %v", err)
	}
}

func TestGmailRecordsAndPages(t *testing.T) {
	t.Parallel()
	g := NewGmail(t)
	for _, id := range []string{"m1", "m2", "m3"} {
		g.Messages[id] = &gmail.Message{Id: id, ThreadId: "t"}
		g.Order = append(g.Order, id)
	}
	svc, err := gmail.NewService(t.Context(), option.WithHTTPClient(Client()), option.WithEndpoint(g.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Users.Messages.List("me").Q("in:inbox").MaxResults(2).Do()
	if err != nil || len(res.Messages) != 2 || res.NextPageToken != "p2" || res.ResultSizeEstimate != 3 {
		t.Fatalf("page 1 %+v, %v", res, err)
	}
	if res, err = svc.Users.Messages.List("me").PageToken(res.NextPageToken).Do(); err != nil || len(res.Messages) != 1 || res.NextPageToken != "" {
		t.Errorf("page 2 %+v, %v", res, err)
	}
	if _, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: "eA"}).Do(); err != nil || len(g.Sent) != 1 || g.Sent[0].Raw != "eA" {
		t.Errorf("send: %v, sent %+v", err, g.Sent)
	}
	if calls := g.Calls("GET", "/messages"); len(calls) != 2 || calls[0].Query.Get("q") != "in:inbox" {
		t.Errorf("recorded lists %+v", calls)
	}
}
