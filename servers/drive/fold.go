package main

import (
	"context"
	"fmt"

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
	Resolve   string `json:"resolve,omitempty" jsonschema:"resolve it, or reopen a resolved one" schema:"enum=resolve|reopen"`
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

// moveRenameInput is move_file's input: a new folder, a new name, or both (one tool where
// move_file and rename_file changed the same file's place and name).
type moveRenameInput struct {
	FileID   string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	FolderID string `json:"folder_id,omitempty" jsonschema:"destination folder or shared drive id; root for My Drive" schema:"minLength=1"`
	NewName  string `json:"new_name,omitempty" jsonschema:"new name, with extension for stored files" schema:"minLength=1"`
}

// moveFile moves a file, renames it, or both (move, then rename).
func (d *drv) moveFile(ctx context.Context, req *mcp.CallToolRequest, in moveRenameInput) (*mcp.CallToolResult, fileOutput, error) {
	if in.FolderID == "" && in.NewName == "" {
		return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "give folder_id (where to move it), new_name, or both")
	}
	if in.FolderID == "" {
		return d.rename(ctx, req, renameInput{FileID: in.FileID, NewName: in.NewName})
	}
	res, out, err := d.move(ctx, req, moveInput{FileID: in.FileID, FolderID: in.FolderID})
	if err != nil || in.NewName == "" {
		return res, out, err
	}
	res, out, err = d.rename(ctx, req, renameInput{FileID: in.FileID, NewName: in.NewName})
	if err != nil {
		return nil, fileOutput{}, fmt.Errorf("moved to %s, but not renamed: %w", in.FolderID, err)
	}
	return res, out, nil
}
