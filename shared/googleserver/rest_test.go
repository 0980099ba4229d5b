package googleserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/kit"
)

// restAccount is a signed-in account whose endpoint is api's URL plus base.
func restAccount(t *testing.T, api *httptest.Server, base string) *Account {
	t.Helper()
	var f Flags
	args := append(googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), "https://www.googleapis.com/auth/drive"),
		"--drive-endpoint", api.URL+base)
	cfg, err := config.Parse("drive", 9006, args, func(string) string { return "" }, io.Discard, func(fs *flag.FlagSet) { f.Register(fs, testProduct) })
	if err != nil {
		t.Fatal(err)
	}
	var acct *Account
	if _, err := kit.New(kit.Spec{Name: "drive", Port: 9006, Setup: func(s *kit.Server) error {
		acct, err = Open(s, &f, testProduct)
		return err
	}}, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return acct
}

func TestAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		body        string
		wantMsg     string
		wantReasons []string
	}{
		{"google json", 403, `{"error":{"code":403,"message":"The user has exceeded their Drive storage quota","errors":[{"domain":"usageLimits","reason":"storageQuotaExceeded"}],"status":"PERMISSION_DENIED"}}`,
			"The user has exceeded their Drive storage quota", []string{"storageQuotaExceeded", "PERMISSION_DENIED"}},
		{"status only", 404, `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND"}}`, "Requested entity was not found.", []string{"NOT_FOUND"}},
		{"not json", 502, "<html>bad gateway</html>", "<html>bad gateway</html>", nil},
		{"empty", 500, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
			err := checkResponse(resp)
			var ae *APIError
			if !errors.As(err, &ae) || ae.Code != tt.status || ae.Message != tt.wantMsg || strings.Join(ae.Reasons, ",") != strings.Join(tt.wantReasons, ",") {
				t.Fatalf("checkResponse = %#v, want code %d message %q reasons %v", err, tt.status, tt.wantMsg, tt.wantReasons)
			}
			if !IsStatus(err, tt.status) || IsStatus(err, 200) {
				t.Errorf("IsStatus(%d) wrong for %v", tt.status, err)
			}
			if len(tt.wantReasons) > 0 && (!ae.HasReason("x", tt.wantReasons[0]) || ae.HasReason("x")) {
				t.Errorf("HasReason wrong for %v", ae.Reasons)
			}
		})
	}
	if checkResponse(&http.Response{StatusCode: 204, Body: http.NoBody}) != nil {
		t.Error("204 is not an error")
	}
}

// TestREST: Do, Upload and Download reach the URLs the generated clients used, with the bodies
// Google expects, and decode the answers.
func TestREST(t *testing.T) {
	t.Parallel()
	type file struct {
		ID   string `json:"id,omitempty"`
		Name string `json:"name,omitempty"`
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("prettyPrint") != "false" || r.Header.Get("Authorization") != "Bearer live-token" {
			http.Error(w, "bad request line", 400)
			return
		}
		switch {
		case r.Method == "PATCH" && r.URL.Path == "/drive/v3/files/a%2Fb" || r.Method == "PATCH" && r.URL.RawPath == "/drive/v3/files/a%2Fb":
			var in file
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "bad body", 400)
				return
			}
			_ = json.NewEncoder(w).Encode(file{ID: "a/b", Name: in.Name + "!" + r.URL.Query().Get("fields")})
		case r.Method == "POST" && r.URL.Path == "/upload/drive/v3/files":
			mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if mt != "multipart/related" || r.URL.Query().Get("uploadType") != "multipart" {
				http.Error(w, "not multipart", 400)
				return
			}
			mr := multipart.NewReader(r.Body, params["boundary"])
			p1, _ := mr.NextPart()
			var meta file
			_ = json.NewDecoder(p1).Decode(&meta)
			p2, _ := mr.NextPart()
			data, _ := io.ReadAll(p2)
			_ = json.NewEncoder(w).Encode(file{ID: "new", Name: meta.Name + ":" + p2.Header.Get("Content-Type") + ":" + string(data)})
		case r.Method == "GET" && r.URL.Path == "/drive/v3/files/new" && r.URL.Query().Get("alt") == "media":
			_, _ = io.WriteString(w, "content")
		default:
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"error":{"code":404,"message":"File not found: x."}}`)
		}
	}))
	defer api.Close()
	acct := restAccount(t, api, "/drive/v3/")
	ctx := context.Background()

	var got file
	if err := acct.Do(ctx, "PATCH", "files/"+url.PathEscape("a/b"), url.Values{"fields": {"id,name"}}, file{Name: "n"}, &got); err != nil || got.Name != "n!id,name" {
		t.Errorf("Do = %+v, %v", got, err)
	}
	if err := acct.Upload(ctx, "POST", "/upload/drive/v3/files", nil, file{Name: "u"}, []byte("hello"), "text/plain", &got); err != nil || got.Name != "u:text/plain:hello" {
		t.Errorf("Upload = %+v, %v", got, err)
	}
	resp, err := acct.Download(ctx, "files/new", url.Values{"alt": {"media"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "content" {
		t.Errorf("Download = %q", b)
	}
	if resp, err = acct.Download(ctx, "files/none", nil); err == nil {
		resp.Body.Close()
		t.Error("Download of a missing file answered")
	}
	err2 := acct.Do(ctx, "GET", "files/none", nil, nil, nil)
	for _, e := range []error{err, err2} {
		if !IsStatus(e, 404) || !strings.Contains(acct.Fail(e, "file none").Error(), "file none not found") {
			t.Errorf("missing file: %v", e)
		}
	}
}

// TestUploadResumable: the metadata opens a session (with the content's type and length in
// X-Upload-Content-*), the content goes in one PUT to the session URL, and a session answer
// without Location is an error.
func TestUploadResumable(t *testing.T) {
	t.Parallel()
	var api *httptest.Server
	api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "PATCH" && r.URL.Path == "/upload/drive/v3/files/f1" && r.URL.Query().Get("uploadType") == "resumable":
			var meta struct{ Name string }
			if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || r.Header.Get("X-Upload-Content-Type") != "text/plain" || r.Header.Get("X-Upload-Content-Length") != "5" {
				http.Error(w, "bad session request", 400)
				return
			}
			if meta.Name == "no-session" {
				return
			}
			w.Header().Set("Location", api.URL+"/upload/drive/v3/files/f1?uploadType=resumable&upload_id=s1&name="+meta.Name)
		case r.Method == "PUT" && r.URL.Query().Get("upload_id") == "s1" && r.Header.Get("Authorization") == "Bearer live-token":
			data, _ := io.ReadAll(r.Body)
			_ = json.NewEncoder(w).Encode(map[string]string{"id": "f1", "name": r.URL.Query().Get("name") + ":" + r.Header.Get("Content-Type") + ":" + string(data)})
		default:
			http.Error(w, "unexpected "+r.Method+" "+r.URL.String(), 400)
		}
	}))
	defer api.Close()
	acct := restAccount(t, api, "/drive/v3/")
	var got struct{ ID, Name string }
	err := acct.UploadResumable(t.Context(), "PATCH", "/upload/drive/v3/files/f1", url.Values{"fields": {"id"}}, map[string]string{"name": "big"}, []byte("hello"), "text/plain", &got)
	if err != nil || got.ID != "f1" || got.Name != "big:text/plain:hello" {
		t.Errorf("UploadResumable = %+v, %v", got, err)
	}
	err = acct.UploadResumable(t.Context(), "PATCH", "/upload/drive/v3/files/f1", nil, map[string]string{"name": "no-session"}, []byte("hello"), "text/plain", nil)
	if err == nil || !strings.Contains(err.Error(), "no upload session") {
		t.Errorf("without Location: %v", err)
	}
}

// TestFor: an account for another API shares the sign-in, calls that API's endpoint and names
// it in errors.
func TestFor(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v4/spreadsheets/s1" && r.Header.Get("Authorization") == "Bearer live-token" {
			_, _ = io.WriteString(w, `{"spreadsheetId":"s1"}`)
			return
		}
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":{"code":400,"message":"Unable to parse range: X"}}`)
	}))
	defer api.Close()
	drive := restAccount(t, api, "/drive/v3/")
	sheets := drive.For(Product{Server: "drive", Name: "Google Sheets", EndpointFlag: "sheets-endpoint"})
	sheets.Endpoint = api.URL + "/"
	var got struct{ SpreadsheetID string }
	if err := sheets.Do(t.Context(), "GET", "v4/spreadsheets/s1", nil, nil, &got); err != nil || got.SpreadsheetID != "s1" {
		t.Errorf("Do = %+v, %v", got, err)
	}
	err := sheets.Do(t.Context(), "GET", "v4/spreadsheets/s2", nil, nil, nil)
	if msg := sheets.Fail(err, "spreadsheet s2").Error(); !strings.Contains(msg, "Google Sheets refused the request: Unable to parse range: X") {
		t.Errorf("Fail = %q", msg)
	}
	if drive.Endpoint != api.URL+"/drive/v3/" || drive.product.Name != "Google Drive" || sheets.set != drive.set || sheets.HTTP != drive.HTTP {
		t.Errorf("drive endpoint %q changed or sign-in not shared", drive.Endpoint)
	}
}
