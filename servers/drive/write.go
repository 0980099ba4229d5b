package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/kit/progress"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/jck411/mcp-servers/shared/xlsx"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type uploadInput struct {
	Path          string `json:"path,omitempty" jsonschema:"file in the uploads folder"`
	ContentBase64 string `json:"content_base64,omitempty" jsonschema:"the bytes, base64, instead of path"`
	Name          string `json:"name,omitempty" jsonschema:"name in Drive; default the file's name"`
	FolderID      string `json:"folder_id,omitempty" jsonschema:"parent folder; default My Drive root"`
	MimeType      string `json:"mime_type,omitempty" jsonschema:"default from the name's extension"`
	Convert       bool   `json:"convert,omitempty" jsonschema:"convert to a Google Doc, Sheet or Slides"`
}

type createInput struct {
	Name     string `json:"name" jsonschema:"file name, e.g. notes.md" schema:"minLength=1"`
	Content  string `json:"content" jsonschema:"the file's text"`
	FolderID string `json:"folder_id,omitempty" jsonschema:"parent folder; default My Drive root"`
	MimeType string `json:"mime_type,omitempty" jsonschema:"default from the extension"`
	Convert  bool   `json:"convert,omitempty" jsonschema:"make it a Google Doc (Markdown) or Sheet (CSV)"`
}

type updateContentInput struct {
	FileID        string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Content       string `json:"content,omitempty" jsonschema:"new text"`
	ContentBase64 string `json:"content_base64,omitempty" jsonschema:"new bytes, base64"`
	Path          string `json:"path,omitempty" jsonschema:"file in the uploads folder"`
	MimeType      string `json:"mime_type,omitempty" jsonschema:"content type; for a Google Doc text/markdown or text/html"`
}

type createFolderInput struct {
	Name     string `json:"name" jsonschema:"folder name" schema:"minLength=1"`
	ParentID string `json:"parent_id,omitempty" jsonschema:"parent folder or shared drive id; default My Drive root"`
}

type moveInput struct {
	FileID   string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	FolderID string `json:"folder_id" jsonschema:"destination folder or shared drive id; root for My Drive" schema:"minLength=1"`
}

type renameInput struct {
	FileID  string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	NewName string `json:"new_name" jsonschema:"new name, with extension for stored files" schema:"minLength=1"`
}

type copyInput struct {
	FileID   string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Name     string `json:"name,omitempty" jsonschema:"default 'Copy of …'"`
	FolderID string `json:"folder_id,omitempty" jsonschema:"default the original's folder"`
}

func addWriteTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "upload_file", Toolset: toolsetWrite, Title: "Upload a file", OpenWorld: true, Timeout: 80 * time.Second,
		Description: "Upload a file from the uploads folder, or base64 bytes, to Drive, optionally converted."}, d.upload)
	kit.AddTool(s, kit.Tool{Name: "create_file", Toolset: toolsetWrite, Title: "Create a file", OpenWorld: true,
		Description: "Create a Drive file from text; Markdown can become a Google Doc."}, d.create)
	kit.AddTool(s, kit.Tool{Name: "update_file_content", Toolset: toolsetWrite, Title: "Replace file content", Destructive: true, Idempotent: true, OpenWorld: true, Timeout: 80 * time.Second,
		Description: "Replace a Drive file's content (Drive keeps earlier revisions)."}, d.updateContent)
	kit.AddTool(s, kit.Tool{Name: "create_folder", Toolset: toolsetWrite, Title: "Create a folder", OpenWorld: true,
		Description: "Create a Drive folder."}, d.createFolder)
	kit.AddTool(s, kit.Tool{Name: "move_file", Toolset: toolsetWrite, Title: "Move or rename a file", Idempotent: true, OpenWorld: true,
		Description: "Move a Drive file or folder to another folder or shared drive, and/or rename it."}, d.moveFile)
	kit.AddTool(s, kit.Tool{Name: "copy_file", Toolset: toolsetWrite, Title: "Copy a file", OpenWorld: true,
		Description: "Copy a Drive file."}, d.copyFile)
	kit.AddTool(s, kit.Tool{Name: "trash_file", Toolset: toolsetWrite, Title: "Trash or restore a file", Idempotent: true, OpenWorld: true,
		Description: "Move a Drive file or folder to the trash, or with restore take it out."}, d.trashFile)
}

// conversions are the Google types Drive imports other types into.
func conversion(mimeType string) string {
	switch mimeType {
	case "text/markdown", "text/x-markdown", "text/plain", "text/html", "application/rtf", "application/vnd.oasis.opendocument.text",
		"application/msword", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", mimePDF:
		return mimeDoc
	case "text/csv", "text/tab-separated-values", xlsx.MIME, "application/vnd.ms-excel", "application/x-vnd.oasis.opendocument.spreadsheet":
		return mimeSheet
	case "application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.ms-powerpoint", "application/vnd.oasis.opendocument.presentation":
		return mimeSlides
	}
	return ""
}

// typeOf picks a MIME type: the given one, else by extension, else def.
func typeOf(given, name, def string) string {
	if given != "" {
		return given
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".csv":
		return "text/csv"
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return strings.Split(t, ";")[0]
	}
	return def
}

// content is an upload's bytes: read from a local file as they are sent, or held when they
// came in the call.
type content struct {
	r    io.Reader
	size int64
	file *os.File // the local file r reads, closed when the upload ends
}

// Close closes the local file, if any.
func (c *content) Close() error {
	if c.file == nil {
		return nil
	}
	return c.file.Close()
}

// bytesContent is content that came in the call.
func bytesContent(data []byte) *content {
	return &content{r: bytes.NewReader(data), size: int64(len(data))}
}

// localFile opens a file inside --uploads-dir to stream it; symlinks and .. cannot leave it.
// It sends the size the file has now, so a file that grows meanwhile cannot pass the limit.
func (d *drv) localFile(p string) (*content, error) {
	if d.uploadsDir == "" {
		return nil, kit.Errorf(kit.CodeInvalidInput, "this server reads no local files (no --uploads-dir): send the content instead")
	}
	rel, err := rootdir.Rel(p, d.uploadsDir, d.uploadsArg)
	if err != nil {
		return nil, kit.Errorf(kit.CodeInvalidInput, "%s is outside the uploads folder %s", p, d.uploadsDir)
	}
	f, err := d.uploads.Open(rel)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, kit.Errorf(kit.CodeNotFound, "%s does not exist in the uploads folder %s", p, d.uploadsDir)
		case rootdir.Escapes(err):
			return nil, kit.Errorf(kit.CodeInvalidInput, "%s is outside the uploads folder %s: a symlink on its way leads out", p, d.uploadsDir)
		}
		return nil, kit.Errorf(kit.CodeInvalidInput, "%s cannot be read from the uploads folder %s: %v", p, d.uploadsDir, err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		_ = f.Close()
		return nil, kit.Errorf(kit.CodeInvalidInput, "reading %s: %v", p, err)
	case !st.Mode().IsRegular():
		_ = f.Close()
		return nil, kit.Errorf(kit.CodeInvalidInput, "%s is not a regular file", p)
	case st.Size() > d.maxBytes:
		_ = f.Close()
		return nil, kit.Errorf(kit.CodeLimit, "%s is over the %d-byte limit (--max-file-bytes)", p, d.maxBytes)
	}
	return &content{r: io.LimitReader(f, st.Size()), size: st.Size(), file: f}, nil
}

// content takes exactly one of text, base64 or a local path; the caller closes it.
func (d *drv) content(text, b64, path string) (*content, error) {
	n := 0
	for _, s := range []string{text, b64, path} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, kit.Errorf(kit.CodeInvalidInput, "give exactly one of the content sources")
	}
	switch {
	case path != "":
		return d.localFile(path)
	case b64 != "":
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			if data, err = base64.URLEncoding.DecodeString(b64); err != nil {
				return nil, kit.Errorf(kit.CodeInvalidInput, "content_base64 is not base64")
			}
		}
		if int64(len(data)) > d.maxBytes {
			return nil, kit.Errorf(kit.CodeLimit, "content is over the %d-byte limit (--max-file-bytes)", d.maxBytes)
		}
		return bytesContent(data), nil
	}
	if int64(len(text)) > d.maxBytes {
		return nil, kit.Errorf(kit.CodeLimit, "content is over the %d-byte limit (--max-file-bytes)", d.maxBytes)
	}
	return bytesContent([]byte(text)), nil
}

// put creates a file with media: in one request when small, else in a chunked resumable
// upload that streams it.
func (d *drv) put(ctx context.Context, name, folder, mimeType string, convert bool, data io.Reader) (*gdrive.File, error) {
	if err := d.folderReach(ctx, folder); err != nil {
		return nil, err
	}
	meta := &gdrive.File{Name: name}
	if folder != "" {
		meta.Parents = []string{folder}
	}
	if convert {
		target := conversion(mimeType)
		if target == "" {
			return nil, kit.Errorf(kit.CodeInvalidInput, "%s cannot be converted to a Google file; upload it without convert", mimeType)
		}
		meta.MimeType = target
	}
	f, err := d.svc.Upload(ctx, meta, data, mimeType, withFields(fileFields))
	if err != nil {
		return nil, d.fail(err, "folder "+folder)
	}
	return f, nil
}

func (d *drv) upload(ctx context.Context, _ *mcp.CallToolRequest, in uploadInput) (*mcp.CallToolResult, fileOutput, error) {
	data, err := d.content("", in.ContentBase64, in.Path)
	if err != nil {
		return nil, fileOutput{}, err
	}
	defer func() { _ = data.Close() }()
	name := in.Name
	if name == "" {
		if in.Path == "" {
			return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "name is required with content_base64")
		}
		name = filepath.Base(in.Path)
	}
	mt := typeOf(in.MimeType, firstNonEmpty(in.Path, in.Name), "application/octet-stream")
	if in.Convert {
		name = baseName(name)
	}
	f, err := d.put(ctx, name, in.FolderID, mt, in.Convert, progress.Reader(data.r, progress.From(ctx), data.size))
	if err != nil {
		return nil, fileOutput{}, err
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Uploaded"}, nil
}

// baseName drops the extension a converted file no longer has ("plan.md" becomes "plan").
func baseName(name string) string {
	if b := strings.TrimSuffix(name, filepath.Ext(name)); b != "" {
		return b
	}
	return name
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func (d *drv) create(ctx context.Context, _ *mcp.CallToolRequest, in createInput) (*mcp.CallToolResult, fileOutput, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "name is empty")
	}
	if int64(len(in.Content)) > d.maxBytes {
		return nil, fileOutput{}, kit.Errorf(kit.CodeLimit, "content is over the %d-byte limit (--max-file-bytes)", d.maxBytes)
	}
	mt := typeOf(in.MimeType, in.Name, "text/plain")
	name := in.Name
	if in.Convert {
		name = baseName(name)
	}
	f, err := d.put(ctx, name, in.FolderID, mt, in.Convert, strings.NewReader(in.Content))
	if err != nil {
		return nil, fileOutput{}, err
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Created"}, nil
}

func (d *drv) updateContent(ctx context.Context, _ *mcp.CallToolRequest, in updateContentInput) (*mcp.CallToolResult, fileOutput, error) {
	data, err := d.content(in.Content, in.ContentBase64, in.Path)
	if err != nil {
		return nil, fileOutput{}, err
	}
	defer func() { _ = data.Close() }()
	cur, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, fileOutput{}, err
	}
	mt := in.MimeType
	switch {
	case mt != "":
	case cur.MimeType == mimeDoc:
		mt = "text/markdown"
	case cur.MimeType == mimeSheet:
		mt = "text/csv"
	case strings.HasPrefix(cur.MimeType, "application/vnd.google-apps."):
		return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "%q is a %s: give mime_type of the new content (e.g. a pptx)", cur.Name, kindOf(cur.MimeType))
	default:
		mt = cur.MimeType
	}
	f, err := d.svc.UpdateContent(ctx, cur.Id, nil, data.r, mt, withFields(fileFields))
	if err != nil {
		return nil, fileOutput{}, d.fail(err, fmt.Sprintf("%q", cur.Name))
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: fmt.Sprintf("Replaced the content (%d bytes)", data.size)}, nil
}

func (d *drv) createFolder(ctx context.Context, _ *mcp.CallToolRequest, in createFolderInput) (*mcp.CallToolResult, fileOutput, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "name is empty")
	}
	if err := d.folderReach(ctx, in.ParentID); err != nil {
		return nil, fileOutput{}, err
	}
	meta := &gdrive.File{Name: in.Name, MimeType: mimeFolder}
	if in.ParentID != "" {
		meta.Parents = []string{in.ParentID}
	}
	f, err := d.svc.Create(ctx, meta, withFields(fileFields))
	if err != nil {
		return nil, fileOutput{}, d.fail(err, "folder "+in.ParentID)
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Created folder"}, nil
}

func (d *drv) move(ctx context.Context, _ *mcp.CallToolRequest, in moveInput) (*mcp.CallToolResult, fileOutput, error) {
	if err := d.folderReach(ctx, in.FolderID); err != nil {
		return nil, fileOutput{}, err
	}
	cur, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, fileOutput{}, err
	}
	params := withFields(fileFields)
	params.Set("addParents", in.FolderID)
	if len(cur.Parents) > 0 {
		params.Set("removeParents", strings.Join(cur.Parents, ","))
	}
	f, err := d.svc.Update(ctx, cur.Id, nil, params)
	if err != nil {
		return nil, fileOutput{}, d.fail(err, "folder "+in.FolderID)
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Moved"}, nil
}

func (d *drv) rename(ctx context.Context, _ *mcp.CallToolRequest, in renameInput) (*mcp.CallToolResult, fileOutput, error) {
	if strings.TrimSpace(in.NewName) == "" {
		return nil, fileOutput{}, kit.Errorf(kit.CodeInvalidInput, "new_name is empty")
	}
	f, err := d.svc.Update(ctx, in.FileID, &gdrive.File{Name: in.NewName}, withFields(fileFields))
	if err != nil {
		return nil, fileOutput{}, d.fail(err, "file "+in.FileID)
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Renamed"}, nil
}

func (d *drv) copyFile(ctx context.Context, _ *mcp.CallToolRequest, in copyInput) (*mcp.CallToolResult, fileOutput, error) {
	if err := d.folderReach(ctx, in.FolderID); err != nil {
		return nil, fileOutput{}, err
	}
	meta := &gdrive.File{Name: in.Name}
	if in.FolderID != "" {
		meta.Parents = []string{in.FolderID}
	}
	f, err := d.svc.Copy(ctx, in.FileID, meta, withFields(fileFields))
	if err != nil {
		return nil, fileOutput{}, d.fail(err, "file "+in.FileID)
	}
	return nil, fileOutput{fileInfo: toInfo(f), Action: "Copied"}, nil
}

func (d *drv) trash(on bool) func(context.Context, *mcp.CallToolRequest, fileIDInput) (*mcp.CallToolResult, fileOutput, error) {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in fileIDInput) (*mcp.CallToolResult, fileOutput, error) {
		// Trashed is sent when false too: restoring says trashed=false.
		patch := &gdrive.File{Trashed: on, ForceSendFields: []string{"Trashed"}}
		f, err := d.svc.Update(ctx, in.FileID, patch, withFields(fileFields))
		if err != nil {
			return nil, fileOutput{}, d.fail(err, "file "+in.FileID)
		}
		action := "Moved to the trash"
		if !on {
			action = "Restored from the trash"
		}
		return nil, fileOutput{fileInfo: toInfo(f), Action: action}, nil
	}
}
