// Package gdrive is the part of the Google Drive API v3 that the drive server and the notes
// sync call, through google.golang.org/api's generated drive/v3 client over the account's
// authorized HTTP client. Its types are the generated ones.
//
// Parameters go as url.Values named as the API names them (fields, q, pageSize,
// supportsAllDrives, …), sent with the call as googleapi.QueryParameter options.
package gdrive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/jck411/mcp-servers/shared/googleserver"
)

// The Drive types the servers use are the generated client's.
type (
	File             = drive.File
	FileList         = drive.FileList
	User             = drive.User
	Permission       = drive.Permission
	PermissionDetail = drive.PermissionPermissionDetails
	Change           = drive.Change
	ChangeList       = drive.ChangeList
	SharedDrive      = drive.Drive
	DriveList        = drive.DriveList
	Comment          = drive.Comment
	CommentList      = drive.CommentList
	Reply            = drive.Reply
)

// Client calls the Drive API as the signed-in account. Its errors are the generated
// client's; googleserver.AsAPIError and Account.Fail read them.
type Client struct{ svc *drive.Service }

// New builds the Drive client on the account's authorized HTTP client and endpoint (Drive's
// base URL, https://www.googleapis.com/drive/v3/, or a fake's); no network is used.
func New(acct *googleserver.Account) (*Client, error) {
	svc, err := drive.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(acct.Endpoint))
	if err != nil {
		return nil, fmt.Errorf("drive client: %w", err)
	}
	return &Client{svc: svc}, nil
}

// Folder is the MIME type of a Drive folder.
const Folder = "application/vnd.google-apps.folder"

// ChunkSize is the size of one piece of an upload. Content smaller than this goes up in one
// multipart request; larger content goes through a resumable session, one chunk at a time,
// so an upload holds at most one chunk in memory whatever the file's size.
const ChunkSize = 2 << 20

// opts turns params into call options.
func opts(params url.Values) []googleapi.CallOption {
	out := make([]googleapi.CallOption, 0, len(params))
	for k, v := range params {
		out = append(out, googleapi.QueryParameter(k, v...))
	}
	return out
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

// List reads one page of files.list.
func (c *Client) List(ctx context.Context, params url.Values) (*FileList, error) {
	out, err := c.svc.Files.List().Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListAll reads every page of files.list, handing each page's files to fn. Ask for
// nextPageToken in fields.
func (c *Client) ListAll(ctx context.Context, params url.Values, fn func([]*File) error) error {
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
	out, err := c.svc.Files.Get(id).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Create makes a file without content (a folder, an empty Google file).
func (c *Client) Create(ctx context.Context, meta *File, params url.Values) (*File, error) {
	out, err := c.svc.Files.Create(meta).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// media are the options of an upload of content of type mimeType.
func media(mimeType string) []googleapi.MediaOption {
	return []googleapi.MediaOption{googleapi.ContentType(mimeType), googleapi.ChunkSize(ChunkSize)}
}

// Upload makes a file with meta and the content read from r, of type mimeType: in one
// request below ChunkSize, else in a resumable session chunk by chunk.
func (c *Client) Upload(ctx context.Context, meta *File, r io.Reader, mimeType string, params url.Values) (*File, error) {
	out, err := c.svc.Files.Create(meta).Media(r, media(mimeType)...).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Update changes a file's metadata: patch's non-empty fields, and those named in its
// ForceSendFields (to send false or ""). Moves go in params as addParents and removeParents.
func (c *Client) Update(ctx context.Context, id string, patch *File, params url.Values) (*File, error) {
	if patch == nil {
		patch = &File{}
	}
	out, err := c.svc.Files.Update(id, patch).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateContent replaces a file's content with what r reads, of type mimeType (Drive keeps
// the earlier revision), and its metadata with patch when not nil; uploaded as Upload does.
func (c *Client) UpdateContent(ctx context.Context, id string, patch *File, r io.Reader, mimeType string, params url.Values) (*File, error) {
	if patch == nil {
		patch = &File{}
	}
	out, err := c.svc.Files.Update(id, patch).Media(r, media(mimeType)...).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Copy copies a file; meta names the copy and may set its type (a conversion), parents and
// app properties.
func (c *Client) Copy(ctx context.Context, id string, meta *File, params url.Values) (*File, error) {
	if meta == nil {
		meta = &File{}
	}
	out, err := c.svc.Files.Copy(id, meta).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete deletes a file for good, skipping the trash.
func (c *Client) Delete(ctx context.Context, id string, params url.Values) error {
	if err := c.svc.Files.Delete(id).Context(ctx).Do(opts(params)...); err != nil {
		return err
	}
	return nil
}

// Media starts downloading a stored file's content; the caller reads and closes the body.
func (c *Client) Media(ctx context.Context, id string, params url.Values) (*http.Response, error) {
	resp, err := c.svc.Files.Get(id).Context(ctx).Download(opts(params)...)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Export starts downloading a Google file converted to mimeType; the caller reads and closes
// the body.
func (c *Client) Export(ctx context.Context, id, mimeType string) (*http.Response, error) {
	resp, err := c.svc.Files.Export(id, mimeType).Context(ctx).Download()
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// StartPageToken is the changes token for changes from now on.
func (c *Client) StartPageToken(ctx context.Context, params url.Values) (string, error) {
	out, err := c.svc.Changes.GetStartPageToken().Context(ctx).Do(opts(params)...)
	if err != nil {
		return "", err
	}
	if out.StartPageToken == "" {
		return "", errors.New("drive answered no startPageToken")
	}
	return out.StartPageToken, nil
}

// Changes reads one page of changes from token.
func (c *Client) Changes(ctx context.Context, token string, params url.Values) (*ChangeList, error) {
	out, err := c.svc.Changes.List(token).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Permissions lists every permission on a file, following pages.
func (c *Client) Permissions(ctx context.Context, id string, params url.Values) ([]*Permission, error) {
	var all []*Permission
	token := ""
	for {
		q := params
		if token != "" {
			q = with(params, "pageToken", token)
		}
		page, err := c.svc.Permissions.List(id).Context(ctx).Do(opts(q)...)
		if err != nil {
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
	out, err := c.svc.Permissions.Create(id, p).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeletePermission removes a permission from a file.
func (c *Client) DeletePermission(ctx context.Context, id, permissionID string, params url.Values) error {
	if err := c.svc.Permissions.Delete(id, permissionID).Context(ctx).Do(opts(params)...); err != nil {
		return err
	}
	return nil
}
