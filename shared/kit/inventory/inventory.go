package inventory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// Entry is one tool as the inventory knows it.
type Entry struct {
	Name     string
	Toolset  ToolsetID // "" only on a server that declares no toolsets
	ReadOnly bool      // changes nothing anywhere
}

// Selection is what the configuration offers: --read-only, --toolsets, --tools and the
// deprecated --disable-tools. The zero Selection offers every tool.
type Selection struct {
	ReadOnly bool
	Toolsets []string // toolset ids, or "all"
	Tools    []string // single tools besides Toolsets
	Disabled []string // tools dropped from what the others offer
}

// Inventory is one server's toolsets and tools. It is filled while the server registers its
// tools and read-only after that.
type Inventory struct {
	server   string
	toolsets []Toolset
	sel      Selection
	tools    map[string]Entry // every tool the server has, offered or not
	order    []string         // tool names in the order they were declared
	offered  map[string]bool
	switched atomic.Pointer[switches.State] // the run-time switches in force (SetSwitches); nil for none
}

// New returns the inventory of server with its declared toolsets (in the order --list-toolsets
// and the instructions show them) and the configuration's selection.
func New(server string, toolsets []Toolset, sel Selection) (*Inventory, error) {
	if err := checkToolsets(toolsets); err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	return &Inventory{server: server, toolsets: toolsets, sel: sel, tools: map[string]Entry{}, offered: map[string]bool{}}, nil
}

// Declare records a tool and reports whether the configuration offers it. It refuses a tool
// declared twice and one whose toolset the server does not declare.
func (inv *Inventory) Declare(e Entry) (offered bool, err error) {
	if _, dup := inv.tools[e.Name]; dup {
		return false, fmt.Errorf("tool %q registered twice", e.Name)
	}
	switch {
	case len(inv.toolsets) == 0 && e.Toolset != "":
		return false, fmt.Errorf("tool %q names toolset %q, but %s declares no toolsets", e.Name, e.Toolset, inv.server)
	case len(inv.toolsets) > 0 && e.Toolset == "":
		return false, fmt.Errorf("tool %q names no toolset: give its kit.Tool a Toolset, one of %s's: %s", e.Name, inv.server, strings.Join(inv.toolsetNames(), ", "))
	case len(inv.toolsets) > 0 && !inv.hasToolset(e.Toolset):
		return false, fmt.Errorf("tool %q names toolset %q, which %s does not declare: add it to the Spec's Toolsets or use one of: %s", e.Name, e.Toolset, inv.server, strings.Join(inv.toolsetNames(), ", "))
	}
	inv.tools[e.Name] = e
	inv.order = append(inv.order, e.Name)
	if inv.why(e) != "" {
		return false, nil
	}
	inv.offered[e.Name] = true
	return true, nil
}

// CheckSelection refuses --toolsets, --tools and --disable-tools entries the server does not
// have, naming those it has. Call it once every tool is declared.
func (inv *Inventory) CheckSelection() error {
	var errs []error
	for _, n := range inv.sel.Toolsets {
		if ToolsetID(n) != All && ToolsetID(n) != Default && !inv.hasToolset(ToolsetID(n)) {
			errs = append(errs, fmt.Errorf("unknown toolset %q in --toolsets; %s has: %s", n, inv.server, strings.Join(inv.toolsetNames(), ", ")))
		}
	}
	for _, list := range [][]string{inv.sel.Tools, inv.sel.Disabled} {
		for _, n := range list {
			if _, ok := inv.tools[n]; !ok {
				errs = append(errs, fmt.Errorf("unknown tool %q in --tools/--disable-tools; %s has: %s", n, inv.server, strings.Join(inv.Declared(), ", ")))
			}
		}
	}
	return errors.Join(errs...)
}

// Lookup returns a declared tool.
func (inv *Inventory) Lookup(name string) (Entry, bool) {
	e, ok := inv.tools[name]
	return e, ok
}

// Offered reports whether the configuration offers a tool.
func (inv *Inventory) Offered(name string) bool { return inv.offered[name] }

// OfferedCount is the number of tools the configuration offers.
func (inv *Inventory) OfferedCount() int { return len(inv.offered) }

// Declared lists every tool the server has, offered or not, sorted.
func (inv *Inventory) Declared() []string { return slices.Sorted(slices.Values(inv.order)) }

// NotOffered says which flag leaves out a declared tool, checked in the order that decides
// it: a tool kept by --read-only, by --toolsets or --tools and not in --disable-tools is left
// out only because it changes something. It is "" for a tool the configuration offers.
func (inv *Inventory) NotOffered(name string) string {
	e, ok := inv.tools[name]
	if !ok {
		return ""
	}
	switch inv.why(e) {
	case "disabled":
		return fmt.Sprintf("%s is turned off on this server (--disable-tools): it cannot be called here", name)
	case "selection":
		if inv.optional(e.Toolset) {
			return fmt.Sprintf("%s is in the %s toolset, which is off by default: the server offers it when started with --toolsets %s,%s", name, e.Toolset, Default, e.Toolset)
		}
		return fmt.Sprintf("%s is not among the tools this server offers (--toolsets, --tools): it cannot be called here", name)
	case "read-only":
		return fmt.Sprintf("%s changes something, and this server runs with --read-only, which offers only the tools that change nothing: it cannot be called here", name)
	}
	return ""
}

// why names the part of the selection that leaves a tool out, "" when it is offered.
func (inv *Inventory) why(e Entry) string {
	switch {
	case slices.Contains(inv.sel.Disabled, e.Name):
		return "disabled"
	case !inv.selected(e):
		return "selection"
	case inv.sel.ReadOnly && !e.ReadOnly:
		return "read-only"
	}
	return ""
}

// selected reports whether --toolsets and --tools choose the tool: with neither, every tool
// but those of Optional toolsets is.
func (inv *Inventory) selected(e Entry) bool {
	sets := inv.sel.Toolsets
	if len(sets) == 0 && len(inv.sel.Tools) == 0 {
		sets = []string{string(Default)}
	}
	return slices.Contains(sets, string(All)) || slices.Contains(sets, string(e.Toolset)) ||
		slices.Contains(sets, string(Default)) && !inv.optional(e.Toolset) || slices.Contains(inv.sel.Tools, e.Name)
}

// optional reports whether the toolset is off by default.
func (inv *Inventory) optional(id ToolsetID) bool {
	return slices.ContainsFunc(inv.toolsets, func(ts Toolset) bool { return ts.ID == id && ts.Optional })
}

// defaults lists the toolsets that are not Optional: what Default stands for.
func (inv *Inventory) defaults() []ToolsetID {
	var ids []ToolsetID
	for _, ts := range inv.toolsets {
		if !ts.Optional {
			ids = append(ids, ts.ID)
		}
	}
	return ids
}

// Toolsets lists the declared toolsets with the tools the server has in each (offered or not),
// in the order they were declared, as --list-toolsets prints them.
func (inv *Inventory) Toolsets() []ToolsetInfo {
	out := make([]ToolsetInfo, 0, len(inv.toolsets))
	for _, ts := range inv.toolsets {
		info := ToolsetInfo{Name: string(ts.ID), Description: ts.Description, Tools: []string{}, Optional: ts.Optional}
		for _, n := range inv.order {
			if inv.tools[n].Toolset == ts.ID {
				info.Tools = append(info.Tools, n)
			}
		}
		out = append(out, info)
	}
	return out
}

// Instructions returns, in declared order, the instructions of the toolsets that have a tool
// for which shown is true.
func (inv *Inventory) Instructions(shown func(name string) bool) []string {
	var out []string
	for _, ts := range inv.toolsets {
		if ts.Instructions == "" {
			continue
		}
		for _, n := range inv.order {
			if inv.tools[n].Toolset == ts.ID && shown(n) {
				out = append(out, ts.Instructions)
				break
			}
		}
	}
	return out
}

func (inv *Inventory) hasToolset(id ToolsetID) bool {
	return slices.ContainsFunc(inv.toolsets, func(ts Toolset) bool { return ts.ID == id })
}

// toolsetNames lists the declared toolsets in order.
func (inv *Inventory) toolsetNames() []string {
	names := make([]string, len(inv.toolsets))
	for i, ts := range inv.toolsets {
		names[i] = string(ts.ID)
	}
	return names
}

// ToolsetIDs lists the declared toolsets in order.
func (inv *Inventory) ToolsetIDs() []ToolsetID {
	ids := make([]ToolsetID, len(inv.toolsets))
	for i, ts := range inv.toolsets {
		ids[i] = ts.ID
	}
	return ids
}
