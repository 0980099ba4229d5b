package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNoteResources: over HTTP with the go-sdk client, at both revisions, the notes list as
// resources (paginated, titles and dates), read as Markdown, and their paths complete.
func TestNoteResources(t *testing.T) {
	e := start(t)
	for i := range resourcePage + 5 { // more than a page
		call[noteOutput](e, "create_note", map[string]any{"path": fmt.Sprintf("bulk/n%03d", i), "content": "bulk note"})
	}
	call[noteOutput](e, "create_note", map[string]any{"path": "projects/Kubernetes Migration", "title": "K8s move", "content": "Move the cluster.\n"})
	for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
		cs := e.h.ConnectAs(t, "", version, nil)
		var all []*mcp.Resource
		for r, err := range cs.Resources(t.Context(), nil) {
			if err != nil {
				t.Fatalf("%s: resources: %v", version, err)
			}
			all = append(all, r)
		}
		if len(all) != resourcePage+6 {
			t.Fatalf("%s: %d resources, want %d", version, len(all), resourcePage+6)
		}
		i := slices.IndexFunc(all, func(r *mcp.Resource) bool { return r.Name == "projects/Kubernetes Migration.md" })
		if i < 0 {
			t.Fatalf("%s: the note is not among the resources", version)
		}
		k8s := all[i]
		if k8s.URI != "notes://projects/Kubernetes%20Migration.md" || k8s.Title != "K8s move" || k8s.MIMEType != "text/markdown" || k8s.Annotations == nil || k8s.Annotations.LastModified == "" {
			t.Errorf("%s: newest resource %+v", version, k8s)
		}
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: k8s.URI})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "title: K8s move") || !strings.Contains(res.Contents[0].Text, "Move the cluster.") || res.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("%s: read %s: %+v %v", version, k8s.URI, res, err)
		}
		for _, uri := range []string{"notes://projects/nothing.md", "notes://../etc/passwd"} {
			if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil {
				t.Errorf("%s: read %s succeeded", version, uri)
			}
		}
		comp, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: noteTemplate}, Argument: mcp.CompleteParamsArgument{Name: "path", Value: "proj"}})
		if err != nil || !slices.Equal(comp.Completion.Values, []string{"projects/Kubernetes Migration.md"}) {
			t.Errorf("%s: complete proj: %+v %v", version, comp, err)
		}
		comp, err = cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: noteTemplate}, Argument: mcp.CompleteParamsArgument{Name: "path", Value: "bulk/n10"}})
		if err != nil || !slices.Equal(comp.Completion.Values, []string{"bulk/n100.md", "bulk/n101.md", "bulk/n102.md", "bulk/n103.md", "bulk/n104.md"}) {
			t.Errorf("%s: complete bulk/n10: %+v %v", version, comp, err)
		}
	}
	// list_notes answers with links to the notes it found, beside its text.
	res := mcptest.Call(t, e.cs, "list_notes", map[string]any{"query": "cluster"})
	var links []string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			links = append(links, l.URI+" "+l.Title)
		}
	}
	if !slices.Equal(links, []string{"notes://projects/Kubernetes%20Migration.md K8s move"}) {
		t.Errorf("list_notes links %v", links)
	}
}

// TestNoteResourcesNarrowed: the resources and prompts go where get_note and list_notes go:
// /mcp/x/write has neither, /mcp/readonly keeps both.
func TestNoteResourcesNarrowed(t *testing.T) {
	e := start(t)
	call[noteOutput](e, "create_note", map[string]any{"path": "a", "content": "x"})
	for path, want := range map[string]bool{"/mcp/x/write": false, "/mcp/readonly": true, "/mcp/x/read": true} {
		cs, err := e.h.TryConnectTo(t.Context(), path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var templates, prompts int
		for _, err := range cs.ResourceTemplates(t.Context(), nil) {
			if err == nil {
				templates++
			}
		}
		for _, err := range cs.Prompts(t.Context(), nil) {
			if err == nil {
				prompts++
			}
		}
		_, readErr := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes://a.md"})
		offered := templates == 1 && prompts == 2 && readErr == nil
		hidden := templates == 0 && prompts == 0 && readErr != nil
		if want && !offered || !want && !hidden {
			t.Errorf("%s: %d templates, %d prompts, read error %v; want offered %v", path, templates, prompts, readErr, want)
		}
	}
}

// TestReviewPrompts: the daily review embeds the day's note and lists the notes changed that
// day; the weekly summary lists the week's; their dates complete.
func TestReviewPrompts(t *testing.T) {
	e := start(t)
	call[noteOutput](e, "daily_note", map[string]any{})
	call[noteOutput](e, "create_note", map[string]any{"path": "ideas/garden", "title": "Garden plan", "content": "- [ ] order seeds\n"})
	today := time.Now().Format("2006-01-02")
	res, err := e.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "daily_review"})
	if err != nil {
		t.Fatalf("daily_review: %v", err)
	}
	if len(res.Messages) != 2 {
		t.Fatalf("daily_review: %d messages, want the daily note and the ask", len(res.Messages))
	}
	emb, ok := res.Messages[0].Content.(*mcp.EmbeddedResource)
	if !ok || emb.Resource.URI != "notes://daily/"+today+".md" || !strings.Contains(emb.Resource.Text, today) {
		t.Errorf("daily_review's first message: %+v", res.Messages[0].Content)
	}
	text := res.Messages[1].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "ideas/garden.md — Garden plan") || !strings.Contains(text, "carry over") {
		t.Errorf("daily_review's ask: %s", text)
	}
	res, err = e.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "daily_review", Arguments: map[string]string{"date": "2020-01-01"}})
	if err != nil || len(res.Messages) != 1 || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "No note changed in 2020-01-01") {
		t.Errorf("daily_review of a quiet day: %+v %v", res, err)
	}
	if _, err := e.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "daily_review", Arguments: map[string]string{"date": "yesterday"}}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("daily_review of a bad date: %v", err)
	}
	res, err = e.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "weekly_summary"})
	if err != nil || !strings.Contains(res.Messages[len(res.Messages)-1].Content.(*mcp.TextContent).Text, "ideas/garden.md") {
		t.Errorf("weekly_summary: %+v %v", res, err)
	}
	comp, err := e.cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "daily_review"}, Argument: mcp.CompleteParamsArgument{Name: "date", Value: today[:4]}})
	if err != nil || len(comp.Completion.Values) == 0 || comp.Completion.Values[0] != today {
		t.Errorf("complete date: %+v %v", comp, err)
	}
	y, w := time.Now().ISOWeek()
	comp, err = e.cs.Complete(t.Context(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "weekly_summary"}, Argument: mcp.CompleteParamsArgument{Name: "week", Value: ""}})
	if err != nil || len(comp.Completion.Values) != 8 || comp.Completion.Values[0] != fmt.Sprintf("%04d-W%02d", y, w) {
		t.Errorf("complete week: %+v %v", comp, err)
	}
}

// TestNoteChangesNotify: a 2026-07-28 client listening for resource changes hears that the
// list changed when a note is written, and that the note it subscribed to was updated.
func TestNoteChangesNotify(t *testing.T) {
	e := start(t)
	call[noteOutput](e, "create_note", map[string]any{"path": "watched", "content": "v1"})
	changed, updated := make(chan struct{}, 16), make(chan string, 16)
	cs := e.h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "notes://watched.md"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ { // the listen streams open in the background: write until heard
		call[noteOutput](e, "update_note", map[string]any{"path": "watched", "content": fmt.Sprintf("v%d", i+2), "mode": "replace"})
		select {
		case uri := <-updated:
			if uri != "notes://watched.md" {
				t.Fatalf("updated %q", uri)
			}
			select {
			case <-changed:
				return
			case <-deadline:
				t.Fatal("no resources list_changed")
			}
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("no resource updated notification")
		}
	}
}
