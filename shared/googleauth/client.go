// Package googleauth is the fleet's Google sign-in: the OAuth client from a Google "Desktop app"
// client JSON, a headless-friendly login (paste the redirected URL, or a loopback listener), a
// token store shared by the Google servers that persists every refresh, and the HTTP client that
// Google API calls go through (sign-in, bounded retries, a per-account concurrency limit).
package googleauth

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jck411/mcp-servers/shared/tokenstore"
	"golang.org/x/oauth2"
)

// Google's OAuth endpoints.
const (
	AuthURL   = "https://accounts.google.com/o/oauth2/auth"
	TokenURL  = "https://oauth2.googleapis.com/token"
	RevokeURL = "https://oauth2.googleapis.com/revoke"
)

// clientFile is the JSON the Google Cloud console downloads for an OAuth client.
type clientFile struct {
	Installed *clientSecrets `json:"installed"`
	Web       *clientSecrets `json:"web"`
}

type clientSecrets struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	AuthURI      string `json:"auth_uri"`
	TokenURI     string `json:"token_uri"`
}

// ParseClient reads an OAuth client JSON ("installed", i.e. Desktop app, or "web") into a config
// without scopes or redirect URL.
func ParseClient(data []byte) (*oauth2.Config, error) {
	var f clientFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not an OAuth client JSON: %w", err)
	}
	c := f.Installed
	if c == nil {
		c = f.Web
	}
	if c == nil || c.ClientID == "" {
		return nil, errors.New(`not an OAuth client JSON: no "installed" or "web" client with a client_id (download it from the Google Cloud console: APIs & Services → Credentials → OAuth client, type Desktop app)`)
	}
	conf := &oauth2.Config{
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: AuthURL, TokenURL: TokenURL, AuthStyle: oauth2.AuthStyleInParams},
	}
	if c.AuthURI != "" {
		conf.Endpoint.AuthURL = c.AuthURI
	}
	if c.TokenURI != "" {
		conf.Endpoint.TokenURL = c.TokenURI
	}
	return conf, nil
}

// LoadClient reads the OAuth client JSON at path.
func LoadClient(path string) (*oauth2.Config, error) {
	data, err := tokenstore.ReadSecret(path) // refuses a client file others can read or replace
	if err != nil {
		return nil, fmt.Errorf("read the Google OAuth client: %w", err)
	}
	conf, err := ParseClient(data)
	if err != nil {
		return nil, fmt.Errorf("the Google OAuth client %s: %w", path, err)
	}
	return conf, nil
}
