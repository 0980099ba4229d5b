package oauth

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/config"
	"github.com/jck411/mcp-servers/shared/secretfile"
	"golang.org/x/oauth2"
)

// Provider is what differs between OAuth providers: endpoints, the client file's format, scope
// rules, expiry rules and the words that name the fix. Google and Spotify are its values.
type Provider struct {
	Name string // in messages: "Google"
	ID   string // in flags, variables and paths: "google" → --google-token-file, MCP_GOOGLE_TOKEN_FILE
	Doc  string // the setup guide: "docs/google.md"

	Endpoint    oauth2.Endpoint                                               // authorization and token URLs
	AccountsURL string                                                        // the base of Endpoint that --ID-accounts-url replaces; "" when there is no such flag
	RevokeURL   string                                                        // where logout revokes the grant; "" when the provider has none
	NoRevoke    string                                                        // what logout says when RevokeURL is ""
	ParseClient func(data []byte, ep oauth2.Endpoint) (*oauth2.Config, error) // reads the client file
	ClientHelp  string                                                        // what the client file is, for its flag
	NewClient   string                                                        // how to create a client, one sentence; {port} is the redirect port

	Shared       bool                // one token for several servers, in /var/lib/mcp-servers/ID; else in each server's state folder
	MultiAccount bool                // several accounts can sign in (--account LABEL), each in its own token file beside the default one
	Services     map[string]Scopes   // the scopes each server asks for; a sign-in may cover several
	BaseScopes   []string            // asked by every sign-in
	ShortScope   func(string) string // a scope as status shows it; "" hides it from /healthz

	AuthParams         []oauth2.AuthCodeOption // added to every consent URL
	ShowDialog         string                  // the consent-URL parameter --show-dialog sets; "" for no such flag
	DefaultPort        int                     // the login's redirect port; 0 for any free port
	RedirectRegistered bool                    // the app must list the redirect URI exactly, so the port is fixed

	Lifetime       time.Duration // the provider ends a sign-in this long after consent; 0 when its token answer says when
	ExpiringWithin time.Duration // status turns "expiring" this long before the sign-in ends
	EndsBecause    string        // why a sign-in ends on a date, in the expiring message
	RevokedHint    string        // added to the revoked message

	APIURL  string                                                                           // the provider's API, for Account (--ID-api-url); "" when Account needs none
	Account func(ctx context.Context, hc *http.Client, api string, tok *oauth2.Token) string // names the signed-in account, "" when it cannot

	Concurrent    int                                               // API calls in flight at once by default
	MaxRetryAfter time.Duration                                     // a longer Retry-After is not waited for (retry's default when 0)
	Retryable     func(req *http.Request, resp *http.Response) bool // which answers are retried (retry.DefaultRetryable when nil)
}

// Scopes are the scopes a server asks for with full access and with --read-only.
type Scopes struct {
	Full, ReadOnly []string
}

// WithAccountsURL is p with its endpoints under base instead of AccountsURL (tests point it at a fake).
func (p Provider) WithAccountsURL(base string) *Provider {
	base = strings.TrimSuffix(base, "/")
	p.Endpoint.AuthURL = base + strings.TrimPrefix(p.Endpoint.AuthURL, p.AccountsURL)
	p.Endpoint.TokenURL = base + strings.TrimPrefix(p.Endpoint.TokenURL, p.AccountsURL)
	p.AccountsURL = base
	return &p
}

// env is the variable that names one of p's files: MCP_GOOGLE_TOKEN_FILE.
func (p *Provider) env(what string) string {
	return config.EnvName(p.ID + "-" + what + "-file")
}

// Files are where a sign-in's token and OAuth client are.
type Files struct {
	Token  string
	Client string
}

// Locate decides where server's token and client files are; the server and its auth command
// both call it, so they always agree. Given paths are kept. Otherwise the token is
// $MCP_ID_TOKEN_FILE, else for a shared sign-in /var/lib/mcp-servers/ID/token.json when that
// folder exists, else $XDG_STATE_HOME/mcp-servers/ID/token.json (~/.local/state/… by default);
// for a server's own sign-in token.json in its state folder: stateDir, else $MCP_STATE_DIR,
// else the kit's default (config.DefaultStateDir). The client is $MCP_ID_CLIENT_FILE, else the
// systemd credential $CREDENTIALS_DIRECTORY/ID_client.json, else
// /etc/mcp-servers/credentials/ID/client.json, when they exist, else client.json beside the token.
func (p *Provider) Locate(server string, f Files, stateDir string, getenv func(string) string) Files {
	if getenv == nil { // a configuration built by hand, not by config.Parse: no environment
		getenv = func(string) string { return "" }
	}
	if f.Token == "" {
		f.Token = getenv(p.env("token"))
	}
	if f.Token == "" {
		f.Token = filepath.Join(p.tokenDir(server, stateDir, getenv), "token.json")
	}
	if f.Client == "" {
		f.Client = getenv(p.env("client"))
	}
	if f.Client == "" {
		f.Client = filepath.Join(filepath.Dir(f.Token), "client.json")
		hostFile := filepath.Join("/etc/mcp-servers/credentials", p.ID, "client.json")
		candidates := []string{hostFile}
		if d := getenv("CREDENTIALS_DIRECTORY"); d != "" {
			candidates = slices.Insert(candidates, 0, filepath.Join(d, p.ID+"_client.json"))
			// Under a unit that loads credentials, the file belongs where the unit loads it
			// from (deploy/systemd), so a missing client names that file, not one beside the token.
			f.Client = hostFile
		}
		for _, c := range candidates {
			if _, err := os.Stat(c); err == nil {
				f.Client = c
				break
			}
		}
	}
	return f
}

func (p *Provider) tokenDir(server, stateDir string, getenv func(string) string) string {
	if !p.Shared {
		if stateDir == "" {
			stateDir = getenv(config.EnvName("state-dir"))
		}
		if stateDir == "" {
			stateDir = config.DefaultStateDir(server, getenv)
		}
		return stateDir
	}
	if sys := filepath.Join("/var/lib/mcp-servers", p.ID); isDir(sys) {
		return sys
	}
	state := getenv("XDG_STATE_HOME")
	if state == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "mcp-servers", p.ID)
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// loadClient reads the OAuth client file at path, after checking that nobody else can read or
// replace it.
func (p *Provider) loadClient(path string) (*oauth2.Config, error) {
	data, err := secretfile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingClientError{Provider: p.Name, Path: path, Flag: "--" + p.ID + "-client-file", Env: p.env("client"), Doc: p.Doc}
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s OAuth client: %w", p.Name, err)
	}
	conf, err := p.ParseClient(data, p.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("the %s OAuth client %s: %w", p.Name, path, err)
	}
	conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	return conf, nil
}

// MissingClientError says that there is no OAuth client file (or no folder for it) where the
// server looks: the first thing to fix, since no sign-in can be made without a client.
type MissingClientError struct {
	Provider  string // "Google"
	Path      string // where the file was looked for
	Flag, Env string // the flag and environment variable that name another file
	Doc       string // the setup guide
}

func (e *MissingClientError) Error() string {
	if strings.HasPrefix(e.Path, "/etc/mcp-servers/credentials/") {
		// A systemd credential: the unit reads it when it starts.
		return fmt.Sprintf("no %s OAuth client file at %s: save the client JSON there and restart the server (deploy.sh --restart), or name another file with %s or $%s (%s, section 1)",
			e.Provider, e.Path, e.Flag, e.Env, e.Doc)
	}
	return fmt.Sprintf("no %s OAuth client file at %s: save the client JSON there, or name another file with %s or $%s (%s, section 1)",
		e.Provider, e.Path, e.Flag, e.Env, e.Doc)
}

// Unwrap makes the error an fs.ErrNotExist.
func (e *MissingClientError) Unwrap() error { return fs.ErrNotExist }

// scopesFor returns the scopes a sign-in for services asks (with BaseScopes, sorted, once each).
func (p *Provider) scopesFor(services []string, readOnly bool) ([]string, error) {
	set := slices.Clone(p.BaseScopes)
	for _, s := range services {
		sc, ok := p.Services[s]
		if !ok {
			return nil, fmt.Errorf("unknown service %q; give any of %s", s, strings.Join(p.serviceNames(), ","))
		}
		if readOnly {
			set = append(set, sc.ReadOnly...)
		} else {
			set = append(set, sc.Full...)
		}
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}

// servicesOf returns the services whose full or read-only scopes are all among scopes.
func (p *Provider) servicesOf(scopes []string) []string {
	var out []string
	for _, name := range p.serviceNames() {
		if p.covers(scopes, name, true) {
			out = append(out, name)
		}
	}
	return out
}

// covers reports whether scopes grant service its full scopes, or with readOnly its read-only ones.
func (p *Provider) covers(scopes []string, service string, readOnly bool) bool {
	sc, ok := p.Services[service]
	return ok && (containsAll(scopes, sc.Full) || readOnly && containsAll(scopes, sc.ReadOnly))
}

func (p *Provider) serviceNames() []string {
	return slices.Sorted(maps.Keys(p.Services))
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// Grants reports whether a sign-in's scopes grant service its full scopes, or with readOnly its
// read-only ones (a server that also calls another service's API checks it this way).
func (p *Provider) Grants(scopes []string, service string, readOnly bool) bool {
	return p.covers(scopes, service, readOnly)
}

// ServicesOf lists the services whose scopes (full or read-only) are all among scopes, sorted.
func (p *Provider) ServicesOf(scopes []string) []string { return p.servicesOf(scopes) }
