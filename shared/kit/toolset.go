package kit

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Toolset is a group of a server's tools that a user switches on or off together (gmail: read,
// send, drafts, labels, filters). A server's toolsets are its inventory: every tool it
// registers belongs to exactly one, and --toolsets, --tools, --list-toolsets, the per-request
// narrowing (X-MCP-Toolsets, /mcp/x/{toolset}), the instructions, the snapshots and
// docs/tools.md all read them.
type Toolset struct {
	Name         string   // lower-case letters, digits and '_'; what --toolsets and X-MCP-Toolsets name
	Description  string   // what a user gets by switching it on, one line
	Instructions string   // added to the server's instructions while the toolset is offered
	Tools        []string // its tools; a tool registered only with some flag may be listed too
	// Optional marks a toolset that is off by default: offered only when --toolsets names it
	// (or all), or --tools one of its tools. For tools that need a sign-in scope of their own,
	// or that the fleet's tool-list budget cannot carry for everyone.
	Optional bool
}

// Names in --toolsets and X-MCP-Toolsets that stand for several toolsets.
const (
	ToolsetAll     = "all"     // every toolset
	ToolsetDefault = "default" // every toolset that is not Optional (what no --toolsets offers)
)

var toolsetName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// ToolsetInfo is one toolset as --list-toolsets prints it.
type ToolsetInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
	Optional    bool     `json:"optional,omitempty"` // off by default
}

// checkToolsets validates a spec's toolsets and returns each tool's toolset.
func checkToolsets(sets []Toolset) (map[string]string, error) {
	of := map[string]string{}
	seen := map[string]bool{}
	for _, ts := range sets {
		switch {
		case !toolsetName.MatchString(ts.Name) || ts.Name == ToolsetAll || ts.Name == ToolsetDefault:
			return nil, fmt.Errorf("toolset %q: give a name of lower-case letters, digits and _ (not %q or %q)", ts.Name, ToolsetAll, ToolsetDefault)
		case seen[ts.Name]:
			return nil, fmt.Errorf("toolset %q declared twice", ts.Name)
		case ts.Description == "" || len(ts.Tools) == 0:
			return nil, fmt.Errorf("toolset %q: a description and at least one tool are required", ts.Name)
		}
		seen[ts.Name] = true
		for _, t := range ts.Tools {
			if prev, ok := of[t]; ok {
				return nil, fmt.Errorf("tool %q is in toolsets %q and %q: give each tool one toolset", t, prev, ts.Name)
			}
			of[t] = ts.Name
		}
	}
	return of, nil
}

// checkSelection refuses --toolsets and --tools entries the server does not have, naming those it has.
func (s *Server) checkSelection() error {
	var errs []error
	for _, n := range s.cfg.Toolsets {
		if n != ToolsetAll && n != ToolsetDefault && !slices.ContainsFunc(s.spec.Toolsets, func(ts Toolset) bool { return ts.Name == n }) {
			errs = append(errs, fmt.Errorf("unknown toolset %q in --toolsets; %s has: %s", n, s.spec.Name, strings.Join(s.toolsetNames(), ", ")))
		}
	}
	for _, list := range [][]string{s.cfg.Tools, s.cfg.DisableTools} {
		for _, n := range list {
			if !s.declared[n] {
				errs = append(errs, fmt.Errorf("unknown tool %q in --tools/--disable-tools; %s has: %s", n, s.spec.Name, strings.Join(s.declaredNames(), ", ")))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return &ConfigError{err}
	}
	for name := range s.declared {
		if _, ok := s.toolsetOf[name]; !ok && len(s.spec.Toolsets) > 0 {
			return fmt.Errorf("tool %q is in none of %s's toolsets: add it to one in its Spec", name, s.spec.Name)
		}
	}
	return nil
}

// toolsetNames lists the server's toolsets in their declared order.
func (s *Server) toolsetNames() []string {
	names := make([]string, len(s.spec.Toolsets))
	for i, ts := range s.spec.Toolsets {
		names[i] = ts.Name
	}
	return names
}

// declaredNames lists every tool the server has, offered or not, sorted.
func (s *Server) declaredNames() []string {
	names := make([]string, 0, len(s.declared))
	for n := range s.declared {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// selected reports whether --toolsets and --tools choose the tool (before --read-only and
// --disable-tools): with neither, every tool but those of Optional toolsets is chosen.
func (s *Server) selected(name string) bool {
	sets := s.cfg.Toolsets
	if len(sets) == 0 && len(s.cfg.Tools) == 0 {
		sets = []string{ToolsetDefault}
	}
	return slices.Contains(sets, ToolsetAll) || slices.Contains(sets, s.toolsetOf[name]) ||
		slices.Contains(sets, ToolsetDefault) && !s.optional(name) || slices.Contains(s.cfg.Tools, name)
}

// optional reports whether the tool is in a toolset that is off by default.
func (s *Server) optional(name string) bool {
	return slices.ContainsFunc(s.spec.Toolsets, func(ts Toolset) bool { return ts.Optional && ts.Name == s.toolsetOf[name] })
}

// Toolsets lists the server's toolsets with the tools it has in each (offered or not), as
// --list-toolsets prints them.
func (s *Server) Toolsets() []ToolsetInfo {
	out := make([]ToolsetInfo, 0, len(s.spec.Toolsets))
	for _, ts := range s.spec.Toolsets {
		tools := []string{}
		for _, t := range ts.Tools {
			if s.declared[t] {
				tools = append(tools, t)
			}
		}
		out = append(out, ToolsetInfo{Name: ts.Name, Description: ts.Description, Tools: tools, Optional: ts.Optional})
	}
	return out
}

// instructions assembles the server's instructions from its own, its common arguments' and
// those of the toolsets that have a tool in offered.
func (s *Server) instructions(offered func(tool string) bool) string {
	parts := []string{s.spec.Instructions}
	for _, c := range s.common {
		if c.Instructions != "" {
			parts = append(parts, c.Instructions)
		}
	}
	if len(s.spec.SharedArgs) > 0 {
		args := make([]string, len(s.spec.SharedArgs))
		for i, a := range s.spec.SharedArgs {
			args[i] = a.Name + ": " + a.Meaning
		}
		parts = append(parts, "Arguments several tools take: "+strings.Join(args, "; ")+".")
	}
	for _, ts := range s.spec.Toolsets {
		if ts.Instructions != "" && slices.ContainsFunc(ts.Tools, offered) {
			parts = append(parts, ts.Instructions)
		}
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}
