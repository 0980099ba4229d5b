package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder stands between the server and the fake Gmail and keeps the URL of every request.
type recorder struct {
	mu   sync.Mutex
	urls []*url.URL
}

func (r *recorder) seen() []*url.URL {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*url.URL(nil), r.urls...)
}

// startRecorded serves the Gmail tools against the fake through a recorder.
func startRecorded(t *testing.T) (*recorder, *mcp.ClientSession) {
	f := newFakeGmail(t)
	target, err := url.Parse(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.urls = append(rec.urls, r.URL)
		rec.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	args := append(signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour)), "--gmail-endpoint", srv.URL+"/")
	return rec, mcptest.Start(t, spec(), args...).Connect(t, "")
}

// TestSchemaRefusesBeforeGmail holds the tools' declared constraints: input outside them is
// refused with a message naming the rule, and Gmail is never asked.
func TestSchemaRefusesBeforeGmail(t *testing.T) {
	rec, cs := startRecorded(t)
	mcptest.CheckRefusals(t, cs, func() int { return len(rec.seen()) }, []mcptest.Refusal{
		{Tool: "search_messages", Args: map[string]any{"max_results": 500}, Want: "max_results must be at most 100, not 500"},
		{Tool: "search_messages", Args: map[string]any{"max_results": 0}, Want: "max_results must be at least 1, not 0"},
		{Tool: "list_drafts", Args: map[string]any{"max_results": 101}, Want: "max_results must be at most 100, not 101"},
		{Tool: "get_message", Args: map[string]any{"id": ""}, Want: "id must not be empty"},
		{Tool: "get_message", Args: map[string]any{"id": "alt", "format": "markdown"}, Want: `format must be one of "text", "html", "raw", not "markdown"`},
		{Tool: "get_message", Args: map[string]any{"id": "alt", "offset": -1}, Want: "offset must be at least 0, not -1"},
		{Tool: "get_message", Args: map[string]any{"id": "alt", "max_chars": 0}, Want: "max_chars must be at least 1, not 0"},
		{Tool: "get_thread", Args: map[string]any{"id": "t3", "format": "raw"}, Want: `format must be one of "text", "html", not "raw"`},
		{Tool: "get_thread", Args: map[string]any{"id": "t3", "max_chars_per_message": 0}, Want: "max_chars_per_message must be at least 1, not 0"},
		{Tool: "get_thread", Args: map[string]any{}, Want: "id is required"},
		{Tool: "modify_messages", Args: map[string]any{"ids": []string{}, "add_labels": []string{"STARRED"}}, Want: "ids must have at least 1 item, not 0"},
		{Tool: "modify_messages", Args: map[string]any{"ids": []string{"alt", ""}, "add_labels": []string{"STARRED"}}, Want: "ids[1] must not be empty"},
		{Tool: "get_attachment", Args: map[string]any{"message_id": "nested", "attachment_id": ""}, Want: "attachment_id must not be empty"},
		{Tool: "send_message", Args: map[string]any{"message_id": "", "text": "ok"}, Want: "message_id must not be empty"},
		{Tool: "delete_draft", Args: map[string]any{"id": ""}, Want: "id must not be empty"},
		{Tool: "edit_label", Args: map[string]any{"action": "create", "label": ""}, Want: "label must not be empty"},
		{Tool: "edit_label", Args: map[string]any{"action": "rename", "label": "Receipts", "new_name": ""}, Want: "new_name must not be empty"},
		{Tool: "edit_label", Args: map[string]any{"action": "archive", "label": "Receipts"}, Want: `action must be one of "create", "rename", "delete", not "archive"`},
		{Tool: "delete_filter", Args: map[string]any{"id": ""}, Want: "id must not be empty"},
		{Tool: "modify_messages", Args: map[string]any{"threads": true, "ids": []string{""}, "add_labels": []string{"STARRED"}}, Want: "ids[0] must not be empty"},
		{Tool: "save_draft", Args: map[string]any{"draft_id": "", "text": "ok"}, Want: "draft_id must not be empty"},
	})
}

// TestSchemaDefaultsReachGmail holds the declared defaults: an absent argument reaches the
// handler, and so Gmail, as its default.
func TestSchemaDefaultsReachGmail(t *testing.T) {
	rec, cs := startRecorded(t)
	_, _ = mcptest.CallFor[searchOutput](t, cs, "search_messages", map[string]any{"query": "in:inbox"})
	_, _ = mcptest.CallFor[listDraftsOutput](t, cs, "list_drafts", map[string]any{})
	got := map[string]string{}
	for _, u := range rec.seen() {
		if u.Path == "/gmail/v1/users/me/messages" || u.Path == "/gmail/v1/users/me/drafts" {
			got[u.Path] = u.Query().Get("maxResults")
		}
	}
	if got["/gmail/v1/users/me/messages"] != "20" || got["/gmail/v1/users/me/drafts"] != "20" {
		t.Errorf("maxResults sent %v, want the default 20 for both", got)
	}
	// format defaults to text: one full fetch, no raw one.
	before := len(rec.seen())
	out, _ := mcptest.CallFor[messageOutput](t, cs, "get_message", map[string]any{"id": "alt"})
	urls := rec.seen()[before:]
	if out.BodySource != "text/plain" || len(urls) != 1 || urls[0].Query().Get("format") != "full" {
		t.Errorf("default format: body from %q, requests %v", out.BodySource, urls)
	}
}
