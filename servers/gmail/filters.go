package main

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/api/gmail/v1"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type filterInfo struct {
	ID           string   `json:"id"`
	From         string   `json:"from,omitempty"`
	To           string   `json:"to,omitempty"`
	Subject      string   `json:"subject,omitempty"`
	Query        string   `json:"query,omitempty"`
	HasAttach    bool     `json:"has_attachment,omitempty"`
	AddLabels    []string `json:"add_labels,omitempty"`
	RemoveLabels []string `json:"remove_labels,omitempty"`
	Forward      string   `json:"forward,omitempty"`
}

func (f filterInfo) String() string {
	var crit []string
	for _, c := range [][2]string{{"from", f.From}, {"to", f.To}, {"subject", f.Subject}, {"query", f.Query}} {
		if c[1] != "" {
			crit = append(crit, c[0]+"="+c[1])
		}
	}
	if f.HasAttach {
		crit = append(crit, "has_attachment")
	}
	act := []string{}
	if len(f.AddLabels) > 0 {
		act = append(act, "+"+strings.Join(f.AddLabels, ",+"))
	}
	if len(f.RemoveLabels) > 0 {
		act = append(act, "-"+strings.Join(f.RemoveLabels, ",-"))
	}
	if f.Forward != "" {
		act = append(act, "forward to "+f.Forward)
	}
	return fmt.Sprintf("%s: %s → %s", f.ID, strings.Join(crit, " "), strings.Join(act, " "))
}

type listFiltersOutput struct {
	Filters []filterInfo `json:"filters"`
}

func (o listFiltersOutput) Text() string {
	if len(o.Filters) == 0 {
		return "No filters."
	}
	lines := make([]string, len(o.Filters))
	for i, f := range o.Filters {
		lines[i] = f.String()
	}
	return strings.Join(lines, "\n")
}

type createFilterInput struct {
	From          string   `json:"from,omitempty" jsonschema:"sender to match"`
	To            string   `json:"to,omitempty" jsonschema:"recipient to match"`
	Subject       string   `json:"subject,omitempty" jsonschema:"words in the subject"`
	Query         string   `json:"query,omitempty" jsonschema:"Gmail search query to match"`
	HasAttachment bool     `json:"has_attachment,omitempty" jsonschema:"match only mail with attachments"`
	AddLabels     []string `json:"add_labels,omitempty" jsonschema:"labels to add; TRASH deletes, STARRED stars"`
	RemoveLabels  []string `json:"remove_labels,omitempty" jsonschema:"labels to remove: INBOX skips the inbox"`
	Forward       string   `json:"forward,omitempty" jsonschema:"verified forwarding address"`
}

type filterIDInput struct {
	ID string `json:"id" jsonschema:"filter id from list_filters" schema:"minLength=1"`
}

type filterOutput struct {
	filterInfo
	Action string `json:"action"`
}

func (o filterOutput) Text() string { return "Filter " + o.Action + ": " + o.String() }

func addFilterTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "list_filters", Toolset: toolsetFilters, Title: "List filters", ReadOnly: true, OpenWorld: true,
		Description: "List Gmail filters: criteria and actions."}, m.listFilters)
	kit.AddTool(s, kit.Tool{Name: "create_filter", Toolset: toolsetFilters, Title: "Create a filter", OpenWorld: true,
		Description: "Create a Gmail filter: criteria, then label or forward actions."}, m.createFilter)
	kit.AddTool(s, kit.Tool{Name: "delete_filter", Toolset: toolsetFilters, Title: "Delete a filter", Destructive: true, Idempotent: true, OpenWorld: true,
		Description: "Delete a Gmail filter."}, m.deleteFilter)
}

func toFilterInfo(f *apiFilter) filterInfo {
	out := filterInfo{ID: f.Id}
	if c := f.Criteria; c != nil {
		out.From, out.To, out.Subject, out.Query, out.HasAttach = c.From, c.To, c.Subject, c.Query, c.HasAttachment
	}
	if a := f.Action; a != nil {
		out.AddLabels, out.RemoveLabels, out.Forward = a.AddLabelIds, a.RemoveLabelIds, a.Forward
	}
	return out
}

func (m *mailbox) listFilters(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, listFiltersOutput, error) {
	res, err := m.gm.Users.Settings.Filters.List(me).Context(ctx).Do()
	if err != nil {
		return nil, listFiltersOutput{}, m.google.Fail(err, "filters")
	}
	out := listFiltersOutput{Filters: []filterInfo{}}
	for _, f := range res.Filter {
		out.Filters = append(out.Filters, toFilterInfo(f))
	}
	return nil, out, nil
}

func (m *mailbox) createFilter(ctx context.Context, _ *mcp.CallToolRequest, in createFilterInput) (*mcp.CallToolResult, filterOutput, error) {
	if in.From == "" && in.To == "" && in.Subject == "" && in.Query == "" && !in.HasAttachment {
		return nil, filterOutput{}, kit.Errorf(kit.CodeInvalidInput, "give at least one criterion: from, to, subject, query or has_attachment")
	}
	if len(in.AddLabels)+len(in.RemoveLabels) == 0 && in.Forward == "" {
		return nil, filterOutput{}, kit.Errorf(kit.CodeInvalidInput, "give an action: add_labels, remove_labels or forward")
	}
	if in.Forward != "" {
		if err := m.checkRecipients([]string{in.Forward}); err != nil {
			return nil, filterOutput{}, err
		}
	}
	add, err := m.labelIDs(ctx, in.AddLabels)
	if err != nil {
		return nil, filterOutput{}, err
	}
	remove, err := m.labelIDs(ctx, in.RemoveLabels)
	if err != nil {
		return nil, filterOutput{}, err
	}
	req := &apiFilter{
		Criteria: &gmail.FilterCriteria{From: in.From, To: in.To, Subject: in.Subject, Query: in.Query, HasAttachment: in.HasAttachment},
		Action:   &gmail.FilterAction{AddLabelIds: add, RemoveLabelIds: remove, Forward: in.Forward},
	}
	f, err := m.gm.Users.Settings.Filters.Create(me, req).Context(ctx).Do()
	if err != nil {
		return nil, filterOutput{}, m.google.Fail(err, "filter")
	}
	return nil, filterOutput{toFilterInfo(f), "created"}, nil
}

func (m *mailbox) deleteFilter(ctx context.Context, _ *mcp.CallToolRequest, in filterIDInput) (*mcp.CallToolResult, filterOutput, error) {
	if err := m.gm.Users.Settings.Filters.Delete(me, in.ID).Context(ctx).Do(); err != nil {
		return nil, filterOutput{}, m.google.Fail(err, "filter "+in.ID)
	}
	return nil, filterOutput{filterInfo{ID: in.ID}, "deleted"}, nil
}
