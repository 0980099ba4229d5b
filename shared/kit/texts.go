package kit

import (
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit/nextcall"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Texter is implemented by tool outputs that render themselves as a short text for the model;
// without it the text content is the output's JSON. Whatever a Texter leaves out of the
// output's next-call fields (package nextcall: ids, handles, hashes, offsets, page tokens,
// counts, exit status, truncation) the kit appends to its text as one line of compact JSON;
// fields inside lists it cannot place, so the rendering must show them (tests check).
type Texter interface {
	Text() string
}

// Unshown is implemented by tool outputs whose text leaves out some next-call fields on
// purpose. It maps each field's path, list indexes left out ("processes[].owner"), to why the
// model does not need it; the kit neither appends those fields nor reports them missing.
type Unshown interface {
	Unshown() map[string]string
}

// unshownOf returns the fields an output type leaves out of its text on purpose.
func unshownOf[Out any]() map[string]string {
	if u, ok := any(*new(Out)).(Unshown); ok {
		return u.Unshown()
	}
	return nil
}

// render returns a result's text content: the handler's own, or the output's Texter
// rendering, or its JSON; completed with the top-level next-call fields it leaves out, and
// checked for the others when CheckTexts asked for it. args is the call's arguments as JSON.
func (s *Server) render(tool string, content []mcp.Content, out any, structured []byte, generic any, args string, unshown map[string]string) []mcp.Content {
	switch tx, ok := out.(Texter); {
	case content != nil:
		content = completeContent(content, args, generic, unshown)
	case ok:
		content = []mcp.Content{&mcp.TextContent{Text: nextcall.Complete(tx.Text(), args, generic, unshown)}}
	default:
		content = []mcp.Content{&mcp.TextContent{Text: string(structured)}}
	}
	if s.textCheck != nil {
		text := contentText(content)
		if missing := nextcall.Missing(text, args, generic, unshown); len(missing) > 0 {
			s.textCheck(tool, missing, text)
		}
	}
	return content
}

// completeContent appends to a handler's own content the top-level next-call fields its text
// leaves out: to its last text, or as a text of their own after images and resources.
func completeContent(content []mcp.Content, args string, v any, unshown map[string]string) []mcp.Content {
	last := -1
	for i, c := range content {
		if _, ok := c.(*mcp.TextContent); ok {
			last = i
		}
	}
	text := contentText(content)
	done := nextcall.Complete(text, args, v, unshown)
	if done == text {
		return content
	}
	extra := strings.TrimPrefix(done[len(strings.TrimRight(text, "\n")):], "\n")
	if last < 0 {
		return append(content, &mcp.TextContent{Text: extra})
	}
	tc := *content[last].(*mcp.TextContent)
	tc.Text = strings.TrimRight(tc.Text, "\n") + "\n" + extra
	content = slices.Clone(content)
	content[last] = &tc
	return content
}

// contentText joins the text contents of a result, as a client that shows only text sees it.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CheckTexts makes every successful tool call report the next-call fields (package nextcall)
// its text content does not carry, by their paths, with the text; tests set it (mcptest.Start
// does) so that a rendering that hides an id, an offset or a page token fails.
func (s *Server) CheckTexts(report func(tool string, missing []string, text string)) {
	s.textCheck = report
}
