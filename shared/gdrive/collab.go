package gdrive

import (
	"context"
	"net/http"
	"net/url"
)

// SharedDrive is a shared drive the account is a member of.
type SharedDrive struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	CreatedTime string `json:"createdTime,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
}

// DriveList is one page of drives.list.
type DriveList struct {
	Drives        []SharedDrive `json:"drives"`
	NextPageToken string        `json:"nextPageToken,omitempty"`
}

// Comment is a comment on a file, with its replies.
type Comment struct {
	ID                string  `json:"id,omitempty"`
	Content           string  `json:"content,omitempty"`
	Author            *User   `json:"author,omitempty"`
	CreatedTime       string  `json:"createdTime,omitempty"`
	ModifiedTime      string  `json:"modifiedTime,omitempty"`
	Resolved          bool    `json:"resolved,omitempty"`
	Deleted           bool    `json:"deleted,omitempty"`
	QuotedFileContent *Quoted `json:"quotedFileContent,omitempty"`
	Replies           []Reply `json:"replies,omitempty"`
}

// Quoted is the text of the file a comment is anchored to.
type Quoted struct {
	Value string `json:"value,omitempty"`
}

// Reply is a reply to a comment; Action "resolve" or "reopen" changes the comment's state.
type Reply struct {
	ID          string `json:"id,omitempty"`
	Content     string `json:"content,omitempty"`
	Action      string `json:"action,omitempty"`
	Author      *User  `json:"author,omitempty"`
	CreatedTime string `json:"createdTime,omitempty"`
	Deleted     bool   `json:"deleted,omitempty"`
}

// CommentList is one page of comments.list.
type CommentList struct {
	Comments      []Comment `json:"comments"`
	NextPageToken string    `json:"nextPageToken,omitempty"`
}

// SharedDrives reads one page of drives.list.
func (c *Client) SharedDrives(ctx context.Context, params url.Values) (*DriveList, error) {
	var out DriveList
	if err := c.api.Do(ctx, http.MethodGet, "drives", params, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Comments reads one page of a file's comments; Drive requires fields for it.
func (c *Client) Comments(ctx context.Context, id string, params url.Values) (*CommentList, error) {
	var out CommentList
	if err := c.api.Do(ctx, http.MethodGet, filePath(id)+"/comments", params, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Reply answers a comment (and resolves or reopens it when r.Action says so); Drive requires
// fields for it.
func (c *Client) Reply(ctx context.Context, id, commentID string, r *Reply, params url.Values) (*Reply, error) {
	var out Reply
	if err := c.api.Do(ctx, http.MethodPost, filePath(id)+"/comments/"+url.PathEscape(commentID)+"/replies", params, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
