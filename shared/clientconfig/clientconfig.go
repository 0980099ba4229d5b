// Package clientconfig writes the configuration files MCP clients read to reach the fleet's
// servers over HTTP (Claude Code, VS Code, Cursor, Claude Desktop and a generic client), in
// the shapes scripts/gen-client-config.sh writes. It never writes a secret: a server is
// reached with OAuth (the client signs in itself) or with a bearer token the client takes
// from a reference it expands (an environment variable or a password prompt).
package clientconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Auth is how the clients authenticate to the servers.
type Auth string

const (
	// OAuth: no header; each server's 401 leads the client to the fleet's authorization server.
	OAuth Auth = "oauth"
	// TokenRef: an Authorization header that names the token rather than holding it:
	// ${MCP_TOKEN_<ID>} (Claude Code), ${env:MCP_TOKEN_<ID>} (Cursor), a password prompt (VS
	// Code), as gen-client-config.sh --token-env writes.
	TokenRef Auth = "token-ref"
)

// Server is one MCP server a client connects to: its fleet name and its MCP URL.
type Server struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Client is one kind of client: its id (gen-client-config.sh's --client), name and the file
// it reads.
type Client struct {
	ID   string `json:"client"`
	Name string `json:"name"`
	File string `json:"file"`
}

// Clients are the clients this package writes for, in the order a page shows them.
var Clients = []Client{
	{ID: "claude-code", Name: "Claude Code", File: ".mcp.json"},
	{ID: "vscode", Name: "VS Code", File: ".vscode/mcp.json"},
	{ID: "claude-desktop", Name: "Claude Desktop", File: "claude_desktop_config.json"},
	{ID: "cursor", Name: "Cursor", File: ".cursor/mcp.json"},
	{ID: "generic", Name: "Any MCP client", File: "mcp-servers.json"},
}

// ErrNeedsLiteral is returned for a client that cannot expand a reference to a token (Claude
// Desktop): its file would have to hold the token itself.
var ErrNeedsLiteral = errors.New("this client does not expand references, so its file would have to hold the token itself; run scripts/gen-client-config.sh --token-label LABEL on the host to write it there, or reach the servers with OAuth (through the tunnel)")

// Lookup returns the client with that id.
func Lookup(id string) (Client, bool) {
	for _, c := range Clients {
		if c.ID == id {
			return c, true
		}
	}
	return Client{}, false
}

// Generate returns the configuration file of the client with that id for the servers, indented
// JSON ending in a newline.
func Generate(id string, servers []Server, auth Auth) ([]byte, error) {
	if auth != OAuth && auth != TokenRef {
		return nil, fmt.Errorf("unknown auth %q: use %q or %q", auth, OAuth, TokenRef)
	}
	if len(servers) == 0 {
		return nil, errors.New("no server to configure")
	}
	var v any
	switch id {
	case "claude-code":
		v = map[string]any{"mcpServers": entries(servers, func(s Server) map[string]any {
			return withHeaders(map[string]any{"type": "http", "url": s.URL}, auth, "${"+TokenEnv(s.Name)+"}")
		})}
	case "vscode":
		v = vscode(servers, auth)
	case "cursor":
		v = map[string]any{"mcpServers": entries(servers, func(s Server) map[string]any {
			return withHeaders(map[string]any{"url": s.URL}, auth, "${env:"+TokenEnv(s.Name)+"}")
		})}
	case "claude-desktop":
		if auth != OAuth {
			return nil, ErrNeedsLiteral
		}
		v = map[string]any{"mcpServers": entries(servers, desktop)}
	case "generic":
		v = generic(servers, auth)
	default:
		return nil, fmt.Errorf("unknown client %q: use one of %s", id, ids())
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the %s configuration: %w", id, err)
	}
	return append(b, '\n'), nil
}

// TokenEnv is the environment variable a client reads the server's token from, as
// gen-client-config.sh names it: MCP_TOKEN_CALCULATOR.
func TokenEnv(server string) string {
	return "MCP_TOKEN_" + strings.ReplaceAll(strings.ToUpper(server), "-", "_")
}

func entries(servers []Server, entry func(Server) map[string]any) map[string]any {
	m := make(map[string]any, len(servers))
	for _, s := range servers {
		m[s.Name] = entry(s)
	}
	return m
}

// withHeaders adds the Authorization header that names the token by ref, for TokenRef.
func withHeaders(e map[string]any, auth Auth, ref string) map[string]any {
	if auth == TokenRef {
		e["headers"] = map[string]string{"Authorization": "Bearer " + ref}
	}
	return e
}

// vscode asks for each token with a password prompt: VS Code keeps the answer in its secret
// storage, not in the file.
func vscode(servers []Server, auth Auth) map[string]any {
	v := map[string]any{"servers": entries(servers, func(s Server) map[string]any {
		return withHeaders(map[string]any{"type": "http", "url": s.URL}, auth, "${input:mcp-token-"+s.Name+"}")
	})}
	if auth == TokenRef {
		inputs := make([]map[string]any, 0, len(servers))
		for _, s := range servers {
			inputs = append(inputs, map[string]any{"type": "promptString", "id": "mcp-token-" + s.Name,
				"description": "Bearer token for the " + s.Name + " MCP server", "password": true})
		}
		v["inputs"] = inputs
	}
	return v
}

// desktop bridges Claude Desktop, which starts local servers only, to the HTTP server through
// mcp-remote (Node's npx), which runs the OAuth sign-in itself.
func desktop(s Server) map[string]any {
	args := []string{"-y", "mcp-remote", s.URL}
	if strings.HasPrefix(s.URL, "http://") {
		args = append(args, "--allow-http")
	}
	return map[string]any{"command": "npx", "args": args}
}

// generic describes each server for a client whose format is none of the above: the MCP URL,
// the transport and how to authenticate.
func generic(servers []Server, auth Auth) map[string]any {
	list := make([]map[string]any, 0, len(servers))
	for _, s := range servers {
		e := map[string]any{"name": s.Name, "url": s.URL, "transport": "streamable-http"}
		if auth == OAuth {
			e["auth"] = "oauth"
		} else {
			e["auth"] = "bearer"
			e["token_env"] = TokenEnv(s.Name)
		}
		list = append(list, e)
	}
	return map[string]any{"servers": list}
}

func ids() string {
	s := make([]string, len(Clients))
	for i, c := range Clients {
		s[i] = c.ID
	}
	return strings.Join(s, ", ")
}
