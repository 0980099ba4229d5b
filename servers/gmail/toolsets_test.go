package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestListToolsets: gmail --list-toolsets prints its inventory, every tool in one toolset,
// contacts marked off by default.
func TestListToolsets(t *testing.T) {
	var out, errs bytes.Buffer
	if code := kit.Run(context.Background(), spec(), []string{"--list-toolsets", "--state-dir", t.TempDir()}, func(string) string { return "" }, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var sets []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Tools       []string `json:"tools"`
		Optional    bool     `json:"optional"`
	}
	if err := json.Unmarshal(out.Bytes(), &sets); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	var names, tools []string
	for _, s := range sets {
		names = append(names, s.Name)
		tools = append(tools, s.Tools...)
		if s.Description == "" || len(s.Tools) == 0 {
			t.Errorf("toolset %+v", s)
		}
	}
	if want := []string{"read", "organize", "send", "drafts", "labels", "filters", "contacts"}; !slices.Equal(names, want) {
		t.Errorf("toolsets %v, want %v", names, want)
	}
	if len(tools) != 21 || !sets[6].Optional || sets[0].Optional {
		t.Errorf("%d tools in the toolsets, want the 21 gmail has; only contacts off by default: %+v", len(tools), sets)
	}
}

// TestNarrowingOnGmail: a backend narrows one request to the read toolset, read-only, by
// headers, or by the URL /mcp/x/drafts; a call outside is an unknown tool; the flags win.
func TestNarrowingOnGmail(t *testing.T) {
	t.Parallel()
	f := newFakeGmail(t)
	args := signIn(t, f, "http://127.0.0.1:1/token", time.Now().Add(time.Hour))
	h := mcptest.Start(t, spec(), args...)
	names := func(cs *mcp.ClientSession) []string {
		var out []string
		for _, tl := range mcptest.Tools(t, cs) {
			out = append(out, tl.Name)
		}
		return out
	}
	cs, err := h.TryConnectTo(t.Context(), "/mcp", "", http.Header{"X-Mcp-Toolsets": {"read,organize"}, "X-Mcp-Readonly": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, want := names(cs), []string{"get_attachment", "get_gmail_profile", "get_message", "get_thread", "list_send_as", "search_messages"}; !slices.Equal(got, want) {
		t.Errorf("read,organize read-only: %v, want %v", got, want)
	}
	if strings.Contains(cs.InitializeResult().Instructions, "Sending is irreversible") {
		t.Error("the instructions speak of sending to a client that cannot send")
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_message", Arguments: map[string]any{"to": []string{"bob@example.com"}, "text": "x"}}); err == nil || !strings.Contains(err.Error(), `unknown tool "send_message"`) {
		t.Errorf("send_message outside the narrowing: %v", err)
	}
	if len(f.Sent) != 0 {
		t.Errorf("sent %d messages", len(f.Sent))
	}
	if out, _ := mcptest.CallFor[searchOutput](t, cs, "search_messages", map[string]any{"query": "in:inbox"}); len(out.Messages) == 0 {
		t.Error("search_messages found nothing")
	}

	drafts, err := h.TryConnectTo(t.Context(), "/mcp/x/drafts", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer drafts.Close()
	if got, want := names(drafts), []string{"delete_draft", "get_draft", "list_drafts", "save_draft", "send_draft"}; !slices.Equal(got, want) {
		t.Errorf("/mcp/x/drafts: %v, want %v", got, want)
	}

	// Started with --toolsets read, no header brings the others back.
	ro := mcptest.Start(t, spec(), append(args, "--toolsets", "read")...)
	wide, err := ro.TryConnectTo(t.Context(), "/mcp", "", http.Header{"X-Mcp-Toolsets": {"all"}})
	if err != nil {
		t.Fatal(err)
	}
	defer wide.Close()
	if got := names(wide); len(got) != 6 || slices.Contains(got, "send_message") {
		t.Errorf("--toolsets read with X-MCP-Toolsets all: %v", got)
	}
}
