package inventory

import (
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// TestSwitches: a run-time switch is one more input to the View, decided after the flags and
// before the token's scope and the narrowing; a View keeps the switches it was made with.
func TestSwitches(t *testing.T) {
	inv := mail(t, Selection{Toolsets: []string{"read", "send"}})
	st := func(s switches.State) switches.State { s.Format = switches.Format; return s }
	for _, tc := range []struct {
		name string
		s    switches.State
		n    Narrowing
		sc   Scope
		want map[string]Verdict
		why  map[string]string
	}{
		{"none", st(switches.State{}), Narrowing{}, Scope{}, map[string]Verdict{"search": Allowed, "send": Allowed, "save_draft": NotOffered}, nil},
		{"a tool", st(switches.State{Tools: []string{"send"}}), Narrowing{}, Scope{}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": Disabled},
			map[string]string{"send": "send is switched off by the owner (console)"}},
		{"a toolset", st(switches.State{Toolsets: []string{"read"}}), Narrowing{}, Scope{}, map[string]Verdict{"search": Disabled, "get": Disabled, "send": Allowed},
			map[string]string{"get": "get is switched off with its toolset read"}},
		{"the server", st(switches.State{Server: true}), Narrowing{}, Scope{}, map[string]Verdict{"search": Disabled, "get": Disabled, "send": Disabled},
			map[string]string{"search": "the owner turned the mail server off"}},
		{"read-only fleet", st(switches.State{ReadOnly: true}), Narrowing{}, Scope{}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": Disabled},
			map[string]string{"send": "the owner has made the fleet read-only", "search": ""}},
		{"the flags first", st(switches.State{Tools: []string{"save_draft"}}), Narrowing{}, Scope{}, map[string]Verdict{"save_draft": NotOffered}, nil},
		{"before the token's scope", st(switches.State{Tools: []string{"send"}}), Narrowing{}, Scope{ReadOnly: true}, map[string]Verdict{"send": Disabled, "search": Allowed}, nil},
		{"before the narrowing", st(switches.State{Tools: []string{"send"}}), Narrowing{}.Keep([]ToolsetID{"read"}, nil), Scope{}, map[string]Verdict{"send": Disabled, "search": Allowed}, nil},
		{"a narrowed tool still narrowed", st(switches.State{Tools: []string{"get"}}), Narrowing{}.Keep([]ToolsetID{"read"}, nil), Scope{}, map[string]Verdict{"send": Narrowed, "get": Disabled}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if unknown := inv.SetSwitches(tc.s); len(unknown) > 0 {
				t.Fatalf("unknown %v", unknown)
			}
			v := inv.View(tc.n, tc.sc)
			for n, want := range tc.want {
				if got := v.Verdict(n); got != want {
					t.Errorf("%s: verdict %d, want %d", n, got, want)
				}
				if want != NotOffered && inv.SwitchedOff(n) != (want == Disabled) {
					t.Errorf("%s: SwitchedOff %v", n, inv.SwitchedOff(n))
				}
			}
			for n, want := range tc.why {
				if got := v.Disabled(n); want == "" && got != "" || !strings.Contains(got, want) {
					t.Errorf("Disabled(%s) = %q, want %q", n, got, want)
				}
			}
		})
	}
	// A view keeps the switches it was made with; a later one sees the new ones.
	inv.SetSwitches(st(switches.State{Tools: []string{"send"}}))
	before := inv.View(Narrowing{}, Scope{})
	inv.SetSwitches(st(switches.State{}))
	if before.Verdict("send") != Disabled || inv.View(Narrowing{}, Scope{}).Verdict("send") != Allowed {
		t.Error("a view does not keep its switches")
	}
	// Entries the server does not have are reported, kept and ignored.
	unknown := inv.SetSwitches(st(switches.State{Toolsets: []string{"calendar"}, Tools: []string{"gone", "send"}}))
	if !slices.Equal(unknown, []string{"toolset calendar", "tool gone"}) {
		t.Errorf("unknown %v", unknown)
	}
	if got := inv.Switches(); !slices.Equal(got.Tools, []string{"gone", "send"}) || inv.View(Narrowing{}, Scope{}).Verdict("send") != Disabled {
		t.Errorf("switches in force %+v", got)
	}
}
