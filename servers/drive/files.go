package main

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Google-native MIME types.
const (
	mimeFolder = "application/vnd.google-apps.folder"
	mimeDoc    = "application/vnd.google-apps.document"
	mimeSheet  = "application/vnd.google-apps.spreadsheet"
	mimeSlides = "application/vnd.google-apps.presentation"
	mimePDF    = "application/pdf"
)

// fileFields are the metadata fields every tool asks for.
const fileFields = "id,name,mimeType,size,modifiedTime,createdTime,parents,driveId,webViewLink,trashed,shared,starred,description,owners(emailAddress),capabilities(canEdit,canShare)"

var kinds = map[string]string{
	mimeFolder: "folder", mimeDoc: "doc", mimeSheet: "sheet", mimeSlides: "slides", mimePDF: "pdf",
	"application/vnd.google-apps.drawing": "drawing", "application/vnd.google-apps.form": "form", "application/vnd.google-apps.shortcut": "shortcut",
}

// fileInfo is a file as the model sees it.
type fileInfo struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	MimeType string   `json:"mime_type"`
	Kind     string   `json:"kind"`
	Size     int64    `json:"size,omitempty"`
	Modified string   `json:"modified,omitempty"`
	Parents  []string `json:"parents,omitempty"`
	DriveID  string   `json:"drive_id,omitempty"` // set for files in a shared drive
	Owners   []string `json:"owners,omitempty"`
	Link     string   `json:"link,omitempty"`
	Trashed  bool     `json:"trashed,omitempty"`
	Shared   bool     `json:"shared,omitempty"`
	CanEdit  bool     `json:"can_edit,omitempty"`
}

func kindOf(mime string) string {
	if k, ok := kinds[mime]; ok {
		return k
	}
	switch {
	case strings.HasPrefix(mime, "application/vnd.google-apps."):
		return strings.TrimPrefix(mime, "application/vnd.google-apps.")
	case strings.HasPrefix(mime, "text/"):
		return "text"
	case strings.HasPrefix(mime, "image/"):
		return "image"
	}
	return "file"
}

func toInfo(f *gdrive.File) fileInfo {
	info := fileInfo{ID: f.Id, Name: f.Name, MimeType: f.MimeType, Kind: kindOf(f.MimeType), Size: f.Size, Modified: f.ModifiedTime,
		Parents: f.Parents, DriveID: f.DriveId, Link: f.WebViewLink, Trashed: f.Trashed, Shared: f.Shared}
	for _, o := range f.Owners {
		info.Owners = append(info.Owners, o.EmailAddress)
	}
	if f.Capabilities != nil {
		info.CanEdit = f.Capabilities.CanEdit
	}
	return info
}

func (f fileInfo) line() string {
	s := fmt.Sprintf("%s (%s, id %s", f.Name, f.Kind, f.ID)
	if f.Size > 0 {
		s += fmt.Sprintf(", %d bytes", f.Size)
	}
	if f.Modified != "" {
		s += ", modified " + f.Modified
	}
	if f.DriveID != "" {
		s += ", shared drive " + f.DriveID
	}
	if f.Trashed {
		s += ", in trash"
	}
	return s + ")"
}

type searchInput struct {
	Query          string `json:"query,omitempty" jsonschema:"words, or Drive query syntax, e.g. name contains 'budget'"`
	Kind           string `json:"kind,omitempty" jsonschema:"only files of this kind" schema:"enum=folder|doc|sheet|slides|pdf"`
	IncludeTrashed bool   `json:"include_trashed,omitempty" schema:"bare=true"`
	PageSize       int    `json:"page_size,omitempty" jsonschema:"files per page" schema:"minimum=1,maximum=1000,default=25"`
	PageToken      string `json:"page_token,omitempty" jsonschema:"next_page_token of the previous call"`
}

type listFolderInput struct {
	FolderID  string `json:"folder_id,omitempty" jsonschema:"folder id or a shared drive id; root is My Drive" schema:"default=root"`
	PageSize  int    `json:"page_size,omitempty" jsonschema:"files per page" schema:"minimum=1,maximum=1000,default=50"`
	PageToken string `json:"page_token,omitempty" jsonschema:"next_page_token of the previous call"`
}

type fileIDInput struct {
	FileID string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
}

type filesOutput struct {
	Files         []fileInfo `json:"files"`
	Query         string     `json:"query"`
	NextPageToken string     `json:"next_page_token,omitempty"`
}

func (o filesOutput) Text() string {
	if len(o.Files) == 0 {
		return "No files (query: " + o.Query + ")."
	}
	var b strings.Builder
	for _, f := range o.Files {
		b.WriteString(f.line() + "\n")
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "[more files: call again with page_token=%s]", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

type fileOutput struct {
	fileInfo
	Description string `json:"description,omitempty"`
	Action      string `json:"action,omitempty"`
}

func (o fileOutput) Text() string {
	s := o.line()
	if o.Action != "" {
		s = o.Action + ": " + s
	}
	if o.Link != "" {
		s += "\n" + o.Link
	}
	return s
}

func addFindTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "search_files", Toolset: toolsetRead, Title: "Search Drive", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Search Drive files, shared drives included, by words or Drive query syntax."}, d.search)
	kit.AddTool(s, kit.Tool{Name: "list_folder", Toolset: toolsetRead, Title: "List a folder", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "List a Drive folder's contents, folders first."}, d.listFolder)
	kit.AddTool(s, kit.Tool{Name: "get_file_info", Toolset: toolsetRead, Title: "File info", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Metadata of a Drive file: name, type, size, owners, parents, link."}, d.getInfo)
}

// operators recognise Drive query syntax (an operator next to a quoted literal, or a
// comparison); anything else is a full-text search.
var operators = regexp.MustCompile(`(?i)(\b(contains|has)\s*'|'\s*in\s+(parents|owners|writers|readers)\b|[=<>]|\b(sharedWithMe|starred|trashed)\b\s*$)`)

// quote makes s a Drive query string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// buildQuery turns the user's words or query into Drive syntax; fullText reports a full-text
// search (which Drive cannot order).
func buildQuery(q, kind string, trashed bool) (query string, fullText bool) {
	q = strings.TrimSpace(q)
	var parts []string
	switch {
	case q == "":
	case operators.MatchString(q):
		parts = append(parts, "("+q+")")
		fullText = strings.Contains(strings.ToLower(q), "fulltext")
	default:
		parts = append(parts, "fullText contains "+quote(q))
		fullText = true
	}
	if kind != "" {
		for m, k := range kinds {
			if k == kind {
				parts = append(parts, "mimeType = "+quote(m))
			}
		}
	}
	if !trashed && !strings.Contains(strings.ToLower(q), "trashed") {
		parts = append(parts, "trashed = false")
	}
	return strings.Join(parts, " and "), fullText
}

func (d *drv) list(ctx context.Context, q string, size int64, token, order string) (filesOutput, error) {
	params := allDrives(url.Values{"q": {q}, "pageSize": {strconv.FormatInt(size, 10)}, "corpora": {"allDrives"}, "includeItemsFromAllDrives": {"true"},
		"fields": {"nextPageToken,files(" + fileFields + ")"}})
	if order != "" {
		params.Set("orderBy", order)
	}
	if token != "" {
		params.Set("pageToken", token)
	}
	res, err := d.svc.List(ctx, params)
	if err != nil {
		return filesOutput{}, d.fail(err, "folder or query")
	}
	out := filesOutput{Files: []fileInfo{}, Query: q, NextPageToken: res.NextPageToken}
	for i := range res.Files {
		out.Files = append(out.Files, toInfo(res.Files[i]))
	}
	return out, nil
}

func (d *drv) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, filesOutput, error) {
	q, fullText := buildQuery(in.Query, in.Kind, in.IncludeTrashed)
	order := "modifiedTime desc"
	if fullText {
		order = "" // Drive orders full-text hits by relevance and refuses orderBy
	}
	out, err := d.list(ctx, q, int64(in.PageSize), in.PageToken, order)
	return nil, out, err
}

func (d *drv) listFolder(ctx context.Context, _ *mcp.CallToolRequest, in listFolderInput) (*mcp.CallToolResult, filesOutput, error) {
	folder := in.FolderID
	if folder == "" {
		folder = "root"
	}
	out, err := d.list(ctx, quote(folder)+" in parents and trashed = false", int64(in.PageSize), in.PageToken, "folder,name")
	return nil, out, err
}

// allDrives adds supportsAllDrives=true, which every call sends so that shared-drive files
// are found.
func allDrives(params url.Values) url.Values {
	params.Set("supportsAllDrives", "true")
	return params
}

// withFields is supportsAllDrives=true and the fields selector.
func withFields(fields string) url.Values {
	return allDrives(url.Values{"fields": {fields}})
}

// get reads a file's metadata.
func (d *drv) get(ctx context.Context, id string) (*gdrive.File, error) {
	f, err := d.svc.Get(ctx, id, withFields(fileFields))
	if err != nil {
		return nil, d.fail(err, "file "+id)
	}
	return f, nil
}

func (d *drv) getInfo(ctx context.Context, _ *mcp.CallToolRequest, in fileIDInput) (*mcp.CallToolResult, fileOutput, error) {
	f, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, fileOutput{}, err
	}
	return nil, fileOutput{fileInfo: toInfo(f), Description: f.Description}, nil
}
