package inventory

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// mail is a small server's inventory: read (search, get), send (send), drafts (save_draft).
func mail(t *testing.T, sel Selection) *Inventory {
	t.Helper()
	inv, err := New("mail", []Toolset{
		{ID: "read", Description: "Read mail.", Instructions: "Search first."},
		{ID: "send", Description: "Send mail.", Instructions: "Sending is final."},
		{ID: "drafts", Description: "Drafts."},
	}, sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entry{
		{Name: "search", Toolset: "read", ReadOnly: true},
		{Name: "get", Toolset: "read", ReadOnly: true},
		{Name: "send", Toolset: "send"},
		{Name: "save_draft", Toolset: "drafts"},
	} {
		if _, err := inv.Declare(e); err != nil {
			t.Fatal(err)
		}
	}
	return inv
}

func offered(inv *Inventory) []string {
	return slices.DeleteFunc(inv.Declared(), func(n string) bool { return !inv.Offered(n) })
}

func TestNewRefusesBadToolsets(t *testing.T) {
	for _, tc := range []struct {
		sets []Toolset
		want string
	}{
		{[]Toolset{{ID: "Read", Description: "x"}}, `toolset "Read": give a name of lower-case letters`},
		{[]Toolset{{ID: "all", Description: "x"}}, `(not "all" or "default")`},
		{[]Toolset{{ID: "default", Description: "x"}}, `(not "all" or "default")`},
		{[]Toolset{{ID: "read", Description: "x"}, {ID: "read", Description: "y"}}, `toolset "read" declared twice`},
		{[]Toolset{{ID: "read"}}, `toolset "read": a description is required`},
	} {
		if _, err := New("mail", tc.sets, Selection{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.sets, err, tc.want)
		}
	}
}

func TestDeclareRefuses(t *testing.T) {
	inv := mail(t, Selection{})
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "search", Toolset: "read"}, `tool "search" registered twice`},
		{Entry{Name: "loose"}, `tool "loose" names no toolset: give its kit.Tool a Toolset, one of mail's: read, send, drafts`},
		{Entry{Name: "odd", Toolset: "labels"}, `tool "odd" names toolset "labels", which mail does not declare`},
	} {
		if _, err := inv.Declare(tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.e, err, tc.want)
		}
	}
	bare, err := New("bare", nil, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Declare(Entry{Name: "x", Toolset: "read"}); err == nil || !strings.Contains(err.Error(), "declares no toolsets") {
		t.Errorf("a toolset on a server without toolsets: %v", err)
	}
	if ok, err := bare.Declare(Entry{Name: "y"}); !ok || err != nil {
		t.Errorf("a tool without a toolset on a server without toolsets: %v %v", ok, err)
	}
}

func TestSelection(t *testing.T) {
	for _, tc := range []struct {
		name string
		sel  Selection
		want []string
		why  map[string]string // tool → the start of NotOffered
	}{
		{"everything", Selection{}, []string{"get", "save_draft", "search", "send"}, nil},
		{"a toolset", Selection{Toolsets: []string{"read"}}, []string{"get", "search"}, map[string]string{"send": "send is not among the tools this server offers (--toolsets, --tools)"}},
		{"all", Selection{Toolsets: []string{"all"}}, []string{"get", "save_draft", "search", "send"}, nil},
		{"a toolset and a tool", Selection{Toolsets: []string{"read"}, Tools: []string{"send"}}, []string{"get", "search", "send"}, nil},
		{"read-only", Selection{ReadOnly: true}, []string{"get", "search"}, map[string]string{"send": "send changes something, and this server runs with --read-only"}},
		{"disabled wins", Selection{ReadOnly: true, Disabled: []string{"send", "get"}}, []string{"search"}, map[string]string{"send": "send is turned off on this server (--disable-tools)", "get": "get is turned off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := mail(t, tc.sel)
			if got := offered(inv); !slices.Equal(got, tc.want) {
				t.Errorf("offered %v, want %v", got, tc.want)
			}
			if inv.OfferedCount() != len(tc.want) {
				t.Errorf("OfferedCount %d", inv.OfferedCount())
			}
			for tool, want := range tc.why {
				if got := inv.NotOffered(tool); !strings.HasPrefix(got, want) {
					t.Errorf("NotOffered(%s) = %q, want %q…", tool, got, want)
				}
			}
			if got := inv.NotOffered("search"); got != "" && slices.Contains(tc.want, "search") {
				t.Errorf("NotOffered of an offered tool = %q", got)
			}
		})
	}
}

func TestCheckSelection(t *testing.T) {
	err := mail(t, Selection{Toolsets: []string{"raed", "all"}, Tools: []string{"serch"}}).CheckSelection()
	for _, want := range []string{`unknown toolset "raed" in --toolsets; mail has: read, send, drafts`, `unknown tool "serch" in --tools/--disable-tools; mail has: get, save_draft, search, send`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
	if err := mail(t, Selection{Toolsets: []string{"send"}, Disabled: []string{"get"}}).CheckSelection(); err != nil {
		t.Errorf("a good selection: %v", err)
	}
}

func TestToolsetsAndInstructions(t *testing.T) {
	inv := mail(t, Selection{ReadOnly: true})
	got := inv.Toolsets()
	if len(got) != 3 || got[0].Name != "read" || !slices.Equal(got[0].Tools, []string{"search", "get"}) || got[1].Description != "Send mail." || !slices.Equal(got[1].Tools, []string{"send"}) {
		t.Errorf("Toolsets() = %+v: want declared order, every tool the server has, in the order declared", got)
	}
	if got := inv.Instructions(inv.Offered); !slices.Equal(got, []string{"Search first."}) {
		t.Errorf("Instructions of the offered tools = %q", got)
	}
	if got := inv.Instructions(func(string) bool { return true }); !slices.Equal(got, []string{"Search first.", "Sending is final."}) {
		t.Errorf("Instructions of every tool = %q", got)
	}
}

func TestView(t *testing.T) {
	inv := mail(t, Selection{Toolsets: []string{"read", "send"}})
	verdicts := func(v View) map[string]Verdict {
		out := map[string]Verdict{}
		for _, n := range []string{"search", "get", "send", "save_draft", "nope"} {
			out[n] = v.Verdict(n)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		n    Narrowing
		s    Scope
		want map[string]Verdict
	}{
		{"nothing narrowed", Narrowing{}, Scope{}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": Allowed, "save_draft": NotOffered, "nope": Unknown}},
		{"read-only token", Narrowing{}, Scope{ReadOnly: true}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": NeedsWrite, "save_draft": NotOffered, "nope": Unknown}},
		{"read-only narrowing", Narrowing{}.ReadOnly(), Scope{}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": Narrowed, "save_draft": NotOffered, "nope": Unknown}},
		{"a toolset", Narrowing{}.Keep([]ToolsetID{"send"}, nil), Scope{}, map[string]Verdict{"search": Narrowed, "get": Narrowed, "send": Allowed, "save_draft": NotOffered, "nope": Unknown}},
		{"never past the flags", Narrowing{}.Keep([]ToolsetID{"drafts"}, nil), Scope{}, map[string]Verdict{"search": Narrowed, "get": Narrowed, "send": Narrowed, "save_draft": NotOffered, "nope": Unknown}},
		{"a toolset or a tool", Narrowing{}.Keep([]ToolsetID{"send"}, []string{"get"}), Scope{}, map[string]Verdict{"search": Narrowed, "get": Allowed, "send": Allowed, "save_draft": NotOffered, "nope": Unknown}},
		{"two filters intersect", Narrowing{}.Keep([]ToolsetID{All}, nil).Keep(nil, []string{"get", "send"}).Keep([]ToolsetID{"read"}, nil), Scope{}, map[string]Verdict{"search": Narrowed, "get": Allowed, "send": Narrowed, "save_draft": NotOffered, "nope": Unknown}},
		{"the token before the narrowing", Narrowing{}.Keep([]ToolsetID{"read"}, nil), Scope{ReadOnly: true}, map[string]Verdict{"search": Allowed, "get": Allowed, "send": NeedsWrite, "save_draft": NotOffered, "nope": Unknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := inv.View(tc.n, tc.s)
			got := verdicts(v)
			for n, want := range tc.want {
				if got[n] != want {
					t.Errorf("%s: verdict %d, want %d", n, got[n], want)
				}
				if v.Allows(n) != (want == Allowed) {
					t.Errorf("%s: Allows %v", n, v.Allows(n))
				}
			}
		})
	}
}

func TestFromHeader(t *testing.T) {
	inv := mail(t, Selection{})
	allowed := func(n Narrowing) []string {
		v := inv.View(n, Scope{})
		return slices.DeleteFunc(inv.Declared(), func(name string) bool { return !v.Allows(name) })
	}
	for _, tc := range []struct {
		name string
		h    http.Header
		want []string
		err  string
	}{
		{"none", http.Header{}, []string{"get", "save_draft", "search", "send"}, ""},
		{"toolsets", http.Header{"X-Mcp-Toolsets": {"read, drafts"}}, []string{"get", "save_draft", "search"}, ""},
		{"all", http.Header{"X-Mcp-Toolsets": {"all"}}, []string{"get", "save_draft", "search", "send"}, ""},
		{"tools", http.Header{"X-Mcp-Tools": {"send"}}, []string{"send"}, ""},
		{"read-only", http.Header{"X-Mcp-Readonly": {"yes"}}, []string{"get", "search"}, ""},
		{"read-only off", http.Header{"X-Mcp-Readonly": {"off"}}, []string{"get", "save_draft", "search", "send"}, ""},
		{"read-only: any true value", http.Header{"X-Mcp-Readonly": {"false", "true"}}, []string{"get", "search"}, ""},
		{"read-only: any true value, in either order", http.Header{"X-Mcp-Readonly": {"1", "off"}}, []string{"get", "search"}, ""},
		{"a comma list is a union", http.Header{"X-Mcp-Toolsets": {"read,send"}}, []string{"get", "search", "send"}, ""},
		{"repeated toolsets intersect", http.Header{"X-Mcp-Toolsets": {"read,send", "send,drafts"}}, []string{"send"}, ""},
		{"repeated toolsets with nothing in common", http.Header{"X-Mcp-Toolsets": {"read", "send"}}, nil, ""},
		{"repeated tools intersect", http.Header{"X-Mcp-Tools": {"get,send", "send,search"}}, []string{"send"}, ""},
		{"toolsets and tools intersect", http.Header{"X-Mcp-Toolsets": {"read"}, "X-Mcp-Tools": {"get,send"}}, []string{"get"}, ""},
		{"all and a narrower header", http.Header{"X-Mcp-Toolsets": {"all", "drafts"}}, []string{"save_draft"}, ""},
		{"an empty value is absent", http.Header{"X-Mcp-Toolsets": {"", " , "}, "X-Mcp-Tools": {""}}, []string{"get", "save_draft", "search", "send"}, ""},
		{"an unknown name in a later header", http.Header{"X-Mcp-Tools": {"get", "gte"}}, nil, `unknown tool "gte" in X-MCP-Tools; mail has: get, save_draft, search, send`},
		{"unknown toolset", http.Header{"X-Mcp-Toolsets": {"read,raed"}}, nil, `unknown toolset "raed" in X-MCP-Toolsets; mail has: read, send, drafts`},
		{"unknown tool", http.Header{"X-Mcp-Tools": {"snd"}}, nil, `unknown tool "snd" in X-MCP-Tools; mail has: get, save_draft, search, send`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := inv.FromHeader(tc.h)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := allowed(n); !slices.Equal(got, tc.want) {
				t.Errorf("allowed %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOptional: a toolset off by default is left out of the zero selection and of "default",
// offered when named, by "all" or through one of its tools, marked in the listing, explained
// when a call reaches one of its tools, and left out by the header's "default".
func TestOptional(t *testing.T) {
	build := func(sel Selection) *Inventory {
		inv, err := New("mail", []Toolset{{ID: "read", Description: "Read."}, {ID: "drafts", Description: "Drafts.", Optional: true}}, sel)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []Entry{{Name: "search", Toolset: "read", ReadOnly: true}, {Name: "save_draft", Toolset: "drafts"}} {
			if _, err := inv.Declare(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := inv.CheckSelection(); err != nil {
			t.Fatal(err)
		}
		return inv
	}
	for _, tc := range []struct {
		sel  Selection
		want []string
	}{
		{Selection{}, []string{"search"}},
		{Selection{Toolsets: []string{"default"}}, []string{"search"}},
		{Selection{Toolsets: []string{"default", "drafts"}}, []string{"save_draft", "search"}},
		{Selection{Toolsets: []string{"all"}}, []string{"save_draft", "search"}},
		{Selection{Tools: []string{"save_draft"}}, []string{"save_draft"}},
	} {
		if got := offered(build(tc.sel)); !slices.Equal(got, tc.want) {
			t.Errorf("%+v offers %v, want %v", tc.sel, got, tc.want)
		}
	}
	inv := build(Selection{})
	if msg := inv.NotOffered("save_draft"); msg != "save_draft is in the drafts toolset, which is off by default: the server offers it when started with --toolsets default,drafts" {
		t.Errorf("NotOffered: %s", msg)
	}
	if sets := inv.Toolsets(); sets[0].Optional || !sets[1].Optional {
		t.Errorf("listing %+v", sets)
	}
	all := build(Selection{Toolsets: []string{"all"}})
	n, err := all.FromHeader(http.Header{"X-Mcp-Toolsets": {"default"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := all.View(n, Scope{}); !v.Allows("search") || v.Allows("save_draft") {
		t.Error(`X-MCP-Toolsets: default keeps a tool off by default`)
	}
}
