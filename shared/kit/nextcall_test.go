package kit_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type pageItem struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type pageOut struct {
	Items         []pageItem `json:"items"`
	NextPageToken string     `json:"next_page_token,omitempty"`
	SHA256        string     `json:"sha256"`
}

// Text names the items but shows neither their ids nor the page token nor the hash.
func (o pageOut) Text() string {
	names := make([]string, len(o.Items))
	for i, it := range o.Items {
		names[i] = it.Name
	}
	return strings.Join(names, "\n")
}

type quietPageOut struct{ pageOut }

func (quietPageOut) Unshown() map[string]string {
	return map[string]string{"items[].id": "a test output whose ids nobody passes on", "sha256": "likewise"}
}

type pageIn struct {
	Token string `json:"page_token,omitempty" jsonschema:"next_page_token of the call before"`
}

func page(in pageIn) pageOut {
	if in.Token != "" {
		return pageOut{Items: []pageItem{{ID: "it-3", Name: "third"}}, SHA256: "c0ffee"}
	}
	return pageOut{Items: []pageItem{{ID: "it-1", Name: "first"}, {ID: "it-2", Name: "second"}}, NextPageToken: "tok-2", SHA256: "c0ffee"}
}

func nextCallSpec() kit.Spec {
	return kit.Spec{
		Name: "nextcalltest",
		Port: 9999,
		Setup: func(s *kit.Server) error {
			kit.AddTool(s, kit.Tool{Name: "list_items", Description: "List items.", ReadOnly: true},
				func(_ context.Context, _ *mcp.CallToolRequest, in pageIn) (*mcp.CallToolResult, pageOut, error) {
					return nil, page(in), nil
				})
			kit.AddTool(s, kit.Tool{Name: "list_quiet", Description: "List items, ids unshown.", ReadOnly: true},
				func(_ context.Context, _ *mcp.CallToolRequest, in pageIn) (*mcp.CallToolResult, quietPageOut, error) {
					return nil, quietPageOut{page(in)}, nil
				})
			kit.AddTool(s, kit.Tool{Name: "picture", Description: "An image with a caption.", ReadOnly: true},
				func(_ context.Context, _ *mcp.CallToolRequest, in pageIn) (*mcp.CallToolResult, pageOut, error) {
					res := &mcp.CallToolResult{Content: []mcp.Content{
						&mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"},
						&mcp.TextContent{Text: "a picture of first"},
					}}
					return res, pageOut{Items: []pageItem{{ID: "it-1", Name: "first"}}, SHA256: "c0ffee"}, nil
				})
			return nil
		},
	}
}

// TestTextsCarryNextCallFields: the kit appends to a tool's text the top-level next-call
// fields its rendering left out, as one JSON line, and reports those inside lists, which only
// the rendering can place, unless the output declares them Unshown.
func TestTextsCarryNextCallFields(t *testing.T) {
	h := mcptest.Start(t, nextCallSpec())
	var mu sync.Mutex
	reported := map[string][]string{}
	h.Server.CheckTexts(func(tool string, missing []string, _ string) {
		mu.Lock()
		defer mu.Unlock()
		reported[tool] = append(reported[tool], missing...)
	})
	cs := h.Connect(t, "")

	if got := mcptest.Text(mcptest.Call(t, cs, "list_items", nil)); got != "first\nsecond\n"+`{"next_page_token":"tok-2","sha256":"c0ffee"}` {
		t.Errorf("list_items text %q, want the names and then the token and hash as JSON", got)
	}
	// The token the model sent is its own: not repeated.
	if got := mcptest.Text(mcptest.Call(t, cs, "list_items", map[string]any{"page_token": "c0ffee"})); got != "third" {
		t.Errorf("list_items page 2 text %q, want only the name: the hash is the argument the model sent", got)
	}
	if got := mcptest.Text(mcptest.Call(t, cs, "list_quiet", nil)); got != "first\nsecond\n"+`{"next_page_token":"tok-2"}` {
		t.Errorf("list_quiet text %q, want the names and the token; the hash is unshown", got)
	}
	res := mcptest.Call(t, cs, "picture", nil)
	if len(res.Content) != 2 || mcptest.Text(res) != "a picture of first\n"+`{"sha256":"c0ffee"}` {
		t.Errorf("picture: %d contents, text %q; want the image and its caption completed", len(res.Content), mcptest.Text(res))
	}

	mu.Lock()
	defer mu.Unlock()
	want := map[string][]string{
		"list_items": {"items[0].id", "items[1].id", "items[0].id"},
		"picture":    {"items[0].id"},
	}
	for tool, w := range want {
		if !slices.Equal(reported[tool], w) {
			t.Errorf("%s: reported %v, want %v", tool, reported[tool], w)
		}
	}
	if r := reported["list_quiet"]; len(r) > 0 {
		t.Errorf("list_quiet: reported %v, want nothing: its ids are Unshown", r)
	}
}
