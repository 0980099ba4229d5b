package gdrive

import (
	"context"
	"net/url"
)

// SharedDrives reads one page of drives.list.
func (c *Client) SharedDrives(ctx context.Context, params url.Values) (*DriveList, error) {
	out, err := c.svc.Drives.List().Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Comments reads one page of a file's comments; Drive requires fields for it.
func (c *Client) Comments(ctx context.Context, id string, params url.Values) (*CommentList, error) {
	out, err := c.svc.Comments.List(id).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Reply answers a comment (and resolves or reopens it when r.Action says so); Drive requires
// fields for it.
func (c *Client) Reply(ctx context.Context, id, commentID string, r *Reply, params url.Values) (*Reply, error) {
	out, err := c.svc.Replies.Create(id, commentID, r).Context(ctx).Do(opts(params)...)
	if err != nil {
		return nil, err
	}
	return out, nil
}
