// Package recipients holds the fleet's one rule for whom the assistant may reach: an allowlist
// of addresses and @domains that gmail, calendar and drive load the same way
// (--allowed-recipients, MCP_ALLOWED_RECIPIENTS) and that every outward action checks before
// anything is sent — mail recipients, calendar guests and the people notified of a change,
// Drive shares to users, groups and domains. An empty list allows anyone, as before the rule.
package recipients

import (
	"fmt"
	"net/mail"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/kit"
)

// Flag is the command-line flag that sets the list; its environment fallback is Env.
const (
	Flag = "allowed-recipients"
	Env  = "MCP_ALLOWED_RECIPIENTS"
)

// Usage is the flag's help text, the same on every server.
const Usage = "comma list of addresses and @domains the assistant may reach: mail recipients, calendar guests, Drive shares (default: anyone)"

// named is how every refusal names the rule, so a reader finds the setting.
const named = "--" + Flag + ", " + Env

// Allowlist is the parsed rule. The zero value allows anyone. It implements flag.Value, so a
// server registers it with fs.Var(&list, recipients.Flag, recipients.Usage).
type Allowlist struct {
	entries []string // lower-case addresses and @domains
}

// Parse reads a comma list of addresses ("ann@example.com") and domains ("@example.com").
func Parse(s string) (Allowlist, error) {
	var a Allowlist
	return a, a.Set(s)
}

// Set implements flag.Value: it replaces the list with s's entries.
func (a *Allowlist) Set(s string) error {
	var entries []string
	for _, e := range strings.Split(s, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
			continue
		case strings.HasPrefix(e, "@"):
			if !validDomain(e[1:]) {
				return fmt.Errorf("%q is not an @domain (give @example.com)", e)
			}
		default:
			addr, err := mail.ParseAddress(e)
			if err != nil || addr.Address != e {
				return fmt.Errorf("%q is neither an address nor an @domain", e)
			}
		}
		entries = append(entries, e)
	}
	slices.Sort(entries)
	a.entries = slices.Compact(entries)
	return nil
}

// String implements flag.Value.
func (a *Allowlist) String() string { return strings.Join(a.entries, ",") }

// Open reports whether the list allows anyone (it is empty).
func (a *Allowlist) Open() bool { return len(a.entries) == 0 }

// Allows reports whether a bare address may be reached: it is listed, or its domain is. A
// domain entry covers that domain only, not its subdomains.
func (a *Allowlist) Allows(addr string) bool {
	if a.Open() {
		return true
	}
	addr = strings.ToLower(strings.TrimSpace(addr))
	at := strings.LastIndex(addr, "@")
	if at < 0 {
		return false
	}
	return slices.Contains(a.entries, addr) || slices.Contains(a.entries, addr[at:])
}

// AllowsDomain reports whether everyone at domain may be reached (a Drive share to a domain):
// only when the list names "@domain" itself.
func (a *Allowlist) AllowsDomain(domain string) bool {
	return a.Open() || slices.Contains(a.entries, "@"+strings.ToLower(strings.TrimSpace(domain)))
}

// Check parses each address ("ann@example.com" or "Ann <ann@example.com>", one a string) and
// refuses, as a tool error naming the rule, any that is not an address or not allowed. It
// returns the bare lower-case addresses.
func (a *Allowlist) Check(addrs ...string) ([]string, error) {
	out := make([]string, 0, len(addrs))
	var refused []string
	for _, s := range addrs {
		p, err := mail.ParseAddress(strings.TrimSpace(s))
		if err != nil {
			return nil, kit.Errorf(kit.CodeInvalidInput, "%q is not an email address: give one (a name alone is not enough; look the address up with search_contacts)", s)
		}
		addr := strings.ToLower(p.Address)
		out = append(out, addr)
		if !a.Allows(addr) && !slices.Contains(refused, addr) {
			refused = append(refused, addr)
		}
	}
	if len(refused) > 0 {
		return nil, Refusal(refused...)
	}
	return out, nil
}

// Refusal is the tool error for addresses the list does not allow, the same on every server.
func Refusal(addrs ...string) error {
	verb := "is not an allowed recipient"
	if len(addrs) > 1 {
		verb = "are not allowed recipients"
	}
	return kit.Errorf(kit.CodeInvalidInput, "%s %s on this server (%s): leave them out, or ask the owner to add them", strings.Join(addrs, ", "), verb, named)
}

// DomainRefusal is the tool error for a share to everyone at a domain the list does not name.
func DomainRefusal(domain string) error {
	return kit.Errorf(kit.CodeInvalidInput, "everyone at %s is not an allowed recipient on this server (%s): a domain is allowed only as @%s; share with allowed people instead, or ask the owner to add @%s", domain, named, domain, domain)
}

// validDomain accepts a host name of dot-separated labels of letters, digits and '-'.
func validDomain(d string) bool {
	if d == "" || len(d) > 253 || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		if strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}
