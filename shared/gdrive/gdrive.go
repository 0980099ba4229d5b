// Package gdrive is the part of the Google Drive API v3 that the drive server and the notes
// sync call: files, permissions and changes as small typed structs, sent through the REST
// core of googleserver (no generated client, so no gRPC or protobuf in the binaries).
//
// Parameters go as url.Values named as the API names them (fields, q, pageSize,
// supportsAllDrives, …); ids are escaped here.
package gdrive

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// API is the REST core gdrive calls; *googleserver.Account is one.
type API interface {
	// Do sends one JSON request to a path relative to the Drive endpoint.
	Do(ctx context.Context, method, path string, query url.Values, in, out any) error
	// Upload sends metadata and content in one multipart request to an absolute upload path.
	Upload(ctx context.Context, method, path string, query url.Values, meta any, content []byte, contentType string, out any) error
	// UploadResumable sends metadata, then content in one PUT to the session it opens.
	UploadResumable(ctx context.Context, method, path string, query url.Values, meta any, content []byte, contentType string, out any) error
	// Download starts a GET whose answer is content; the caller closes the body.
	Download(ctx context.Context, path string, query url.Values) (*http.Response, error)
}

// Client calls the Drive API through an API.
type Client struct{ api API }

// New wraps the REST core api, whose endpoint is Drive's (https://www.googleapis.com/drive/v3/).
func New(api API) *Client { return &Client{api: api} }

// Folder is the MIME type of a Drive folder.
const Folder = "application/vnd.google-apps.folder"

// uploadPath is where files with content go; relative paths go to the Drive endpoint.
const uploadPath = "/upload/drive/v3/files"

// ResumableFrom is the content size from which uploads are resumable rather than one
// multipart request (Google advises resumable above 5 MB).
const ResumableFrom = 8 << 20

// upload sends content with metadata, in one multipart request when small.
func (c *Client) upload(ctx context.Context, method, path string, params url.Values, meta any, data []byte, mimeType string, out any) error {
	if len(data) >= ResumableFrom {
		return c.api.UploadResumable(ctx, method, path, params, meta, data, mimeType, out)
	}
	return c.api.Upload(ctx, method, path, params, meta, data, mimeType, out)
}

// File is a Drive file's metadata, the fields the servers read or write. In requests, zero
// fields are left out, as the generated client leaves them out.
type File struct {
	ID            string            `json:"id,omitempty"`
	Name          string            `json:"name,omitempty"`
	MimeType      string            `json:"mimeType,omitempty"`
	Description   string            `json:"description,omitempty"`
	Size          int64             `json:"size,omitempty,string"`
	MD5Checksum   string            `json:"md5Checksum,omitempty"`
	CreatedTime   string            `json:"createdTime,omitempty"`
	ModifiedTime  string            `json:"modifiedTime,omitempty"`
	Parents       []string          `json:"parents,omitempty"`
	DriveID       string            `json:"driveId,omitempty"`
	WebViewLink   string            `json:"webViewLink,omitempty"`
	Trashed       bool              `json:"trashed,omitempty"`
	Shared        bool              `json:"shared,omitempty"`
	Starred       bool              `json:"starred,omitempty"`
	AppProperties map[string]string `json:"appProperties,omitempty"`
	Owners        []User            `json:"owners,omitempty"`
	Capabilities  *Capabilities     `json:"capabilities,omitempty"`
}

// User is a file's owner or a comment's author.
type User struct {
	DisplayName  string `json:"displayName,omitempty"`
	EmailAddress string `json:"emailAddress,omitempty"`
	Me           bool   `json:"me,omitempty"`
}

// Capabilities are what the signed-in account may do with a file.
type Capabilities struct {
	CanEdit    bool `json:"canEdit,omitempty"`
	CanShare   bool `json:"canShare,omitempty"`
	CanComment bool `json:"canComment,omitempty"`
}

// FileList is one page of files.list.
type FileList struct {
	Files         []File `json:"files"`
	NextPageToken string `json:"nextPageToken,omitempty"`
}

// Permission is one grant of access to a file.
type Permission struct {
	ID                 string             `json:"id,omitempty"`
	Type               string             `json:"type,omitempty"`
	Role               string             `json:"role,omitempty"`
	EmailAddress       string             `json:"emailAddress,omitempty"`
	Domain             string             `json:"domain,omitempty"`
	DisplayName        string             `json:"displayName,omitempty"`
	AllowFileDiscovery bool               `json:"allowFileDiscovery,omitempty"`
	Deleted            bool               `json:"deleted,omitempty"`
	PermissionDetails  []PermissionDetail `json:"permissionDetails,omitempty"`
}

// PermissionDetail says where a shared-drive permission comes from.
type PermissionDetail struct {
	Inherited     bool   `json:"inherited,omitempty"`
	InheritedFrom string `json:"inheritedFrom,omitempty"`
}

// Change is one entry of changes.list.
type Change struct {
	FileID  string `json:"fileId,omitempty"`
	Removed bool   `json:"removed,omitempty"`
	File    *File  `json:"file,omitempty"`
}

// ChangeList is one page of changes.list: NextPageToken while more pages follow, then
// NewStartPageToken for the next call.
type ChangeList struct {
	Changes           []Change `json:"changes"`
	NextPageToken     string   `json:"nextPageToken,omitempty"`
	NewStartPageToken string   `json:"newStartPageToken,omitempty"`
}

// with copies params and sets the pairs kv (key, value, key, value, …) in the copy.
func with(params url.Values, kv ...string) url.Values {
	q := url.Values{}
	for k, v := range params {
		q[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

func filePath(id string) string { return "files/" + url.PathEscape(id) }

// List reads one page of files.list.
func (c *Client) List(ctx context.Context, params url.Values) (*FileList, error) {
	var out FileList
	if err := c.api.Do(ctx, http.MethodGet, "files", params, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAll reads every page of files.list, handing each page's files to fn. Ask for
// nextPageToken in fields.
func (c *Client) ListAll(ctx context.Context, params url.Values, fn func([]File) error) error {
	token := ""
	for {
		q := params
		if token != "" {
			q = with(params, "pageToken", token)
		}
		page, err := c.List(ctx, q)
		if err != nil {
			return err
		}
		if err := fn(page.Files); err != nil {
			return err
		}
		if page.NextPageToken == "" || page.NextPageToken == token {
			return nil
		}
		token = page.NextPageToken
	}
}

// Get reads a file's metadata.
func (c *Client) Get(ctx context.Context, id string, params url.Values) (*File, error) {
	var out File
	if err := c.api.Do(ctx, http.MethodGet, filePath(id), params, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Create makes a file without content (a folder, an empty Google file).
func (c *Client) Create(ctx context.Context, meta *File, params url.Values) (*File, error) {
	var out File
	if err := c.api.Do(ctx, http.MethodPost, "files", params, meta, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Upload makes a file with meta and content data of type mimeType (resumable from
// ResumableFrom bytes).
func (c *Client) Upload(ctx context.Context, meta *File, data []byte, mimeType string, params url.Values) (*File, error) {
	var out File
	if err := c.upload(ctx, http.MethodPost, uploadPath, params, meta, data, mimeType, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Update changes a file's metadata: patch is a *File or any struct with the API's field names
// (to send a false or empty value, use a struct without omitempty). Moves go in params as
// addParents and removeParents.
func (c *Client) Update(ctx context.Context, id string, patch any, params url.Values) (*File, error) {
	var out File
	if patch == nil {
		patch = struct{}{}
	}
	if err := c.api.Do(ctx, http.MethodPatch, filePath(id), params, patch, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateContent replaces a file's content with data of type mimeType (Drive keeps the
// earlier revision), and its metadata with patch when not nil.
func (c *Client) UpdateContent(ctx context.Context, id string, patch any, data []byte, mimeType string, params url.Values) (*File, error) {
	var out File
	if patch == nil {
		patch = struct{}{}
	}
	if err := c.upload(ctx, http.MethodPatch, uploadPath+"/"+url.PathEscape(id), params, patch, data, mimeType, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Copy copies a file; meta names the copy and may set its type (a conversion), parents and
// app properties.
func (c *Client) Copy(ctx context.Context, id string, meta *File, params url.Values) (*File, error) {
	var out File
	if meta == nil {
		meta = &File{}
	}
	if err := c.api.Do(ctx, http.MethodPost, filePath(id)+"/copy", params, meta, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes a file for good, skipping the trash.
func (c *Client) Delete(ctx context.Context, id string, params url.Values) error {
	return c.api.Do(ctx, http.MethodDelete, filePath(id), params, nil, nil)
}

// Media starts downloading a stored file's content; the caller closes the body.
func (c *Client) Media(ctx context.Context, id string, params url.Values) (*http.Response, error) {
	return c.api.Download(ctx, filePath(id), with(params, "alt", "media"))
}

// Export starts downloading a Google file converted to mimeType; the caller closes the body.
func (c *Client) Export(ctx context.Context, id, mimeType string) (*http.Response, error) {
	return c.api.Download(ctx, filePath(id)+"/export", url.Values{"mimeType": {mimeType}, "alt": {"media"}})
}

// StartPageToken is the changes token for changes from now on.
func (c *Client) StartPageToken(ctx context.Context, params url.Values) (string, error) {
	var out struct {
		StartPageToken string `json:"startPageToken"`
	}
	if err := c.api.Do(ctx, http.MethodGet, "changes/startPageToken", params, nil, &out); err != nil {
		return "", err
	}
	if out.StartPageToken == "" {
		return "", fmt.Errorf("drive answered no startPageToken")
	}
	return out.StartPageToken, nil
}

// Changes reads one page of changes from token.
func (c *Client) Changes(ctx context.Context, token string, params url.Values) (*ChangeList, error) {
	var out ChangeList
	if err := c.api.Do(ctx, http.MethodGet, "changes", with(params, "pageToken", token), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Permissions lists every permission on a file, following pages.
func (c *Client) Permissions(ctx context.Context, id string, params url.Values) ([]Permission, error) {
	var all []Permission
	token := ""
	for {
		q := params
		if token != "" {
			q = with(params, "pageToken", token)
		}
		var page struct {
			Permissions   []Permission `json:"permissions"`
			NextPageToken string       `json:"nextPageToken"`
		}
		if err := c.api.Do(ctx, http.MethodGet, filePath(id)+"/permissions", q, nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Permissions...)
		if page.NextPageToken == "" || page.NextPageToken == token {
			return all, nil
		}
		token = page.NextPageToken
	}
}

// CreatePermission grants p on a file (sendNotificationEmail and emailMessage go in params).
func (c *Client) CreatePermission(ctx context.Context, id string, p *Permission, params url.Values) (*Permission, error) {
	var out Permission
	if err := c.api.Do(ctx, http.MethodPost, filePath(id)+"/permissions", params, p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeletePermission removes a permission from a file.
func (c *Client) DeletePermission(ctx context.Context, id, permissionID string, params url.Values) error {
	return c.api.Do(ctx, http.MethodDelete, filePath(id)+"/permissions/"+url.PathEscape(permissionID), params, nil, nil)
}
