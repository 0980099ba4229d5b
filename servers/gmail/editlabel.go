package main

import (
	"context"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// editLabelInput is edit_label's input: create, rename or delete one label. The three changes
// were three tools naming the same label; one tool with an action reaches the same handlers.
type editLabelInput struct {
	Action  string `json:"action" jsonschema:"what to do" schema:"enum=create|rename|delete"`
	Label   string `json:"label" jsonschema:"create: new name (/ nests); else name or id" schema:"minLength=1"`
	NewName string `json:"new_name,omitempty" jsonschema:"rename: the new name" schema:"minLength=1"`
}

// editLabel creates, renames or deletes a label (createLabel, renameLabel, deleteLabel).
func (m *mailbox) editLabel(ctx context.Context, req *mcp.CallToolRequest, in editLabelInput) (*mcp.CallToolResult, labelOutput, error) {
	if in.NewName != "" && in.Action != "rename" {
		return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "new_name is only for action rename")
	}
	switch in.Action {
	case "create":
		return m.createLabel(ctx, req, createLabelInput{Name: in.Label})
	case "rename":
		if in.NewName == "" {
			return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "action rename needs new_name")
		}
		return m.renameLabel(ctx, req, renameLabelInput{Label: in.Label, NewName: in.NewName})
	case "delete":
		return m.deleteLabel(ctx, req, deleteLabelInput{Label: in.Label})
	}
	return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "unknown action %q: give create, rename or delete", in.Action)
}
