package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/drive/v3"
)

// TestRecipientAllowlist tries every way drive's tools give someone outside
// --allowed-recipients a file — a share to a user, a group, a domain or anyone with the link,
// and a file created, uploaded, copied or moved into (or a folder or spreadsheet made in) a
// folder someone outside can open — and checks that each is refused with the fleet's message
// before anything is written, while the same inside the list goes through.
func TestRecipientAllowlist(t *testing.T) {
	t.Parallel()
	f, cs := start(t, "--allowed-recipients", "bob@example.com,@family.test")
	// A folder an outsider shared with Ada (they own it), and one only Ada and family can open.
	f.Add(&drive.File{Id: "theirs", Name: "Drop box", MimeType: mimeFolder}, nil)
	f.SetPermissions("theirs", &drive.Permission{Id: "p1", Type: "user", Role: "owner", EmailAddress: "mallory@evil.test"}, &drive.Permission{Id: "p2", Type: "user", Role: "writer", EmailAddress: "ada@example.com"})
	f.Add(&drive.File{Id: "public", Name: "Public", MimeType: mimeFolder}, nil)
	f.SetPermissions("public", &drive.Permission{Id: "p3", Type: "user", Role: "owner", EmailAddress: "ada@example.com"}, &drive.Permission{Id: "p4", Type: "anyone", Role: "reader"})
	f.Add(&drive.File{Id: "family", Name: "Family", MimeType: mimeFolder}, nil)
	f.SetPermissions("family", &drive.Permission{Id: "p5", Type: "user", Role: "owner", EmailAddress: "ada@example.com"}, &drive.Permission{Id: "p6", Type: "domain", Role: "reader", Domain: "family.test"}, &drive.Permission{Id: "p7", Type: "group", Role: "writer", EmailAddress: "kids@family.test"})
	const named = "(--allowed-recipients, MCP_ALLOWED_RECIPIENTS)"
	theirs := "folder theirs is shared with mallory@evil.test, outside the allowed recipients on this server " + named + ": a file put there is shared with them too; pick another folder, or ask the owner to add them"
	content := base64.StdEncoding.EncodeToString([]byte("secret"))
	writes := func() int {
		n := 0
		for _, m := range []string{"POST", "PATCH", "PUT", "DELETE"} {
			n += len(f.Calls(m, ""))
		}
		return n
	}
	for _, tt := range []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"user", "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "x@evil.test", "role": "reader"}, "x@evil.test is not an allowed recipient on this server " + named + ": leave them out, or ask the owner to add them"},
		{"user at a subdomain", "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "a@school.family.test", "role": "reader"}, "a@school.family.test is not an allowed recipient on this server " + named + ": leave them out, or ask the owner to add them"},
		{"group", "share_file", map[string]any{"file_id": "doc1", "type": "group", "email": "all@Evil.test", "role": "writer"}, "all@evil.test is not an allowed recipient on this server " + named + ": leave them out, or ask the owner to add them"},
		{"domain", "share_file", map[string]any{"file_id": "doc1", "type": "domain", "domain": "example.com", "role": "reader"}, "everyone at example.com is not an allowed recipient on this server " + named + ": a domain is allowed only as @example.com; share with allowed people instead, or ask the owner to add @example.com"},
		{"anyone", "share_file", map[string]any{"file_id": "doc1", "type": "anyone", "role": "reader"}, "making files public is disabled on this server (start it with --allow-public-sharing); share with people, a group or a domain instead"},
		{"create into", "create_file", map[string]any{"name": "notes.md", "content": "secret", "folder_id": "theirs"}, theirs},
		{"upload into", "upload_file", map[string]any{"name": "a.bin", "content_base64": content, "folder_id": "theirs"}, theirs},
		{"copy into", "copy_file", map[string]any{"file_id": "doc1", "folder_id": "theirs"}, theirs},
		{"move into", "move_file", map[string]any{"file_id": "doc1", "folder_id": "theirs"}, theirs},
		{"folder in", "create_folder", map[string]any{"name": "x", "parent_id": "theirs"}, theirs},
		{"spreadsheet in", "create_spreadsheet", map[string]any{"title": "x", "folder_id": "theirs"}, theirs},
		{"into a public folder", "move_file", map[string]any{"file_id": "doc1", "folder_id": "public"}, "folder public is shared with anyone with the link, outside the allowed recipients on this server " + named + ": a file put there is shared with them too; pick another folder, or ask the owner to add them"},
	} {
		before := writes()
		res := mcptest.Call(t, cs, tt.tool, tt.args)
		if !res.IsError || mcptest.Text(res) != tt.want {
			t.Errorf("%s: %q\nwant %q", tt.name, mcptest.Text(res), tt.want)
		}
		if n := writes() - before; n != 0 {
			t.Errorf("%s: %d writes reached Drive", tt.name, n)
		}
	}
	// Inside the list: a listed person, a listed domain, a folder only family and Ada can open,
	// My Drive.
	mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "Bob@example.com", "role": "reader", "notify": false})
	mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "domain", "domain": "family.test", "role": "reader"})
	mcptest.CallFor[fileOutput](t, cs, "move_file", map[string]any{"file_id": "notes1", "folder_id": "family"})
	mcptest.CallFor[fileOutput](t, cs, "create_file", map[string]any{"name": "plan.md", "content": "hi", "folder_id": "root"})
	if n := len(f.Calls("POST", "/permissions")); n != 2 {
		t.Errorf("%d shares made, want 2", n)
	}
	if file, _, _ := f.File("notes1"); len(file.Parents) != 1 || file.Parents[0] != "family" {
		t.Errorf("notes1 parents %v", file.Parents)
	}
}

// TestRecipientAllowlistOpen: without the flag a folder's people are not looked up (no extra
// call), and anyone may be shared with, as before.
func TestRecipientAllowlistOpen(t *testing.T) {
	t.Parallel()
	f, cs := start(t)
	f.Add(&drive.File{Id: "theirs", Name: "Drop box", MimeType: mimeFolder}, nil)
	f.SetPermissions("theirs", &drive.Permission{Id: "p1", Type: "user", Role: "owner", EmailAddress: "mallory@evil.test"})
	mcptest.CallFor[fileOutput](t, cs, "move_file", map[string]any{"file_id": "doc1", "folder_id": "theirs"})
	mcptest.CallFor[permissionOutput](t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "x@evil.test", "role": "reader"})
	if n := len(f.Calls("GET", "/theirs/permissions")); n != 0 {
		t.Errorf("folder permissions read %d times without an allowlist", n)
	}
	if msg := mcptest.CallError(t, cs, "share_file", map[string]any{"file_id": "doc1", "type": "user", "email": "Bob", "role": "reader"}); !strings.Contains(msg, "not an email address") {
		t.Errorf("a name as share target: %s", msg)
	}
}
