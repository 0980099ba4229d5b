package inventory

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Headers that narrow the tools one request sees, as github-mcp-server's remote server reads
// them. They only ever narrow: a tool the flags or the token leave out stays out.
const (
	HeaderToolsets = "X-MCP-Toolsets" // comma-separated toolsets ("all" for every one)
	HeaderTools    = "X-MCP-Tools"    // comma-separated single tools
	HeaderReadonly = "X-MCP-Readonly" // true: only the tools that change nothing
)

// Narrowing is what one request asks to see of the offered tools: a series of filters, each of
// which keeps the tools it names, and whether only the tools that change nothing. A tool
// passes when every filter keeps it; the zero Narrowing keeps every tool.
type Narrowing struct {
	filters  []filter
	readOnly bool
}

// filter keeps the tools of its toolsets and the tools it names.
type filter struct {
	toolsets []ToolsetID // may hold All
	tools    []string
}

func (f filter) keeps(e Entry) bool {
	return slices.Contains(f.toolsets, All) || slices.Contains(f.toolsets, e.Toolset) || slices.Contains(f.tools, e.Name)
}

// Keep returns n narrowed further to the tools of toolsets (All: every one) and the tools
// named: a tool must be in one of them as well as pass n.
func (n Narrowing) Keep(toolsets []ToolsetID, tools []string) Narrowing {
	n.filters = append(slices.Clip(n.filters), filter{toolsets: toolsets, tools: tools})
	return n
}

// ReadOnly returns n narrowed further to the tools that change nothing.
func (n Narrowing) ReadOnly() Narrowing {
	n.readOnly = true
	return n
}

// allows reports whether the narrowing keeps a tool.
func (n Narrowing) allows(e Entry) bool {
	if n.readOnly && !e.ReadOnly {
		return false
	}
	for _, f := range n.filters {
		if !f.keeps(e) {
			return false
		}
	}
	return true
}

// FromHeader reads the narrowing headers of a request (HeaderToolsets, HeaderTools,
// HeaderReadonly). It refuses a toolset or tool the server does not have: a typo would
// otherwise leave the client without tools and without a reason.
func (inv *Inventory) FromHeader(h http.Header) (Narrowing, error) {
	var n Narrowing
	sets, tools := splitValues(h, HeaderToolsets), splitValues(h, HeaderTools)
	for _, s := range sets {
		if ToolsetID(s) != All && !inv.hasToolset(ToolsetID(s)) {
			return n, fmt.Errorf("unknown toolset %q in %s; %s has: %s", s, HeaderToolsets, inv.server, strings.Join(inv.toolsetNames(), ", "))
		}
	}
	for _, t := range tools {
		if _, ok := inv.tools[t]; !ok {
			return n, fmt.Errorf("unknown tool %q in %s; %s has: %s", t, HeaderTools, inv.server, strings.Join(inv.Declared(), ", "))
		}
	}
	if len(sets) > 0 || len(tools) > 0 {
		ids := make([]ToolsetID, len(sets))
		for i, s := range sets {
			ids[i] = ToolsetID(s)
		}
		n = n.Keep(ids, tools)
	}
	if truthy(h.Get(HeaderReadonly)) {
		n = n.ReadOnly()
	}
	return n, nil
}

// splitValues splits every value of a comma-separated header.
func splitValues(h http.Header, key string) []string {
	var out []string
	for _, v := range h.Values(key) {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// truthy reads X-MCP-Readonly as github-mcp-server does: absent, empty, false, f, no, n, 0 and
// off are false; anything else is true.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "f", "no", "n", "0", "off":
		return false
	}
	return true
}

type narrowingKey struct{}

// WithNarrowing returns ctx carrying a request's narrowing.
func WithNarrowing(ctx context.Context, n Narrowing) context.Context {
	return context.WithValue(ctx, narrowingKey{}, n)
}

// NarrowingFrom returns the narrowing ctx carries; none narrows nothing.
func NarrowingFrom(ctx context.Context) Narrowing {
	n, _ := ctx.Value(narrowingKey{}).(Narrowing)
	return n
}
