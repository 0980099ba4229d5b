package googleauth

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Scope URLs.
const (
	scopePrefix = "https://www.googleapis.com/auth/"
	ScopeOpenID = "openid"
	ScopeEmail  = "email"
)

// serviceScopes are the scopes each Google server asks for: full access, then read-only.
var serviceScopes = map[string][2][]string{
	"gmail":    {{scopePrefix + "gmail.modify", scopePrefix + "gmail.settings.basic"}, {scopePrefix + "gmail.readonly"}},
	"calendar": {{scopePrefix + "calendar"}, {scopePrefix + "calendar.readonly"}},
	"drive":    {{scopePrefix + "drive"}, {scopePrefix + "drive.readonly"}},
	"notes":    {{scopePrefix + "drive.file"}, {scopePrefix + "drive.file"}},
}

// Services lists the services a sign-in can cover.
func Services() []string {
	names := make([]string, 0, len(serviceScopes))
	for n := range serviceScopes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Scopes returns the scopes for the services (deduplicated, sorted), plus openid and email so
// the sign-in names its account.
func Scopes(services []string, readOnly bool) ([]string, error) {
	idx := 0
	if readOnly {
		idx = 1
	}
	set := []string{ScopeOpenID, ScopeEmail}
	for _, s := range services {
		sc, ok := serviceScopes[s]
		if !ok {
			return nil, fmt.Errorf("unknown service %q; give any of %s", s, strings.Join(Services(), ","))
		}
		set = append(set, sc[idx]...)
	}
	sort.Strings(set)
	return slices.Compact(set), nil
}

// ServicesOf returns the services whose full or read-only scopes are all among scopes.
func ServicesOf(scopes []string) []string {
	var out []string
	for _, name := range Services() {
		for _, set := range serviceScopes[name] {
			if containsAll(scopes, set) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// Covers reports whether scopes grant a service: with readOnly, read-only or full scopes do.
func Covers(scopes []string, service string, readOnly bool) bool {
	sc, ok := serviceScopes[service]
	if !ok {
		return false
	}
	return containsAll(scopes, sc[0]) || (readOnly && containsAll(scopes, sc[1]))
}

// ReadOnlyGrant reports whether scopes grant a service only its read-only scopes.
func ReadOnlyGrant(scopes []string, service string) bool {
	sc := serviceScopes[service]
	return !containsAll(scopes, sc[0]) && containsAll(scopes, sc[1])
}

// ShortScope trims the common URL prefix for display: gmail.modify.
func ShortScope(s string) string { return strings.TrimPrefix(s, scopePrefix) }

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
