package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// trashInput is trash_file's input: into the trash, or with restore out of it (one tool where
// trash_file and restore_file named the same file).
type trashInput struct {
	FileID  string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Restore bool   `json:"restore,omitempty" jsonschema:"take it out of the trash instead"`
}

// trashFile trashes or restores a file (trash).
func (d *drv) trashFile(ctx context.Context, req *mcp.CallToolRequest, in trashInput) (*mcp.CallToolResult, fileOutput, error) {
	return d.trash(!in.Restore)(ctx, req, fileIDInput{FileID: in.FileID})
}

// commentInput is reply_to_comment's input: a reply, a resolution or a reopening, or a reply
// with either. reply_to_comment and resolve_comment both could reply; one tool leaves no doubt.
type commentInput struct {
	FileID    string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	CommentID string `json:"comment_id" jsonschema:"from list_comments" schema:"minLength=1"`
	Content   string `json:"content,omitempty" jsonschema:"the reply's text"`
	Resolve   string `json:"resolve,omitempty" jsonschema:"also resolve the comment, or reopen a resolved one" schema:"enum=resolve|reopen"`
}

// comment replies to, resolves or reopens a comment (replyToComment, resolveComment).
func (d *drv) comment(ctx context.Context, req *mcp.CallToolRequest, in commentInput) (*mcp.CallToolResult, replyOutput, error) {
	if in.Resolve != "" {
		return d.resolveComment(ctx, req, resolveInput{FileID: in.FileID, CommentID: in.CommentID, Content: in.Content, Reopen: in.Resolve == "reopen"})
	}
	if in.Content == "" {
		return nil, replyOutput{}, kit.Errorf(kit.CodeInvalidInput, "give content (the reply), resolve, or both")
	}
	return d.replyToComment(ctx, req, replyInput{FileID: in.FileID, CommentID: in.CommentID, Content: in.Content})
}
