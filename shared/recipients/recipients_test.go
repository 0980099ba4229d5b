package recipients

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/kit"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{"", "", ""},
		{" , ", "", ""},
		{"Ann@Example.com, @Family.org ,ann@example.com", "@family.org,ann@example.com", ""},
		{"bob", "", `"bob" is neither an address nor an @domain`},
		{"Bob <bob@example.com>", "", "neither an address"},
		{"@", "", `"@" is not an @domain`},
		{"@exa mple.com", "", "is not an @domain"},
		{"@-bad.com", "", "is not an @domain"},
		{"@example..com", "", "is not an @domain"},
	} {
		a, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || a.String() != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, a.String(), err, tt.want)
		}
	}
}

func TestAllows(t *testing.T) {
	a, err := Parse("ann@example.com,@family.org")
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"ann@example.com":      true,
		"ANN@Example.COM":      true,
		"bob@example.com":      false, // the address is listed, not its domain
		"kid@family.org":       true,
		"kid@sub.family.org":   false, // a domain entry is that domain only
		"x@evilfamily.org":     false,
		"family.org":           false,
		"ann@example.com.evil": false,
	} {
		if got := a.Allows(addr); got != want {
			t.Errorf("Allows(%q) = %v, want %v", addr, got, want)
		}
	}
	if !a.AllowsDomain("Family.org") || a.AllowsDomain("example.com") {
		t.Error("AllowsDomain: only a listed @domain is a domain anyone may share with")
	}
	var open Allowlist
	if !open.Open() || !open.Allows("anyone@anywhere.test") || !open.AllowsDomain("anywhere.test") {
		t.Error("the zero Allowlist must allow anyone")
	}
}

func TestCheck(t *testing.T) {
	a, _ := Parse("@example.com")
	got, err := a.Check("Ann <Ann@Example.com>", "bob@example.com")
	if err != nil || !slices.Equal(got, []string{"ann@example.com", "bob@example.com"}) {
		t.Fatalf("Check = %v, %v", got, err)
	}
	_, err = a.Check("ann@example.com", "x@evil.test", "Y@Evil.test", "x@evil.test")
	var ke *kit.Error
	if !errors.As(err, &ke) || ke.Code != kit.CodeInvalidInput {
		t.Fatalf("refusal %v is not an invalid-input tool error", err)
	}
	if want := "x@evil.test, y@evil.test are not allowed recipients on this server (--allowed-recipients, MCP_ALLOWED_RECIPIENTS): leave them out, or ask the owner to add them"; err.Error() != want {
		t.Errorf("refusal:\n got %s\nwant %s", err, want)
	}
	if _, err := a.Check("Bob"); err == nil || !strings.Contains(err.Error(), "search_contacts") {
		t.Errorf("a name is refused with the lookup to use: %v", err)
	}
	var open Allowlist
	if got, err := open.Check("x@evil.test"); err != nil || got[0] != "x@evil.test" {
		t.Errorf("open list: %v, %v", got, err)
	}
	if _, err := open.Check("not an address"); err == nil {
		t.Error("an open list still refuses what is not an address")
	}
}

// TestFlag: the list registers as a flag and a bad entry fails the parse, so a server stops
// with exit code 2 rather than allowing anyone.
func TestFlag(t *testing.T) {
	var a Allowlist
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&a, Flag, Usage)
	if err := fs.Parse([]string{"--" + Flag, "@example.com,bob"}); err == nil {
		t.Fatal("a bad entry parsed")
	}
	if err := fs.Parse([]string{"--" + Flag, "@example.com"}); err != nil || a.Open() || !a.Allows("x@example.com") {
		t.Fatalf("parse: %v, %q", err, a.String())
	}
	if msg := DomainRefusal("evil.test").Error(); !strings.Contains(msg, "@evil.test") || !strings.Contains(msg, "--allowed-recipients") {
		t.Errorf("domain refusal %q", msg)
	}
}
