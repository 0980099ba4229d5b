package main

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/jck411/mcp-servers/shared/config"
)

// fleet is the set of MCP servers tokens may be issued for: name → resource URL (the server's
// PUBLIC-URL/mcp). Each server's scopes are NAME:read and NAME:write.
type fleet struct {
	byName map[string]string
	names  []string // sorted
	// door is the front door's resource (ISSUER/mcp) when it is on, and doorNames the servers
	// it routes to (sorted): a token for the door carries the scopes of several of them.
	door      string
	doorNames []string
}

var serverName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// parseResources reads --resources: comma-separated NAME=URL pairs, each URL an https (or
// loopback http) URL ending in /mcp.
func parseResources(s string) (*fleet, error) {
	f := &fleet{byName: map[string]string{}}
	for _, item := range config.SplitList(s) {
		name, raw, ok := strings.Cut(item, "=")
		if !ok || !serverName.MatchString(name) {
			return nil, fmt.Errorf("invalid --resources entry %q: give NAME=URL, e.g. gmail=https://gmail.example.com/mcp", item)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid --resources URL %q for %s: %w", raw, name, err)
		}
		secure := u.Scheme == "https" || (u.Scheme == "http" && config.IsLoopback(u.Hostname()))
		if !secure || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || !strings.HasSuffix(u.Path, "/mcp") {
			return nil, fmt.Errorf("invalid --resources URL %q for %s: give the server's https URL ending in /mcp, e.g. https://%s.example.com/mcp", raw, name, name)
		}
		if _, dup := f.byName[name]; dup {
			return nil, fmt.Errorf("--resources names %s twice", name)
		}
		f.byName[name] = raw
		f.names = append(f.names, name)
	}
	if len(f.byName) == 0 {
		return nil, errors.New("--resources is required: the fleet's MCP URLs, e.g. gmail=https://gmail.example.com/mcp,drive=https://drive.example.com/mcp")
	}
	slices.Sort(f.names)
	return f, nil
}

// narrowed matches what follows a server's URL in one of its narrowed URLs (RFC 9728 path-derived
// resources a URL-only client may name): /readonly, /x/{toolset} and /x/{toolset}/readonly.
var narrowed = regexp.MustCompile(`^/(readonly|x/[a-z][a-z0-9_]{0,31}(/readonly)?)$`)

// server returns the name of the server whose resource URL is res, or one of its narrowed URLs
// (a trailing slash tolerated).
func (f *fleet) server(res string) (string, bool) {
	res = strings.TrimSuffix(res, "/")
	for name, u := range f.byName {
		if u == res || (strings.HasPrefix(res, u) && narrowed.MatchString(res[len(u):])) {
			return name, true
		}
	}
	return "", false
}

// readOnlyResource reports whether a resource (one f.server accepted) is a read-only URL:
// /mcp/readonly or /mcp/x/{toolset}/readonly.
func readOnlyResource(res string) bool {
	return strings.HasSuffix(strings.TrimSuffix(res, "/"), "/readonly")
}

// scopes lists every scope the fleet knows, for the metadata.
func (f *fleet) scopes() []string {
	var out []string
	for _, n := range f.names {
		out = append(out, n+":read", n+":write")
	}
	return out
}

// scopeServer returns the server a scope NAME:read or NAME:write belongs to.
func (f *fleet) scopeServer(scope string) (string, bool) {
	name, level, ok := strings.Cut(scope, ":")
	if !ok || (level != "read" && level != "write") {
		return "", false
	}
	_, known := f.byName[name]
	return name, known
}

// resolve decides the one resource and the scopes of an authorization request: resource is
// the RFC 8707 parameter (may be empty when the scopes name exactly one server). With a
// resource, scopes of other servers are dropped (a client may ask for every scope the
// metadata lists); without one, scopes of two servers are an error. Scopes that are not the
// fleet's (openid, offline_access, profile) are dropped; with none left, both of the server's
// scopes are asked.
func (f *fleet) resolve(resources []string, scopes []string) (resource string, granted []string, err error) {
	if len(resources) > 1 {
		return "", nil, errors.New("give one resource: a token is for one server")
	}
	if len(resources) == 1 && f.isDoor(resources[0]) {
		return f.resolveDoor(resources[0], scopes)
	}
	var name string
	explicit := len(resources) == 1
	if explicit {
		var ok bool
		if name, ok = f.server(resources[0]); !ok {
			return "", nil, fmt.Errorf("resource %q is not one of this fleet's servers", resources[0])
		}
	}
	for _, s := range scopes {
		srv, ok := f.scopeServer(s)
		if !ok {
			continue
		}
		if name == "" {
			name = srv
		}
		if srv != name && explicit {
			continue
		}
		if srv != name {
			return "", nil, fmt.Errorf("scope %q is for another server than %s: a token is for one server, ask for each separately", s, name)
		}
		if !slices.Contains(granted, s) {
			granted = append(granted, s)
		}
	}
	if name == "" {
		return "", nil, errors.New("name the server: give resource=<its MCP URL> or its scopes (NAME:read, NAME:write)")
	}
	readOnly := explicit && readOnlyResource(resources[0])
	if readOnly {
		// A read-only URL offers no tool that changes anything: its tokens, and the consent
		// that makes them, carry the read scope alone, so such a token cannot call a write
		// tool anywhere, whatever it was asked for.
		granted = slices.DeleteFunc(granted, func(s string) bool { return s != name+":read" })
	}
	if len(granted) == 0 {
		granted = []string{name + ":read", name + ":write"}
		if readOnly {
			granted = granted[:1]
		}
	}
	slices.Sort(granted)
	if explicit {
		// A narrowed URL stays the token's audience: the token works there and at the URLs that
		// narrow it further, never at the server's whole endpoint.
		return strings.TrimSuffix(resources[0], "/"), granted, nil
	}
	return f.byName[name], granted, nil
}

// isDoor reports whether res is the front door's resource or one of its narrowed URLs.
func (f *fleet) isDoor(res string) bool {
	if f.door == "" {
		return false
	}
	res = strings.TrimSuffix(res, "/")
	return res == f.door || (strings.HasPrefix(res, f.door) && narrowed.MatchString(res[len(f.door):]))
}

// doorScope reports whether a scope is one of the servers' the front door routes to.
func (f *fleet) doorScope(s string) bool {
	name, ok := f.scopeServer(s)
	return ok && slices.Contains(f.doorNames, name)
}

// resolveDoor decides the scopes of an authorization request for the front door: any scopes
// of the servers it routes to (none asked: every one of them, read and write), which the owner
// narrows at consent to the servers the app may use. A URL narrowed to one server
// (/mcp/x/NAME) takes only that server's scopes; a read-only URL only read scopes.
func (f *fleet) resolveDoor(res string, scopes []string) (string, []string, error) {
	res = strings.TrimSuffix(res, "/")
	only := ""
	if rest, ok := strings.CutPrefix(res, f.door+"/x/"); ok {
		if n, _, _ := strings.Cut(rest, "/"); slices.Contains(f.doorNames, n) {
			only = n
		}
	}
	keep := func(s string) bool {
		if !f.doorScope(s) || (readOnlyResource(res) && !strings.HasSuffix(s, ":read")) {
			return false
		}
		n, _, _ := strings.Cut(s, ":")
		return only == "" || n == only
	}
	var granted []string
	for _, s := range scopes {
		if keep(s) && !slices.Contains(granted, s) {
			granted = append(granted, s)
		}
	}
	if len(granted) == 0 {
		for _, n := range f.doorNames {
			for _, s := range []string{n + ":read", n + ":write"} {
				if keep(s) {
					granted = append(granted, s)
				}
			}
		}
	}
	if len(granted) == 0 {
		return "", nil, fmt.Errorf("resource %q offers no server of this fleet", res)
	}
	slices.Sort(granted)
	return res, granted, nil
}
