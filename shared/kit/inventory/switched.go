package inventory

import (
	"fmt"

	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// SetSwitches puts the run-time switches s in force for every View made after it (a View made
// before keeps what it saw, so one request is decided by one state). It returns the entries of
// s that name a toolset or tool the server does not have: they are kept in s, so they apply
// again should the server have them later, and ignored meanwhile.
func (inv *Inventory) SetSwitches(s switches.State) (unknown []string) {
	for _, ts := range s.Toolsets {
		if !inv.hasToolset(ToolsetID(ts)) {
			unknown = append(unknown, "toolset "+ts)
		}
	}
	for _, t := range s.Tools {
		if _, ok := inv.tools[t]; !ok {
			unknown = append(unknown, "tool "+t)
		}
	}
	inv.switched.Store(&s)
	return unknown
}

// Switches returns the run-time switches in force.
func (inv *Inventory) Switches() switches.State {
	if s := inv.switched.Load(); s != nil {
		return *s
	}
	return switches.State{Format: switches.Format}
}

// SwitchedOff reports whether the switches in force turn a declared tool off.
func (inv *Inventory) SwitchedOff(name string) bool {
	e, ok := inv.tools[name]
	return ok && offBy(inv.switched.Load(), e) != ""
}

// offBy is why s turns e off ("" when it does not): see switches.State.Off.
func offBy(s *switches.State, e Entry) string {
	if s == nil {
		return ""
	}
	return s.Off(e.Name, string(e.Toolset), e.ReadOnly)
}

// Disabled says why the switches this view was made with turn a tool off, for the caller; ""
// when they do not.
func (v View) Disabled(name string) string {
	e, ok := v.inv.tools[name]
	if !ok {
		return ""
	}
	switch offBy(v.switched, e) {
	case "server":
		return fmt.Sprintf("%s is switched off: the owner turned the %s server off from the console, and none of its tools can be called until it is switched on again", name, v.inv.server)
	case "tool":
		return fmt.Sprintf("%s is switched off by the owner (console): it cannot be called until it is switched on again", name)
	case "toolset":
		return fmt.Sprintf("%s is switched off with its toolset %s by the owner (console): it cannot be called until that is switched on again", name, e.Toolset)
	case "read-only":
		return fmt.Sprintf("%s changes something, and the owner has made the fleet read-only (console): only the tools that change nothing can be called until that is switched off", name)
	}
	return ""
}
