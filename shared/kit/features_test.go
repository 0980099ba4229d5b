package kit_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wordsOut is find_words' output: it links the words it found as resources.
type wordsOut struct {
	Words []string `json:"words"`
}

func (o wordsOut) Text() string { return strings.Join(o.Words, ", ") }

func (o wordsOut) ResourceLinks() []*mcp.ResourceLink {
	links := []*mcp.ResourceLink{kit.ResourceLink("elsewhere://not-ours", "stranger", "", "")}
	for _, w := range o.Words {
		links = append(links, kit.ResourceLink("word://"+w, w, "", "text/plain"))
	}
	return links
}

// words are the resources of featureSpec's template, five of them, listed two a page.
var words = []string{"alpha", "beta", "delta", "epsilon", "gamma"}

// featureSpec is toolsetSpec with a resource template beside echo (talk), a prompt beside
// write_thing (change), and find_words (talk), which links the words as resources.
func featureSpec() kit.Spec {
	spec := toolsetSpec()
	inner := spec.Setup
	spec.Setup = func(s *kit.Server) error {
		if err := inner(s); err != nil {
			return err
		}
		kit.AddTool(s, kit.Tool{Name: "find_words", Toolset: "talk", Description: "Find words.", ReadOnly: true},
			func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, wordsOut, error) {
				return nil, wordsOut{Words: words[:2]}, nil
			})
		complete := func(_ context.Context, arg, value string, _ map[string]string) ([]string, error) {
			if arg != "word" && arg != "topic" {
				return nil, fmt.Errorf("no argument %q", arg)
			}
			return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return !strings.HasPrefix(w, value) }), nil
		}
		s.AddResourceTemplate(kit.ResourceTemplate{
			Tool:     "echo",
			Template: &mcp.ResourceTemplate{Name: "word", URITemplate: "word://{word}", MIMEType: "text/plain"},
			Read: func(_ context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
				if !slices.Contains(words, vars["word"]) {
					return nil, fmt.Errorf("%w: no word %q", kit.ErrResourceNotFound, vars["word"])
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "the word " + vars["word"]}}}, nil
			},
			List: func(_ context.Context, cursor string) ([]*mcp.Resource, string, error) {
				from, _ := strconv.Atoi(cursor)
				end := min(from+2, len(words))
				var page []*mcp.Resource
				for _, w := range words[from:end] {
					page = append(page, &mcp.Resource{URI: "word://" + w, Name: w})
				}
				if end == len(words) {
					return page, "", nil
				}
				return page, strconv.Itoa(end), nil
			},
			Complete: complete,
		})
		s.AddPrompt(kit.Prompt{
			Tool:     "write_thing",
			Prompt:   &mcp.Prompt{Name: "write_about", Description: "Write about a topic.", Arguments: []*mcp.PromptArgument{{Name: "topic", Description: "what to write about", Required: true}}},
			Complete: complete,
			Get: func(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Write about " + args["topic"] + "."}}}}, nil
			},
		})
		return nil
	}
	return spec
}

// features is what one client sees of featureSpec's resources and prompts.
type seen struct {
	templates, resources, prompts []string
}

func look(t *testing.T, cs *mcp.ClientSession) seen {
	t.Helper()
	var got seen
	for rt, err := range cs.ResourceTemplates(t.Context(), nil) {
		if err != nil {
			t.Fatalf("templates: %v", err)
		}
		got.templates = append(got.templates, rt.URITemplate)
	}
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatalf("resources: %v", err)
		}
		got.resources = append(got.resources, r.Name)
	}
	for p, err := range cs.Prompts(t.Context(), nil) {
		if err != nil {
			t.Fatalf("prompts: %v", err)
		}
		got.prompts = append(got.prompts, p.Name)
	}
	return got
}

// TestResourcesAndPrompts: templates, resources and prompts list, read, get and complete over
// HTTP with the go-sdk client, and go exactly where the tool they stand beside goes: the
// configuration, the narrowed URLs and read-only.
func TestResourcesAndPrompts(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		path  string
		talk  bool // the template (beside echo) is offered
		write bool // the prompt (beside write_thing) is offered
	}{
		{"everything", nil, "/mcp", true, true},
		{"narrowed to a toolset", nil, "/mcp/x/change", false, true},
		{"narrowed read-only", nil, "/mcp/readonly", true, false},
		{"flags leave the tool out", []string{"--toolsets", "change"}, "/mcp", false, true},
		{"a read-only server", []string{"--read-only"}, "/mcp", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := mcptest.Start(t, featureSpec(), tt.flags...)
			for _, version := range []string{mcptest.ProtocolVersion, mcptest.Stateless} {
				cs := connectTo(t, h, tt.path, version)
				got := look(t, cs)
				want := seen{}
				if tt.talk {
					want.templates, want.resources = []string{"word://{word}"}, words
				}
				if tt.write {
					want.prompts = []string{"write_about"}
				}
				if !slices.Equal(got.templates, want.templates) || !slices.Equal(got.resources, want.resources) || !slices.Equal(got.prompts, want.prompts) {
					t.Errorf("%s: saw %+v, want %+v", version, got, want)
				}
				read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "word://beta"})
				switch {
				case tt.talk && (err != nil || read.Contents[0].Text != "the word beta" || read.Contents[0].MIMEType != "text/plain"):
					t.Errorf("%s: read: %+v %v", version, read, err)
				case !tt.talk && (err == nil || !strings.Contains(err.Error(), "not found")):
					t.Errorf("%s: read where the template is not offered: %v, want not found", version, err)
				}
				if tt.talk {
					if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "word://omega"}); err == nil || !strings.Contains(err.Error(), `no word "omega"`) {
						t.Errorf("%s: read of a word that is not there: %v", version, err)
					}
				}
				prompt, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "write_about", Arguments: map[string]string{"topic": "gardens"}})
				switch {
				case tt.write && (err != nil || prompt.Messages[0].Content.(*mcp.TextContent).Text != "Write about gardens."):
					t.Errorf("%s: get prompt: %+v %v", version, prompt, err)
				case !tt.write && (err == nil || !strings.Contains(err.Error(), `unknown prompt "write_about"`)):
					t.Errorf("%s: get a prompt that is not offered: %v", version, err)
				}
				checkComplete(t, cs, &mcp.CompleteReference{Type: "ref/prompt", Name: "write_about"}, "topic", tt.write)
				checkComplete(t, cs, &mcp.CompleteReference{Type: "ref/resource", URI: "word://{word}"}, "word", tt.talk)
			}
		})
	}
}

// checkComplete completes "e" for arg of ref: epsilon when offered, nothing when not.
func checkComplete(t *testing.T, cs *mcp.ClientSession, ref *mcp.CompleteReference, arg string, offered bool) {
	t.Helper()
	res, err := cs.Complete(t.Context(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: "e"}})
	if err != nil {
		t.Fatalf("complete %s: %v", arg, err)
	}
	want := []string{}
	if offered {
		want = []string{"epsilon"}
	}
	if !slices.Equal(res.Completion.Values, want) {
		t.Errorf("complete %s %q: %v, want %v", ref.Type, arg, res.Completion.Values, want)
	}
}

// connectTo connects a go-sdk client to path at version.
func connectTo(t *testing.T, h *mcptest.Harness, path, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "features", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: h.URL + path, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s at %s: %v", path, version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestResourceLinks: a tool whose output links resources answers with resource_link contents,
// only those of a template the request may read.
func TestResourceLinks(t *testing.T) {
	h := mcptest.Start(t, featureSpec())
	res := mcptest.Call(t, h.Connect(t, ""), "find_words", map[string]any{})
	var uris []string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			uris = append(uris, l.URI)
		}
	}
	if want := []string{"word://alpha", "word://beta"}; !slices.Equal(uris, want) {
		t.Errorf("resource links %v, want %v", uris, want)
	}
}

// TestCompletionsOnlyWhenOffered: a server with nothing to complete does not announce the
// completions capability; one with prompts and templates announces them.
func TestCompletionsOnlyWhenOffered(t *testing.T) {
	caps := h2caps(t, toolsetSpec())
	if caps.Completions != nil || caps.Resources != nil || caps.Prompts != nil {
		t.Errorf("a server of tools only announces %+v", caps)
	}
	caps = h2caps(t, featureSpec())
	if caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Prompts == nil {
		t.Errorf("a server with prompts and templates announces %+v", caps)
	}
}

func h2caps(t *testing.T, spec kit.Spec) *mcp.ServerCapabilities {
	t.Helper()
	cs := mcptest.Start(t, spec).Connect(t, "")
	return cs.InitializeResult().Capabilities
}

// TestResourceChangesReachListeners: a 2026-07-28 client that listens (subscriptions/listen)
// hears that the resource list changed, and that a resource it subscribed to was updated.
func TestResourceChangesReachListeners(t *testing.T) {
	h := mcptest.Start(t, featureSpec())
	changed, updated := make(chan struct{}, 4), make(chan string, 4)
	cs := h.ConnectAs(t, "", mcptest.Stateless, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "word://beta"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	deadline := time.After(5 * time.Second)
	for range 50 { // the listen streams open in the background: repeat until heard
		h.Server.ResourcesChanged()
		h.Server.ResourceUpdated(t.Context(), "word://beta")
		select {
		case <-changed:
			select {
			case uri := <-updated:
				if uri != "word://beta" {
					t.Errorf("updated %q", uri)
				}
				return
			case <-time.After(100 * time.Millisecond):
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("no notification reached the listening client")
		}
	}
	t.Fatal("no notification reached the listening client")
}

// TestFeatureBesideUnknownTool: a template or prompt must stand beside a tool the server has.
func TestFeatureBesideUnknownTool(t *testing.T) {
	spec := toolsetSpec()
	inner := spec.Setup
	spec.Setup = func(s *kit.Server) error {
		s.AddPrompt(kit.Prompt{Tool: "nope", Prompt: &mcp.Prompt{Name: "p"}})
		return inner(s)
	}
	var errs strings.Builder
	code := kit.Run(context.Background(), spec, []string{"--list-tools"}, func(string) string { return "" }, &strings.Builder{}, &errs)
	if code == 0 || !strings.Contains(errs.String(), `prompt p stands beside tool "nope", which kittest does not declare`) {
		t.Errorf("exit %d: %s", code, errs.String())
	}
}
