package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/jck411/mcp-servers/shared/toolsnaps"
	"github.com/jck411/mcp-servers/shared/xlsx"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func start(t *testing.T, extra ...string) (*googlefake.Drive, *mcp.ClientSession) {
	f := newFakeDrive(t)
	h := mcptest.Start(t, spec(), append(signIn(t, f), extra...)...)
	return f, h.Connect(t, "")
}

func ids(fs []fileInfo) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestBuildQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, kind string
		trashed  bool
		want     string
		fullText bool
	}{
		{"budget 2026", "", false, "fullText contains 'budget 2026' and trashed = false", true},
		{"don't panic", "", false, `fullText contains 'don\'t panic' and trashed = false`, true},
		{"name contains 'plan'", "", false, "(name contains 'plan') and trashed = false", false},
		{"modifiedTime > '2026-01-01T00:00:00'", "doc", false, "(modifiedTime > '2026-01-01T00:00:00') and mimeType = 'application/vnd.google-apps.document' and trashed = false", false},
		{"'abc' in parents", "", true, "('abc' in parents)", false},
		{"trashed = true", "", false, "(trashed = true)", false},
		{"fullText contains 'x' and starred = true", "", false, "(fullText contains 'x' and starred = true) and trashed = false", true},
		{"", "folder", false, "mimeType = 'application/vnd.google-apps.folder' and trashed = false", false},
	}
	for _, tt := range tests {
		got, ft := buildQuery(tt.in, tt.kind, tt.trashed)
		if got != tt.want || ft != tt.fullText {
			t.Errorf("buildQuery(%q, %q) = %q, %v; want %q, %v", tt.in, tt.kind, got, ft, tt.want, tt.fullText)
		}
	}
}

func TestSearchAndPaging(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	out, _ := mcptest.CallFor[filesOutput](t, cs, "search_files", map[string]any{"query": "roadmap"})
	if !slices.Equal(ids(out.Files), []string{"shared1"}) || out.Files[0].DriveID != sharedDrive {
		t.Errorf("shared-drive search %+v", out)
	}
	list := f.Calls("GET", "/drive/v3/files")[0]
	if list.Query.Get("q") != "fullText contains 'roadmap' and trashed = false" || list.Query.Get("orderBy") != "" {
		t.Errorf("full-text query %v", list.Query)
	}
	// Raw syntax passes through and is ordered; trashed files stay out unless asked.
	var seen []string
	args := map[string]any{"query": "modifiedTime > '2020-01-01T00:00:00'", "page_size": 3}
	for range 10 {
		page, res := mcptest.CallFor[filesOutput](t, cs, "search_files", args)
		seen = append(seen, ids(page.Files)...)
		if page.NextPageToken == "" {
			break
		}
		if !strings.Contains(mcptest.Text(res), "page_token="+page.NextPageToken) {
			t.Errorf("no paging marker: %s", mcptest.Text(res))
		}
		args["page_token"] = page.NextPageToken
	}
	if len(seen) != 8 || slices.Contains(seen, "old1") {
		t.Errorf("paged %v", seen)
	}
	if q := f.Calls("GET", "/drive/v3/files")[1].Query; q.Get("orderBy") != "modifiedTime desc" || q.Get("q") != "(modifiedTime > '2020-01-01T00:00:00') and trashed = false" {
		t.Errorf("raw query %v", q)
	}
	out, _ = mcptest.CallFor[filesOutput](t, cs, "search_files", map[string]any{"query": "old", "include_trashed": true})
	if !slices.Equal(ids(out.Files), []string{"old1"}) || !out.Files[0].Trashed {
		t.Errorf("trashed search %+v", out)
	}
	folder, _ := mcptest.CallFor[filesOutput](t, cs, "list_folder", map[string]any{"folder_id": sharedDrive})
	if !slices.Equal(ids(folder.Files), []string{"shared1"}) {
		t.Errorf("shared drive listing %+v", folder)
	}
	info, _ := mcptest.CallFor[fileOutput](t, cs, "get_file_info", map[string]any{"file_id": "shared1"})
	if info.DriveID != sharedDrive || info.Name != "Roadmap (shared drive)" || !info.CanEdit {
		t.Errorf("shared file info %+v", info)
	}
	if msg := mcptest.CallError(t, cs, "get_file_info", map[string]any{"file_id": "nope"}); msg != "file nope not found" {
		t.Errorf("missing: %q", msg)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	doc, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "doc1"})
	if doc.Format != "markdown" || doc.Content != markdownDoc || doc.Truncated {
		t.Errorf("doc %+v", doc)
	}
	if e := f.Calls("GET", "/files/doc1/export"); len(e) != 1 || e[0].Query.Get("mimeType") != "text/markdown" {
		t.Errorf("doc export %+v", e)
	}
	sheet, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "sheet1"})
	want := "Item,Amount,Date,\n\"Coffee, \"\"good\"\"\",12.5,2026-03-05,\n,,,\nTotal,12.5,,TRUE\n"
	if sheet.Format != "csv" || sheet.Content != want || !slices.Equal(sheet.Sheets, []string{"Q1", "Q2 Plan"}) || sheet.Sheet != "Q1" {
		t.Errorf("sheet %q %+v", sheet.Content, sheet)
	}
	if e := f.Calls("GET", "/files/sheet1/export"); e[0].Query.Get("mimeType") != xlsx.MIME {
		t.Errorf("sheet export %v", e[0].Query)
	}
	sheet, _ = mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "sheet1", "sheet": "q2 plan"})
	if sheet.Content != "Hire,2\n" || sheet.Sheet != "Q2 Plan" {
		t.Errorf("second sheet %+v", sheet)
	}
	if msg := mcptest.CallError(t, cs, "read_file", map[string]any{"file_id": "sheet1", "sheet": "Q3"}); !strings.Contains(msg, `"Q1", "Q2 Plan"`) {
		t.Errorf("unknown sheet: %s", msg)
	}
	slides, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "slides1"})
	if slides.Content != "Kick-off\n\nAgenda\n- Scope\n- Dates\n" || slides.Format != "text" {
		t.Errorf("slides %+v", slides)
	}
	text, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "notes1"})
	if text.Content != "line one\nline two — ünïcode\n" {
		t.Errorf("text %+v", text)
	}
	// PDF: read_file writes nothing; it names the tool that converts a temporary copy.
	pdf, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "pdf1"})
	if pdf.Content != "" || !strings.Contains(pdf.Note, "extract_file_text") || len(f.Calls("POST", "/copy")) != 0 {
		t.Errorf("pdf %+v", pdf)
	}
	img, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "img1"})
	if img.Content != "" || !strings.Contains(img.Note, "download_file") || img.File.Name != "photo.png" {
		t.Errorf("image %+v", img)
	}
	// Paging by characters, with a marker naming the next offset.
	p1, res := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "notes1", "max_chars": 12})
	if p1.Content != "line one\nlin" || !p1.Truncated || p1.Total != 28 || !strings.Contains(mcptest.Text(res), "call read_file with file_id=notes1 offset=12]") {
		t.Errorf("page 1 %+v\n%s", p1, mcptest.Text(res))
	}
	p2, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "notes1", "offset": 12})
	if p2.Content != "e two — ünïcode\n" || p2.Truncated {
		t.Errorf("page 2 %+v", p2)
	}
	shared, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "shared1"})
	if shared.Content != "# Roadmap\n" {
		t.Errorf("shared-drive read %+v", shared)
	}
}

func TestDownload(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	out, _ := mcptest.CallFor[downloadOutput](t, cs, "download_file", map[string]any{"file_id": "doc1"})
	data, err := os.ReadFile(out.Path)
	if err != nil || string(data) != "%PDF-1.7 exported" || filepath.Base(out.Path) != "doc1-Project plan.pdf" || out.MimeType != "application/pdf" {
		t.Errorf("export download %+v: %v", out, err)
	}
	st, _ := os.Stat(out.Path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	out, _ = mcptest.CallFor[downloadOutput](t, cs, "download_file", map[string]any{"file_id": "img1"})
	if data, _ := os.ReadFile(out.Path); string(data) != "\x89PNG\r\n" || out.Size != 6 {
		t.Errorf("media download %+v", out)
	}
	mcptest.CallError(t, cs, "download_file", map[string]any{"file_id": "doc1", "format": "exe"})
	mcptest.CallError(t, cs, "download_file", map[string]any{"file_id": "folder1"})
	_, cs2 := start(t, "--max-file-bytes", "1024")
	if msg := mcptest.CallError(t, cs2, "download_file", map[string]any{"file_id": "sheet1"}); !strings.Contains(msg, "1024-byte limit") {
		t.Errorf("cap: %s", msg)
	}
}

func TestUploadAndCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "plan.md"), []byte("# Plan\n\n- one\n"), 0o600)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	_ = os.WriteFile(outside, []byte("secret"), 0o600)
	_ = os.Symlink(outside, filepath.Join(dir, "link.txt"))
	f, cs := start(t, "--uploads-dir", dir)

	out, _ := mcptest.CallFor[fileOutput](t, cs, "upload_file", map[string]any{"path": "plan.md", "folder_id": "folder1", "convert": true})
	up := f.Calls("POST", "/upload/drive/v3/files")
	if len(up) != 1 || up[0].Query.Get("uploadType") != "multipart" || !strings.HasPrefix(up[0].ContentType, "multipart/related") {
		t.Fatalf("upload request %+v", up)
	}
	if up[0].Body["name"] != "plan" || up[0].Body["mimeType"] != mimeDoc || up[0].Body["parents"].([]any)[0] != "folder1" || up[0].MediaType != "text/markdown" || string(up[0].Media) != "# Plan\n\n- one\n" {
		t.Errorf("multipart parts %+v", up[0])
	}
	if out.Kind != "doc" || out.Name != "plan" {
		t.Errorf("uploaded %+v", out)
	}
	_, _ = mcptest.CallFor[fileOutput](t, cs, "upload_file", map[string]any{"content_base64": base64.StdEncoding.EncodeToString([]byte{0, 1, 2}), "name": "blob.bin"})
	if up := f.Calls("POST", "/upload/drive/v3/files")[1]; up.MediaType != "application/octet-stream" || string(up.Media) != "\x00\x01\x02" || up.Body["mimeType"] != nil {
		t.Errorf("base64 upload %+v", up)
	}
	for _, p := range []string{"../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", outside, "link.txt"} {
		if msg := mcptest.CallError(t, cs, "upload_file", map[string]any{"path": p}); !strings.Contains(msg, "uploads folder") {
			t.Errorf("escape %s: %s", p, msg)
		}
	}
	created, _ := mcptest.CallFor[fileOutput](t, cs, "create_file", map[string]any{"name": "todo.md", "content": "- [ ] ship"})
	c := f.Calls("POST", "/upload/drive/v3/files")[2]
	if c.MediaType != "text/markdown" || c.Body["name"] != "todo.md" || c.Body["mimeType"] != nil || created.Name != "todo.md" {
		t.Errorf("create_file %+v", c)
	}
	_, _ = mcptest.CallFor[fileOutput](t, cs, "update_file_content", map[string]any{"file_id": "notes1", "content": "new text"})
	u := f.Calls("PATCH", "/upload/drive/v3/files/notes1")
	if len(u) != 1 || string(u[0].Media) != "new text" || u[0].MediaType != "text/plain" {
		t.Errorf("update content %+v", u)
	}
	_, _ = mcptest.CallFor[fileOutput](t, cs, "update_file_content", map[string]any{"file_id": "doc1", "content": "# New"})
	if u := f.Calls("PATCH", "/upload/drive/v3/files/doc1"); len(u) != 1 || u[0].MediaType != "text/markdown" {
		t.Errorf("doc update %+v", u)
	}
	mcptest.CallError(t, cs, "update_file_content", map[string]any{"file_id": "notes1", "content": "a", "content_base64": "Yg=="})
}

func TestOrganise(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	folder, _ := mcptest.CallFor[fileOutput](t, cs, "create_folder", map[string]any{"name": "Reports", "parent_id": sharedDrive})
	if b := f.Calls("POST", "/drive/v3/files")[0].Body; b["mimeType"] != mimeFolder || b["parents"].([]any)[0] != sharedDrive || folder.Kind != "folder" {
		t.Errorf("folder %+v", b)
	}
	moved, _ := mcptest.CallFor[fileOutput](t, cs, "move_file", map[string]any{"file_id": "notes1", "folder_id": "folder1"})
	m := f.Calls("PATCH", "/drive/v3/files/notes1")[0]
	if m.Query.Get("addParents") != "folder1" || m.Query.Get("removeParents") != "root" || !slices.Equal(moved.Parents, []string{"folder1"}) {
		t.Errorf("move %+v", m)
	}
	renamed, _ := mcptest.CallFor[fileOutput](t, cs, "move_file", map[string]any{"file_id": "shared1", "new_name": "Roadmap 2026"})
	if renamed.Name != "Roadmap 2026" {
		t.Errorf("rename %+v", renamed)
	}
	both, _ := mcptest.CallFor[fileOutput](t, cs, "move_file", map[string]any{"file_id": "notes1", "folder_id": "root", "new_name": "Notes (old)"})
	if both.Name != "Notes (old)" || !slices.Equal(both.Parents, []string{"root"}) {
		t.Errorf("move and rename %+v", both)
	}
	if msg := mcptest.CallError(t, cs, "move_file", map[string]any{"file_id": "notes1"}); msg != "give folder_id (where to move it), new_name, or both" {
		t.Errorf("move_file without a change: %q", msg)
	}
	cp, _ := mcptest.CallFor[fileOutput](t, cs, "copy_file", map[string]any{"file_id": "doc1", "name": "Plan v2"})
	if cp.Name != "Plan v2" || cp.ID == "doc1" {
		t.Errorf("copy %+v", cp)
	}
	tr, _ := mcptest.CallFor[fileOutput](t, cs, "trash_file", map[string]any{"file_id": "img1"})
	if !tr.Trashed || f.Calls("PATCH", "/drive/v3/files/img1")[0].Body["trashed"] != true {
		t.Errorf("trash %+v", tr)
	}
	rs, _ := mcptest.CallFor[fileOutput](t, cs, "trash_file", map[string]any{"file_id": "img1", "restore": true})
	if rs.Trashed || f.Calls("PATCH", "/drive/v3/files/img1")[1].Body["trashed"] != false {
		t.Errorf("restore %+v", rs)
	}
}

func TestSharing(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	out, _ := mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "carol@example.com", "role": "commenter", "message": "have a look"})
	c := f.Calls("POST", "/files/doc1/permissions")[0]
	if c.Body["emailAddress"] != "carol@example.com" || c.Body["role"] != "commenter" || c.Query.Get("sendNotificationEmail") != "true" || c.Query.Get("emailMessage") != "have a look" || out.Permission.Role != "commenter" {
		t.Errorf("share %+v", c)
	}
	_, _ = mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "shared1", "type": "domain", "domain": "example.com", "role": "reader"})
	if c := f.Calls("POST", "/files/shared1/permissions")[0]; c.Body["domain"] != "example.com" || c.Query.Get("supportsAllDrives") != "true" {
		t.Errorf("domain share %+v", c)
	}
	if msg := mcptest.CallError(t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "anyone", "role": "reader"}); !strings.Contains(msg, "--allow-public-sharing") {
		t.Errorf("public: %s", msg)
	}
	if n := len(f.Calls("POST", "/files/doc1/permissions")); n != 1 {
		t.Errorf("public share reached Drive: %d calls", n)
	}
	mcptest.CallError(t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "x@example.com", "role": "owner"})
	perms, _ := mcptest.CallFor[listPermissionsOutput](t, cs, "list_permissions", map[string]any{"file_id": "doc1"})
	if len(perms.Permissions) != 3 || perms.Permissions[1].Email != "bob@example.com" {
		t.Errorf("permissions %+v", perms)
	}
	rm, _ := mcptest.CallFor[permissionOutput](t, cs, "remove_permission", map[string]any{"file_id": "doc1", "email": "BOB@example.com"})
	if rm.Permission.ID != "p-bob" || len(f.Calls("DELETE", "/files/doc1/permissions/p-bob")) != 1 {
		t.Errorf("remove %+v", rm)
	}
	if msg := mcptest.CallError(t, cs, "remove_permission", map[string]any{"file_id": "doc1", "permission_id": "p-owner"}); !strings.Contains(msg, "owner") {
		t.Errorf("owner removal: %s", msg)
	}
	// With the flag, public sharing works.
	f2, cs2 := start(t, "--allow-public-sharing")
	pub, _ := mcptest.CallFor[permissionOutput](t, cs2, "share_file", map[string]any{"file_id": "doc1", "type": "anyone", "role": "reader"})
	if c := f2.Calls("POST", "/files/doc1/permissions"); len(c) != 1 || c[0].Body["type"] != "anyone" || c[0].Query.Has("sendNotificationEmail") || pub.Permission.Type != "anyone" {
		t.Errorf("public share %+v", c)
	}
}

func TestReadOnlyAndSignIn(t *testing.T) {
	t.Parallel()
	f := newFakeDrive(t)
	h := mcptest.Start(t, spec(), append(signIn(t, f, "https://www.googleapis.com/auth/drive.readonly"), "--read-only")...)
	cs := h.Connect(t, "")
	names := googletest.ReadOnlyTools(t, cs)
	if !slices.Equal(names, []string{"download_file", "get_file_info", "get_share_link", "list_comments", "list_folder", "list_permissions", "list_shared_drives", "read_file", "read_sheet_range", "search_files"}) {
		t.Errorf("read-only tools %v", names)
	}
	// A PDF needs a temporary copy, which read-only cannot make: metadata and a note.
	out, _ := mcptest.CallFor[readOutput](t, cs, "read_file", map[string]any{"file_id": "pdf1"})
	if out.Content != "" || !strings.Contains(out.Note, "--read-only") || len(f.Calls("POST", "/copy")) != 0 {
		t.Errorf("read-only pdf %+v", out)
	}
	h = mcptest.Start(t, spec(), googletest.SignedOut(t)...)
	googletest.CheckSignedOut(t, h, "drive", map[string]map[string]any{"search_files": {"query": "x"}, "list_folder": nil})
}

func TestAllToolsAnnotated(t *testing.T) {
	t.Parallel()
	_, cs := start(t)
	googletest.CheckOpenWorld(t, cs, 27)
}

// TestToolSnaps holds every tool's definition to testdata/toolsnaps (make toolsnaps updates it).
func TestToolSnaps(t *testing.T) {
	toolsnaps.Test(t, spec, toolsnaps.Options{Args: []string{"--state-dir", t.TempDir()}})
}

// TestReadOnly: --read-only offers exactly the readOnlyHint tools and refuses the others.
func TestReadOnly(t *testing.T) {
	mcptest.CheckReadOnly(t, spec, "--state-dir", t.TempDir())
}
