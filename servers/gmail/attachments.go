package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/rootdir"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type getAttachmentInput struct {
	MessageID    string `json:"message_id" jsonschema:"a message id from search_messages" schema:"minLength=1"`
	AttachmentID string `json:"attachment_id" jsonschema:"attachment id from get_message" schema:"minLength=1"`
	Save         bool   `json:"save,omitempty" jsonschema:"save to downloads even when small"`
}

type attachmentOutput struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Size   int    `json:"size"`
	Path   string `json:"path,omitempty"` // where it was saved, when not inline
	Inline bool   `json:"inline"`
}

func (o attachmentOutput) Text() string {
	if o.Path != "" {
		return fmt.Sprintf("Saved %s (%s, %d bytes) to %s", o.Name, o.Type, o.Size, o.Path)
	}
	return fmt.Sprintf("%s (%s, %d bytes) is attached as an embedded resource.", o.Name, o.Type, o.Size)
}

func addAttachmentTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "get_attachment", Toolset: toolsetRead, Title: "Get an attachment", ReadOnly: true, OpenWorld: true, Timeout: 60 * time.Second,
		Description: "Fetch a Gmail attachment: small ones inline, larger ones saved to downloads."}, m.getAttachment)
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

// download fetches an attachment's bytes, refusing ones over the size cap.
func (m *mailbox) download(ctx context.Context, messageID, attachmentID string, size int64) ([]byte, error) {
	if size > int64(m.maxAttachBytes) {
		return nil, kit.Errorf(kit.CodeLimit, "attachment is %d bytes, over the %d-byte limit (--max-attachment-bytes)", size, m.maxAttachBytes)
	}
	body, err := m.gm.Users.Messages.Attachments.Get(me, messageID, attachmentID).Context(ctx).Do()
	if err != nil {
		return nil, m.google.Fail(err, "attachment "+attachmentID)
	}
	data, err := base64.URLEncoding.DecodeString(padBase64(body.Data))
	if err != nil {
		return nil, kit.Errorf(kit.CodeInternal, "Gmail sent undecodable attachment data: %v", err)
	}
	if len(data) > m.maxAttachBytes {
		return nil, kit.Errorf(kit.CodeLimit, "attachment is %d bytes, over the %d-byte limit (--max-attachment-bytes)", len(data), m.maxAttachBytes)
	}
	return data, nil
}

func (m *mailbox) getAttachment(ctx context.Context, _ *mcp.CallToolRequest, in getAttachmentInput) (*mcp.CallToolResult, attachmentOutput, error) {
	msg, err := m.fetch(ctx, in.MessageID, "text")
	if err != nil {
		return nil, attachmentOutput{}, err
	}
	var info *attachmentInfo
	for _, a := range attachments(msg.Payload) {
		if a.ID == in.AttachmentID || a.PartID == in.AttachmentID {
			info = &a
			break
		}
	}
	if info == nil {
		return nil, attachmentOutput{}, kit.Errorf(kit.CodeNotFound, "message %s has no attachment %q; get_message lists them", in.MessageID, in.AttachmentID)
	}
	data, err := m.download(ctx, in.MessageID, info.ID, info.Size)
	if err != nil {
		return nil, attachmentOutput{}, err
	}
	out := attachmentOutput{Name: info.Name, Type: info.Type, Size: len(data)}
	if !in.Save && len(data) <= m.inlineBytes {
		out.Inline = true
		uri := "gmail://messages/" + in.MessageID + "/attachments/" + info.PartID + "/" + info.Name
		res := &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: out.Text()},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: info.Type, Blob: data}},
		}}
		return res, out, nil
	}
	name := strings.TrimSpace(unsafeName.ReplaceAllString(filepath.Base(info.Name), "_"))
	if name == "" || name == "." || name == ".." {
		name = "attachment"
	}
	file := unsafeName.ReplaceAllString(in.MessageID+"-"+info.PartID, "_") + "-" + name
	saved, _, err := rootdir.Save(m.downloads, file, bytes.NewReader(data), int64(len(data)), 0o600, rootdir.Replace)
	if err != nil {
		return nil, attachmentOutput{}, kit.Errorf(kit.CodeUnavailable, "save the attachment in the downloads folder %s: %v", m.downloadsDir, err)
	}
	path := filepath.Join(m.downloadsDir, saved)
	out.Path = path
	return nil, out, nil
}
