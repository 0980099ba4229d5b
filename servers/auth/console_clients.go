package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/jck411/mcp-servers/shared/clientconfig"
)

// Paths of the console's client configurations.
const (
	consoleClientsPath         = "/console/clients"
	consoleClientsDownloadPath = "/console/clients/download"
	consoleClientsAPIPath      = "/console/api/clients"
)

// clientNetwork is one way clients reach the fleet (the LAN or the tunnel) and the
// configuration of every client for it.
type clientNetwork struct {
	ID          string                `json:"network"` // lan or tunnel
	Title       string                `json:"title"`
	Auth        clientconfig.Auth     `json:"auth,omitempty"`
	Servers     []clientconfig.Server `json:"servers,omitempty"`
	Unavailable string                `json:"unavailable,omitempty"` // why the console offers none
	Files       []clientFile          `json:"configs,omitempty"`
}

// clientFile is one client's configuration file for a network, or why there is none.
type clientFile struct {
	clientconfig.Client
	Download    string          `json:"download,omitempty"` // the console's URL of the file
	Config      json.RawMessage `json:"config,omitempty"`
	Unavailable string          `json:"unavailable,omitempty"`
}

// Text is the file as the page shows it.
func (f clientFile) Text() string { return string(f.Config) }

// parseLAN reads --console-lan-url: the scheme and host LAN clients use, without port or path.
func parseLAN(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Port() != "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("invalid --console-lan-url %q: give the scheme and host LAN clients reach the servers at, without port or path, e.g. http://192.168.1.110", raw)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

// clientNetworks are the LAN's and the tunnel's configurations. The LAN's reach each managed
// server at --console-lan-url and the port of its --console-servers URL, with bearer tokens
// the clients read from references; the tunnel's reach each server of --resources with OAuth.
// Neither holds a secret.
func (c *console) clientNetworks() []clientNetwork {
	lan := clientNetwork{ID: "lan", Title: "LAN", Auth: clientconfig.TokenRef}
	if c.lan == "" {
		lan.Auth = ""
		lan.Unavailable = "The console does not know the address LAN clients use: start the auth server with --console-lan-url http://LAN-ADDRESS (MCP_CONSOLE_LAN_URL)."
	} else {
		for _, s := range c.servers {
			u, err := url.Parse(s.client.Base)
			if err != nil {
				continue // parseConsoleServers checked it
			}
			base := c.lan
			if p := u.Port(); p != "" {
				base += ":" + p
			}
			lan.Servers = append(lan.Servers, clientconfig.Server{Name: s.Name, URL: base + "/mcp"})
		}
	}
	tunnel := clientNetwork{ID: "tunnel", Title: "Tunnel", Auth: clientconfig.OAuth}
	if c.resources != nil {
		for _, name := range c.resources.names {
			tunnel.Servers = append(tunnel.Servers, clientconfig.Server{Name: name, URL: c.resources.byName[name]})
		}
	}
	nets := []clientNetwork{lan, tunnel}
	for i := range nets {
		n := &nets[i]
		if n.Unavailable != "" {
			continue
		}
		for _, cl := range clientconfig.Clients {
			f := clientFile{Client: cl}
			b, err := clientconfig.Generate(cl.ID, n.Servers, n.Auth)
			if err != nil {
				f.Unavailable = err.Error()
			} else {
				f.Config = b
				f.Download = consoleClientsDownloadPath + "?" + url.Values{"network": {n.ID}, "client": {cl.ID}}.Encode()
			}
			n.Files = append(n.Files, f)
		}
	}
	return nets
}

// clientFileFor finds one network's file of one client.
func (c *console) clientFileFor(network, client string) (clientFile, error) {
	for _, n := range c.clientNetworks() {
		if n.ID != network {
			continue
		}
		if n.Unavailable != "" {
			return clientFile{}, errors.New(n.Unavailable)
		}
		for _, f := range n.Files {
			if f.ID == client {
				if f.Unavailable != "" {
					return clientFile{}, errors.New(f.Unavailable)
				}
				return f, nil
			}
		}
		return clientFile{}, fmt.Errorf("no client %q: give one of claude-code, vscode, claude-desktop, cursor, generic", client)
	}
	return clientFile{}, fmt.Errorf("no network %q: give lan or tunnel", network)
}

// clientsPage shows every client's configuration for the LAN and the tunnel, each with a link
// that downloads it.
func (cu *consoleUI) clientsPage(w http.ResponseWriter, _ *http.Request, o *owner) {
	cu.show(w, http.StatusOK, consoleData{Page: "clients", Title: "Clients", Owner: o, Networks: cu.c.clientNetworks()})
}

// clientsDownload sends one configuration file as an attachment: ?network=lan|tunnel&client=ID.
func (cu *consoleUI) clientsDownload(w http.ResponseWriter, r *http.Request, _ *owner) {
	q := r.URL.Query()
	f, err := cu.c.clientFileFor(q.Get("network"), q.Get("client"))
	if err != nil {
		jsonError(w, http.StatusNotFound, err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// The file's own name starts with a dot for some clients, which browsers rename; the page
	// says where each file goes.
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.json"`, f.ID, q.Get("network")))
	_, _ = w.Write(f.Config)
}

// clientsJSON answers every configuration for scripts: the same as the page, in JSON.
func (cu *consoleUI) clientsJSON(w http.ResponseWriter, _ *http.Request, _ *owner) {
	writeJSON(w, map[string]any{"networks": cu.c.clientNetworks()})
}
