package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckRedirectURI(t *testing.T) {
	cases := map[string]bool{
		"https://claude.ai/api/mcp/auth_callback":               true,
		"https://chatgpt.com/connector_platform_oauth_redirect": true,
		"http://127.0.0.1:33418/":                               true,
		"http://localhost:6274/oauth/callback":                  true,
		"http://[::1]:8080/cb":                                  true,
		"http://example.com/cb":                                 false,
		"http://127.0.0.1.nip.io/cb":                            false,
		"vscode://callback":                                     false,
		"https://app.example.com/cb#frag":                       false,
		"https://user@app.example.com/cb":                       false,
		"javascript:alert(1)":                                   false,
		"":                                                      false,
		// exactly the three loopback hosts docs/oauth.md names
		"http://127.0.0.2/cb":          false,
		"http://[::ffff:127.0.0.1]/cb": false,
		"http://[0:0:0:0:0:0:0:1]/cb":  false,
		"http://LOCALHOST/cb":          false,
		"http://[fe80::1%25lo]/cb":     false,
		"http://127.1/cb":              false,
		"http://2130706433/cb":         false,
		// ports 1 to 65535
		"http://127.0.0.1:1/cb":            true,
		"http://127.0.0.1:65535/cb":        true,
		"http://127.0.0.1:0/cb":            false,
		"http://127.0.0.1:99999/cb":        false,
		"https://app.example.com:0/cb":     false,
		"https://app.example.com:65536/cb": false,
		"https://app.example.com:8443/cb":  true,
		// hosts in ASCII only: a look-alike name is refused, its punycode accepted
		"https://аррӏе.com/cb":                                 false,
		"https://%D0%B0pple.com/cb":                            false,
		"https://xn--80ak6aa92e.com/cb":                        true,
		"https://app.example.com/" + strings.Repeat("a", 1001): false, // 1025 bytes
	}
	for uri, ok := range cases {
		if err := checkRedirectURI(uri); (err == nil) != ok {
			t.Errorf("%q: %v", uri, err)
		}
	}
}

func TestParseCIMD(t *testing.T) {
	id := "https://app.example.com/oauth/client.json"
	cases := []struct {
		name, body, err string
	}{
		{"valid", `{"client_id":"` + id + `","client_name":"App","redirect_uris":["https://app.example.com/cb"]}`, ""},
		{"another client_id", `{"client_id":"https://evil.example.com/c.json","redirect_uris":["https://app.example.com/cb"]}`, "not its own URL"},
		{"a secret method", `{"client_id":"` + id + `","redirect_uris":["https://app.example.com/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "no secret"},
		{"http redirect", `{"client_id":"` + id + `","redirect_uris":["http://app.example.com/cb"]}`, "refused"},
		{"not JSON", `<html>`, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseCIMD(id, []byte(tc.body))
			if tc.err == "" {
				if err != nil || m.Name != "App" || m.AuthMethod != "none" {
					t.Fatalf("%v %+v", err, m)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, want %q", err, tc.err)
			}
		})
	}
}

func TestIsCIMDClientID(t *testing.T) {
	for id, want := range map[string]bool{
		"https://app.example.com/client.json": true, "https://app.example.com": false, "https://app.example.com/": false,
		"http://app.example.com/c.json": false, "dcr-abc": false, "https://app.example.com/c#x": false,
	} {
		if isCIMDClientID(id) != want {
			t.Errorf("%q: want %v", id, want)
		}
	}
}

func TestResolve(t *testing.T) {
	f, err := parseResources("gmail=https://gmail.example.com/mcp, drive=https://drive.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		resources []string
		scopes    []string
		resource  string
		granted   []string
		err       string
	}{
		{"resource and scopes", []string{"https://gmail.example.com/mcp"}, []string{"gmail:read", "openid"}, "https://gmail.example.com/mcp", []string{"gmail:read"}, ""},
		{"a trailing slash", []string{"https://gmail.example.com/mcp/"}, nil, "https://gmail.example.com/mcp", []string{"gmail:read", "gmail:write"}, ""},
		{"scopes alone", nil, []string{"drive:write"}, "https://drive.example.com/mcp", []string{"drive:write"}, ""},
		{"nothing", nil, []string{"openid"}, "", nil, "name the server"},
		{"two servers' scopes", nil, []string{"drive:read", "gmail:read"}, "", nil, "one server"},
		{"a resource drops other servers' scopes", []string{"https://drive.example.com/mcp"}, []string{"gmail:write", "drive:read"}, "https://drive.example.com/mcp", []string{"drive:read"}, ""},
		{"an unknown resource", []string{"https://x.example.com/mcp"}, nil, "", nil, "not one of"},
		{"two resources", []string{"https://gmail.example.com/mcp", "https://drive.example.com/mcp"}, nil, "", nil, "one resource"},
		// The narrowed URLs a URL-only client connects to (/mcp/x/{toolset}, …/readonly) are the
		// server's too, and stay the token's audience.
		{"a narrowed URL", []string{"https://gmail.example.com/mcp/x/read"}, nil, "https://gmail.example.com/mcp/x/read", []string{"gmail:read", "gmail:write"}, ""},
		{"a narrowed read-only URL", []string{"https://gmail.example.com/mcp/x/drafts/readonly"}, []string{"gmail:read"}, "https://gmail.example.com/mcp/x/drafts/readonly", []string{"gmail:read"}, ""},
		// A read-only URL grants the read scope alone, whatever is asked.
		{"the read-only URL", []string{"https://gmail.example.com/mcp/readonly"}, nil, "https://gmail.example.com/mcp/readonly", []string{"gmail:read"}, ""},
		{"the read-only URL asked for write", []string{"https://gmail.example.com/mcp/readonly/"}, []string{"gmail:write"}, "https://gmail.example.com/mcp/readonly", []string{"gmail:read"}, ""},
		{"a narrowed read-only URL asked for both", []string{"https://gmail.example.com/mcp/x/drafts/readonly"}, []string{"gmail:write", "gmail:read"}, "https://gmail.example.com/mcp/x/drafts/readonly", []string{"gmail:read"}, ""},
		{"another path under the server", []string{"https://gmail.example.com/mcp/admin"}, nil, "", nil, "not one of"},
		{"a bad toolset name", []string{"https://gmail.example.com/mcp/x/Read"}, nil, "", nil, "not one of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, granted, err := f.resolve(tc.resources, tc.scopes)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || res != tc.resource || !slices.Equal(granted, tc.granted) {
				t.Fatalf("%q %v %v", res, granted, err)
			}
		})
	}
}

func TestParseResources(t *testing.T) {
	for _, bad := range []string{"", "gmail", "gmail=http://gmail.example.com/mcp", "gmail=https://gmail.example.com", "Gmail=https://g.example.com/mcp",
		"gmail=https://a.example.com/mcp,gmail=https://b.example.com/mcp", "gmail=https://g.example.com/mcp?x=1"} {
		if _, err := parseResources(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	f, err := parseResources("gmail=https://gmail.example.com/mcp,calc=http://127.0.0.1:9003/mcp")
	if err != nil || !slices.Equal(f.scopes(), []string{"calc:read", "calc:write", "gmail:read", "gmail:write"}) {
		t.Errorf("%v %v", f, err)
	}
}

func TestParseConsent(t *testing.T) {
	cases := []struct {
		name  string
		form  url.Values
		allow bool
		err   string
	}{
		{"allow", url.Values{"id": {"a"}, "csrf": {"c"}, "action": {"allow"}, "scope": {"x:read", "x:read", "x:write"}}, true, ""},
		{"deny", url.Values{"id": {"a"}, "csrf": {"c"}, "action": {"deny"}}, false, ""},
		{"no action", url.Values{"id": {"a"}, "csrf": {"c"}}, false, "Allow or Deny"},
		{"no csrf", url.Values{"id": {"a"}, "action": {"allow"}}, false, "incomplete"},
		{"a scope with a space", url.Values{"id": {"a"}, "csrf": {"c"}, "action": {"allow"}, "scope": {"x:read x:write"}}, false, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseConsent(tc.form)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || f.Allow != tc.allow {
				t.Fatalf("%+v %v", f, err)
			}
			if tc.allow && !slices.Equal(f.Scopes, []string{"x:read", "x:write"}) {
				t.Errorf("scopes %v", f.Scopes)
			}
		})
	}
	if _, err := narrow([]string{"x:read"}, []string{"x:write"}); err == nil {
		t.Error("narrow accepted a scope that was not asked for")
	}
}

// FuzzParseCIMD: any document either fails or yields a client whose redirect URIs all pass the
// https-or-loopback rule, with no secret.
func FuzzParseCIMD(f *testing.F) {
	id := "https://app.example.com/c.json"
	f.Add(`{"client_id":"https://app.example.com/c.json","redirect_uris":["https://app.example.com/cb"]}`)
	f.Add(`{"client_id":"https://app.example.com/c.json","redirect_uris":["http://127.0.0.1/cb","http://[::1]:1/x"],"grant_types":["refresh_token"]}`)
	f.Add(`{"client_id":"https://app.example.com/c.json","redirect_uris":["http://10.0.0.1/cb"]}`)
	f.Add(`{"client_id":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		m, err := parseCIMD(id, []byte(body))
		if err != nil {
			return
		}
		if m.AuthMethod != "none" || len(m.RedirectURIs) == 0 {
			t.Fatalf("accepted %+v", m)
		}
		for _, r := range m.RedirectURIs {
			if checkRedirectURI(r) != nil {
				t.Fatalf("accepted redirect %q", r)
			}
		}
	})
}

// FuzzParseRegistration: the same for RFC 7591 requests, and names stay printable.
func FuzzParseRegistration(f *testing.F) {
	f.Add(`{"redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"client_name":"Claude","token_endpoint_auth_method":"none"}`)
	f.Add(`{"redirect_uris":["http://localhost:6274/cb"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`)
	f.Add(`{"redirect_uris":["myapp:/cb"],"client_name":"\u0000"}`)
	f.Fuzz(func(t *testing.T, body string) {
		m, err := parseRegistration([]byte(body))
		if err != nil {
			return
		}
		for _, r := range m.RedirectURIs {
			if checkRedirectURI(r) != nil {
				t.Fatalf("accepted redirect %q", r)
			}
		}
		if !utf8.ValidString(m.Name) && m.Name != "" || strings.ContainsAny(m.Name, "\x00\n\r") {
			t.Fatalf("accepted name %q", m.Name)
		}
		for _, g := range m.GrantTypes {
			if g != "authorization_code" && g != "refresh_token" {
				t.Fatalf("accepted grant %q", g)
			}
		}
	})
}

// FuzzParseConsent: a parsed form always has an id, a CSRF token and well-formed scopes.
func FuzzParseConsent(f *testing.F) {
	f.Add("id=a&csrf=b&action=allow&scope=x%3Aread")
	f.Add("id=a&csrf=b&action=deny")
	f.Add("id=&csrf=b&action=allow&scope=a+b")
	f.Fuzz(func(t *testing.T, raw string) {
		form, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		c, err := parseConsent(form)
		if err != nil {
			return
		}
		if c.ID == "" || c.CSRF == "" || len(c.Scopes) > 16 {
			t.Fatalf("accepted %+v", c)
		}
		for _, s := range c.Scopes {
			if strings.ContainsAny(s, " \t\r\n") {
				t.Fatalf("accepted scope %q", s)
			}
		}
	})
}
