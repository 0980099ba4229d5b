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

// Shared drives, who can reach a file, and comments.

type listDrivesInput struct {
	PageSize  int    `json:"page_size,omitempty" jsonschema:"shared drives per page" schema:"minimum=1,maximum=100,default=50"`
	PageToken string `json:"page_token,omitempty" jsonschema:"next_page_token of the previous call"`
}

type driveEntry struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Hidden bool   `json:"hidden,omitempty"`
}

type drivesOutput struct {
	Drives        []driveEntry `json:"drives"`
	NextPageToken string       `json:"next_page_token,omitempty"`
}

func (o drivesOutput) Text() string {
	if len(o.Drives) == 0 {
		return "No shared drives."
	}
	var b strings.Builder
	for _, d := range o.Drives {
		fmt.Fprintf(&b, "%s (id %s", d.Name, d.ID)
		if d.Hidden {
			b.WriteString(", hidden")
		}
		b.WriteString(")\n")
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "[more shared drives: call again with page_token=%s]", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

// reachOutput is a file's link and who can open it: public (anyone with the link, or anyone
// at all when search finds it), domain (everyone in a domain), people (named users and groups
// only) or private (the owner alone).
type reachOutput struct {
	File   fileInfo `json:"file"`
	Link   string   `json:"link"`
	Reach  string   `json:"reach" jsonschema:"public, domain, people or private"`
	Public string   `json:"public,omitempty" jsonschema:"when public: the role anyone with the link has; findable when search finds it"`
	// Domains are the domains whose members can open it, with their role.
	Domains []string `json:"domains,omitempty"`
	// People are the users and groups with access, with their role.
	People []string `json:"people,omitempty"`
}

func (o reachOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n", o.File.line(), o.Link)
	switch o.Reach {
	case "public":
		fmt.Fprintf(&b, "Public: %s.\n", o.Public)
	case "domain":
		b.WriteString("Not public; everyone in a domain can open it.\n")
	case "people":
		b.WriteString("Only the people below can open it.\n")
	default:
		b.WriteString("Private: only the owner can open it.\n")
	}
	for _, d := range o.Domains {
		b.WriteString("Domain: " + d + "\n")
	}
	for _, p := range o.People {
		b.WriteString("Person: " + p + "\n")
	}
	return strings.TrimSpace(b.String())
}

type listCommentsInput struct {
	FileID          string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	IncludeResolved bool   `json:"include_resolved,omitempty" schema:"bare=true"`
	PageSize        int    `json:"page_size,omitempty" jsonschema:"comments per page" schema:"minimum=1,maximum=100,default=20"`
	PageToken       string `json:"page_token,omitempty" jsonschema:"next_page_token of the previous call"`
}

type reply struct {
	ID      string `json:"id"`
	Author  string `json:"author,omitempty"`
	Content string `json:"content,omitempty"`
	Action  string `json:"action,omitempty"`
	Created string `json:"created,omitempty"`
}

type comment struct {
	ID       string  `json:"id"`
	Author   string  `json:"author,omitempty"`
	Content  string  `json:"content"`
	Quoted   string  `json:"quoted,omitempty"`
	Created  string  `json:"created,omitempty"`
	Resolved bool    `json:"resolved,omitempty"`
	Replies  []reply `json:"replies,omitempty"`
}

type commentsOutput struct {
	FileID        string    `json:"file_id"`
	Comments      []comment `json:"comments"`
	Resolved      int       `json:"resolved_hidden,omitempty" jsonschema:"resolved comments left out on this page"`
	NextPageToken string    `json:"next_page_token,omitempty"`
}

func (o commentsOutput) Text() string {
	var b strings.Builder
	if len(o.Comments) == 0 {
		b.WriteString("No open comments.")
	}
	for _, c := range o.Comments {
		state := ""
		if c.Resolved {
			state = ", resolved"
		}
		fmt.Fprintf(&b, "[%s] %s%s: %s\n", c.ID, c.Author, state, c.Content)
		if c.Quoted != "" {
			fmt.Fprintf(&b, "  on %q\n", c.Quoted)
		}
		for _, r := range c.Replies {
			text := r.Content
			if r.Action != "" {
				text = strings.TrimSpace("(" + r.Action + "d) " + text)
			}
			fmt.Fprintf(&b, "  ↳ %s: %s\n", r.Author, text)
		}
	}
	if o.Resolved > 0 {
		fmt.Fprintf(&b, "\n%d resolved comments not shown (include_resolved=true lists them).", o.Resolved)
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "\n[more comments: call again with page_token=%s]", o.NextPageToken)
	}
	return strings.TrimSpace(b.String())
}

// Unshown: the text shows each comment's id.
func (commentsOutput) Unshown() map[string]string {
	return map[string]string{"comments[].replies[].id": "no tool takes a reply's id; reply_to_comment answers a comment by its id"}
}

type replyInput struct {
	FileID    string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	CommentID string `json:"comment_id" jsonschema:"from list_comments" schema:"minLength=1"`
	Content   string `json:"content" jsonschema:"the reply's text" schema:"minLength=1"`
}

type resolveInput struct {
	FileID    string `json:"file_id" jsonschema:"a Drive file id from search_files or list_folder" schema:"minLength=1"`
	CommentID string `json:"comment_id" jsonschema:"from list_comments" schema:"minLength=1"`
	Content   string `json:"content,omitempty" jsonschema:"optional closing reply"`
	Reopen    bool   `json:"reopen,omitempty" jsonschema:"reopen a resolved comment instead"`
}

type replyOutput struct {
	FileID    string `json:"file_id"`
	CommentID string `json:"comment_id"`
	Reply     reply  `json:"reply"`
	Action    string `json:"action"`
}

func (o replyOutput) Text() string {
	s := fmt.Sprintf("%s comment %s on %s", o.Action, o.CommentID, o.FileID)
	if o.Reply.Content != "" {
		s += ": " + o.Reply.Content
	}
	return s
}

// Unshown: the text names the comment the reply belongs to.
func (replyOutput) Unshown() map[string]string {
	return map[string]string{"reply.id": "no tool takes a reply's id; reply_to_comment answers a comment by its id"}
}

func addCollabTools(s *kit.Server, d *drv) {
	kit.AddTool(s, kit.Tool{Name: "list_shared_drives", Toolset: toolsetRead, Title: "List shared drives", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "The shared drives the account is in; list_folder opens one by id."}, d.listDrives)
	kit.AddTool(s, kit.Tool{Name: "get_share_link", Toolset: toolsetSharing, Title: "Share link and reach", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "A Drive file's link and who can open it."}, d.shareLink)
	kit.AddTool(s, kit.Tool{Name: "list_comments", Toolset: toolsetComments, Title: "List comments", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Comments on a Drive file (open ones by default), with quoted text, replies."}, d.listComments)
	kit.AddTool(s, kit.Tool{Name: "reply_to_comment", Toolset: toolsetComments, Title: "Reply to, resolve or reopen a comment", OpenWorld: true,
		Description: "Reply to a comment on a Drive file, resolve it or reopen it."}, d.comment)
}

func (d *drv) listDrives(ctx context.Context, _ *mcp.CallToolRequest, in listDrivesInput) (*mcp.CallToolResult, drivesOutput, error) {
	params := url.Values{"pageSize": {strconv.Itoa(in.PageSize)}, "fields": {"nextPageToken,drives(id,name,hidden)"}}
	if in.PageToken != "" {
		params.Set("pageToken", in.PageToken)
	}
	res, err := d.svc.SharedDrives(ctx, params)
	if err != nil {
		return nil, drivesOutput{}, d.fail(err, "shared drives")
	}
	out := drivesOutput{Drives: []driveEntry{}, NextPageToken: res.NextPageToken}
	for _, sd := range res.Drives {
		out.Drives = append(out.Drives, driveEntry{ID: sd.Id, Name: sd.Name, Hidden: sd.Hidden})
	}
	return nil, out, nil
}

// reachOf sorts a file's permissions into who can open it.
func reachOf(perms []*gdrive.Permission) reachOutput {
	var out reachOutput
	others := 0 // people with access besides the owner
	for _, p := range perms {
		if p.Deleted {
			continue
		}
		switch p.Type {
		case "anyone":
			out.Public = p.Role + ", anyone with the link"
			if p.AllowFileDiscovery {
				out.Public = p.Role + ", anyone; findable by search"
			}
		case "domain":
			d := p.Domain + ": " + p.Role
			if p.AllowFileDiscovery {
				d += ", findable by search"
			} else {
				d += ", with the link"
			}
			out.Domains = append(out.Domains, d)
		case "user", "group":
			who := p.EmailAddress
			if who == "" {
				who = p.DisplayName
			}
			out.People = append(out.People, fmt.Sprintf("%s: %s (%s)", who, p.Role, p.Type))
			if p.Role != "owner" {
				others++
			}
		}
	}
	switch {
	case out.Public != "":
		out.Reach = "public"
	case len(out.Domains) > 0:
		out.Reach = "domain"
	case others > 0:
		out.Reach = "people"
	default:
		out.Reach = "private"
	}
	return out
}

func (d *drv) shareLink(ctx context.Context, _ *mcp.CallToolRequest, in fileIDInput) (*mcp.CallToolResult, reachOutput, error) {
	f, err := d.get(ctx, in.FileID)
	if err != nil {
		return nil, reachOutput{}, err
	}
	perms, err := d.svc.Permissions(ctx, f.Id, allDrives(url.Values{"pageSize": {"100"}, "fields": {"nextPageToken,permissions(" + permFields + ",allowFileDiscovery)"}}))
	if err != nil {
		return nil, reachOutput{}, d.fail(err, "file "+in.FileID)
	}
	out := reachOf(perms)
	out.File, out.Link = toInfo(f), f.WebViewLink
	return nil, out, nil
}

func author(u *gdrive.User) string {
	switch {
	case u == nil:
		return ""
	case u.DisplayName != "":
		return u.DisplayName
	}
	return u.EmailAddress
}

// commentFields are the comment fields asked for; Drive answers 400 without a fields selector.
const commentFields = "id,content,author(displayName,emailAddress),createdTime,resolved,deleted,quotedFileContent(value),replies(id,content,action,author(displayName,emailAddress),createdTime,deleted)"

func toReply(r *gdrive.Reply) reply {
	return reply{ID: r.Id, Author: author(r.Author), Content: r.Content, Action: r.Action, Created: r.CreatedTime}
}

func (d *drv) listComments(ctx context.Context, _ *mcp.CallToolRequest, in listCommentsInput) (*mcp.CallToolResult, commentsOutput, error) {
	params := url.Values{"pageSize": {strconv.Itoa(in.PageSize)}, "fields": {"nextPageToken,comments(" + commentFields + ")"}}
	if in.PageToken != "" {
		params.Set("pageToken", in.PageToken)
	}
	res, err := d.svc.Comments(ctx, in.FileID, params)
	if err != nil {
		return nil, commentsOutput{}, d.fail(err, "file "+in.FileID)
	}
	out := commentsOutput{FileID: in.FileID, Comments: []comment{}, NextPageToken: res.NextPageToken}
	for _, c := range res.Comments {
		if c.Resolved && !in.IncludeResolved {
			out.Resolved++
			continue
		}
		cm := comment{ID: c.Id, Author: author(c.Author), Content: c.Content, Created: c.CreatedTime, Resolved: c.Resolved}
		if c.QuotedFileContent != nil {
			cm.Quoted = c.QuotedFileContent.Value
		}
		for i := range c.Replies {
			if !c.Replies[i].Deleted {
				cm.Replies = append(cm.Replies, toReply(c.Replies[i]))
			}
		}
		out.Comments = append(out.Comments, cm)
	}
	return nil, out, nil
}

// postReply adds a reply to a comment, with an action (resolve, reopen) or none.
func (d *drv) postReply(ctx context.Context, fileID, commentID, content, action string) (replyOutput, error) {
	r, err := d.svc.Reply(ctx, fileID, commentID, &gdrive.Reply{Content: content, Action: action},
		url.Values{"fields": {"id,content,action,author(displayName,emailAddress),createdTime"}})
	if err != nil {
		return replyOutput{}, d.fail(err, "comment "+commentID+" on file "+fileID)
	}
	return replyOutput{FileID: fileID, CommentID: commentID, Reply: toReply(r)}, nil
}

func (d *drv) replyToComment(ctx context.Context, _ *mcp.CallToolRequest, in replyInput) (*mcp.CallToolResult, replyOutput, error) {
	if strings.TrimSpace(in.Content) == "" {
		return nil, replyOutput{}, kit.Errorf(kit.CodeInvalidInput, "content is empty: give the reply's text")
	}
	out, err := d.postReply(ctx, in.FileID, in.CommentID, in.Content, "")
	out.Action = "Replied to"
	return nil, out, err
}

func (d *drv) resolveComment(ctx context.Context, _ *mcp.CallToolRequest, in resolveInput) (*mcp.CallToolResult, replyOutput, error) {
	action, verb := "resolve", "Resolved"
	if in.Reopen {
		action, verb = "reopen", "Reopened"
	}
	out, err := d.postReply(ctx, in.FileID, in.CommentID, in.Content, action)
	out.Action = verb
	return nil, out, err
}
