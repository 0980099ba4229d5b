package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const permFields = "id,type,role,emailAddress,domain,displayName,deleted,permissionDetails(inherited,inheritedFrom)"

type shareInput struct {
	FileID  string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Type    string `json:"type" jsonschema:"who gets access" schema:"enum=user|group|domain|anyone"`
	Email   string `json:"email,omitempty" jsonschema:"for user and group"`
	Domain  string `json:"domain,omitempty" jsonschema:"for domain, e.g. example.com"`
	Role    string `json:"role" jsonschema:"fileOrganizer and organizer: shared drives only" schema:"enum=reader|commenter|writer|fileOrganizer|organizer"`
	Notify  bool   `json:"notify,omitempty" jsonschema:"email the person (user and group)" schema:"default=true"`
	Message string `json:"message,omitempty" jsonschema:"text for the notification email"`
}

type permission struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Role      string `json:"role"`
	Email     string `json:"email,omitempty"`
	Domain    string `json:"domain,omitempty"`
	Name      string `json:"name,omitempty"`
	Inherited bool   `json:"inherited,omitempty"`
}

func toPermission(p *gdrive.Permission) permission {
	out := permission{ID: p.Id, Type: p.Type, Role: p.Role, Email: p.EmailAddress, Domain: p.Domain, Name: p.DisplayName}
	for _, d := range p.PermissionDetails {
		if d.Inherited {
			out.Inherited = true
		}
	}
	return out
}

// who names whom the permission reaches.
func (p permission) who() string {
	switch p.Type {
	case "domain":
		return "everyone at " + p.Domain
	case "anyone":
		return "anyone with the link"
	}
	return p.Email
}

func (p permission) line() string {
	s := fmt.Sprintf("%s: %s (%s, permission id %s)", p.who(), p.Role, p.Type, p.ID)
	if p.Inherited {
		s += ", inherited"
	}
	return s
}

type permissionOutput struct {
	FileID     string     `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Permission permission `json:"permission"`
	Action     string     `json:"action"`
}

func (o permissionOutput) Text() string { return o.Action + ": " + o.Permission.line() }

type listPermissionsOutput struct {
	FileID      string       `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	Permissions []permission `json:"permissions"`
}

func (o listPermissionsOutput) Text() string {
	var b strings.Builder
	for _, p := range o.Permissions {
		b.WriteString(p.line() + "\n")
	}
	return strings.TrimSpace(b.String())
}

type removePermissionInput struct {
	FileID       string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	PermissionID string `json:"permission_id,omitempty" jsonschema:"from list_permissions"`
	Email        string `json:"email,omitempty" jsonschema:"instead of permission_id: the address"`
}

func addShareTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "share_file", Toolset: toolsetSharing, Title: "Share a file", Idempotent: true, OpenWorld: true,
		Description: "Share a Drive file or folder with a user, group or domain."}, d.share)
	kit.AddTool(s, kit.Tool{Name: "list_permissions", Toolset: toolsetSharing, Title: "List permissions", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Who has access to a Drive file, with permission ids."}, d.listPermissions)
	kit.AddTool(s, kit.Tool{Name: "remove_permission", Toolset: toolsetSharing, Title: "Remove access", Destructive: true, Idempotent: true, OpenWorld: true,
		Description: "Remove someone's access to a Drive file."}, d.removePermission)
}

func (d *drv) share(ctx context.Context, _ *mcp.CallToolRequest, in shareInput) (*mcp.CallToolResult, permissionOutput, error) {
	p := &gdrive.Permission{Type: in.Type, Role: in.Role}
	notify := in.Notify
	if err := d.shareReach(in.Type, in.Email, in.Domain); err != nil {
		return nil, permissionOutput{}, err
	}
	switch in.Type {
	case "user", "group":
		if !strings.Contains(in.Email, "@") {
			return nil, permissionOutput{}, kit.Errorf(kit.CodeInvalidInput, "type %s needs email", in.Type)
		}
		p.EmailAddress = strings.TrimSpace(in.Email)
	case "domain":
		if in.Domain == "" || strings.Contains(in.Domain, "@") {
			return nil, permissionOutput{}, kit.Errorf(kit.CodeInvalidInput, "type domain needs domain, e.g. example.com")
		}
		p.Domain, notify = in.Domain, false
	case "anyone":
		notify = false
	}
	params := withFields(permFields)
	if in.Type == "user" || in.Type == "group" {
		params.Set("sendNotificationEmail", strconv.FormatBool(notify))
		if notify && in.Message != "" {
			params.Set("emailMessage", in.Message)
		}
	}
	got, err := d.svc.CreatePermission(ctx, in.FileID, p, params)
	if err != nil {
		return nil, permissionOutput{}, d.fail(err, "file "+in.FileID)
	}
	return nil, permissionOutput{FileID: in.FileID, Permission: toPermission(got), Action: "Shared"}, nil
}

func (d *drv) permissions(ctx context.Context, id string) ([]*gdrive.Permission, error) {
	all, err := d.svc.Permissions(ctx, id, allDrives(url.Values{"pageSize": {"100"}, "fields": {"nextPageToken,permissions(" + permFields + ")"}}))
	if err != nil {
		return nil, d.fail(err, "file "+id)
	}
	return all, nil
}

func (d *drv) listPermissions(ctx context.Context, _ *mcp.CallToolRequest, in fileIDInput) (*mcp.CallToolResult, listPermissionsOutput, error) {
	perms, err := d.permissions(ctx, in.FileID)
	if err != nil {
		return nil, listPermissionsOutput{}, err
	}
	out := listPermissionsOutput{FileID: in.FileID, Permissions: []permission{}}
	for i := range perms {
		out.Permissions = append(out.Permissions, toPermission(perms[i]))
	}
	return nil, out, nil
}

func (d *drv) removePermission(ctx context.Context, _ *mcp.CallToolRequest, in removePermissionInput) (*mcp.CallToolResult, permissionOutput, error) {
	if (in.PermissionID == "") == (in.Email == "") {
		return nil, permissionOutput{}, kit.Errorf(kit.CodeInvalidInput, "give permission_id or email")
	}
	perms, err := d.permissions(ctx, in.FileID)
	if err != nil {
		return nil, permissionOutput{}, err
	}
	var hit *gdrive.Permission
	for i, p := range perms {
		if p.Id == in.PermissionID || in.Email != "" && strings.EqualFold(p.EmailAddress, in.Email) {
			hit = perms[i]
		}
	}
	if hit == nil {
		return nil, permissionOutput{}, kit.Errorf(kit.CodeNotFound, "no such permission on %s: list_permissions shows them", in.FileID)
	}
	if hit.Role == "owner" {
		return nil, permissionOutput{}, kit.Errorf(kit.CodeInvalidInput, "the owner's access cannot be removed")
	}
	if err := d.svc.DeletePermission(ctx, in.FileID, hit.Id, allDrives(url.Values{})); err != nil {
		return nil, permissionOutput{}, d.fail(err, "permission "+hit.Id)
	}
	return nil, permissionOutput{FileID: in.FileID, Permission: toPermission(hit), Action: "Removed"}, nil
}
