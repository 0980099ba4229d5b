package inventory

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Headers that narrow the tools one request sees, as github-mcp-server's remote server reads
// them. They only ever narrow: a tool the flags or the token leave out stays out.
const (
	HeaderToolsets = "X-MCP-Toolsets" // comma-separated toolsets, any of which ("all" for every one, "default" for those on by default)
	HeaderTools    = "X-MCP-Tools"    // comma-separated single tools, any of which
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

// FromHeader reads the narrowing headers of a request. Each X-MCP-Toolsets or X-MCP-Tools
// header is one filter, and a comma list within it a union: X-MCP-Toolsets: read,send keeps the
// tools of either; an empty value counts as absent. Several headers, of either name or both,
// intersect: each narrows further, so a proxy that adds one can only take tools away.
// X-MCP-Readonly makes the request read-only
// when any of its values is true. An unknown toolset or tool is an error: a typo would
// otherwise leave the client without tools and without a reason.
func (inv *Inventory) FromHeader(h http.Header) (Narrowing, error) {
	var n Narrowing
	for _, v := range h.Values(HeaderToolsets) {
		list := splitList(v)
		if len(list) == 0 {
			continue // an empty value names nothing to keep, as if absent
		}
		var ids []ToolsetID
		for _, s := range list {
			switch {
			case ToolsetID(s) == Default && len(inv.toolsets) == 0:
				ids = append(ids, All) // no toolsets: every tool is a default one
				continue
			case ToolsetID(s) == Default:
				ids = append(ids, inv.defaults()...) // the toolsets that are not off by default
				continue
			case ToolsetID(s) != All && !inv.hasToolset(ToolsetID(s)):
				return Narrowing{}, fmt.Errorf("unknown toolset %q in %s; %s has: %s", s, HeaderToolsets, inv.server, strings.Join(inv.toolsetNames(), ", "))
			}
			ids = append(ids, ToolsetID(s))
		}
		n = n.Keep(ids, nil)
	}
	for _, v := range h.Values(HeaderTools) {
		tools := splitList(v)
		if len(tools) == 0 {
			continue
		}
		for _, t := range tools {
			if _, ok := inv.tools[t]; !ok {
				return Narrowing{}, fmt.Errorf("unknown tool %q in %s; %s has: %s", t, HeaderTools, inv.server, strings.Join(inv.Declared(), ", "))
			}
		}
		n = n.Keep(nil, tools)
	}
	if slices.ContainsFunc(h.Values(HeaderReadonly), truthy) {
		n = n.ReadOnly()
	}
	return n, nil
}

// splitList splits a comma-separated header value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
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
