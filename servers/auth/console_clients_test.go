package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jck411/mcp-servers/shared/clientconfig"
)

// withLAN gives the console the LAN address clients use.
func withLAN(base string) envOption {
	return func(s *settings) { s.ConsoleLAN = base }
}

type clientsAnswer struct {
	Networks []clientNetwork `json:"networks"`
}

func (e *fleetEnv) clientsJSON(t *testing.T, cookie string) map[string]clientNetwork {
	t.Helper()
	status, body, _ := e.consoleReq(t, http.MethodGet, consoleClientsAPIPath, cookie, nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", consoleClientsAPIPath, status, body)
	}
	var a clientsAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("%s: %v\n%s", consoleClientsAPIPath, err, body)
	}
	m := map[string]clientNetwork{}
	for _, n := range a.Networks {
		m[n.ID] = n
	}
	return m
}

func port(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// TestConsoleClients: the Clients page, its downloads and its JSON offer every client's file
// for the LAN (token references) and the tunnel (OAuth), as clientconfig writes them, with no
// secret; the tunnel file's URL is the one an OAuth token for the server is good at.
func TestConsoleClients(t *testing.T) {
	e := startFleet(t, withConsole(t), withLAN("http://192.168.1.110"))
	cookie := e.consoleSession(t)
	nets := e.clientsJSON(t, cookie)

	gamma := e.app.console.servers[2].client.Base
	wantServers := map[string][]clientconfig.Server{
		"lan": {{Name: "alpha", URL: "http://192.168.1.110:" + port(t, e.Alpha) + "/mcp"}, {Name: "beta", URL: "http://192.168.1.110:" + port(t, e.Beta) + "/mcp"},
			{Name: "gamma", URL: "http://192.168.1.110:" + port(t, gamma) + "/mcp"}},
		"tunnel": {{Name: "alpha", URL: e.Alpha + "/mcp"}, {Name: "beta", URL: e.Beta + "/mcp"}},
	}
	wantAuth := map[string]clientconfig.Auth{"lan": clientconfig.TokenRef, "tunnel": clientconfig.OAuth}
	for id, servers := range wantServers {
		n := nets[id]
		if n.Unavailable != "" || n.Auth != wantAuth[id] || !slices.Equal(n.Servers, servers) {
			t.Errorf("%s: auth %q servers %v (%s), want %q %v", id, n.Auth, n.Servers, n.Unavailable, wantAuth[id], servers)
		}
		var clients []string
		for _, f := range n.Files {
			clients = append(clients, f.ID)
			want, err := clientconfig.Generate(f.ID, servers, wantAuth[id])
			if id == "lan" && f.ID == "claude-desktop" {
				if f.Unavailable == "" || f.Config != nil || f.Download != "" {
					t.Errorf("lan claude-desktop: %+v, want it not offered (it would need the token in the file)", f)
				}
				continue
			}
			if err != nil || f.Unavailable != "" {
				t.Fatalf("%s %s: %v %s", id, f.ID, err, f.Unavailable)
			}
			if !jsonEqual(t, f.Config, want) {
				t.Errorf("%s %s: JSON has\n%s\nwant\n%s", id, f.ID, f.Config, want)
			}
			// The download is the same file, as an attachment.
			req, _ := http.NewRequest(http.MethodGet, e.Issuer+f.Download, nil)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
			resp, err := e.noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var got json.RawMessage
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || err != nil || !jsonEqual(t, got, want) {
				t.Errorf("download %s: %d %v %s", f.Download, resp.StatusCode, err, got)
			}
			if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="`+f.ID+"-"+id+`.json"` {
				t.Errorf("download %s: Content-Disposition %q", f.Download, cd)
			}
		}
		if want := []string{"claude-code", "vscode", "claude-desktop", "cursor", "generic"}; !slices.Equal(clients, want) {
			t.Errorf("%s offers %v, want %v", id, clients, want)
		}
	}

	// No secret anywhere: not the console token, and every Authorization header only names
	// where the client finds its token.
	status, page, _ := e.consoleReq(t, http.MethodGet, consoleClientsPath, cookie, nil, nil)
	_, api, _ := e.consoleReq(t, http.MethodGet, consoleClientsAPIPath, cookie, nil, nil)
	if status != http.StatusOK || !strings.Contains(page, `id="download-tunnel-claude-code"`) || !strings.Contains(page, `id="download-lan-vscode"`) {
		t.Errorf("clients page: %d\n%s", status, page)
	}
	for name, body := range map[string]string{"page": page, "JSON": api} {
		if strings.Contains(body, consoleToken) {
			t.Errorf("the %s shows the console token", name)
		}
		found := bearerRE.FindAllStringSubmatch(body, -1)
		if len(found) == 0 {
			t.Errorf("the %s has no Authorization header: the LAN files should name their tokens", name)
		}
		for _, m := range found {
			if !strings.HasPrefix(m[1], "${") {
				t.Errorf("the %s holds a bearer value %q, not a reference", name, m[1])
			}
		}
	}

	// The tunnel file's URL leads an OAuth client to sign in (a 401 naming the server's
	// resource metadata), and a token for that server works there.
	var cc struct {
		MCPServers map[string]struct {
			URL string `json:"url"`
		} `json:"mcpServers"`
	}
	for _, f := range nets["tunnel"].Files {
		if f.ID == "claude-code" {
			if err := json.Unmarshal(f.Config, &cc); err != nil {
				t.Fatal(err)
			}
		}
	}
	u := cc.MCPServers["alpha"].URL
	resp, err := http.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("POST %s without a token: %d %q, want 401 naming the resource metadata", u, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	access, _ := e.tokenFor(t, "alpha", strings.TrimSuffix(u, "/mcp"))
	if tools := listTools(t, strings.TrimSuffix(u, "/mcp"), access); len(tools) == 0 {
		t.Errorf("tools/list at %s with alpha's token: none", u)
	}

	for _, q := range []string{"network=wan&client=vscode", "network=lan&client=emacs", "network=lan&client=claude-desktop", ""} {
		if status, body, _ := e.consoleReq(t, http.MethodGet, consoleClientsDownloadPath+"?"+q, cookie, nil, nil); status != http.StatusNotFound || !strings.Contains(body, "error") {
			t.Errorf("download ?%s: %d %s, want 404 with the reason", q, status, body)
		}
	}
}

// TestConsoleClientsWithoutLAN: without --console-lan-url the LAN says how to add it and the
// tunnel's files are still there.
func TestConsoleClientsWithoutLAN(t *testing.T) {
	e := startFleet(t, withConsole(t))
	nets := e.clientsJSON(t, e.consoleSession(t))
	if n := nets["lan"]; !strings.Contains(n.Unavailable, "--console-lan-url") || n.Files != nil {
		t.Errorf("lan without --console-lan-url: %+v", n)
	}
	if n := nets["tunnel"]; len(n.Files) != len(clientconfig.Clients) {
		t.Errorf("tunnel: %+v", n)
	}
}

func TestParseLAN(t *testing.T) {
	for raw, want := range map[string]string{"": "", "http://192.168.1.110": "http://192.168.1.110", "https://lan.example/": "https://lan.example"} {
		if got, err := parseLAN(raw); err != nil || got != want {
			t.Errorf("parseLAN(%q) = %q, %v, want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"192.168.1.110", "http://192.168.1.110:9003", "http://h/mcp", "ftp://h", "http://u@h", "http://h?x=1"} {
		if _, err := parseLAN(raw); err == nil || !strings.Contains(err.Error(), "--console-lan-url") {
			t.Errorf("parseLAN(%q): %v, want an error naming the flag", raw, err)
		}
	}
	args := []string{"--issuer", "http://localhost:9002", "--resources", "a=http://127.0.0.1:1/mcp", "--console-lan-url", "http://192.168.1.110"}
	if _, err := parseServe(args, func(string) string { return "" }, io.Discard); err == nil || !strings.Contains(err.Error(), "needs the console") {
		t.Errorf("--console-lan-url without the console: %v", err)
	}
}

// bearerRE finds the value of an Authorization header in JSON or in the page's escaped JSON.
var bearerRE = regexp.MustCompile(`Authorization(?:"|&#34;):\s*(?:"|&#34;)Bearer ([^"&]+)`)

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
