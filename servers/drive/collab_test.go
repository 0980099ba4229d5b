package main

import (
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/drive/v3"
)

func TestListSharedDrives(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	f.AddSharedDrive(sharedDrive, "Engineering")
	f.AddSharedDrive("0AsharedDriveOps", "Ops")
	p1, res := mcptest.CallFor[drivesOutput](t, cs, "list_shared_drives", map[string]any{"page_size": 1})
	if len(p1.Drives) != 1 || p1.Drives[0] != (driveEntry{ID: sharedDrive, Name: "Engineering"}) || p1.NextPageToken == "" ||
		!strings.Contains(mcptest.Text(res), "Engineering (id "+sharedDrive+")") {
		t.Fatalf("page 1 %+v", p1)
	}
	p2, _ := mcptest.CallFor[drivesOutput](t, cs, "list_shared_drives", map[string]any{"page_token": p1.NextPageToken})
	if len(p2.Drives) != 1 || p2.Drives[0].Name != "Ops" || p2.NextPageToken != "" {
		t.Errorf("page 2 %+v", p2)
	}
	if q := f.Calls("GET", "/drive/v3/drives")[0].Query; q.Get("pageSize") != "1" || !strings.Contains(q.Get("fields"), "drives(id,name") {
		t.Errorf("drives.list query %v", q)
	}
	if msg := mcptest.CallError(t, cs, "list_shared_drives", map[string]any{"page_size": 500}); !strings.Contains(msg, "page_size") {
		t.Errorf("page_size 500: %q", msg)
	}
}

func TestShareLink(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	owner := &drive.Permission{Id: "p-owner", Type: "user", Role: "owner", EmailAddress: "ada@example.com"}
	f.SetPermissions("slides1", owner, &drive.Permission{Id: "p-any", Type: "anyone", Role: "reader"})
	f.SetPermissions("sheet1", owner, &drive.Permission{Id: "p-dom", Type: "domain", Role: "commenter", Domain: "example.com", AllowFileDiscovery: true})
	f.SetPermissions("notes1", owner)
	tests := []struct {
		file, reach, want string
	}{
		{"doc1", "people", "Person: bob@example.com: writer (user)"},
		{"slides1", "public", "Public: reader, anyone with the link."},
		{"sheet1", "domain", "Domain: example.com: commenter, findable by search"},
		{"notes1", "private", "Private: only the owner can open it."},
	}
	for _, tt := range tests {
		out, res := mcptest.CallFor[reachOutput](t, cs, "get_share_link", map[string]any{"file_id": tt.file})
		if out.Reach != tt.reach || out.File.ID != tt.file || !strings.Contains(mcptest.Text(res), tt.want) {
			t.Errorf("%s: %+v\n%s", tt.file, out, mcptest.Text(res))
		}
	}
	doc, _ := mcptest.CallFor[reachOutput](t, cs, "get_share_link", map[string]any{"file_id": "doc1"})
	if doc.Link != "https://docs.google.com/document/d/doc1/edit" {
		t.Errorf("link %q", doc.Link)
	}
	if msg := mcptest.CallError(t, cs, "get_share_link", map[string]any{"file_id": "nope"}); !strings.Contains(msg, "file nope not found") {
		t.Errorf("missing file: %q", msg)
	}
}

func TestComments(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	f.SetComments("doc1",
		&drive.Comment{Id: "c1", Content: "Is this date right?", Author: &drive.User{DisplayName: "Bob"}, QuotedFileContent: &drive.CommentQuotedFileContent{Value: "Ship drive"},
			Replies: []*drive.Reply{{Id: "r1", Content: "Checking", Author: &drive.User{DisplayName: "Ada"}}, {Id: "r0", Content: "gone", Deleted: true}}},
		&drive.Comment{Id: "c2", Content: "Typo", Resolved: true, Author: &drive.User{DisplayName: "Bob"}},
		&drive.Comment{Id: "c3", Content: "deleted", Deleted: true})
	open, res := mcptest.CallFor[commentsOutput](t, cs, "list_comments", map[string]any{"file_id": "doc1"})
	if len(open.Comments) != 1 || open.Resolved != 1 || open.Comments[0].Quoted != "Ship drive" || len(open.Comments[0].Replies) != 1 ||
		!strings.Contains(mcptest.Text(res), "[c1] Bob: Is this date right?") || !strings.Contains(mcptest.Text(res), "1 resolved comments not shown") {
		t.Fatalf("open comments %+v\n%s", open, mcptest.Text(res))
	}
	if q := f.Calls("GET", "/files/doc1/comments")[0].Query; !strings.Contains(q.Get("fields"), "comments(") || q.Get("pageSize") != "20" {
		t.Errorf("comments.list query %v", q)
	}
	all, _ := mcptest.CallFor[commentsOutput](t, cs, "list_comments", map[string]any{"file_id": "doc1", "include_resolved": true})
	if len(all.Comments) != 2 || !all.Comments[1].Resolved {
		t.Errorf("all comments %+v", all)
	}

	rep, res := mcptest.CallFor[replyOutput](t, cs, "reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c1", "content": "Yes, March 2"})
	c1, _ := f.Comment("doc1", "c1")
	if rep.Reply.Content != "Yes, March 2" || rep.Reply.ID == "" || c1.Resolved || c1.Replies[len(c1.Replies)-1].Content != "Yes, March 2" ||
		mcptest.Text(res) != "Replied to comment c1 on doc1: Yes, March 2" {
		t.Errorf("reply %+v %q; comment %+v", rep, mcptest.Text(res), c1)
	}
	if res, _ := mcptest.CallFor[replyOutput](t, cs, "reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c1", "resolve": "resolve"}); res.Action != "Resolved" {
		t.Errorf("resolve %+v", res)
	}
	if c1, _ = f.Comment("doc1", "c1"); !c1.Resolved || c1.Replies[len(c1.Replies)-1].Action != "resolve" {
		t.Errorf("after resolve %+v", c1)
	}
	mcptest.CallFor[replyOutput](t, cs, "reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c1", "resolve": "reopen", "content": "Not yet"})
	if c1, _ = f.Comment("doc1", "c1"); c1.Resolved {
		t.Errorf("after reopen %+v", c1)
	}
	replies := f.Calls("POST", "/files/doc1/comments/c1/replies")
	if len(replies) != 3 || replies[1].Body["action"] != "resolve" || replies[1].Body["content"] != nil || replies[0].Query.Get("fields") == "" {
		t.Errorf("reply requests %+v", replies)
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c9", "content": "hi"}, "comment c9 on file doc1 not found"},
		{"reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c1", "content": ""}, "content"},
		{"reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c3", "resolve": "resolve"}, "comment c3 on file doc1 not found"},
		{"reply_to_comment", map[string]any{"file_id": "doc1", "comment_id": "c1", "resolve": "close"}, `resolve must be one of "resolve", "reopen", not "close"`},
		{"list_comments", map[string]any{"file_id": "nope"}, "file nope not found"},
	} {
		if msg := mcptest.CallError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, msg, tt.want)
		}
	}
	// The empty reply is refused before it reaches Drive; the others were sent.
	if n := len(f.Calls("POST", "/replies")); n != 5 {
		t.Errorf("%d reply requests, want 5", n)
	}
}
