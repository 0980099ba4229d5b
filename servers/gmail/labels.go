package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type labelInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

type listLabelsOutput struct {
	Labels []labelInfo `json:"labels"`
}

func (o listLabelsOutput) Text() string {
	var b strings.Builder
	for _, l := range o.Labels {
		fmt.Fprintf(&b, "%s (%s, %s)\n", l.Name, l.ID, l.Type)
	}
	return strings.TrimSpace(b.String())
}

type noInput struct{}

type createLabelInput struct {
	Name string `json:"name" jsonschema:"label name; / nests" schema:"minLength=1"`
}

type renameLabelInput struct {
	Label   string `json:"label" jsonschema:"current label name or id" schema:"minLength=1"`
	NewName string `json:"new_name" jsonschema:"the new name" schema:"minLength=1"`
}

type deleteLabelInput struct {
	Label string `json:"label" jsonschema:"label name or id (messages stay)" schema:"minLength=1"`
}

type labelOutput struct {
	labelInfo
	Action string `json:"action"`
}

func (o labelOutput) Text() string { return fmt.Sprintf("Label %s %q (%s).", o.Action, o.Name, o.ID) }

type profileOutput struct {
	Email         string   `json:"email"`
	MessagesTotal int64    `json:"messages_total"`
	ThreadsTotal  int64    `json:"threads_total"`
	HistoryID     uint64   `json:"history_id"`
	SignIn        string   `json:"sign_in"`
	Scopes        []string `json:"scopes"`
}

func (o profileOutput) Text() string {
	return fmt.Sprintf("%s: %d messages, %d threads. Sign-in %s.", o.Email, o.MessagesTotal, o.ThreadsTotal, o.SignIn)
}

func addLabelTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "list_labels", Toolset: toolsetLabels, Title: "List labels", ReadOnly: true, OpenWorld: true,
		Description: "List Gmail labels (system and user) with their ids."}, m.listLabels)
	kit.AddTool(s, kit.Tool{Name: "edit_label", Toolset: toolsetLabels, Title: "Create, rename or delete a label", Destructive: true, OpenWorld: true,
		Description: "Create, rename or delete a Gmail user label (deleting keeps its messages)."}, m.editLabel)
	kit.AddTool(s, kit.Tool{Name: "get_gmail_profile", Toolset: toolsetRead, Title: "Gmail profile", ReadOnly: true, OpenWorld: true,
		Description: "The Gmail account's address, message and thread totals, and sign-in state."}, m.profile)
}

func (m *mailbox) labels(ctx context.Context) ([]*apiLabel, error) {
	res, err := m.gm.Users.Labels.List(me).Context(ctx).Do()
	if err != nil {
		return nil, m.google.Fail(err, "labels")
	}
	return res.Labels, nil
}

// findLabel resolves a label by id or by name (case-insensitive).
func (m *mailbox) findLabel(ctx context.Context, nameOrID string) (*apiLabel, error) {
	all, err := m.labels(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range all {
		if l.Id == nameOrID {
			return l, nil
		}
	}
	for _, l := range all {
		if strings.EqualFold(l.Name, nameOrID) {
			return l, nil
		}
	}
	return nil, kit.Errorf(kit.CodeNotFound, "label %q not found; list_labels shows them", nameOrID)
}

// labelIDs resolves names or ids, looking labels up only when a name is not a system id.
func (m *mailbox) labelIDs(ctx context.Context, names []string) ([]string, error) {
	var out []string
	var all []*apiLabel
	for _, n := range names {
		if n == strings.ToUpper(n) && !strings.ContainsAny(n, " /") || strings.HasPrefix(n, "Label_") {
			out = append(out, n) // system labels (INBOX, UNREAD, STARRED, TRASH…) and user label ids
			continue
		}
		if all == nil {
			var err error
			if all, err = m.labels(ctx); err != nil {
				return nil, err
			}
		}
		found := ""
		for _, l := range all {
			if strings.EqualFold(l.Name, n) {
				found = l.Id
				break
			}
		}
		if found == "" {
			return nil, kit.Errorf(kit.CodeNotFound, "label %q not found; edit_label (action create) makes it, list_labels shows the others", n)
		}
		out = append(out, found)
	}
	return out, nil
}

func (m *mailbox) listLabels(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, listLabelsOutput, error) {
	all, err := m.labels(ctx)
	if err != nil {
		return nil, listLabelsOutput{}, err
	}
	out := listLabelsOutput{Labels: make([]labelInfo, len(all))}
	for i, l := range all {
		out.Labels[i] = labelInfo{ID: l.Id, Name: l.Name, Type: l.Type}
	}
	return nil, out, nil
}

func (m *mailbox) createLabel(ctx context.Context, _ *mcp.CallToolRequest, in createLabelInput) (*mcp.CallToolResult, labelOutput, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "give the label a name")
	}
	l, err := m.gm.Users.Labels.Create(me, &apiLabel{Name: in.Name, LabelListVisibility: "labelShow", MessageListVisibility: "show"}).Context(ctx).Do()
	if err != nil {
		return nil, labelOutput{}, m.google.Fail(err, "label")
	}
	return nil, labelOutput{labelInfo{l.Id, l.Name, l.Type}, "created"}, nil
}

func (m *mailbox) renameLabel(ctx context.Context, _ *mcp.CallToolRequest, in renameLabelInput) (*mcp.CallToolResult, labelOutput, error) {
	if strings.TrimSpace(in.NewName) == "" {
		return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "give new_name")
	}
	l, err := m.findLabel(ctx, in.Label)
	if err != nil {
		return nil, labelOutput{}, err
	}
	if l.Type == "system" {
		return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "%s is a system label and cannot be renamed", l.Name)
	}
	if l, err = m.gm.Users.Labels.Patch(me, l.Id, &apiLabel{Name: in.NewName}).Context(ctx).Do(); err != nil {
		return nil, labelOutput{}, m.google.Fail(err, "label "+in.Label)
	}
	return nil, labelOutput{labelInfo{l.Id, l.Name, l.Type}, "renamed"}, nil
}

func (m *mailbox) deleteLabel(ctx context.Context, _ *mcp.CallToolRequest, in deleteLabelInput) (*mcp.CallToolResult, labelOutput, error) {
	l, err := m.findLabel(ctx, in.Label)
	if err != nil {
		return nil, labelOutput{}, err
	}
	if l.Type == "system" {
		return nil, labelOutput{}, kit.Errorf(kit.CodeInvalidInput, "%s is a system label and cannot be deleted", l.Name)
	}
	if err := m.gm.Users.Labels.Delete(me, l.Id).Context(ctx).Do(); err != nil {
		return nil, labelOutput{}, m.google.Fail(err, "label "+in.Label)
	}
	return nil, labelOutput{labelInfo{l.Id, l.Name, l.Type}, "deleted"}, nil
}

func (m *mailbox) profile(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, profileOutput, error) {
	p, err := m.gm.Users.GetProfile(me).Context(ctx).Do()
	if err != nil {
		return nil, profileOutput{}, m.google.Fail(err, "profile")
	}
	st := m.google.Status(ctx)
	return nil, profileOutput{Email: p.EmailAddress, MessagesTotal: p.MessagesTotal, ThreadsTotal: p.ThreadsTotal, HistoryID: p.HistoryId,
		SignIn: st.Detail(), Scopes: orEmpty(st.Scopes)}, nil
}
